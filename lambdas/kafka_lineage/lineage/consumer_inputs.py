"""The consumer groups' part of a run's inputs: read through the `ConsumerReader` port once per run (never
when every source says `consumers: "off"`), derived into edges (`kafka_lineage.consumers`), with the groups
of the connectors already drawn folded into their paths.

A run hands the result to `resolve(..., consumers=...)`; the resolution then carries what to report
(`Resolution.consumers.errors`) and which edges to keep (`Resolution.keeps_edge`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from kafka_lineage.config import Settings
from kafka_lineage.consumers import connector_groups, derive
from kafka_lineage.lineage.ports import ConsumerReader
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.connectors import ConnectorConfig, Derivation
from kafka_lineage.model.consumers import ConsumerDerivation
from kafka_lineage.model.topics import TopicKey


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
