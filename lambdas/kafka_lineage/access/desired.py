"""A role's access, rendered from the grants that stand: what each grant gives and nothing else.

Per cluster: one statement for `kafka-cluster:Connect` on the cluster, one that lists the topic ARNs for
`DescribeTopic` + `ReadData`, one for `DescribeGroup` + `AlterGroup` on the consumer-group patterns; and
`glue:GetSchemaVersion` on `*` once per role (deserializers call it by schema version id, which only `*`
grants). The access is a pure function of the standing grants, so what two grants give stays until both
are revoked. Output is sorted and its Sids derive from the cluster ARN, so any input order renders the same.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from kafka_lineage.access.arns import ClusterArn, RoleArn
from kafka_lineage.access.model import Grant
from kafka_lineage.access.settings import AccessSettings

POLICY_VERSION = "2012-10-17"
CONNECT = ("kafka-cluster:Connect",)
READ_TOPIC = ("kafka-cluster:DescribeTopic", "kafka-cluster:ReadData")
USE_GROUP = ("kafka-cluster:AlterGroup", "kafka-cluster:DescribeGroup")
SCHEMA_VERSION = ("glue:GetSchemaVersion",)


@dataclass(frozen=True)
class ClusterAccess:
    """What one role may do on one cluster: the topics' ARNs and the consumer groups' ARN patterns."""

    cluster: ClusterArn
    topics: tuple[str, ...]
    groups: tuple[str, ...]


@dataclass(frozen=True)
class RoleAccess:
    """Everything the standing grants give one role, and which grants give it."""

    role: RoleArn
    clusters: tuple[ClusterAccess, ...]
    grants: tuple[tuple[str, str], ...]

    @property
    def empty(self) -> bool:
        return not self.clusters

    def needs(self) -> tuple[tuple[str, str], ...]:
        """Every (action, resource) the access allows: what a boundary must let through."""
        needed: list[tuple[str, str]] = []
        for access in self.clusters:
            needed += [(action, access.cluster.arn) for action in CONNECT]
            needed += [(action, topic) for topic in access.topics for action in READ_TOPIC]
            needed += [(action, group) for group in access.groups for action in USE_GROUP]
        if self.clusters:
            needed += [(action, "*") for action in SCHEMA_VERSION]
        return tuple(needed)


@dataclass(frozen=True)
class Statement:
    """One Allow statement; its `resources` may be split across several statements (and documents)."""

    sid: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]

    def render(self, resources: tuple[str, ...] | None = None, part: int = 1) -> dict[str, Any]:
        sid = self.sid if part == 1 else f"{self.sid}Part{part}"
        return {
            "Sid": sid,
            "Effect": "Allow",
            "Action": list(self.actions),
            "Resource": list(self.resources if resources is None else resources),
        }


def granted(grant: Grant, role: RoleArn, settings: AccessSettings) -> tuple[str, tuple[str, ...]]:
    """What `grant` gives one of its principals, `role`, on the grant's cluster: the topic's ARN and the ARN
    patterns of the consumer groups the settings name for it. Raises ValueError for a topic or group that
    cannot be written as an ARN."""
    cluster = grant.cluster
    patterns = settings.group_patterns(
        project_id=grant.project_id, environment_id=grant.environment_id, role_name=role.name
    )
    return cluster.topic(grant.topic), tuple(cluster.group(pattern) for pattern in patterns)


def role_access(role_arn: str, grants: Iterable[Grant], settings: AccessSettings) -> RoleAccess:
    """The access the standing grants among `grants` give `role_arn` (a grant gives it to each of its
    principals). Raises ValueError for a grant whose topic or groups cannot be written as ARNs."""
    role = RoleArn.parse(role_arn)
    topics: dict[ClusterArn, set[str]] = {}
    groups: dict[ClusterArn, set[str]] = {}
    keys: set[tuple[str, str]] = set()
    for grant in grants:
        if not grant.stands or role_arn not in grant.principals:
            continue
        topic, granted_groups = granted(grant, role, settings)
        topics.setdefault(grant.cluster, set()).add(topic)
        groups.setdefault(grant.cluster, set()).update(granted_groups)
        keys.add(grant.key)
    clusters = tuple(
        ClusterAccess(cluster, tuple(sorted(topics[cluster])), tuple(sorted(groups[cluster])))
        for cluster in sorted(topics, key=lambda c: c.arn)
    )
    return RoleAccess(role, clusters, tuple(sorted(keys)))


def statements(access: RoleAccess) -> tuple[Statement, ...]:
    """The statements of `access`, in a fixed order: the Schema Registry one, then each cluster's."""
    if access.empty:
        return ()
    rendered = [Statement("GlueSchemaVersions", SCHEMA_VERSION, ("*",))]
    for cluster in access.clusters:
        tag = cluster_tag(cluster.cluster.arn)
        rendered += [
            Statement(f"KafkaConnect{tag}", CONNECT, (cluster.cluster.arn,)),
            Statement(f"KafkaReadTopics{tag}", READ_TOPIC, cluster.topics),
            Statement(f"KafkaConsumerGroups{tag}", USE_GROUP, cluster.groups),
        ]
    return tuple(rendered)


def cluster_tag(cluster_arn: str) -> str:
    """A short, stable, Sid-safe ([A-Za-z0-9]) tag of a cluster ARN."""
    return hashlib.sha256(cluster_arn.encode()).hexdigest()[:12]


def document(rendered: list[dict[str, Any]]) -> dict[str, Any]:
    return {"Version": POLICY_VERSION, "Statement": rendered}


def policy_size(value: Any) -> int:
    """A policy's size as IAM counts it: IAM does not count whitespace, so the minified JSON's length.
    Our documents hold no whitespace inside strings, so the two agree; for another policy that does,
    counting it is the pessimistic reading."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False))
