"""The ARNs a grant is written in: MSK cluster, topic and group ARNs, and IAM role names.

MSK IAM access control (MSK developer guide, "IAM access control", resources table) names
`cluster/<name>/<uuid>`, `topic/<name>/<uuid>/<topic>` and `group/<name>/<uuid>/<group>`, the same for
provisioned and Serverless clusters; the cluster's partition, Region and account carry over.

IAM ARN wildcards (`*`, `?`) cannot be escaped in a Resource. Kafka topic names are `[a-zA-Z0-9._-]`
(at most 249 characters, Apache Kafka's `Topic.validate`), so a topic name never carries one: a name
outside that set is refused rather than written, because it could widen the grant to other topics.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

# The partitions whose IAM and MSK this code writes for (aws, aws-cn, aws-us-gov); others are refused.
PARTITIONS = ("aws", "aws-cn", "aws-us-gov")
_PARTITION = "|".join(re.escape(partition) for partition in PARTITIONS)
CLUSTER_ARN = re.compile(
    rf"arn:(?P<partition>{_PARTITION}):kafka:(?P<region>[a-z0-9-]+):(?P<account>\d{{12}}):"
    r"cluster/(?P<name>[^/*?\s]+)/(?P<uuid>[^/*?\s]+)"
)
# IAM role ARN: a path of printable ASCII between slashes (botocore iam pathType), a name of
# `[\w+=,.@-]{1,64}` (roleNameType).
ROLE_ARN = re.compile(
    rf"arn:(?P<partition>{_PARTITION}):iam::(?P<account>\d{{12}}):role"
    r"(?P<path>/(?:[\x21-\x7e]*/)?)(?P<name>[\w+=,.@-]{1,64})"
)
# Apache Kafka's legal topic characters and length (org.apache.kafka.common.internals.Topic).
TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")
# What a rendered consumer-group pattern may hold: Kafka's topic characters, the placeholders' values
# (DataZone ids, IAM role names: `+=,@`) and IAM's wildcards, which the operator's template means.
GROUP_PATTERN = re.compile(r"[\w.+=,@*?-]{1,1024}")


@dataclass(frozen=True, order=True)
class ClusterArn:
    """An MSK cluster ARN, split into the parts its topic and group ARNs are built from."""

    partition: str
    region: str
    account: str
    name: str
    uuid: str

    @classmethod
    def parse(cls, arn: str) -> ClusterArn:
        found = CLUSTER_ARN.fullmatch(arn)
        if found is None:
            raise ValueError(
                f"{arn!r} is not an MSK cluster ARN (arn:<partition>:kafka:<region>:<account>:"
                "cluster/<name>/<uuid>, partition one of aws, aws-cn, aws-us-gov)"
            )
        return cls(found["partition"], found["region"], found["account"], found["name"], found["uuid"])

    def _resource(self, kind: str, tail: str) -> str:
        return f"arn:{self.partition}:kafka:{self.region}:{self.account}:{kind}/{self.name}/{self.uuid}{tail}"

    @property
    def arn(self) -> str:
        return self._resource("cluster", "")

    def topic(self, topic: str) -> str:
        """The topic's ARN; refuses a name outside Kafka's legal characters (it could hold a wildcard)."""
        if not TOPIC_NAME.fullmatch(topic):
            raise ValueError(f"topic {topic!r} is not a Kafka topic name ([a-zA-Z0-9._-], 1-249 characters)")
        return self._resource("topic", f"/{topic}")

    def group(self, pattern: str) -> str:
        """The ARN (pattern) of the consumer groups `pattern` names."""
        if not GROUP_PATTERN.fullmatch(pattern):
            raise ValueError(f"consumer group pattern {pattern!r} holds characters an ARN cannot carry")
        return self._resource("group", f"/{pattern}")


@dataclass(frozen=True, order=True)
class RoleArn:
    """An IAM role ARN. `name` is the last path segment: `role/path/to/Name` is the role `Name`."""

    partition: str
    account: str
    path: str
    name: str

    @classmethod
    def parse(cls, arn: str) -> RoleArn:
        found = ROLE_ARN.fullmatch(arn)
        if found is None or len(found["path"]) > 512:
            raise ValueError(
                f"{arn!r} is not an IAM role ARN (arn:<partition>:iam::<account>:role/[path/]name)"
            )
        return cls(found["partition"], found["account"], found["path"], found["name"])

    @property
    def arn(self) -> str:
        return f"arn:{self.partition}:iam::{self.account}:role{self.path}{self.name}"

    def policy_arn(self, path: str, name: str) -> str:
        """The ARN of a customer managed policy `name` under `path` in the role's account."""
        return f"arn:{self.partition}:iam::{self.account}:policy{path}{name}"


def role_accounts(principals: Iterable[str]) -> set[str]:
    """The accounts of the role ARNs among `principals` (anything else is passed over)."""
    found = set()
    for principal in principals:
        try:
            found.add(RoleArn.parse(principal).account)
        except ValueError:
            continue
    return found


def role_name(arn: str) -> str:
    """The role's name: the last segment of its ARN, whatever its path (`role/a/b/Name` -> `Name`)."""
    return RoleArn.parse(arn).name
