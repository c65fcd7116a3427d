"""Consumer groups -> lineage edges (pure).

Each (mirrored topic, consumer group) pair the lag metrics name is a `ConsumerEdge`: a run of job
`consumer/<group>` whose input is the topic and which has no output. What is left out:

- a source whose `consumers` setting is "off", and the groups its include / exclude filter drops;
- topics that are not mirrored (no schema of that name in the source's registry);
- a group that belongs to a path already drawn, folded into it (`FoldedGroup`): an MSK Connect connector
  consumes as `connect-<connector name>`, or as its `consumer.override.group.id` (Kafka Connect's worker
  naming, the MSK developer guide). Only a connector with an edge or a note on that topic folds it: a
  connector lineage does not draw (an S3 sink, say) leaves its group drawn as a reader.

Firehose streams with an MSK source and MSK Data Delivery channels: AWS documents no consumer group name
for either (the Firehose MSKSourceConfiguration and the channel's configuration name none, and the MSK
guide says nothing). The reading chosen: nothing is guessed, so their groups are not folded and are drawn
as readers like any other group; a source that knows their names leaves them out with `consumers.exclude`.

A cluster whose listing failed (`ConsumerReads.unread`) makes its sources' groups unknown this run: their
edges are kept as they are, never retracted (`ConsumerDerivation.keeps`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

from kafka_lineage.config import Source
from kafka_lineage.connectors.derive import GONE_STATES
from kafka_lineage.model.connectors import ConnectorConfig, Derivation
from kafka_lineage.model.consumers import (
    ConsumerDerivation,
    ConsumerEdge,
    ConsumerReads,
    FoldedGroup,
    GroupRead,
)
from kafka_lineage.model.topics import TopicKey

# Kafka Connect names a sink connector's consumer group `connect-<connector name>` unless the connector
# overrides it (`consumer.override.group.id`, allowed by MSK Connect's default client override policy).
OVERRIDE_KEY = "consumer.override.group.id"


def job_namespace(cluster_arn: str) -> str:
    """The consumer edges' job namespace: group names are unique per cluster, like channel names."""
    return f"kafka-consumer://{cluster_arn.split('/')[1] if '/' in cluster_arn else cluster_arn}"


def connector_groups(
    connectors: Sequence[ConnectorConfig], derivation: Derivation
) -> dict[tuple[TopicKey, str], str]:
    """(topic, group) -> the origin of the connector path that group belongs to, for every connector that
    has an edge or a note on the topic."""
    topics: dict[str, set[TopicKey]] = defaultdict(set)
    for sink in derivation.sinks:
        if not sink.via:
            topics[sink.connector].add(sink.key)
    for note in derivation.notes:
        if note.key is not None:
            topics[note.connector].add(note.key)
    drawn: dict[tuple[TopicKey, str], str] = {}
    for connector in sorted(connectors, key=lambda c: (c.name, c.arn)):
        if connector.state in GONE_STATES:
            continue
        groups = {f"connect-{connector.name}", connector.config.get(OVERRIDE_KEY, "").strip()} - {""}
        for key in topics.get(connector.name, ()):
            for group in groups:
                drawn.setdefault((key, group), f"connector:{connector.name}")
    return drawn


def derive(
    reads: ConsumerReads,
    topics: Iterable[TopicKey],
    sources: Sequence[Source],
    drawn: Mapping[tuple[TopicKey, str], str] | None = None,
) -> ConsumerDerivation:
    """The consumer edges of the mirrored `topics`, the groups folded into a drawn path (`drawn`, from
    `connector_groups`), and the sources whose groups are unknown this run."""
    drawn = drawn or {}
    mirrored = set(topics)
    by_cluster: dict[str, list[GroupRead]] = defaultdict(list)
    for pair in sorted(set(reads.pairs)):
        by_cluster[pair.cluster_arn].append(pair)
    unread = set(reads.unread)
    edges: list[ConsumerEdge] = []
    folded: list[FoldedGroup] = []
    unknown: set[str] = set()
    for source in sources:
        if source.consumers == "off":
            continue
        if source.cluster_arn in unread:
            unknown.add(source.key)
            continue
        for pair in by_cluster.get(source.cluster_arn, ()):
            key = TopicKey(source.key, pair.topic)
            if key not in mirrored or not source.reads_group(pair.group):
                continue
            into = drawn.get((key, pair.group))
            if into:
                folded.append(FoldedGroup(key, pair.group, into, source.cluster_arn))
            else:
                edges.append(ConsumerEdge(key, pair.group, source.cluster_arn))
    return ConsumerDerivation(
        edges=tuple(sorted(set(edges))),
        folded=tuple(sorted(set(folded))),
        unknown=frozenset(unknown),
        errors=reads.errors,
    )
