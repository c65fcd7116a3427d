"""The MSK cluster policy that lets consumers in other accounts in (PutClusterPolicy).

A role in another account needs both its own identity policy and the cluster's resource policy. The
statements follow the MSK developer guide's cross-account example (multi-VPC private connectivity, "Attach
a cluster policy to the MSK cluster"): the consumer account as principal, `kafka:CreateVpcConnection`,
`kafka:GetBootstrapBrokers`, `kafka:DescribeCluster` and `kafka:DescribeClusterV2` on the cluster, and the
`kafka-cluster` actions, here narrowed from the example's `kafka-cluster:*` to what a grant gives (Connect,
DescribeTopic, ReadData, DescribeGroup, AlterGroup) on the granted topics and group patterns only.

One statement per consumer account, Sid `KafkaLineageConsumer<token><account>` (the stack's token,
`Naming.token`): ours are recognised by that exact Sid, so two stacks writing one cluster's policy never
take each other's statements for their own; every other statement is kept as it is, in its place. An
account with no grant left loses its statement; a policy left with no statement is deleted. Action and
Resource are always lists of strings.

The principal is the granted roles of that account (`access.clusterPolicyPrincipals` "roles", the default),
or the account's root ("account", as AWS's example does: the consumer account's IAM then decides which of
its roles may use it). Naming the roles keeps the cluster's owner from trusting the whole account; IAM keeps
a named role's unique id, so a role deleted and created again must be granted again (the next reconciling
run writes its ARN again). A role `access.consumerRoles` no longer admits is left out.

MSK takes a policy of at most 20 KB; the pessimistic reading, 20,000 bytes of the minified JSON, is kept.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.access.arns import ClusterArn, RoleArn
from kafka_lineage.access.desired import CONNECT, POLICY_VERSION, READ_TOPIC, USE_GROUP, granted
from kafka_lineage.access.model import Grant
from kafka_lineage.access.settings import AccessSettings

SID_PREFIX = "KafkaLineageConsumer"
CLUSTER_POLICY_LIMIT = 20_000
CLUSTER_ACTIONS = (
    "kafka:CreateVpcConnection",
    "kafka:DescribeCluster",
    "kafka:DescribeClusterV2",
    "kafka:GetBootstrapBrokers",
)
CONSUMER_ACTIONS = tuple(sorted(CLUSTER_ACTIONS + CONNECT + READ_TOPIC + USE_GROUP))


class ClusterPolicyTooLarge(Exception):
    """The merged cluster policy would pass MSK's size limit; the message says so."""


@dataclass(frozen=True)
class ConsumerAccess:
    """What one consumer account's roles were granted on the cluster."""

    account: str
    topics: tuple[str, ...]
    groups: tuple[str, ...]
    roles: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClusterPolicyPlan:
    """The cluster policy to put (`document`), or to delete (`document` None and `delete`); `changed` is
    False when the cluster already has it (no write). `again` merges the same grants into a policy read
    later (a version conflict)."""

    cluster_arn: str
    document: dict[str, Any] | None
    changed: bool
    granted: tuple[ConsumerAccess, ...] = ()
    token: str = ""
    by_account: bool = False

    @property
    def delete(self) -> bool:
        return self.changed and self.document is None

    def again(self, current: Mapping[str, Any] | None) -> ClusterPolicyPlan:
        return merge(self.cluster_arn, current, self.granted, token=self.token, by_account=self.by_account)


def consumers(
    cluster_arn: str, grants: Iterable[Grant], settings: AccessSettings
) -> tuple[ConsumerAccess, ...]:
    """The accounts other than the cluster's whose roles hold standing grants on the cluster, with the
    topics and group patterns granted to them. Pass only grants that were not refused."""
    cluster = ClusterArn.parse(cluster_arn)
    topics: dict[str, set[str]] = {}
    groups: dict[str, set[str]] = {}
    roles: dict[str, set[str]] = {}
    for grant in grants:
        if not grant.stands or grant.cluster != cluster:
            continue
        for principal in grant.principals:
            role = RoleArn.parse(principal)
            if role.account == cluster.account or not settings.admits_role(principal):
                continue
            topic, granted_groups = granted(grant, role, settings)
            topics.setdefault(role.account, set()).add(topic)
            groups.setdefault(role.account, set()).update(granted_groups)
            roles.setdefault(role.account, set()).add(principal)
    return tuple(
        ConsumerAccess(
            account,
            tuple(sorted(topics[account])),
            tuple(sorted(groups[account])),
            tuple(sorted(roles[account])),
        )
        for account in sorted(topics)
    )


