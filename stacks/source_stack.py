"""The stack deployed into each source account: the functions' read-only role there, and event forwarding.

- The role trusts only the governance stack's function roles `trustedRoleArns` names (schema-sync's and
  lineage-emission's; subscription-grants' too with `grantAccess`), by ARN, and only with the external id
  (sts:ExternalId). Its grants follow the IAM Service Authorization Reference, scoped to the configured
  registries (and their schemas), databases (and their tables); actions the SAR gives no resource type
  (kafka:GetBootstrapBrokers, kafkaconnect:ListConnectors) are granted on "*", each only when asked for.
- With `grantAccess`, the role may also describe the clusters listed in `clusters` and read and write their
  cluster policies (SAR: the four actions take the `cluster` resource type), on those ARNs only: the
  subscription-grants function writes there the statements that let consumers of other accounts in
  (docs/access.md, "Consumers in other accounts"). The role writes nothing else.
- A rule on this account's default bus forwards its Glue Schema Registry CloudTrail events (the same pattern
  as the governance stack's own rule) to the governance account's default bus. EventBridge needs a role to
  put events on another account's bus; CDK's EventBus target creates it, allowed events:PutEvents on that
  bus only. The governance stack's bus policy accepts these events from this account.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from constructs import Construct

from kafka_lineage.config import ConfigError

from .grants import CLUSTER_POLICY_ACTIONS
from .nag import nag_arn
from .source_config import SOURCE_CONTEXT_KEY, SourceAccountConfig, as_source_config
from .triggers import glue_registry_change_pattern

# The longest session the functions ask for (kafka_lineage.aws.sessions.DURATION_SECONDS).
MAX_SESSION = cdk.Duration.hours(1)


class KafkaLineageSource(Construct):
    """The source-account part (the read-only role, event forwarding), in any stack of that account.

    `config` takes the keys of the `kafkaLineageSource` context (stacks/source_config.py): a dict (or its JSON
    text) validated as the context is, or the typed model (`SourceAccountConfig`, exported as
    `kafka_lineage_cdk.KafkaLineageSourceConfig`).
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, config: Mapping[str, Any] | str | SourceAccountConfig
    ) -> None:
        super().__init__(scope, construct_id)
        self.config = config = as_source_config(config)
        self.role = iam.Role(
            self,
            "ReaderRole",
            role_name=config.role_name,
            description="kafka-lineage: read this account's schema registries, catalog tables and brokers"
            + (" (and write its listed clusters' policies)" if config.grant_access else ""),
            assumed_by=iam.CompositePrincipal(*(iam.ArnPrincipal(arn) for arn in config.trusted_role_arns)),
            external_ids=[config.external_id],
            max_session_duration=MAX_SESSION,
        )
        self._grant()
        self.forward_rule: events.Rule | None = None
        if config.forward_events:
            self._forward_events()
        cdk.CfnOutput(self, "SourceRoleArn", value=self.role.role_arn)
        self._acknowledge_wildcards()

    def _arn(self, service: str, resource: str, name: str | None = None) -> str:
        return cdk.Stack.of(self).format_arn(service=service, resource=resource, resource_name=name)

    def _grant(self) -> None:
        registries: list[str] = []
        for name in self.config.registries:
            registries += [self._arn("glue", "registry", name), self._arn("glue", "schema", f"{name}/*")]
        self.role.add_to_policy(
            iam.PolicyStatement(
                sid="GlueSchemaRegistryRead",
                actions=[
                    "glue:ListSchemas",
                    "glue:ListSchemaVersions",
                    "glue:GetSchema",
                    "glue:GetSchemaVersion",
                ],
                resources=registries,
            )
        )
        if self.config.databases:
            catalog = [self._arn("glue", "catalog")]
            for database in self.config.databases:
                catalog += [
                    self._arn("glue", "database", database),
                    self._arn("glue", "table", f"{database}/*"),
                ]
            self.role.add_to_policy(
                iam.PolicyStatement(
                    sid="GlueCatalogRead", actions=["glue:GetTable", "glue:GetTables"], resources=catalog
                )
            )
        if self.config.read_brokers:
            # SAR: kafka:GetBootstrapBrokers takes no resource type ("*" only).
            self.role.add_to_policy(
                iam.PolicyStatement(
                    sid="MskBootstrapBrokers", actions=["kafka:GetBootstrapBrokers"], resources=["*"]
                )
            )
        # The topics as this account's clusters have them (schema-sync). SAR: kafka:ListTopics takes the
        # cluster, kafka:DescribeTopic the topic; the clusters are the governance side's to name, so any here.
        for sid, action, wildcard in self.TOPIC_WILDCARDS:
            self.role.add_to_policy(
                iam.PolicyStatement(sid=sid, actions=[action], resources=[self._arn("kafka", *wildcard)])
            )
        if self.config.read_connectors:
            # SAR: ListConnectors takes no resource type; DescribeConnector takes this account's connectors.
            self.role.add_to_policy(
                iam.PolicyStatement(
                    sid="MskConnectList", actions=["kafkaconnect:ListConnectors"], resources=["*"]
                )
            )
            self.role.add_to_policy(
                iam.PolicyStatement(
                    sid="MskConnectDescribe",
                    actions=["kafkaconnect:DescribeConnector"],
                    resources=[self._arn("kafkaconnect", "connector", "*/*")],
                )
            )
        if self.config.read_delivery:
            self._grant_delivery()
        if self.config.read_consumers:
            # SAR: cloudwatch:ListMetrics takes no resource type, so only "*" grants it.
            self.role.add_to_policy(
                iam.PolicyStatement(
                    sid="ConsumerGroupsList", actions=["cloudwatch:ListMetrics"], resources=["*"]
                )
            )
        if self.config.glue_lineage:
            # Not in the SAR data yet; Glue's guide: glue:PostLineageEvent has no resource-level permission.
            self.role.add_to_policy(
                iam.PolicyStatement(sid="GlueLineagePost", actions=["glue:PostLineageEvent"], resources=["*"])
            )
        if self.config.grant_access:
            self._grant_cluster_policies()

    def _grant_cluster_policies(self) -> None:
        """The listed clusters' policies, for subscription-grants (kafka_lineage.aws.cluster_policies)."""
        account = cdk.Stack.of(self).account
        if not cdk.Token.is_unresolved(account) and self.config.clusters_account != account:
            raise ConfigError(
                f"context {SOURCE_CONTEXT_KEY}.clusters are in account {self.config.clusters_account}, not "
                f"this stack's {account}: the role can write only its own account's cluster policies"
            )
        # SAR: the four take the `cluster` resource type; the ARNs are given whole, no wildcard.
        self.role.add_to_policy(
            iam.PolicyStatement(
                sid="MskClusterPolicies",
                actions=list(CLUSTER_POLICY_ACTIONS),
                resources=list(self.config.clusters),
            )
        )

    TOPIC_WILDCARDS = (
        ("MskTopicList", "kafka:ListTopics", ("cluster", "*/*")),
        ("MskTopicDescribe", "kafka:DescribeTopic", ("topic", "*/*/*")),
    )

    # The managed delivery paths (docs/delivery-paths.md, "Permissions"): this account's clusters' channels,
    # its delivery streams (ListDeliveryStreams takes no resource type), and S3 Tables catalogs' metadata.
    DELIVERY_WILDCARDS = (
        ("kafka", "cluster/*/*"),
        ("kafka", "channel/*/*/*"),
        ("firehose", "deliverystream/*"),
        ("glue", "catalog/s3tablescatalog/*"),
        ("glue", "database/s3tablescatalog/*/*"),
        ("glue", "table/s3tablescatalog/*/*/*"),
    )

    def _grant_delivery(self) -> None:
        arn = self._arn
        # SAR: firehose:ListDeliveryStreams takes no resource type, so only "*" grants it.
        for sid, actions, resources in (
            ("MskChannelList", ["kafka:ListChannels"], [arn("kafka", "cluster", "*/*")]),
            ("MskChannelDescribe", ["kafka:DescribeChannel"], [arn("kafka", "channel", "*/*/*")]),
            ("FirehoseList", ["firehose:ListDeliveryStreams"], ["*"]),
            (
                "FirehoseDescribe",
                ["firehose:DescribeDeliveryStream"],
                [arn("firehose", "deliverystream", "*")],
            ),
            (
                "S3TablesCatalogRead",
                ["glue:GetTable", "glue:GetTables"],
                [
                    arn("glue", "catalog"),
                    arn("glue", "catalog", "s3tablescatalog"),
                    arn("glue", "catalog", "s3tablescatalog/*"),
                    arn("glue", "database", "s3tablescatalog/*/*"),
                    arn("glue", "table", "s3tablescatalog/*/*/*"),
                ],
            ),
        ):
            self.role.add_to_policy(iam.PolicyStatement(sid=sid, actions=actions, resources=resources))

    def _forward_events(self) -> None:
        pattern = glue_registry_change_pattern(self.config.registries)
        governance_bus = events.EventBus.from_event_bus_arn(
            self,
            "GovernanceBus",
            f"arn:{cdk.Stack.of(self).partition}:events:{cdk.Stack.of(self).region}:"
            f"{self.config.governance_account}:event-bus/default",
        )
        self.forward_rule = events.Rule(
            self,
            "ForwardGlueSchemaRegistryChanges",
            description="kafka-lineage: Glue Schema Registry changes (CloudTrail) to the governance account",
            event_pattern=events.EventPattern(
                source=pattern["source"], detail_type=pattern["detail-type"], detail=pattern["detail"]
            ),
            targets=[targets.EventBus(governance_bus)],
        )

    def _acknowledge_wildcards(self) -> None:
        policy = self.role.node.find_child("DefaultPolicy").node.default_child
        assert isinstance(policy, cdk.CfnResource)
        found = [f"Resource::{nag_arn(self, 'glue', f'schema/{name}/*')}" for name in self.config.registries]
        found += [f"Resource::{nag_arn(self, 'glue', f'table/{db}/*')}" for db in self.config.databases]
        if self.config.read_connectors:
            found.append(f"Resource::{nag_arn(self, 'kafkaconnect', 'connector/*/*')}")
        found += [f"Resource::{nag_arn(self, 'kafka', '/'.join(w))}" for _, _, w in self.TOPIC_WILDCARDS]
        if self.config.read_delivery:
            found += [
                f"Resource::{nag_arn(self, service, name)}" for service, name in self.DELIVERY_WILDCARDS
            ]
        found = list(dict.fromkeys(found))  # the clusters' wildcard serves the topics and the channels
        if (
            self.config.read_brokers
            or self.config.read_connectors
            or self.config.read_delivery
            or self.config.read_consumers
            or self.config.glue_lineage
        ):
            found.append("Resource::*")
        for finding in found:
            cdk.Validations.of(policy).acknowledge(
                cdk.Acknowledgment(
                    id=f"AwsSolutions-IAM5[{finding}]",
                    reason="Scoped to the configured registries' schemas, databases' tables or this "
                    "account's clusters' topics, connectors, channels, delivery streams and S3 Tables "
                    "catalogs (members appear at run time), or an action the IAM Service Authorization "
                    "Reference gives no resource type",
                )
            )


class SourceAccountStack(cdk.Stack):
    """The repository's source-account stack (`-c kafkaLineageSource=...`): the KafkaLineageSource construct
    as "Default", which CDK leaves out of logical ids (a deployed stack updates in place)."""

    def __init__(
        self, scope: Construct, construct_id: str, *, config: SourceAccountConfig, **kwargs: Any
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            description="kafka-lineage source account: read-only role for the governance account's functions",
            **kwargs,
        )
        self.source = KafkaLineageSource(self, "Default", config=config)
        self.config = config
        self.role = self.source.role
