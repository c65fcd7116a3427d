"""The managed delivery paths' part of a run's inputs: read through the `DeliveryReader` port once per
run (never when every source says "off" to both), derived into edges and notes (`kafka_lineage.delivery`).

A run hands the result to `resolve(..., delivery=...)`; the resolution then carries what to report
(`Resolution.inactive_paths`, `Resolution.delivery.errors`) and which edges to keep
(`Resolution.keeps`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kafka_lineage.config import Settings
from kafka_lineage.delivery import derive
from kafka_lineage.lineage.ports import DeliveryReader
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.delivery import DeliveryDerivation
from kafka_lineage.model.topics import TopicKey


def delivery_wanted(settings: Settings) -> bool:
    return any(s.channels != "off" or s.firehose != "off" for s in settings.sources)


def read_delivery(
    settings: Settings,
    reader: DeliveryReader | None,
    records: Iterable[AssetRecord],
    stop: Callable[[], bool],
    force: bool = False,
) -> DeliveryDerivation:
    """The paths' edges for the mirrored topics. Nothing is read when no source wants them (their edges
    emitted before are then retracted like any remap)."""
    if reader is None or not delivery_wanted(settings):
        return DeliveryDerivation()
    reads = reader.read(settings.sources, stop=stop, force=force)
    topics = [TopicKey(r.registry_name, r.schema_name) for r in records]
    return derive(reads, topics, settings.sources)
