"""The consumer groups that read the sources' topics, as plain values (read by
`kafka_lineage.aws.consumer_groups` from the consumer-lag metrics MSK publishes to CloudWatch, derived
from by `kafka_lineage.consumers`).

`ConsumerReads` is one run's listing: the (cluster, group, topic) triples the lag metrics name, and the
clusters whose listing failed (`unread`): absence then proves nothing, so their edges are kept.
`ConsumerDerivation` is what lineage draws: one `ConsumerEdge` per (mirrored topic, group), the groups
folded into a path already drawn (`FoldedGroup`), and the sources whose groups are not known this run.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_lineage.model.topics import TopicKey

# What MSK publishes per consumer group and topic at the DEFAULT monitoring level (namespace AWS/Kafka):
# EstimatedMaxTimeLag, MaxOffsetLag and SumOffsetLag, with these dimensions.
NAMESPACE = "AWS/Kafka"
CLUSTER_DIMENSION = "Cluster Name"
GROUP_DIMENSION = "Consumer Group"
TOPIC_DIMENSION = "Topic"


@dataclass(frozen=True, order=True)
class GroupRead:
    """A consumer group that reads a topic of a cluster (a lag metric names the three)."""

    cluster_arn: str
    group: str
    topic: str


@dataclass(frozen=True)
class ConsumerReads:
    pairs: tuple[GroupRead, ...] = ()
    unread: tuple[str, ...] = ()  # cluster ARNs whose listing failed: keep their groups' edges
    errors: tuple[str, ...] = ()  # what failed, for the result and the logs
    calls: int = 0  # ListMetrics pages read


@dataclass(frozen=True, order=True)
class ConsumerEdge:
    """The group reads the topic: drawn as a run of job `consumer/<group>` with the topic as input."""

    key: TopicKey
    group: str
    cluster_arn: str

    @property
    def origin(self) -> str:
        return f"consumer:{self.group}"


@dataclass(frozen=True, order=True)
class FoldedGroup:
    """A group that belongs to a path already drawn (`into`, e.g. `connector:<name>`): no edge of its own."""

    key: TopicKey
    group: str
    into: str
    cluster_arn: str = ""

    def as_dict(self) -> dict[str, str]:
        return {**self.key.as_dict(), "group": self.group, "into": self.into}


@dataclass(frozen=True)
class ConsumerDerivation:
    edges: tuple[ConsumerEdge, ...] = ()
    folded: tuple[FoldedGroup, ...] = ()
    # Source keys whose cluster's listing failed: their consumer edges are kept as they are.
    unknown: frozenset[str] = frozenset()
    errors: tuple[str, ...] = ()

    def keeps(self, key: TopicKey) -> bool:
        """Whether the topic's consumer edges must be kept as they are: its cluster was not listed."""
        return key.registry_name in self.unknown

    def readers_of(self, key: TopicKey) -> tuple[tuple[str, str], ...]:
        """(group, cluster ARN) of every group this run saw reading the topic, folded ones included: each
        of them reads it, whether or not it is drawn as a consumer edge of its own."""
        found = [(e.group, e.cluster_arn) for e in self.edges if e.key == key]
        found += [(f.group, f.cluster_arn) for f in self.folded if f.key == key]
        return tuple(sorted(set(found)))
