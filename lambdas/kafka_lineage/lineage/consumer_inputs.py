"""The consumer groups' part of a run's inputs: read through the `ConsumerReader` port once per run (never
when every source says `consumers: "off"`), derived into edges (`kafka_lineage.consumers`), with the groups
of the connectors already drawn folded into their paths.

A run hands the result to `resolve(..., consumers=...)`, which makes each storable reader a `Consumer` edge
(`readers_by_topic`); the resolution then carries what to report (`Resolution.consumers.errors`) and which
edges to keep (`Resolution.keeps_edge`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kafka_lineage.config import Settings
from kafka_lineage.consumers import connector_groups, derive
from kafka_lineage.lineage.model import EdgeKey, TopicEdge, unstorable
from kafka_lineage.lineage.ports import ConsumerReader
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.connectors import ConnectorConfig, ConnectorNote, Derivation
from kafka_lineage.model.consumers import ConsumerDerivation, ConsumerEdge
from kafka_lineage.model.topics import TopicKey


@dataclass(frozen=True, slots=True)
class Consumer(TopicEdge):
    """A consumer edge: a consumer group reads the topic (`kafka_lineage.consumers`)."""

    reader: ConsumerEdge

    @property
    def origin(self) -> str:
        return self.reader.origin

    @property
    def edge(self) -> EdgeKey:
        return EdgeKey.consumer(self.key, self.reader.group)


def readers_by_topic(
    consumers: ConsumerDerivation,
) -> tuple[dict[TopicKey, list[ConsumerEdge]], list[ConnectorNote]]:
    """Each topic's consumer groups, and those whose state key cannot be stored, reported."""
    readers: dict[TopicKey, list[ConsumerEdge]] = {}
    notes: list[ConnectorNote] = []
    for edge in consumers.edges:
        problem = unstorable(EdgeKey.consumer(edge.key, edge.group).key)
        if problem:
            reason = f"consumer group {edge.group!r} reads the topic, but {problem}"
            notes.append(ConnectorNote("undetermined", edge.origin, reason, edge.key))
            continue
        readers.setdefault(edge.key, []).append(edge)
    return readers, notes


def consumers_wanted(settings: Settings) -> bool:
    return any(s.consumers != "off" for s in settings.sources)


def read_consumers(
    settings: Settings,
    reader: ConsumerReader | None,
    records: Iterable[AssetRecord],
    stop: Callable[[], bool],
    connectors: Sequence[ConnectorConfig] = (),
    derivation: Derivation | None = None,
) -> ConsumerDerivation:
    """The consumer edges of the mirrored topics. Nothing is read when no source wants them (their edges
    emitted before are then retracted like any remap)."""
    if reader is None or not consumers_wanted(settings):
        return ConsumerDerivation()
    reads = reader.read(settings.sources, stop=stop)
    topics = [TopicKey(r.registry_name, r.schema_name) for r in records]
    drawn = connector_groups(connectors, derivation or Derivation())
    return derive(reads, topics, settings.sources, drawn)
