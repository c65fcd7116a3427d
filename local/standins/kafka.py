"""Amazon MSK's GetBootstrapBrokers, ListTopics and DescribeTopic (moto lacks them), for clusters and topics
registered from Python.

Topics come into existence through `create_topic` (the test hook; the demo world's topics are made by
local/world.py), as Kafka would make them: names of 1-249 characters of `[a-zA-Z0-9._-]` (Kafka's
`Topic.validate`; `$` and `#`, which Glue schema names allow, are refused), unique per cluster, on a
registered cluster. `__consumer_offsets`, `__debezium-heartbeat.dbserver1` and other `__` topics are topics
like the others (MSK lists Kafka's internal topics too).

- ListTopics pages with `MaxResults` (1-100; AWS documents no default: DEFAULT_PAGE here) and an opaque
  `NextToken`, in name order; `TopicNameFilter` keeps the topics "starting with given name" (the model's
  words).
- DescribeTopic answers `Configs` base64-encoded, as `key=value` lines (the MSK developer guide) or, under
  the reading `topic_configs_encoding="json"`, as a JSON object; a topic not on the cluster is
  NotFoundException.
- DescribeClusterV2 answers a registered cluster's `ClusterInfo` (name, ARN, `ClusterType`, ACTIVE), so a
  caller can tell MSK Serverless (which has no cluster policy) from a provisioned cluster; a cluster is
  PROVISIONED unless registered with `set_cluster_type(arn, "SERVERLESS")`. moto's own clusters are answered
  by moto.
- Topic ARNs follow the IAM guide: `arn:aws:kafka:<r>:<a>:topic/<cluster name>/<cluster uuid>/<topic>`.
"""

from __future__ import annotations

import base64
import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from local.standins.errors import ServiceError
from local.standins.readings import Readings

# set_brokers keyword -> GetBootstrapBrokers output member (botocore kafka model).
MEMBERS = {
    "plaintext": "BootstrapBrokerString",
    "tls": "BootstrapBrokerStringTls",
    "sasl_scram": "BootstrapBrokerStringSaslScram",
    "sasl_iam": "BootstrapBrokerStringSaslIam",
    "public_tls": "BootstrapBrokerStringPublicTls",
    "public_sasl_scram": "BootstrapBrokerStringPublicSaslScram",
    "public_sasl_iam": "BootstrapBrokerStringPublicSaslIam",
    "vpc_connectivity_tls": "BootstrapBrokerStringVpcConnectivityTls",
    "vpc_connectivity_sasl_scram": "BootstrapBrokerStringVpcConnectivitySaslScram",
    "vpc_connectivity_sasl_iam": "BootstrapBrokerStringVpcConnectivitySaslIam",
}
_CLUSTER_ARN = re.compile(r"arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster/[^/]+/[^/]+")
_BROKER_LIST = re.compile(r"[^\s,:]+:\d{1,5}(,[^\s,:]+:\d{1,5})*")
TOPIC_NAME = re.compile(r"[a-zA-Z0-9._-]{1,249}")  # Kafka's legal topic names
DEFAULT_PAGE = 10  # ListTopics without MaxResults: undocumented; the model allows 1-100
TOPIC_OPERATIONS = frozenset({"ListTopics", "DescribeTopic"})


@dataclass
class _Topic:
    name: str
    partitions: int
    replication_factor: int
    configs: dict[str, str] = field(default_factory=dict)


def topic_arn(cluster_arn: str, topic: str) -> str:
    prefix, _, rest = cluster_arn.partition(":cluster/")
    return f"{prefix}:topic/{rest}/{topic}"