def sid(token: str, account: str) -> str:
    """Our statement's Sid for one consumer account (Sids are [A-Za-z0-9]; the token is hex)."""
    return f"{SID_PREFIX}{token}{account}"


def _ours(statement: Any, token: str) -> bool:
    return (
        isinstance(statement, Mapping)
        and re.fullmatch(rf"{SID_PREFIX}{re.escape(token)}\d{{12}}", str(statement.get("Sid", "")))
        is not None
    )


def consumer_statement(
    cluster: ClusterArn, access: ConsumerAccess, token: str = "", by_account: bool = False
) -> dict[str, Any]:
    root = f"arn:{cluster.partition}:iam::{access.account}:root"
    principal: str | list[str] = root if by_account or not access.roles else list(access.roles)
    return {
        "Sid": sid(token, access.account),
        "Effect": "Allow",
        "Principal": {"AWS": principal},
        "Action": list(CONSUMER_ACTIONS),
        "Resource": [cluster.arn, *access.topics, *access.groups],
    }


def merge(
    cluster_arn: str,
    current: Mapping[str, Any] | None,
    granted: Iterable[ConsumerAccess],
    *,
    token: str = "",
    by_account: bool = False,
) -> ClusterPolicyPlan:
    """The cluster policy with our statements (this stack's `token`) for exactly `granted`, every other
    statement kept (another stack's too)."""
    cluster = ClusterArn.parse(cluster_arn)
    existing = current.get("Statement", []) if current else []
    kept = [existing] if isinstance(existing, Mapping) else list(existing)
    granted = tuple(sorted(granted, key=lambda a: a.account))
    ours = [consumer_statement(cluster, access, token, by_account) for access in granted]
    # Each statement keeps its place (ours replaced where they stand, new ones last): two stacks writing one
    # policy would otherwise move each other's statements on every run, a write each time.
    pending = {statement["Sid"]: statement for statement in ours}
    statements = [
        pending.pop(statement["Sid"]) if _ours(statement, token) else statement
        for statement in kept
        if not _ours(statement, token) or statement["Sid"] in pending
    ]
    statements += list(pending.values())
    document: dict[str, Any] | None = None
    if statements:
        document = {"Version": (current or {}).get("Version", POLICY_VERSION), "Statement": statements}
        size = len(json.dumps(document, separators=(",", ":")).encode())
        if size > CLUSTER_POLICY_LIMIT:
            raise ClusterPolicyTooLarge(
                f"the cluster policy of {cluster_arn} would be {size:,} bytes with the grants to accounts "
                f"{', '.join(a.account for a in granted)}: MSK takes at most 20 KB "
                f"({CLUSTER_POLICY_LIMIT:,} bytes read pessimistically)"
            )
    changed = _normal(current, cluster) != _normal(document, cluster)
    return ClusterPolicyPlan(cluster_arn, document, changed, granted, token, by_account)


def _normal(document: Mapping[str, Any] | None, cluster: ClusterArn) -> str | None:
    """The document in one spelling, so MSK's way of storing it (a bare account id as principal, a string
    for a one-item list) does not read as a change."""
    if not document:
        return None
    found = document.get("Statement", [])
    statements = [found] if isinstance(found, Mapping) else list(found)
    return json.dumps([_normal_statement(s, cluster) for s in statements], sort_keys=True)


def _normal_statement(statement: Any, cluster: ClusterArn) -> Any:
    if not isinstance(statement, Mapping):
        return statement
    normal = dict(statement)
    for key in ("Action", "NotAction", "Resource", "NotResource"):
        if isinstance(normal.get(key), str):
            normal[key] = [normal[key]]
    principal = normal.get("Principal")
    if isinstance(principal, Mapping) and "AWS" in principal:
        names = principal["AWS"] if isinstance(principal["AWS"], list) else [principal["AWS"]]
        root = f"arn:{cluster.partition}:iam::{{}}:root"
        normal["Principal"] = {
            **principal,
            "AWS": sorted(root.format(n) if str(n).isdigit() else str(n) for n in names),
        }
    return normal
