"""One emission = one OpenLineage run (spec 2-0-2): a START and a COMPLETE RunEvent, built with
openlineage-python's typed classes, each within DataZone's 300,000-byte PostLineageEvent limit.

What a run carries
------------------
* input: the topic, namespace = the source's Kafka namespace (`kafka://host:port`), name = topic, with a
  schema facet of the topic's fields (flattened paths such as `after.id`);
* output: the Glue table, namespace `arn:{partition}:glue:{region}:{account}:table`, name
  `{database}/{table}` (together the table ARN, which is how DataZone joins the Glue table asset), with a
  schema facet of its columns and a column-lineage facet: each table column whose name equals a CDC row
  field (`after.X` of a Debezium envelope, or `X` of an unwrapped record), case-insensitively, has that
  field as its DIRECT/IDENTITY input. Columns without a field are left out and counted.
* job: namespace = the source's `jobNamespace`, name = `sink/{database}.{table}`; for an edge an MSK Connect
  sink connector decides, the connector's job (namespace and name as `kafka_lineage.connectors` names it).

A first hop (`HopContent`: a Debezium source connector's table -> the topic) is its own run: input the
source table (OpenLineage naming, e.g. `mysql://host:port` + `db.table`), output the topic with its schema
facet and a column-lineage facet mapping each row field `after.<column>` to the table's `<column>`, job the
source connector.

Determinism
-----------
`RunContent.fingerprint` hashes everything the events carry except runId and eventTime: the topic's identity
and schema version (its fields are a function of the immutable version, so no definition is read to decide
"unchanged"), the table and its columns, the job, the mapping and this module's EMITTER_VERSION. The runId is
`uuid5(fingerprint, superseded runId)`: the same content replacing the same run is the same run (a retry),
while content that returns to an earlier state (A -> B -> A) is a new run, never a reuse of a deleted one.
The eventTime is the latest of the schema version's registration time and the explicit mapping's last
modification: a real moment at which the described edge became true, identical on every retry.

Rendering
---------
The typed classes define the shape; the bodies are written from plain dicts that equal Serde's output byte
for byte (`_Renderer`, held equal to the typed path by a unit test), because walking the attrs objects of a
few hundred fields cost several milliseconds of CPU per event.

Size budget
-----------
Both events must fit MAX_EVENT_BYTES. The full event is rendered first; only when it does not fit is the
exact size model built and facets degraded in a fixed order, each step reported: field descriptions
dropped; the topic's schema facet cut to the row fields; the topic's schema facet dropped; the table's
schema facet dropped (both datasets keep their schemas in the DataZone catalog); column-lineage
transformations dropped; column lineage cut to the first columns that fit.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.generated.base import DatasetFacet, RunFacet
from openlineage.client.generated.column_lineage_dataset import (
    ColumnLineageDatasetFacet,
    Fields,
    InputField,
    Transformation,
)
from openlineage.client.generated.documentation_job import DocumentationJobFacet
from openlineage.client.generated.schema_dataset import SchemaDatasetFacet, SchemaDatasetFacetFields
from openlineage.client.serde import Serde

from kafka_lineage.lineage.model import EVENT_TYPES
from kafka_lineage.model.digest import fingerprint
from kafka_lineage.model.tables import ColumnMatch, GlueTable, TableRef, match_columns
from kafka_lineage.model.topics import TopicKey

# PostLineageEvent's `event` blob: at most 300,000 bytes (botocore datazone LineageEvent).
MAX_EVENT_BYTES = 300_000
# Bump when the events built from the same inputs change shape: every topic is then re-emitted once.
EMITTER_VERSION = "1"
# URI naming this emitter in `producer` and facets' `_producer` (OpenLineage: "URI identifying the producer").
PRODUCER = "urn:kafka-lineage:lineage-emission"
# Namespace of the uuid5 run ids (a fixed random UUID: run ids of this emitter never collide with others').
RUN_ID_NAMESPACE = uuid.UUID("5d0f8c3e-7a4b-4f0e-9d51-2b8f3c6a9e17")
# COMPLETE follows START by this much so that every reader orders the two the same way.
COMPLETE_AFTER = timedelta(milliseconds=1)
# The run facet a new schema version's run carries (JSON Schema: docs/facets/SchemaDriftRunFacet.json).
SCHEMA_DRIFT_FACET = "schemaDrift"
SCHEMA_DRIFT_FACET_URL = "urn:kafka-lineage:facets:SchemaDriftRunFacet:1#/$defs/SchemaDriftRunFacet"


class SchemaDriftRunFacet(RunFacet):
    """The schema drift of the run's topic version (fields added with `with_additional_properties`)."""

    @staticmethod
    def _get_schema() -> str:
        return SCHEMA_DRIFT_FACET_URL


