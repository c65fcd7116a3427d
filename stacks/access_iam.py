"""The IAM a subscription grant is written with, synthesized from the `access` setting: the same
statements for the governance account's subscription-grants role and a consumer account's role
(stacks/consumer_stack.py).

What the function does to a consumer role (kafka_lineage.aws.iam_roles): reads it (GetRole, its inline and
attached policies, its boundary), writes its one inline policy `KafkaLineageAccess-<token>` and its own
managed policies `KafkaLineageAccess-<token>-<role>-<n>` under the IAM path `/kafka-lineage/`
(access.model.Naming.for_stack: the token names the stack's domain and asset type), and attaches and
detaches those. So:

- Role reads and writes only on the roles `access.consumerRoles` names. Its patterns become the Resource list
  as they are: their `*` matches any run of characters, `/` included, and so does IAM's `*` in an ARN
  resource (IAM User Guide, "IAM JSON policy elements: Resource": wildcards may span segments), so the grant
  and the function's own check (`AccessSettings.admits_role`) admit the same roles.
- AttachRolePolicy and DetachRolePolicy only with our managed policies (`iam:PolicyARN`, a condition key the
  SAR lists for both): the function can never attach, say, AdministratorAccess to a consumer role.
- Managed-policy writes only under our path and this stack's name prefix (a consumer account's role, which
  any stack of the governance account may use, under every stack's: `KafkaLineageAccess-*`).
- ListRoles and ListPolicies (no resource type in the SAR, so `*`) and ListEntitiesForPolicy on our managed
  policies: the reconciling run finds the roles that hold our policies from the policies themselves (a grant
  deleted names no role any more; kafka_lineage.grants.holders).
- GetPolicy and GetPolicyVersion on any customer managed policy of the account and on AWS managed policies: a
  boundary, or another policy attached to a consumer role, can be any of them, and the function reads its
  document to find a Deny before it grants (access.guards). IAM has no condition that limits a read to the
  policies attached to some role, so this is the narrowest scope that works; it reads documents, never
  writes them, and the write statements above stay scoped.

IAM calls act only in the caller's own account, so each role is given the patterns of its own account (and
those whose account is `*`); a consumer account's roles are written through that account's role.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from constructs import IConstruct

from kafka_lineage.access.model import Naming

ANY_STACK = Naming()  # `KafkaLineageAccess-*` covers every stack's policies (Naming.for_stack)
ROLE_READS = ["iam:GetRole", "iam:ListRolePolicies", "iam:GetRolePolicy", "iam:ListAttachedRolePolicies"]
INLINE_WRITES = ["iam:PutRolePolicy", "iam:DeleteRolePolicy"]
ATTACHMENTS = ["iam:AttachRolePolicy", "iam:DetachRolePolicy"]
OWN_POLICIES = [
    "iam:CreatePolicy",
    "iam:CreatePolicyVersion",
    "iam:DeletePolicy",
    "iam:DeletePolicyVersion",
    "iam:GetPolicy",
    "iam:GetPolicyVersion",
    "iam:ListPolicyVersions",
    "iam:ListEntitiesForPolicy",
]
LISTINGS = ["iam:ListPolicies", "iam:ListRoles"]
POLICY_READS = ["iam:GetPolicy", "iam:GetPolicyVersion"]


def pattern_account(pattern: str) -> str:
    """The account of a consumerRoles pattern (`arn:<partition>:iam::<account>:role/…`): 12 digits or `*`."""
    return pattern.split(":")[4]


def patterns_in(patterns: Iterable[str], account: str) -> list[str]:
    """The patterns that can name a role of `account`: its own and those with any account. An unresolved
    account (an environment-agnostic stack) keeps them all: IAM would act in the stack's account anyway."""
    found = list(dict.fromkeys(patterns))
    if cdk.Token.is_unresolved(account):
        return found
    return [pattern for pattern in found if pattern_account(pattern) in (account, "*")]


def own_policies_arn(scope: IConstruct, naming: Naming) -> str:
    """Our managed policies in the scope's account: `policy/kafka-lineage/<prefix>-*`."""
    return cdk.Stack.of(scope).format_arn(
        service="iam",
        region="",
        resource="policy",
        resource_name=f"{naming.path.strip('/')}/{naming.prefix}-*",
        arn_format=cdk.ArnFormat.SLASH_RESOURCE_NAME,
    )


def any_policy_arns(scope: IConstruct) -> list[str]:
    """Every customer managed policy of the scope's account, and AWS's managed policies."""
    stack = cdk.Stack.of(scope)
    return [
        stack.format_arn(
            service="iam",
            region="",
            resource="policy",
            resource_name="*",
            arn_format=cdk.ArnFormat.SLASH_RESOURCE_NAME,
        ),
        f"arn:{stack.partition}:iam::aws:policy/*",
    ]


def role_statements(
    scope: IConstruct, patterns: Sequence[str], naming: Naming = ANY_STACK
) -> list[iam.PolicyStatement]:
    """The statements that let a role fulfil grants to the roles `patterns` names, in the scope's account
    (none when no pattern is left: a role that may receive nothing needs no IAM), with the policies `naming`
    names."""
    if not patterns:
        return []
    roles = list(patterns)
    ours = own_policies_arn(scope, naming)
    return [
        iam.PolicyStatement(sid="ConsumerRoleRead", actions=ROLE_READS, resources=roles),
        iam.PolicyStatement(sid="ConsumerRoleInlinePolicy", actions=INLINE_WRITES, resources=roles),
        iam.PolicyStatement(
            sid="ConsumerRoleAttach",
            actions=ATTACHMENTS,
            resources=roles,
            conditions={"ArnLike": {"iam:PolicyARN": [ours]}},
        ),
        iam.PolicyStatement(sid="AccessPolicies", actions=OWN_POLICIES, resources=[ours]),
        iam.PolicyStatement(
            sid="ConsumerRolePoliciesRead", actions=POLICY_READS, resources=any_policy_arns(scope)
        ),
        # ListRoles and ListPolicies: the SAR gives them no resource type, so only "*" grants them.
        iam.PolicyStatement(sid="AccessHoldersList", actions=LISTINGS, resources=["*"]),
    ]


def _rendered(value: str, pseudo: str) -> str:
    return f"<AWS::{pseudo}>" if cdk.Token.is_unresolved(value) else value


def nag_wildcards(scope: IConstruct, patterns: Sequence[str], naming: Naming = ANY_STACK) -> list[str]:
    """The wildcard resources of `role_statements`, as cdk-nag names them in its IAM5 findings."""
    if not patterns:
        return []
    stack = cdk.Stack.of(scope)
    partition = _rendered(stack.partition, "Partition")
    account = _rendered(stack.account, "AccountId")
    found = [pattern for pattern in patterns if "*" in pattern]
    found += [
        f"arn:{partition}:iam::{account}:policy/{naming.path.strip('/')}/{naming.prefix}-*",
        f"arn:{partition}:iam::{account}:policy/*",
        f"arn:{partition}:iam::aws:policy/*",
        "*",  # ListRoles, ListPolicies (AccessHoldersList)
    ]
    return list(dict.fromkeys(found))
