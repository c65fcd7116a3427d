"""subscription-grants in the governance stack (contract §8): the function, its least-privilege role
synthesized from `access`, the rule for DataZone's grant events, the reconciling schedule.

Deployed only when `kafkaLineage.access` is set. Unset, nothing fulfils grants here: an existing deployment
that upgrades does not start writing IAM or answering grants another fulfiller may own, and a team that
wants it says so. `access: {}` deploys the function admitting no role: each grant on a topic asset then fails
visibly, its cause naming `access.consumerRoles` (a warning at synth says so too).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_events as events
from constructs import Construct

from kafka_lineage.access.model import Naming
from kafka_lineage.model.state_layout import LEASE_PATH, ROLE_LEASE_PREFIX

from .access_iam import nag_wildcards, pattern_account, patterns_in, role_statements
from .config import StackConfig
from .functions import FunctionSpec, LineageFunction
from .lineage_triggers import event_pattern
from .nag import nag_arn
from .resources import SharedResources
from .triggers import subscription_grant_pattern

GRANTS_HANDLER = "subscription_grants.handler.handler"
# One writer per consumer role is the role lease's job (aws.role_leases), so concurrency is not for
# correctness: two runs at a time bound the IAM writes and DataZone reads an event burst makes.
GRANTS_CONCURRENCY = 2
GRANTS_MEMORY_MB = 512
# A reconciling run reads every grant of the domain at DataZone's 3 TPS subscription quota and hands on what
# is left near its deadline: the longest timeout gives each run the most work.
GRANTS_TIMEOUT_SECONDS = 900
# The role leases: {MAPPING_PATH}/config/lease/subscription-grants-<hash of the role ARN>/<generation>
# (kafka_lineage.aws.lease.role_holder); IAM's `*` spans the hash and the generations below it.
ROLE_LEASES = f"{ROLE_LEASE_PREFIX}*"
DATAZONE_GRANT_ACTIONS = [
    "datazone:GetSubscriptionGrant",
    "datazone:ListSubscriptionGrants",
    "datazone:UpdateSubscriptionGrantStatus",
    "datazone:GetListing",
    "datazone:GetSubscriptionTarget",
    "datazone:GetEnvironment",
]
# kafka_lineage.aws.cluster_policies: a consumer in another account than the cluster's needs the cluster's
# resource policy too. The same four go to a source stack's role with `grantAccess` (stacks/source_stack.py):
# only the actions the adapter calls.
CLUSTER_POLICY_ACTIONS = [
    "kafka:DescribeClusterV2",
    "kafka:GetClusterPolicy",
    "kafka:PutClusterPolicy",
    "kafka:DeleteClusterPolicy",
]
Target = Callable[[LineageFunction, dict[str, Any] | None], events.IRuleTarget]


class SubscriptionGrants:
    """The function and what serves it, created in `scope` (the KafkaLineage construct), so that its
    resources' logical ids begin with `SubscriptionGrants` beside the other two functions'."""

    def __init__(
        self,
        scope: Construct,
        *,
        config: StackConfig,
        shared: SharedResources,
        extra_environment: Mapping[str, str],
        reserve: bool,
        target: Target,
    ) -> None:
        access = config.deployment.access
        environment = config.grants_environment
        if access is None or environment is None:
            raise ValueError("subscription-grants is deployed only with kafkaLineage.access")
        self.scope, self.config, self.access = scope, config, access
        stack = cdk.Stack.of(scope)
        self.patterns = patterns_in(access.consumer_roles, stack.account)
        # The policies this stack's function writes (GrantSettings.naming, from the same two settings).
        self.naming = Naming.for_stack(config.settings.domain_id, config.settings.asset_type_name)
        self.function = LineageFunction(
            scope,
            "SubscriptionGrants",
            FunctionSpec(
                handler=GRANTS_HANDLER,
                description="Fulfils DataZone subscription grants on Kafka topic assets with IAM access",
                environment={**environment, **extra_environment},
                memory_mb=GRANTS_MEMORY_MB,
                timeout_seconds=GRANTS_TIMEOUT_SECONDS,
                reserved_concurrency=GRANTS_CONCURRENCY if reserve else None,
                member=False,
            ),
            shared,
        )
        self._warn_other_accounts(stack)
        self._grant()
        self.rule = events.Rule(
            scope,
            "SubscriptionGrantEvents",
            description="kafka-lineage: DataZone's subscription grant and revoke requests to their fulfiller",
            event_pattern=event_pattern(subscription_grant_pattern(config.settings.domain_id)),
            targets=[target(self.function, None)],
        )
        self.schedule: events.Rule | None = None
        expression = config.deployment.schedules.grants
        if expression is not None:
            # The rule's own "Scheduled Event" is the reconciling run's payload (docs/invocation.md).
            self.schedule = events.Rule(
                scope,
                "GrantsSchedule",
                description="kafka-lineage: reconcile every subscription grant of the asset type",
                schedule=events.Schedule.expression(expression),
                targets=[target(self.function, None)],
            )
        cdk.CfnOutput(scope, "SubscriptionGrantsFunctionName", value=self.function.function.function_name)
        cdk.CfnOutput(scope, "SubscriptionGrantsRoleArn", value=self.function.role.role_arn)

    # --- IAM ------------------------------------------------------------------------------------------
    def _grant(self) -> None:
        fn, stack = self.function, cdk.Stack.of(self.scope)
        # SAR: DataZone's subscription actions take no resource type, so only "*" grants them; every call
        # names the domain (the function's DOMAIN_ID).
        fn.allow("DataZoneSubscriptionGrants", DATAZONE_GRANT_ACTIONS, ["*"])
        for statement in role_statements(self.scope, self.patterns, self.naming):
            fn.role.add_to_policy(statement)
        clusters = self.cluster_arns()
        if clusters:
            # SAR: the four take the `cluster` resource type: the sources' clusters in this account only.
            fn.allow("ClusterPolicies", CLUSTER_POLICY_ACTIONS, clusters)
        sources = self.source_roles()
        if sources:
            fn.allow("AssumeSourceRolesForClusterPolicies", ["sts:AssumeRole"], sources)
        assumed = self.consumer_account_roles()
        if assumed:
            fn.allow("AssumeConsumerAccountRoles", ["sts:AssumeRole"], assumed)
        fn.allow(
            "RoleLeases",
            ["ssm:GetParametersByPath", "ssm:PutParameter", "ssm:DeleteParameters"],
            [
                stack.format_arn(
                    service="ssm",
                    resource="parameter",
                    resource_name=self.lease_resource_name,
                    arn_format=cdk.ArnFormat.SLASH_RESOURCE_NAME,
                )
            ],
        )
        fn.allow_invoking_itself()

    @property
    def lease_resource_name(self) -> str:
        return f"{self.config.settings.mapping_path.lstrip('/')}/{LEASE_PATH}/{ROLE_LEASES}"

    def grantable_accounts(self) -> set[str]:
        """The accounts whose roles may be granted topics: those consumerRoles names (`*`: any), less those
        the function cannot write IAM in (another account than its own without consumerAccountRole)."""
        accounts = {pattern_account(pattern) for pattern in self.access.consumer_roles}
        own = cdk.Stack.of(self.scope).account
        if self.access.consumer_account_role is None and not cdk.Token.is_unresolved(own):
            accounts = {own} if accounts & {own, "*"} else set()
        return accounts

    def _cross_account(self, cluster_arn: str) -> bool:
        """True when a role of another account than the cluster's may be granted its topics: the cluster's
        policy must then let that role's account in."""
        return bool(self.grantable_accounts() - {cluster_arn.split(":")[4]})

    def cluster_arns(self) -> list[str]:
        """The sources' clusters in this account whose policies the function writes itself: those a role
        of another account may be granted. A source read through its account's role has its cluster policy
        written through that role (`source_roles`)."""
        return sorted(
            {
                source.cluster_arn
                for source in self.config.own_sources
                if self._cross_account(source.cluster_arn)
            }
        )

    def source_roles(self) -> list[str]:
        """The `roleArn` of each source in another account whose cluster a role of another account than the
        cluster's may be granted: the function writes that cluster's policy through it, which the source
        stack allows with `grantAccess` (stacks/source_stack.py). A grant to a role in the cluster's own
        account needs no cluster policy, and no source role."""
        return sorted(
            {
                source.role_arn
                for source in self.config.settings.sources
                if source.role_arn and self._cross_account(source.cluster_arn)
            }
        )

    def consumer_account_roles(self) -> list[str]:
        """`consumerAccountRole` in each account other than this one that consumerRoles names (`*`: any)."""
        template = self.access.consumer_account_role
        if template is None:
            return []
        own = cdk.Stack.of(self.scope).account
        accounts = {pattern_account(pattern) for pattern in self.access.consumer_roles}
        if not cdk.Token.is_unresolved(own):
            accounts.discard(own)
        if "*" in accounts:
            return [template.format(account="*")]
        return sorted(template.format(account=account) for account in accounts)

    def _warn_other_accounts(self, stack: cdk.Stack) -> None:
        if self.access.consumer_account_role is not None or cdk.Token.is_unresolved(stack.account):
            return
        for index, pattern in enumerate(self.access.consumer_roles):
            if pattern_account(pattern) not in (stack.account, "*"):
                cdk.Annotations.of(self.scope).add_warning_v2(
                    "kafka-lineage:access",
                    f"cdk.json context kafkaLineage.access.consumerRoles[{index}] names account "
                    f"{pattern_account(pattern)}, not the stack's: without access.consumerAccountRole (and "
                    "that account's KafkaLineageConsumer stack) its grants fail",
                )

    # --- cdk-nag --------------------------------------------------------------------------------------
    def nag_findings(self) -> list[tuple[str, str]]:
        """(finding, reason) for each wildcard of the role's default policy."""
        found = [
            (
                "AwsSolutions-IAM5[Resource::*]",
                "Only actions the IAM Service Authorization Reference gives no resource type: DataZone's "
                "subscription-grant reads and status updates (each names the domain), X-Ray's writes, and "
                "IAM's ListRoles and ListPolicies (finding the roles that hold this stack's policies)",
            )
        ]
        why_roles = (
            "Synthesized from access.consumerRoles: the roles that may receive grants, as the function "
            "itself admits them, their policies read to find a Deny (any managed policy may be a "
            "boundary), and only our own managed policies (kafka-lineage/KafkaLineageAccess-*) created, "
            "attached or detached"
        )
        found += [
            (f"AwsSolutions-IAM5[Resource::{resource}]", why_roles)
            for resource in nag_wildcards(self.scope, self.patterns, self.naming)
            if resource != "*"  # acknowledged above, with the role's other `*` grants
        ]
        found += [
            (
                f"AwsSolutions-IAM5[Resource::{role}]",
                "access.consumerAccountRole in any account access.consumerRoles names (a pattern names any)",
            )
            for role in self.consumer_account_roles()
            if "*" in role
        ]
        found.append(
            (
                "AwsSolutions-IAM5[Resource::"
                + nag_arn(self.scope, "ssm", f"parameter/{self.lease_resource_name}")
                + "]",
                "The per-role leases under MAPPING_PATH/config/lease/subscription-grants-<hash>, named at "
                "run time by the roles written",
            )
        )
        return found