def job_name(table: TableRef) -> str:
    return f"sink/{table.database}.{table.table}"


@dataclass(frozen=True, slots=True)
class TopicField:
    """A field of the topic's schema: `name` is its flattened path (e.g. `after.id`)."""

    name: str
    type: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class RunContent:
    """Everything a run describes that is known without reading the schema definition."""

    key: TopicKey
    topic_namespace: str
    schema_arn: str
    schema_version: int
    schema_version_id: str
    schema_created: str  # the schema's creation time: tells a re-created schema apart
    data_format: str
    table: GlueTable
    job_namespace: str
    origin: str  # operator | cdk | connector:<name> | rule
    mapping_parameter: str = ""
    connector_job: str = ""  # the sink connector's job name ("" for mappings and rules: sink/{db}.{table})
    connector_arn: str = ""
    previous_version: int = 0  # the version mirrored before `schema_version`: the run's drift is from it
    # The `schemaDrift` facet's fields (lineage.drift_check.drift_facet). A function of the two versions, so
    # left out of the fingerprint, which has `previous_version`.
    drift: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def job_name(self) -> str:
        return self.connector_job or job_name(self.table.ref)

    @property
    def job(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"

    @property
    def topic_identifier(self) -> str:
        """The DataZone sourceIdentifier of the topic's node (and of its catalog asset)."""
        return f"{self.topic_namespace}/{self.key.topic}"

    def fingerprint(self) -> str:
        described = _described_version(self)
        if self.previous_version:
            described["schema"].append(self.previous_version)
        described |= {
            "table": [self.table.namespace, self.table.ref.name],
            "columns": [[c.name, c.type, c.comment] for c in self.table.columns],
            "job": [self.job_namespace, self.job_name],
            # "cdk" was "stack" before edges: the same mapping keeps its fingerprint (no re-emission).
            "mapping": [_FINGERPRINT_ORIGIN.get(self.origin, self.origin), self.mapping_parameter],
        }
        if self.connector_arn:
            described["connector"] = self.connector_arn
        return fingerprint(described)

    def build(
        self,
        fields: Sequence[TopicField],
        row_fields: Mapping[str, str],
        run_id: str,
        event_time: datetime,
    ) -> BuiltRun:
        return build_run(self, fields, row_fields, run_id, event_time)

    def describe(self) -> dict[str, object]:
        """What the result reports about the edge's ends."""
        return {"table": self.table.ref.name, "tableArn": self.table.arn}


_FINGERPRINT_ORIGIN = {"cdk": "stack"}


def _described_version(content: RunContent | HopContent) -> dict[str, Any]:
    """What every run's fingerprint says of this emitter and the topic's schema version (keys are sorted
    before hashing, so where they are added does not matter)."""
    return {
        "emitter": EMITTER_VERSION,
        "producer": PRODUCER,
        "topic": [content.topic_namespace, content.key.registry_name, content.key.topic],
        "schema": [
            content.schema_arn,
            content.schema_version,
            content.schema_version_id,
            content.schema_created,
            content.data_format,
        ],
    }


@dataclass(frozen=True, slots=True)
class HopContent:
    """Everything a first-hop run describes that is known without reading the schema definition."""

    key: TopicKey
    topic_namespace: str
    schema_arn: str
    schema_version: int
    schema_version_id: str
    schema_created: str
    data_format: str
    dataset_namespace: str  # the source table, OpenLineage naming (e.g. mysql://host:3306)
    dataset_name: str  # e.g. inventory.customers
    job_namespace: str
    job_name: str
    connector: str
    connector_arn: str
    columns: tuple[str, ...] = ()  # the connector's column list, () when it names none

    @property
    def origin(self) -> str:
        return f"connector:{self.connector}"

    @property
    def job(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"

    def fingerprint(self) -> str:
        described = _described_version(self) | {
            "hop": [self.dataset_namespace, self.dataset_name, list(self.columns)],
            "job": [self.job_namespace, self.job_name],
            "connector": self.connector_arn,
        }
        return fingerprint(described)

    def describe(self) -> dict[str, object]:
        return {"sourceDataset": f"{self.dataset_namespace}/{self.dataset_name}"}

    def matches(self, row_fields: Mapping[str, str]) -> tuple[ColumnMatch, ...]:
        """(topic field path, source column) pairs: every row field, or those the connector lists."""
        if not self.columns:
            return tuple(ColumnMatch(column=path, field=name) for name, path in row_fields.items())
        lowered = {name.lower(): (name, path) for name, path in row_fields.items()}
        found = []
        for column in self.columns:
            hit = (column, row_fields[column]) if column in row_fields else lowered.get(column.lower())
            if hit is not None:
                found.append(ColumnMatch(column=hit[1], field=column))
        return tuple(found)

    def build(
        self,
        fields: Sequence[TopicField],
        row_fields: Mapping[str, str],
        run_id: str,
        event_time: datetime,
        max_bytes: int = MAX_EVENT_BYTES,
    ) -> BuiltRun:
        """START and COMPLETE, degraded only as far as needed to fit `max_bytes` each (descriptions, then the
        topic's schema facet, then transformations, then column lineage cut to the first columns)."""
        matches = self.matches(row_fields)
        types = {f.name: f.type for f in fields}
        report = LineageReport(
            matched=len(matches), emitted=len(matches), table_columns=len(matches), row_fields=len(row_fields)
        )
        shape, notes = _Shape(), []
        steps = [
            (replace(shape, descriptions=False), "field descriptions dropped from the schema facets"),
            (replace(shape, descriptions=False, topic_schema="none"), "topic schema facet dropped"),
            (
                replace(shape, descriptions=False, topic_schema="none", transformations=False),
                "column-lineage transformations dropped",
            ),
        ]
        bodies = self._render(fields, types, matches, shape, run_id, event_time)
        while any(len(body) > max_bytes for _, body in bodies):
            if steps:
                shape, note = steps.pop(0)
                notes.append(note)
            else:
                kept = len(matches) if shape.lineage_columns is None else shape.lineage_columns
                if kept == 0:
                    raise EventTooLarge(f"the first hop of {self.key.key} does not fit {max_bytes} bytes")
                shape = replace(shape, lineage_columns=kept // 2)
            bodies = self._render(fields, types, matches, shape, run_id, event_time)
        if shape.lineage_columns is not None:
            notes.append(f"column lineage cut to {shape.lineage_columns} of {len(matches)} columns")
            report = replace(report, emitted=shape.lineage_columns)
        return BuiltRun(run_id, format_time(event_time), bodies, report, tuple(notes))

    def _render(
        self,
        fields: Sequence[TopicField],
        types: Mapping[str, str],
        matches: Sequence[ColumnMatch],
        shape: _Shape,
        run_id: str,
        event_time: datetime,
    ) -> tuple[tuple[str, bytes], ...]:
        kept = matches if shape.lineage_columns is None else matches[: shape.lineage_columns]
        table_facets: dict[str, DatasetFacet] = {
            "schema": SchemaDatasetFacet(
                fields=[
                    SchemaDatasetFacetFields(name=m.field, type=types.get(m.column) or None, fields=None)
                    for m in matches
                ],
                producer=PRODUCER,
            )
        }
        topic_facets: dict[str, DatasetFacet] = {}
        schema = _topic_schema(fields, set(), shape)
        if schema is not None:
            topic_facets["schema"] = schema
        if kept:
            topic_facets["columnLineage"] = _lineage_facet(
                {
                    m.column: Fields(
                        inputFields=[
                            InputField(
                                namespace=self.dataset_namespace,
                                name=self.dataset_name,
                                field=m.field,
                                transformations=[Transformation(type="DIRECT", subtype="IDENTITY")]
                                if shape.transformations
                                else None,
                            )
                        ]
                    )
                    for m in kept
                }
            )
        description = (
            f"MSK Connect source connector {self.connector} captures table {self.dataset_name} "
            f"({self.dataset_namespace}) into Kafka topic {self.key.topic} (schema registry "
            f"{self.key.registry_name}, schema version {self.schema_version})."
        )
        bodies = []
        for event_type, moment in zip(EVENT_TYPES, (event_time, event_time + COMPLETE_AFTER), strict=True):
            event = RunEvent(
                eventType=RunState(event_type),
                eventTime=format_time(moment),
                producer=PRODUCER,
                run=Run(runId=run_id, facets={}),
                job=Job(
                    namespace=self.job_namespace,
                    name=self.job_name,
                    facets={
                        "documentation": DocumentationJobFacet(description=description, producer=PRODUCER)
                    },
                ),
                inputs=[
                    InputDataset(
                        namespace=self.dataset_namespace, name=self.dataset_name, facets=table_facets
                    )
                ],
                outputs=[
                    OutputDataset(namespace=self.topic_namespace, name=self.key.topic, facets=topic_facets)
                ],
            )
            bodies.append((event_type, _serialize(event)))
        return tuple(bodies)


def derive_run_id(fingerprint: str, superseded_run_id: str = "") -> str:
    return str(uuid.uuid5(RUN_ID_NAMESPACE, f"{fingerprint}:{superseded_run_id}"))


def derive_event_time(*moments: datetime | None) -> datetime:
    """The latest of the given moments (UTC, millisecond precision): when the described edge became true."""
    known = [_utc(moment) for moment in moments if moment is not None]
    if not known:
        raise ValueError("no registration or modification time to derive the run's eventTime from")
    latest = max(known)
    return latest.replace(microsecond=latest.microsecond // 1000 * 1000)


def parse_time(text: str) -> datetime | None:
    """An AWS timestamp as Glue returns it (ISO 8601, with or without zone), or None when unreadable."""
    if not text:
        return None
    try:
        return _utc(datetime.fromisoformat(text.strip().replace(" ", "T", 1)))
    except ValueError:
        return None


def format_time(moment: datetime) -> str:
    moment = _utc(moment)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


# -- building -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Shape:
    """How much of the optional content an event carries (the degradation ladder's rungs)."""

    descriptions: bool = True
    topic_schema: str = "all"  # all | row | none
    table_schema: bool = True
    transformations: bool = True
    lineage_columns: int | None = None  # None: all matched columns


@dataclass(frozen=True)
class LineageReport:
    """What the column lineage covers: reported in the run's result."""

    matched: int  # table columns with a same-named row field
    emitted: int  # of those, how many the events carry (fewer only after truncation)
    table_columns: int
    row_fields: int
    unmatched_columns: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "matched": self.matched,
            "emitted": self.emitted,
            "tableColumns": self.table_columns,
            "rowFields": self.row_fields,
            "unmatchedColumns": list(self.unmatched_columns[:20]),
        }


@dataclass(frozen=True)
class BuiltRun:
    run_id: str
    event_time: str
    bodies: tuple[tuple[str, bytes], ...]  # (eventType, body) in posting order
    lineage: LineageReport
    degraded: tuple[str, ...] = field(default=())

    @property
    def largest(self) -> int:
        return max(len(body) for _, body in self.bodies)


class EventTooLarge(ValueError):
    """Even the most degraded event passes the limit (cannot happen with Glue's and GSR's name limits)."""


def build_run(
    content: RunContent,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run_id: str,
    event_time: datetime,
    max_bytes: int = MAX_EVENT_BYTES,
) -> BuiltRun:
    """The run's START and COMPLETE bodies, degraded only as far as needed to fit `max_bytes` each."""
    matches = match_columns(row_fields, content.table)
    matched_names = {match.column for match in matches}
    report = LineageReport(
        matched=len(matches),
        emitted=len(matches),
        table_columns=len(content.table.columns),
        row_fields=len(row_fields),
        unmatched_columns=tuple(c.name for c in content.table.columns if c.name not in matched_names),
    )
    row_paths = set(row_fields.values())

    fast = _Renderer(content, fields, row_paths, matches, run_id, event_time)
    render = fast.render

    def fits(bodies: tuple[tuple[str, bytes], ...]) -> bool:
        return all(len(body) <= max_bytes for _, body in bodies)

    steps: list[tuple[Callable[[_Shape], _Shape], str]] = []
    if any(f.description for f in fields) or any(c.comment for c in content.table.columns):
        steps.append(
            (lambda s: replace(s, descriptions=False), "field descriptions dropped from the schema facets")
        )
    if row_paths and len(row_paths) < len(fields):
        steps.append(
            (
                lambda s: replace(s, topic_schema="row"),
                f"topic schema facet cut to its {len(row_paths)} row fields",
            )
        )
    steps += [
        (lambda s: replace(s, topic_schema="none"), "topic schema facet dropped"),
        (lambda s: replace(s, table_schema=False), "table schema facet dropped"),
        (lambda s: replace(s, transformations=False), "column-lineage transformations dropped"),
    ]
    # Render first: nearly every event fits whole, and then no size model is needed at all.
    shape = _Shape()
    notes: list[str] = []
    bodies = render(shape)
    if fits(bodies):
        return BuiltRun(run_id=run_id, event_time=format_time(event_time), bodies=bodies, lineage=report)
    # Too large: pick the rung with the size model (each facet serialized once), then render that shape.
    model = _SizeModel(content, fields, row_paths, matches, run_id, event_time)
    for change, note in steps:
        if model.size(shape) <= max_bytes:
            break
        shape = change(shape)
        notes.append(note)
    if model.size(shape) > max_bytes:
        shape = replace(shape, lineage_columns=model.columns_that_fit(shape, max_bytes))
    bodies = render(shape)
    while not fits(bodies) and (shape.lineage_columns is None or shape.lineage_columns > 0):
        # The model is exact for Serde's output; this only guards against a change in how it serialises.
        kept = len(matches) if shape.lineage_columns is None else shape.lineage_columns
        shape = replace(shape, lineage_columns=max(0, kept - max(1, kept // 50)))
        bodies = render(shape)
    if not fits(bodies):
        raise EventTooLarge(
            f"the run for {content.key.key} needs {max(len(b) for _, b in bodies)} bytes even without "
            f"facets; DataZone accepts {max_bytes}"
        )
    if shape.lineage_columns is not None:
        notes.append(f"column lineage cut to {shape.lineage_columns} of {len(matches)} columns")
        report = replace(report, emitted=shape.lineage_columns)
    return BuiltRun(
        run_id=run_id,
        event_time=format_time(event_time),
        bodies=bodies,
        lineage=report,
        degraded=tuple(notes),
    )


def _serialize(value: object) -> bytes:
    return Serde.to_json(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _dump(document: Mapping[str, object]) -> bytes:
    """Plain JSON values written exactly as `_serialize` writes the typed objects they stand for."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


# The typed facets' constant members (`_producer`, `_schemaURL`), as Serde writes them.
_SCHEMA_HEAD = Serde.to_dict(SchemaDatasetFacet(fields=[], producer=PRODUCER))
_LINEAGE_HEAD = Serde.to_dict(ColumnLineageDatasetFacet(fields={}, dataset=None, producer=PRODUCER))


class _Renderer:
    """The run's bodies from plain dicts: what Serde makes of the typed RunEvent (`_event`), byte for byte
    (a unit test holds the two equal), without walking thousands of attrs objects per event.

    The typed classes still define the shape: the skeleton (run, job, datasets) and one column-lineage entry
    are serialized through them once per run, and only the per-field and per-column parts are filled in here.
    """

    def __init__(
        self,
        content: RunContent,
        fields: Sequence[TopicField],
        row_paths: set[str],
        matches: Sequence[ColumnMatch],
        run_id: str,
        event_time: datetime,
    ) -> None:
        self.content, self.fields, self.row_paths, self.matches = content, fields, row_paths, matches
        self.event_time = event_time
        self.skeleton = Serde.to_dict(
            _event(content, fields, row_paths, matches, None, run_id, event_time, EVENT_TYPES[0])
        )
        self._inputs: dict[bool, dict[str, object]] = {}

    def _input(self, transformations: bool) -> dict[str, object]:
        """One column-lineage input field, as Serde writes it; only `field` differs between columns."""
        if transformations not in self._inputs:
            sample = Serde.to_dict(_lineage_fields(self.content, ColumnMatch("c", "f"), transformations))
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

    def render(self, shape: _Shape) -> tuple[tuple[str, bytes], ...]:
        topic_facets: dict[str, object] = {}
        table_facets: dict[str, object] = {}
        if shape.topic_schema != "none":
            chosen = [
                (f.name, f.type, f.description)
                for f in self.fields
                if shape.topic_schema == "all" or f.name in self.row_paths
            ]
            topic_facets["schema"] = self._schema(chosen, shape.descriptions)
        if shape.table_schema:
            columns = [(c.name, c.type, c.comment) for c in self.content.table.columns]
            table_facets["schema"] = self._schema(columns, shape.descriptions)
        kept = self.matches if shape.lineage_columns is None else self.matches[: shape.lineage_columns]
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
        for event_type, moment in zip(
            EVENT_TYPES, (self.event_time, self.event_time + COMPLETE_AFTER), strict=True
        ):
            document["eventType"] = event_type
            document["eventTime"] = format_time(moment)
            bodies.append((event_type, _dump(document)))
        return tuple(bodies)


def _event(
    content: RunContent,
    fields: Sequence[TopicField],
    row_paths: set[str],
    matches: Sequence[ColumnMatch],
    shape: _Shape | None,
    run_id: str,
    event_time: datetime,
    event_type: str,
) -> RunEvent:
    """The RunEvent; `shape` None gives both datasets empty facets (the size model's skeleton)."""
    topic_facets: dict[str, DatasetFacet] = {}
    table_facets: dict[str, DatasetFacet] = {}
    if shape is not None:
        topic_schema = _topic_schema(fields, row_paths, shape)
        if topic_schema is not None:
            topic_facets["schema"] = topic_schema
        table_schema = _table_schema(content, shape)
        if table_schema is not None:
            table_facets["schema"] = table_schema
        kept = matches if shape.lineage_columns is None else matches[: shape.lineage_columns]
        if kept:
            table_facets["columnLineage"] = _lineage_facet(
                {match.column: _lineage_fields(content, match, shape.transformations) for match in kept}
            )
    return RunEvent(
        eventType=RunState(event_type),
        eventTime=format_time(event_time),
        producer=PRODUCER,
        run=Run(runId=run_id, facets=_run_facets(content)),
        job=Job(
            namespace=content.job_namespace,
            name=content.job_name,
            facets={
                "documentation": DocumentationJobFacet(
                    description=_job_description(content), producer=PRODUCER
                )
            },
        ),
        inputs=[InputDataset(namespace=content.topic_namespace, name=content.key.topic, facets=topic_facets)],
        outputs=[
            OutputDataset(namespace=content.table.namespace, name=content.table.ref.name, facets=table_facets)
        ],
    )


def _run_facets(content: RunContent) -> dict[str, RunFacet]:
    if not content.drift:
        return {}
    facet = SchemaDriftRunFacet(producer=PRODUCER).with_additional_properties(**content.drift)
    return {SCHEMA_DRIFT_FACET: cast(RunFacet, facet)}  # the same class, with the fields added


class _SizeModel:
    """Exact body sizes of every shape from facets serialized once each.

    Serde writes compact, key-sorted JSON, so a dict's size is `2 + sum(len('"key":') + len(value)) + commas`
    whatever the order: an event's size is its skeleton's (datasets with `"facets":{}`) plus its facets'.
    The COMPLETE event is the larger of the two (its eventType is longer), so it is the one modelled.
    """

    def __init__(
        self,
        content: RunContent,
        fields: Sequence[TopicField],
        row_paths: set[str],
        matches: Sequence[ColumnMatch],
        run_id: str,
        event_time: datetime,
    ) -> None:
        self.content, self.fields, self.row_paths, self.matches = content, fields, row_paths, matches
        skeleton = _event(
            content, fields, row_paths, matches, None, run_id, event_time + COMPLETE_AFTER, "COMPLETE"
        )
        self.skeleton = len(_serialize(skeleton)) - 2 * _dict_size([])
        self._facets: dict[tuple[object, ...], int] = {}
        self._entries: dict[bool, list[int]] = {}
        self.lineage_base = len(_serialize(_lineage_facet({}))) - _dict_size([])

    def _facet(self, key: tuple[object, ...], build: Callable[[], DatasetFacet | None]) -> int | None:
        if key not in self._facets:
            facet = build()
            self._facets[key] = -1 if facet is None else len(_serialize(facet))
        size = self._facets[key]
        return None if size < 0 else size

    def entries(self, transformations: bool) -> list[int]:
        """Size of each column-lineage entry (`"column":{...}`), in table order."""
        if transformations not in self._entries:
            self._entries[transformations] = [
                _key_size(m.column) + len(_serialize(_lineage_fields(self.content, m, transformations)))
                for m in self.matches
            ]
        return self._entries[transformations]

    def size(self, shape: _Shape, columns: int | None = None) -> int:
        kept = len(self.matches) if columns is None else columns
        if shape.lineage_columns is not None:
            kept = min(kept, shape.lineage_columns)
        topic = self._facet(
            ("topic", shape.topic_schema, shape.descriptions),
            lambda: _topic_schema(self.fields, self.row_paths, shape),
        )
        table = self._facet(
            ("table", shape.table_schema, shape.descriptions), lambda: _table_schema(self.content, shape)
        )
        topic_items = [("schema", topic)] if topic is not None else []
        table_items = [("schema", table)] if table is not None else []
        if kept:
            entries = self.entries(shape.transformations)[:kept]
            lineage = self.lineage_base + 2 + sum(entries) + len(entries) - 1
            table_items.append(("columnLineage", lineage))
        return self.skeleton + _dict_size(topic_items) + _dict_size(table_items)

    def columns_that_fit(self, shape: _Shape, max_bytes: int) -> int:
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


def _job_description(content: RunContent) -> str:
    how = {
        "rule": "the source's tableRule",
        "operator": f"the operator's table mapping {content.mapping_parameter}",
        "cdk": f"the stack's table mapping {content.mapping_parameter}",
    }.get(content.origin, content.origin)
    if content.origin.startswith("connector:"):
        how = f"the configuration of MSK Connect sink connector {content.origin.removeprefix('connector:')}"
    table = content.table.ref
    return (
        f"Kafka topic {content.key.topic} (schema registry {content.key.registry_name}, schema version "
        f"{content.schema_version}) sinks into Glue table {table.database}.{table.table}, "
        f"as declared by {how}."
    )


def _topic_schema(
    fields: Sequence[TopicField], row_paths: set[str], shape: _Shape
) -> SchemaDatasetFacet | None:
    if shape.topic_schema == "none":
        return None
    chosen = [f for f in fields if shape.topic_schema == "all" or f.name in row_paths]
    return SchemaDatasetFacet(
        fields=[
            SchemaDatasetFacetFields(
                name=f.name,
                type=f.type or None,
                description=(f.description or None) if shape.descriptions else None,
                fields=None,
            )
            for f in chosen
        ],
        producer=PRODUCER,
    )


def _table_schema(content: RunContent, shape: _Shape) -> SchemaDatasetFacet | None:
    if not shape.table_schema:
        return None
    return SchemaDatasetFacet(
        fields=[
            SchemaDatasetFacetFields(
                name=column.name,
                type=column.type or None,
                description=(column.comment or None) if shape.descriptions else None,
                fields=None,
            )
            for column in content.table.columns
        ],
        producer=PRODUCER,
    )


def _lineage_fields(content: RunContent, match: ColumnMatch, transformations: bool) -> Fields:
    return Fields(
        inputFields=[
            InputField(
                namespace=content.topic_namespace,
                name=content.key.topic,
                field=match.field,
                transformations=[Transformation(type="DIRECT", subtype="IDENTITY")]
                if transformations
                else None,
            )
        ]
    )


def _lineage_facet(fields: dict[str, Fields]) -> ColumnLineageDatasetFacet:
    return ColumnLineageDatasetFacet(fields=fields, dataset=None, producer=PRODUCER)
