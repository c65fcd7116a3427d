"""What invokes the KafkaLineage construct's functions (schedules, Glue Schema Registry changes, asset
changes, drift; the source accounts' forwarded events) and the table mappings of cdk.json: a mixin of the
construct. The event patterns themselves are plain data in stacks/triggers.py."""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from .config import StackConfig
from .datazone_types import DataZoneTypes
from .functions import LineageFunction
from .triggers import asset_changed_pattern, drift_detected_pattern, glue_registry_change_pattern

# EventBridge's own delivery retries to Lambda (separate from Lambda's asynchronous retries).
TARGET_RETRY_ATTEMPTS = 4
TARGET_MAX_EVENT_AGE = cdk.Duration.hours(2)


def event_pattern(pattern: dict[str, Any]) -> events.EventPattern:
    """One of the patterns above, as a rule takes it."""
    return events.EventPattern(
        source=pattern.get("source"), detail_type=pattern.get("detail-type"), detail=pattern.get("detail")
    )


def rule_target(
    function: lambda_.IFunction, dead_letters: sqs.IQueue, payload: dict[str, Any] | None = None
) -> targets.LambdaFunction:
    """A rule's function target: EventBridge's retries, then the dead-letter queue; `payload` replaces the
    event (None: the event itself)."""
    return targets.LambdaFunction(
        function,
        event=events.RuleTargetInput.from_object(payload) if payload is not None else None,
        retry_attempts=TARGET_RETRY_ATTEMPTS,
        max_event_age=TARGET_MAX_EVENT_AGE,
        dead_letter_queue=dead_letters,
    )


class LineageTriggers(Construct):
    """What the triggers read of the construct (KafkaLineage sets them all)."""

    config: StackConfig
    schema_sync: LineageFunction
    lineage: LineageFunction
    types: DataZoneTypes
    failure_queue: sqs.Queue

    def _target(self, fn: LineageFunction, payload: dict[str, Any] | None = None) -> targets.LambdaFunction:
        return rule_target(fn.function, self.failure_queue, payload)

    def _triggers(self) -> None:
        schedules = self.config.deployment.schedules
        rules: list[events.Rule] = []
        # The scheduled rule's own "Scheduled Event" is the full-sync payload (docs/invocation.md).
        for rule_id, expression, fn, payload, what in (
            ("SyncSchedule", schedules.sync, self.schema_sync, None, "full schema sync"),
            (
                "VerifySchedule",
                schedules.verify,
                self.schema_sync,
                {"verify": True},
                "deep verification sync",
            ),
            ("LineageSchedule", schedules.lineage, self.lineage, None, "lineage for every changed topic"),
        ):
            if expression is None:
                continue
            rules.append(
                events.Rule(
                    self,
                    rule_id,
                    description=f"kafka-lineage: {what}",
                    schedule=events.Schedule.expression(expression),
                    targets=[self._target(fn, payload)],
                )
            )
        self.glue_rule = events.Rule(
            self,
            "GlueSchemaRegistryChanges",
            description="kafka-lineage: Glue Schema Registry changes (via CloudTrail) to schema-sync",
            event_pattern=event_pattern(glue_registry_change_pattern(self.config.registry_names)),
            targets=[self._target(self.schema_sync)],
        )
        self.asset_changed_rule = events.Rule(
            self,
            "TopicAssetChanged",
            description="kafka-lineage: schema-sync's Topic Asset Changed events to lineage emission",
            event_pattern=event_pattern(asset_changed_pattern()),
            targets=[self._target(self.lineage)],
        )
        # lineage-emission found drift and saved its summary: schema-sync shows it on the topic's asset.
        self.drift_rule = events.Rule(
            self,
            "SchemaDriftDetected",
            description="kafka-lineage: lineage-emission's Schema Drift Detected events to schema-sync",
            event_pattern=event_pattern(drift_detected_pattern()),
            targets=[self._target(self.schema_sync)],
        )
        rules += [self.glue_rule, self.asset_changed_rule, self.drift_rule]
        # Nothing should run before the asset type exists and the roles are project members.
        for rule in rules:
            rule.node.add_dependency(self.types.asset_type)
            for fn in (self.schema_sync, self.lineage):
                if fn.membership is not None:
                    rule.node.add_dependency(fn.membership)
        self.rules = rules

    def _accept_source_events(self) -> None:
        """The default bus accepts the Glue Schema Registry CloudTrail events that each source account's
        stack forwards (PutEvents from that account only, source aws.glue): the GlueSchemaRegistryChanges
        rule then hands them to schema-sync, which reads the source through its role."""
        for account in self.config.source_accounts:
            events.CfnEventBusPolicy(
                self,
                f"SourceEvents{account}",
                event_bus_name="default",
                statement_id=f"kafka-lineage-source-{account}",
                statement={
                    "Sid": f"kafka-lineage-source-{account}",
                    "Effect": "Allow",
                    "Principal": {"AWS": f"arn:{cdk.Stack.of(self).partition}:iam::{account}:root"},
                    "Action": "events:PutEvents",
                    "Resource": cdk.Stack.of(self).format_arn(
                        service="events", resource="event-bus", resource_name="default"
                    ),
                    # As EventBridge's example cross-account policy writes them (events:source per entry).
                    "Condition": {
                        "ForAllValues:StringEquals": {"events:source": ["aws.glue"]},
                        "StringEquals": {"events:detail-type": "AWS API Call via CloudTrail"},
                    },
                },
            )

    def _table_mappings(self) -> None:
        for parameter in self.config.table_mapping_parameters:
            leaf = parameter.name.rsplit("/", 1)[1]
            ssm.StringParameter(
                self,
                f"TableMapping-{leaf.split('-', 1)[0]}",
                parameter_name=parameter.name,
                string_value=parameter.value,
                tier=ssm.ParameterTier.STANDARD,
                description="kafka-lineage table mapping from cdk.json (an operator mapping elsewhere wins)",
            )
