"""Alarms beyond the per-function error alarms, and where alarms notify."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
import jsii
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_cloudwatch_actions as cloudwatch_actions
from aws_cdk import aws_events as events
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from aws_cdk.interfaces.aws_events import IRuleRef
from constructs import Construct

from kafka_lineage.model.metrics import (
    BREAKING_DRIFT,
    FAILED_ITEMS,
    FAILURE_QUEUE,
    GRANTS_FAILED_ALARM,
    GRANTS_STUCK_ALARM,
    Alarm,
)
from kafka_lineage.model.service import METRICS_NAMESPACE, SERVICE

# What the handlers publish with Powertools Metrics (EMF in their logs, so no cloudwatch:PutMetricData):
# namespace and `service` dimension from kafka_lineage.observability; the alarms, the metrics they read and
# their descriptions are defined once, in kafka_lineage.model.metrics (docs/operate.md is generated from it).
METRICS_SERVICE = SERVICE
FAILED_ITEM_METRICS = tuple(metric.name for metric in FAILED_ITEMS.metrics)
(BREAKING_DRIFT_METRIC,) = (metric.name for metric in BREAKING_DRIFT.metrics)
(GRANTS_FAILED_METRIC,) = (metric.name for metric in GRANTS_FAILED_ALARM.metrics)
(GRANTS_STUCK_METRIC,) = (metric.name for metric in GRANTS_STUCK_ALARM.metrics)
# Every alarm here fires on the first occurrence in a period (five minutes; an hour for GrantsStuck); no data
# is no alarm.
ANY_IN_FIVE_MINUTES: dict[str, Any] = {
    "threshold": 1,
    "evaluation_periods": 1,
    "comparison_operator": cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    "treat_missing_data": cloudwatch.TreatMissingData.NOT_BREACHING,
}


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
        self.topic_key: kms.Key | None = None
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
            self.topic_key = key

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
            FAILED_ITEMS.construct_id,
            alarm_description=FAILED_ITEMS.description,
            metric=cloudwatch.MathExpression(
                expression="+".join(f"FILL({key},0)" for key in metrics),
                using_metrics=metrics,
                label="failed items",
                period=cdk.Duration.minutes(5),
            ),
            **ANY_IN_FIVE_MINUTES,
        )
        self.failure_queue_alarm = cloudwatch.Alarm(
            self,
            FAILURE_QUEUE.construct_id,
            alarm_description=FAILURE_QUEUE.description,
            metric=failure_queue.metric_approximate_number_of_messages_visible(
                period=cdk.Duration.minutes(5), statistic="Maximum"
            ),
            **ANY_IN_FIVE_MINUTES,
        )
        self.breaking_drift_alarm = cloudwatch.Alarm(
            self,
            BREAKING_DRIFT.construct_id,
            alarm_description=BREAKING_DRIFT.description,
            metric=cloudwatch.Metric(
                namespace=METRICS_NAMESPACE,
                metric_name=BREAKING_DRIFT_METRIC,
                dimensions_map={"service": METRICS_SERVICE},
                statistic="Sum",
                period=cdk.Duration.minutes(5),
            ),
            **ANY_IN_FIVE_MINUTES,
        )
        self.alarms: list[cloudwatch.Alarm] = [
            self.failed_items_alarm,
            self.failure_queue_alarm,
            self.breaking_drift_alarm,
        ]

    def add_grant_alarms(self) -> tuple[cloudwatch.Alarm, cloudwatch.Alarm]:
        """subscription-grants' alarms: grants that failed, and grants stuck for over an hour.

        GrantsStuck is counted by the reconciling run (hourly by default) and published as 0 by every other
        run, so it is read as its maximum over an hour: one reconciling run that found a stuck grant fires it.
        """
        self.grants_failed_alarm = self._metric_alarm(GRANTS_FAILED_ALARM, "Sum", cdk.Duration.minutes(5))
        self.grants_stuck_alarm = self._metric_alarm(GRANTS_STUCK_ALARM, "Maximum", cdk.Duration.hours(1))
        self.alarms += [self.grants_failed_alarm, self.grants_stuck_alarm]
        return self.grants_failed_alarm, self.grants_stuck_alarm

    def _metric_alarm(self, alarm: Alarm, statistic: str, period: cdk.Duration) -> cloudwatch.Alarm:
        """An alarm on one catalog metric: fires on the first period in which it reaches 1."""
        (metric,) = alarm.metrics
        return cloudwatch.Alarm(
            self,
            alarm.construct_id,
            alarm_description=alarm.description,
            metric=cloudwatch.Metric(
                namespace=METRICS_NAMESPACE,
                metric_name=metric.name,
                dimensions_map={"service": METRICS_SERVICE},
                statistic=statistic,
                period=period,
            ),
            **ANY_IN_FIVE_MINUTES,
        )

    def send_breaking_drift(self, source: str, detail_type: str) -> events.Rule:
        """Send each breaking "Schema Drift Detected" event itself (its detail) to the alarm topic.

        The topic this stack creates gets the topic policy and key grant EventBridge needs; an existing topic
        (`alarmTopicArn`) must allow events.amazonaws.com to publish (and to use its key) itself.
        """
        if self.topic is None:
            raise ValueError("notifyBreakingDrift needs an alarm topic: set alarmEmail or alarmTopicArn")
        if self.topic_key is not None:
            self.topic_key.add_to_resource_policy(
                iam.PolicyStatement(
                    principals=[iam.ServicePrincipal("events.amazonaws.com")],
                    actions=["kms:Decrypt", "kms:GenerateDataKey"],
                    resources=["*"],  # a key policy's resource is always the key itself
                )
            )
        rule = events.Rule(
            self,
            "BreakingSchemaDriftRule",
            description="Breaking schema drift, as announced by the lineage function, to the alarm topic",
            event_pattern=events.EventPattern(
                source=[source], detail_type=[detail_type], detail={"severity": ["breaking"]}
            ),
        )
        rule.add_target(_DetailToTopic(self.topic))
        return rule

    def notify(self, *alarms: cloudwatch.Alarm) -> None:
        """Send every alarm (these and the functions') to the topic, when there is one."""
        if self.topic is None:
            return
        action = cloudwatch_actions.SnsAction(self.topic)
        for alarm in (*self.alarms, *alarms):
            alarm.add_alarm_action(action)


@jsii.implements(events.IRuleTarget)
class _DetailToTopic:
    """An SNS topic as a rule target that publishes the event's detail.

    Written here rather than aws_events_targets.SnsTopic because that one grants EventBridge
    `kms:GenerateDataKey*` on an encrypted topic's key; EventBridge needs only the two actions named in
    `send_breaking_drift` (and the SAR check refuses wildcard actions).
    """

    def __init__(self, topic: sns.ITopic) -> None:
        self.topic = topic

    def bind(self, rule: IRuleRef, id: str | None = None) -> events.RuleTargetConfig:
        self.topic.add_to_resource_policy(
            iam.PolicyStatement(
                principals=[iam.ServicePrincipal("events.amazonaws.com")],
                actions=["sns:Publish"],
                resources=[self.topic.topic_arn],
                conditions={"ArnEquals": {"aws:SourceArn": rule.rule_ref.rule_arn}},
            )
        )
        return events.RuleTargetConfig(
            arn=self.topic.topic_arn, input=events.RuleTargetInput.from_event_path("$.detail")
        )
