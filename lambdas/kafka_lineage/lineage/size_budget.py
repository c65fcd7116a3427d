"""Exact body sizes of every shape of a sink edge's run, from facets serialized once each: how the event
builder (events.py) picks the degradation rung that fits DataZone's limit without rendering every rung.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from openlineage.client.generated.base import DatasetFacet

from kafka_lineage.lineage.facets import (
    RunParts,
    Shape,
    lineage_facet,
    serialize,
    table_schema_facet,
    topic_lineage_fields,
    topic_schema_facet,
    typed_event,
)


class SizeModel:
    """Serde writes compact, key-sorted JSON, so a dict's size is `2 + sum(len('"key":') + len(value)) +
    commas` whatever the order: an event's size is its skeleton's (datasets with `"facets":{}`) plus its
    facets'. The COMPLETE event is the larger of the two (its eventType is longer), so it is the one modelled.
    """

    def __init__(self, parts: RunParts) -> None:
        self.parts, self.matches = parts, parts.matches
        skeleton = typed_event(parts, None, "COMPLETE")
        self.skeleton = len(serialize(skeleton)) - 2 * _dict_size([])
        self._facets: dict[tuple[object, ...], int] = {}
        self._entries: dict[bool, list[int]] = {}
        self.lineage_base = len(serialize(lineage_facet({}))) - _dict_size([])

    def _facet(self, key: tuple[object, ...], build: Callable[[], DatasetFacet | None]) -> int | None:
        if key not in self._facets:
            facet = build()
            self._facets[key] = -1 if facet is None else len(serialize(facet))
        size = self._facets[key]
        return None if size < 0 else size

    def entries(self, transformations: bool) -> list[int]:
        """Size of each column-lineage entry (`"column":{...}`), in table order."""
        if transformations not in self._entries:
            self._entries[transformations] = [
                _key_size(m.column)
                + len(serialize(topic_lineage_fields(self.parts.content, m.field, transformations)))
                for m in self.matches
            ]
        return self._entries[transformations]

    def size(self, shape: Shape, columns: int | None = None) -> int:
        kept = len(self.matches) if columns is None else columns
        if shape.lineage_columns is not None:
            kept = min(kept, shape.lineage_columns)
        topic = self._facet(
            ("topic", shape.topic_schema, shape.descriptions),
            lambda: topic_schema_facet(self.parts.fields, self.parts.row_paths, shape),
        )
        table = self._facet(
            ("table", shape.table_schema, shape.descriptions),
            lambda: table_schema_facet(self.parts.content, shape),
        )
        topic_items = [("schema", topic)] if topic is not None else []
        table_items = [("schema", table)] if table is not None else []
        if kept:
            entries = self.entries(shape.transformations)[:kept]
            lineage = self.lineage_base + 2 + sum(entries) + len(entries) - 1
            table_items.append(("columnLineage", lineage))
        return self.skeleton + _dict_size(topic_items) + _dict_size(table_items)

    def columns_that_fit(self, shape: Shape, max_bytes: int) -> int:
        """The most columns (a prefix, in table order) whose lineage fits: size(k+1) = size(k) + entry + 1."""
        entries = self.entries(shape.transformations)
        if not entries or self.size(shape, columns=1) > max_bytes:
            return 0
        used = self.size(shape, columns=1)
        kept = 1
        for entry in entries[1:]:
            used += entry + 1
            if used > max_bytes:
                break
            kept += 1
        return kept


def _key_size(name: str) -> int:
    return len(json.dumps(name, ensure_ascii=False).encode("utf-8")) + 1


def _dict_size(items: Sequence[tuple[str, int]]) -> int:
    return 2 + sum(_key_size(key) + size for key, size in items) + max(0, len(items) - 1)
