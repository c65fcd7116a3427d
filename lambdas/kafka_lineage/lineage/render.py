"""A sink edge's run bodies from plain dicts: what Serde makes of the typed RunEvent (facets.typed_event),
byte for byte (a unit test holds the two equal), because walking the attrs objects of a few hundred fields
cost several milliseconds of CPU per event.
"""

from __future__ import annotations

from collections.abc import Sequence

from openlineage.client.generated.column_lineage_dataset import ColumnLineageDatasetFacet
from openlineage.client.generated.schema_dataset import SchemaDatasetFacet
from openlineage.client.serde import Serde

from kafka_lineage.lineage.facets import RunParts, Shape, dump, topic_lineage_fields, typed_event
from kafka_lineage.lineage.model import EVENT_TYPES
from kafka_lineage.lineage.run_identity import PRODUCER, event_moments, format_time

# The typed facets' constant members (`_producer`, `_schemaURL`), as Serde writes them.
_SCHEMA_HEAD = Serde.to_dict(SchemaDatasetFacet(fields=[], producer=PRODUCER))
_LINEAGE_HEAD = Serde.to_dict(ColumnLineageDatasetFacet(fields={}, dataset=None, producer=PRODUCER))


class Renderer:
    """The typed classes still define the shape: the skeleton (run, job, datasets) and one column-lineage
    entry are serialized through them once per run, and only the per-field and per-column parts are filled in
    here."""

    def __init__(self, parts: RunParts) -> None:
        self.parts = parts
        self.skeleton = Serde.to_dict(typed_event(parts, None, EVENT_TYPES[0]))
        self._inputs: dict[bool, dict[str, object]] = {}

    def _input(self, transformations: bool) -> dict[str, object]:
        """One column-lineage input field, as Serde writes it; only `field` differs between columns."""
        if transformations not in self._inputs:
            sample = Serde.to_dict(topic_lineage_fields(self.parts.content, "f", transformations))
            self._inputs[transformations] = sample["inputFields"][0]
        return self._inputs[transformations]

    @staticmethod
    def _schema(items: Sequence[tuple[str, str, str]], descriptions: bool) -> dict[str, object]:
        fields = []
        for name, data_type, description in items:
            entry = {"name": name}
            if data_type:
                entry["type"] = data_type
            if descriptions and description:
                entry["description"] = description
            fields.append(entry)
        return {**_SCHEMA_HEAD, "fields": fields}

    def render(self, shape: Shape) -> tuple[tuple[str, bytes], ...]:
        parts = self.parts
        topic_facets: dict[str, object] = {}
        table_facets: dict[str, object] = {}
        if shape.topic_schema != "none":
            chosen = [
                (f.name, f.type, f.description)
                for f in parts.fields
                if shape.topic_schema == "all" or f.name in parts.row_paths
            ]
            topic_facets["schema"] = self._schema(chosen, shape.descriptions)
        if shape.table_schema:
            columns = [(c.name, c.type, c.comment) for c in parts.content.table.columns]
            table_facets["schema"] = self._schema(columns, shape.descriptions)
        kept = shape.kept(parts.matches)
        if kept:
            template = self._input(shape.transformations)
            table_facets["columnLineage"] = {
                **_LINEAGE_HEAD,
                "fields": {m.column: {"inputFields": [{**template, "field": m.field}]} for m in kept},
            }
        document = dict(self.skeleton)
        document["inputs"] = [{**self.skeleton["inputs"][0], "facets": topic_facets}]
        document["outputs"] = [{**self.skeleton["outputs"][0], "facets": table_facets}]
        bodies = []
        for event_type, moment in event_moments(parts.event_time):
            document["eventType"] = event_type
            document["eventTime"] = format_time(moment)
            bodies.append((event_type, dump(document)))
        return tuple(bodies)
