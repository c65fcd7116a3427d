"""The stack deployed into a consumer account (one whose roles receive grants, other than the governance
account): the role subscription-grants assumes to write IAM there.

- The role trusts only the governance stack's subscription-grants role, by ARN, and only with the external
  id (sts:ExternalId), for at most an hour (the function's sessions: kafka_lineage.aws.sessions).
- Its permissions are the governance role's IAM statements (stacks/access_iam.py), for this account: reads and
  writes on the roles `consumerRoles` names, our own managed policies only (the `iam:PolicyARN` condition on
  attaching), and the policy reads a boundary check needs. Nothing else: no role creation, no trust or
  boundary change, no other service.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from constructs import Construct

from .access_iam import nag_wildcards, pattern_account, patterns_in, role_statements
from .consumer_config import CONSUMER_CONTEXT_KEY, ConsumerAccountConfig, as_consumer_config

MAX_SESSION = cdk.Duration.hours(1)


class KafkaLineageConsumer(Construct):
    """The consumer-account part (the role subscription-grants assumes), in any stack of that account.

    `config` takes the keys of the `kafkaLineageConsumer` context (stacks/consumer_config.py): a dict (or its
    JSON text) validated as the context is, or the typed model (`ConsumerAccountConfig`, exported as
    `kafka_lineage_cdk.KafkaLineageConsumerConfig`).
    """

    def __init__(
        self, scope: Construct, construct_id: str, *, config: Mapping[str, Any] | str | ConsumerAccountConfig
    ) -> None:
        super().__init__(scope, construct_id)
        self.config = config = as_consumer_config(config)
        account = cdk.Stack.of(self).account
        self.patterns = patterns_in(config.consumer_roles, account)
        for index, pattern in enumerate(config.consumer_roles):
            if pattern not in self.patterns:
                cdk.Annotations.of(self).add_warning_v2(
                    "kafka-lineage:access",
                    f"context {CONSUMER_CONTEXT_KEY}.consumerRoles[{index}] names account "
                    f"{pattern_account(pattern)}, not this stack's {account}: it is left out",
                )
        self.role = iam.Role(
            self,
            "GrantsRole",
            role_name=config.role_name,
            description="kafka-lineage: write subscription grants' IAM access on this account's roles",
            assumed_by=iam.ArnPrincipal(config.trusted_role_arn),
            external_ids=[config.external_id],
            max_session_duration=MAX_SESSION,
        )
        for statement in role_statements(self, self.patterns):
            self.role.add_to_policy(statement)
        cdk.CfnOutput(self, "ConsumerRoleArn", value=self.role.role_arn)
        self._acknowledge_wildcards()

    def _acknowledge_wildcards(self) -> None:
        default = self.role.node.try_find_child("DefaultPolicy")
        if default is None:  # no pattern names this account: the role may do nothing
            return
        policy = default.node.default_child
        assert isinstance(policy, cdk.CfnResource)
        for resource in nag_wildcards(self, self.patterns):
            cdk.Validations.of(policy).acknowledge(
                cdk.Acknowledgment(
                    id=f"AwsSolutions-IAM5[Resource::{resource}]",
                    reason="Synthesized from consumerRoles: the roles that may receive grants, their "
                    "policies read to find a Deny (any managed policy may be a boundary), and only our own "
                    "managed policies (kafka-lineage/KafkaLineageAccess-*) created, attached or detached",
                )
            )


class ConsumerAccountStack(cdk.Stack):
    """The repository's consumer-account stack (`-c kafkaLineageConsumer=...`): the KafkaLineageConsumer
    construct as "Default", which CDK leaves out of logical ids."""

    def __init__(
        self, scope: Construct, construct_id: str, *, config: ConsumerAccountConfig, **kwargs: Any
    ) -> None:
        super().__init__(
            scope,
            construct_id,
            description="kafka-lineage consumer account: the role that writes subscription grants' access",
            **kwargs,
        )
        self.consumer = KafkaLineageConsumer(self, "Default", config=config)
        self.config = config
        self.role = self.consumer.role
