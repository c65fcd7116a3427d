"""What MSK lets a consumer role do on a cluster of any account: the demo's cross-account access table and
the cross-account tests' assertions.

MSK's IAM access control evaluates the caller's identity policy and the cluster's resource policy as IAM
evaluates any request ("Policy evaluation logic", IAM User Guide, cross-account): a role in the cluster's
own account needs its identity policy alone; a role of another account needs both, its identity policy
and a cluster policy statement naming it (its ARN, its account's root, its account id, or "*"). An explicit
Deny in either denies.

    reads_across(aws, role_arn, "dbserver1.inventory.orders", "prjconsumer01-app", cluster_arn)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kafka_lineage.access.arns import ClusterArn, RoleArn
from local.access_checks import may
from local.standins.iam_policy import Request, evaluate, parse_policy


def _names(principal: Any, role: RoleArn) -> bool:
    """A resource policy's Principal names the role: its ARN, its account's root or id, or anyone."""
    if principal == "*":
        return True
    if not isinstance(principal, Mapping):
        return False
    values = principal.get("AWS", [])
    named = {role.arn, f"arn:{role.partition}:iam::{role.account}:root", role.account, "*"}
    return any(str(value) in named for value in (values if isinstance(values, list) else [values]))


def cluster_policy_allows(
    policy: Mapping[str, Any] | None, role_arn: str, action: str, resource: str
) -> bool:
    """True when the cluster policy lets the role do `action` on `resource` (and no statement of it that
    names the role denies it)."""
    if not policy:
        return False
    role = RoleArn.parse(role_arn)
    raw = policy.get("Statement", [])
    statements = [
        {key: value for key, value in statement.items() if key not in ("Principal", "NotPrincipal")}
        for statement in (raw if isinstance(raw, list) else [raw])
        if _names(statement.get("Principal"), role)
    ]
    parsed = parse_policy({"Version": "2012-10-17", "Statement": statements})
    return evaluate(parsed, Request(action, (resource,))).allowed


def allowed(aws: Any, role_arn: str, action: str, resource: str, cluster_arn: str) -> bool:
    """MSK's decision for the role asking `action` on `resource` of the cluster (its stand-in policy)."""
    if not may(role_arn, action, resource):
        return False
    if RoleArn.parse(role_arn).account == ClusterArn.parse(cluster_arn).account:
        return True
    return cluster_policy_allows(aws.cluster_policies.policy_of(cluster_arn), role_arn, action, resource)


def reads_across(aws: Any, role_arn: str, topic: str, group: str, cluster_arn: str) -> bool:
    """True when the role may consume the topic as a member of `group`, wherever the role and the cluster
    are: every action MSK asks of a reader (Connect, DescribeTopic, ReadData, DescribeGroup, AlterGroup)."""
    cluster = ClusterArn.parse(cluster_arn)
    return all(
        allowed(aws, role_arn, action, resource, cluster_arn)
        for action, resource in (
            ("kafka-cluster:Connect", cluster.arn),
            ("kafka-cluster:DescribeTopic", cluster.topic(topic)),
            ("kafka-cluster:ReadData", cluster.topic(topic)),
            ("kafka-cluster:DescribeGroup", cluster.group(group)),
            ("kafka-cluster:AlterGroup", cluster.group(group)),
        )
    )
