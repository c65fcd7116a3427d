"""The cdk-nag findings the KafkaLineage construct accepts, each with its reason: a mixin of the construct,
so that the stack's module holds what it builds and this one what it acknowledges."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from kafka_lineage.model.state_layout import LEASE_PATH, LINEAGE_HOLDER, SCHEMA_SYNC_HOLDER

from . import nag
from .config import StackConfig
from .datazone_types import DataZoneTypes
from .functions import LineageFunction
from .grants import SubscriptionGrants


class LineageNag(Construct):
    """What the acknowledgments read of the construct (KafkaLineage sets them all)."""

    config: StackConfig
    schema_sync: LineageFunction
    lineage: LineageFunction
    subscription_grants: SubscriptionGrants | None
    types: DataZoneTypes
    failure_queue: sqs.Queue
    connector_resources: list[str]
    delivery_resources: list[tuple[str, str]]

    def lineage_state_parts(self) -> tuple[str, ...]:
        """The parts of MAPPING_PATH lineage-emission writes: each target's emission state (DataZone's only
        while it is a target), and the drift summaries."""
        settings = self.config.settings
        return (
            *(["lineage"] if settings.datazone_lineage else []),
            "drift",
            *(["glue-lineage"] if settings.glue_lineage else []),
        )

    def _suppress_nag_findings(self) -> None:
        """Every cdk-nag finding the stack accepts, each on one resource, for one exact finding, with its
        reason (tests/infrastructure/test_nag_acknowledgments.py: each answers a finding)."""
        mapping_path = self.config.settings.mapping_path
        for fn, owned, holder in (
            (self.schema_sync, ("assets",), SCHEMA_SYNC_HOLDER),
            (self.lineage, self.lineage_state_parts(), LINEAGE_HOLDER),
        ):
            policy = nag.default_policy(fn.role)
            nag.acknowledge(
                policy,
                "AwsSolutions-IAM5[Resource::*]",
                "Only actions the IAM Service Authorization Reference gives no resource type: X-Ray's "
                "writes, DataZone's data-plane calls (authorised by project membership too), "
                "kafka:GetBootstrapBrokers, kafkaconnect:ListConnectors, firehose:ListDeliveryStreams, "
                "cloudwatch:ListMetrics (the consumer groups' lag metrics) and glue:PostLineageEvent (Glue's "
                "guide: no resource-level permission)",
            )
            wildcards = [
                nag.nag_arn(self, "ssm", f"parameter{mapping_path}/*"),
                *(nag.nag_arn(self, "ssm", f"parameter{mapping_path}/{own}/*") for own in owned),
                nag.nag_arn(self, "ssm", f"parameter{mapping_path}/{LEASE_PATH}/{holder}/*"),
            ]
            wildcards += [
                nag.nag_arn(self, "glue", f"schema/{name}/*") for name in self.config.own_registry_names
            ]
            if fn is self.schema_sync:
                wildcards += [
                    nag.topic_wildcard(arn)
                    for arn in sorted({source.cluster_arn for source in self.config.own_sources})
                ]
            if fn is self.lineage:
                wildcards += [nag.nag_arn(self, "glue", f"table/{db}/*") for db in self.config.own_databases]
                wildcards += [nag.nag_arn(self, "kafkaconnect", name) for name in self.connector_resources]
                wildcards += [
                    nag.nag_arn(self, service, name) if service else name
                    for service, name in self.delivery_resources
                ]
            for resource in wildcards:
                nag.acknowledge(
                    policy,
                    f"AwsSolutions-IAM5[Resource::{resource}]",
                    "Scoped to the configured registries' schemas, the named Glue databases' tables, the "
                    "MSK Connect connectors the sources read (connector/<name>/<uuid>), the sources' "
                    "clusters' topics and MSK channels, this account's delivery streams and S3 Tables "
                    "catalogs (read only) or the MAPPING_PATH subtree, whose members appear at run time "
                    "and cannot be listed here",
                )
        if self.subscription_grants is not None:
            policy = nag.default_policy(self.subscription_grants.function.role)
            for finding, reason in self.subscription_grants.nag_findings():
                nag.acknowledge(policy, finding, reason)
        nag.acknowledge(
            nag.default_policy(self.types.handler_role),
            "AwsSolutions-IAM5[Resource::*]",
            "DataZone's asset and form type actions take no resource type in the IAM Service Authorization "
            "Reference; DataZone authorises them by the role's project ownership",
        )
        on_event = self.types.provider.on_event_handler
        assert isinstance(on_event, lambda_.Function)
        handler_id = cdk.Stack.of(self).get_logical_id(nag.cfn_resource(on_event))
        nag.acknowledge(
            nag.default_policy(self.types.provider_role),
            f"AwsSolutions-IAM5[Resource::<{handler_id}.Arn>:*]",
            "CDK's provider framework may invoke any version of its own onEvent handler, and nothing else",
        )
        nag.acknowledge(
            nag.cfn_resource(self.failure_queue),
            "AwsSolutions-SQS3",
            "This queue is the dead end itself: the functions' on-failure destination and the rules' DLQ",
        )
