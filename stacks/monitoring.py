"""Alarms beyond the per-function error alarms, and where alarms notify."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cloudwatch_actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from kafka_lineage.observability import METRICS_NAMESPACE, SERVICE

# What the handlers publish with Powertools Metrics (EMF in their logs, so no cloudwatch:PutMetricData):
# namespace and `service` dimension from kafka_lineage.observability; schema-sync publishes SchemasFailed
# and EventsFailed (kafka_lineage/sync/run.py), lineage LineageFailed (kafka_lineage/lineage/run.py).
METRICS_SERVICE = SERVICE
FAILED_ITEM_METRICS = ("SchemasFailed", "EventsFailed", "LineageFailed")


class Monitoring(Construct):
    """The failed-items alarm, the failure-queue alarm and the alarm topic (if any)."""

    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        failure_queue: sqs.IQueue,
        alarm_email: str | None,
        alarm_topic_arn: str | None,
    ) -> None:
        super().__init__(scope, construct_id)
        self.topic: sns.ITopic | None = None
        if alarm_topic_arn:
            self.topic = sns.Topic.from_topic_arn(self, "AlarmTopic", alarm_topic_arn)
        elif alarm_email:
            # A customer-managed key: CloudWatch cannot publish to a topic under the AWS-managed SNS key.
            key = kms.Key(
                self,
                "AlarmTopicKey",
                enable_key_rotation=True,
                description="kafka-lineage alarm topic encryption",
                removal_policy=cdk.RemovalPolicy.DESTROY,
            )
            key.add_to_resource_policy(
                iam.PolicyStatement(
                    principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
                    # SNS encrypts each message under a data key from GenerateDataKey (named: no wildcards).
                    actions=["kms:Decrypt", "kms:GenerateDataKey"],
                    resources=["*"],  # a key policy's resource is always the key itself
                )
            )
            topic = sns.Topic(
                self, "AlarmTopic", master_key=key, enforce_ssl=True, display_name="kafka-lineage"
            )
            topic.add_subscription(subscriptions.EmailSubscription(alarm_email))
            self.topic = topic

        metrics = {
            f"m{index}": cloudwatch.Metric(
                namespace=METRICS_NAMESPACE,
                metric_name=name,
                dimensions_map={"service": METRICS_SERVICE},
                statistic="Sum",
                period=cdk.Duration.minutes(5),
            )
            for index, name in enumerate(FAILED_ITEM_METRICS, start=1)
        }
        self.failed_items_alarm = cloudwatch.Alarm(
            self,
            "FailedItemsAlarm",
            alarm_description="Schemas, topics or events failed in a run (the summary is in the error log)",
            metric=cloudwatch.MathExpression(
                expression="+".join(f"FILL({key},0)" for key in metrics),
                using_metrics=metrics,
                label="failed items",
                period=cdk.Duration.minutes(5),
            ),
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        self.failure_queue_alarm = cloudwatch.Alarm(
            self,
            "FailureQueueAlarm",
            alarm_description="Invocations gave up after their retries; the events wait in the failure queue",
            metric=failure_queue.metric_approximate_number_of_messages_visible(
                period=cdk.Duration.minutes(5), statistic="Maximum"
            ),
            threshold=1,
            evaluation_periods=1,
            comparison_operator=cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            treat_missing_data=cloudwatch.TreatMissingData.NOT_BREACHING,
        )
        self.alarms: list[cloudwatch.Alarm] = [self.failed_items_alarm, self.failure_queue_alarm]

    def notify(self, *alarms: cloudwatch.Alarm) -> None:
        """Send every alarm (these and the functions') to the topic, when there is one."""
        if self.topic is None:
            return
        action = cloudwatch_actions.SnsAction(self.topic)
        for alarm in (*self.alarms, *alarms):
            alarm.add_alarm_action(action)