class KafkaBrokers:
    def __init__(self, readings: Callable[[], Readings] | None = None) -> None:
        self._clusters: dict[str, dict[str, str]] = {}
        self._topics: dict[str, dict[str, _Topic]] = {}  # cluster ARN -> topics by name
        self._types: dict[str, str] = {}  # cluster ARN -> ClusterType, when not PROVISIONED
        self._readings = readings or Readings
        self._lock = threading.Lock()

    def set_brokers(self, cluster_arn: str, **strings: str | None) -> None:
        """Register a cluster's bootstrap strings, e.g. `set_brokers(arn, sasl_iam="b-1.x:9098,b-2.x:9098")`;
        keywords are the keys of MEMBERS, values comma-separated host:port lists."""
        if not _CLUSTER_ARN.fullmatch(cluster_arn):
            raise ValueError(f"not an MSK cluster ARN: {cluster_arn!r}")
        unknown = set(strings) - set(MEMBERS)
        if unknown:
            raise ValueError(
                f"unknown bootstrap string kinds {sorted(unknown)}; expected some of {sorted(MEMBERS)}"
            )
        given = {MEMBERS[kind]: value for kind, value in strings.items() if value is not None}
        if not given:
            raise ValueError("give at least one bootstrap string")
        for member, value in given.items():
            if not _BROKER_LIST.fullmatch(value):
                raise ValueError(f"{member} must be comma-separated host:port pairs, got {value!r}")
        with self._lock:
            self._clusters[cluster_arn] = given

    def set_cluster_type(self, cluster_arn: str, cluster_type: str) -> None:
        """A registered cluster's ClusterType (botocore kafka ClusterType: PROVISIONED or SERVERLESS)."""
        if cluster_type not in ("PROVISIONED", "SERVERLESS"):
            raise ValueError(f"ClusterType is PROVISIONED or SERVERLESS, not {cluster_type!r}")
        with self._lock:
            self._types[cluster_arn] = cluster_type

    def reset(self) -> None:
        with self._lock:
            self._clusters.clear()
            self._topics.clear()
            self._types.clear()

    # -- topics (the test hooks)
    def create_topic(
        self,
        cluster_arn: str,
        name: str,
        partitions: int = 1,
        replication_factor: int = 3,
        configs: Mapping[str, str] | None = None,
    ) -> str:
        """Create a topic on a registered cluster, as Kafka would (its name rules); its ARN."""
        if not TOPIC_NAME.fullmatch(name) or name in (".", ".."):
            raise ValueError(f"not a legal Kafka topic name: {name!r}")
        if partitions < 1 or replication_factor < 1:
            raise ValueError("partitions and replication_factor must be at least 1")
        with self._lock:
            if cluster_arn not in self._clusters:
                raise ValueError(f"no cluster {cluster_arn}: set_brokers first")
            topics = self._topics.setdefault(cluster_arn, {})
            if name in topics:
                raise ValueError(f"topic {name!r} exists on {cluster_arn}")
            topics[name] = _Topic(name, partitions, replication_factor, dict(configs or {}))
        return topic_arn(cluster_arn, name)

    def alter_topic(
        self,
        cluster_arn: str,
        name: str,
        partitions: int | None = None,
        configs: Mapping[str, str] | None = None,
    ) -> None:
        """Add partitions (Kafka never removes any) or set configs, as kafka-topics/kafka-configs would."""
        with self._lock:
            topic = self._topics.get(cluster_arn, {}).get(name)
            if topic is None:
                raise ValueError(f"no topic {name!r} on {cluster_arn}")
            if partitions is not None:
                if partitions <= topic.partitions:
                    raise ValueError("Kafka only adds partitions")
                topic.partitions = partitions
            topic.configs.update(configs or {})

    def delete_topic(self, cluster_arn: str, name: str) -> None:
        with self._lock:
            self._topics.get(cluster_arn, {}).pop(name, None)

    def knows(self, cluster_arn: str, account: str | None = None) -> bool:
        """Whether the cluster is registered (in `account`, the caller's, when given)."""
        with self._lock:
            known = cluster_arn in self._clusters
        return known and (account is None or cluster_arn.split(":")[4:5] == [account])

    def handle(self, operation: str, params: dict[str, Any], account: str | None = None) -> dict[str, Any]:
        """`account` is the caller's: a cluster is found only in its own account (its ARN's)."""
        if operation == "ListTopics":
            return self._list_topics(params, account)
        if operation == "DescribeTopic":
            return self._describe_topic(params, account)
        if operation == "DescribeClusterV2":
            return self._describe_cluster(params, account)
        if operation != "GetBootstrapBrokers":
            raise NotImplementedError(operation)
        arn = params["ClusterArn"]
        with self._lock:
            found = self._clusters.get(arn)
        if account is not None and arn.split(":")[4:5] != [account]:
            found = None
        if found is None:
            raise ServiceError("NotFoundException", f"The specified cluster was not found: {arn}", 404)
        return dict(found)

    def _describe_cluster(self, params: dict[str, Any], account: str | None) -> dict[str, Any]:
        arn = str(params["ClusterArn"])
        if not self.knows(arn, account):
            raise ServiceError("NotFoundException", f"The specified cluster was not found: {arn}", 404)
        with self._lock:
            cluster_type = self._types.get(arn, "PROVISIONED")
        return {
            "ClusterInfo": {
                "ClusterArn": arn,
                "ClusterName": arn.split(":cluster/", 1)[1].split("/", 1)[0],
                "ClusterType": cluster_type,
                "State": "ACTIVE",
            }
        }

    def _cluster_topics(self, arn: str, account: str | None) -> dict[str, _Topic]:
        known = self.knows(arn, account)
        if not known:
            raise ServiceError("NotFoundException", f"The specified cluster was not found: {arn}", 404)
        with self._lock:
            return dict(self._topics.get(arn, {}))

    def _list_topics(self, params: dict[str, Any], account: str | None) -> dict[str, Any]:
        arn = params["ClusterArn"]
        topics = self._cluster_topics(arn, account)
        size = int(params.get("MaxResults") or DEFAULT_PAGE)
        if not 1 <= size <= 100:
            raise ServiceError("BadRequestException", "maxResults must be between 1 and 100", 400)
        wanted = str(params.get("TopicNameFilter") or "")
        names = sorted(name for name in topics if name.startswith(wanted))
        start = 0
        token = params.get("NextToken")
        if token:
            try:
                start = int(base64.urlsafe_b64decode(token.encode()).decode())
            except ValueError as error:
                raise ServiceError("BadRequestException", "The nextToken is not valid", 400) from error
        page = names[start : start + size]
        answer: dict[str, Any] = {
            "Topics": [
                {
                    "TopicArn": topic_arn(arn, name),
                    "TopicName": name,
                    "PartitionCount": topics[name].partitions,
                    "ReplicationFactor": topics[name].replication_factor,
                    "OutOfSyncReplicaCount": 0,
                }
                for name in page
            ]
        }
        if start + size < len(names):
            answer["NextToken"] = base64.urlsafe_b64encode(str(start + size).encode()).decode()
        return answer

    def _describe_topic(self, params: dict[str, Any], account: str | None) -> dict[str, Any]:
        arn, name = params["ClusterArn"], params["TopicName"]
        topic = self._cluster_topics(arn, account).get(name)
        if topic is None:
            raise ServiceError("NotFoundException", f"The specified topic was not found: {name}", 404)
        if self._readings().topic_configs_encoding == "json":
            text = json.dumps(topic.configs)
        else:
            text = "".join(f"{key}={value}\n" for key, value in sorted(topic.configs.items()))
        return {
            "TopicArn": topic_arn(arn, name),
            "TopicName": name,
            "PartitionCount": topic.partitions,
            "ReplicationFactor": topic.replication_factor,
            "Configs": base64.b64encode(text.encode()).decode(),
            "Status": "ACTIVE",
        }
