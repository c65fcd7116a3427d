"""One emission = one OpenLineage run (spec 2-0-2): a START and a COMPLETE RunEvent, built with
openlineage-python's typed classes, each within DataZone's 300,000-byte PostLineageEvent limit.

The event builder, cut along its seams:
- content.py: what a run describes (`RunContent` for a sink edge, `HopContent` for a first hop,
  `LocationContent` for an S3 location) and its fingerprint;
- run_identity.py: the runId and eventTime (the same on every retry), the emitter's version and producer;
- facets.py: the typed events and their facets (what a run carries, and how each dataset is named);
- render.py: the same bodies written from plain dicts, byte for byte, because walking the attrs objects of a
  few hundred fields cost several milliseconds of CPU per event;
- size_budget.py: the exact size of every shape, from facets serialized once each;
- this module: the budget itself, `build` (content -> BuiltRun).

Size budget
-----------
Both events must fit MAX_EVENT_BYTES. The full event is rendered first; only when it does not fit is it
measured and degraded along its edge's ladder, a fixed order of rungs, each step reported, and then its
column lineage cut to what fits. One `build` walks every ladder; the content decides the rungs and the
measure (`_ladder`):
- a sink edge: field descriptions dropped; the topic's schema facet cut to the row fields; the topic's
  schema facet dropped; the table's schema facet dropped (both datasets keep their schemas in the DataZone
  catalog); column-lineage transformations dropped; column lineage cut to the first columns that fit. It is
  measured by the exact size model, since a table and its topic can have hundreds of fields;
- a first hop: descriptions, the topic's schema facet, transformations, then column lineage halved;
- a location edge, which has no table and no column lineage, and a consumer edge, which has no output at
  all: the field descriptions, then the topic's schema facet.
The last three are measured by rendering each rung (few fields), and their bodies are kept.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Protocol

from kafka_lineage.lineage.content import (
    Content,
    HopContent,
    LocationContent,
    RunContent,
    TopicField,
)
from kafka_lineage.lineage.facets import RunParts, Shape, consumer_bodies, hop_bodies, location_bodies
from kafka_lineage.lineage.render import Renderer
from kafka_lineage.lineage.run_identity import format_time
from kafka_lineage.lineage.size_budget import SizeModel
from kafka_lineage.model.tables import match_columns

# PostLineageEvent's `event` blob: at most 300,000 bytes (botocore datazone LineageEvent).
MAX_EVENT_BYTES = 300_000


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


Bodies = tuple[tuple[str, bytes], ...]
Step = tuple[Callable[[Shape], Shape], str]  # a rung of a ladder: what it changes, and the note saying so

_NO_DESCRIPTIONS: Step = (
    lambda s: replace(s, descriptions=False),
    "field descriptions dropped from the schema facets",
)
_NO_TOPIC_SCHEMA: Step = (lambda s: replace(s, topic_schema="none"), "topic schema facet dropped")
_NO_TRANSFORMATIONS: Step = (
    lambda s: replace(s, transformations=False),
    "column-lineage transformations dropped",
)


def build(
    content: Content,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run_id: str,
    event_time: datetime,
    max_bytes: int = MAX_EVENT_BYTES,
) -> BuiltRun:
    """The run's START and COMPLETE bodies, whichever edge it describes, degraded only as far as needed to
    fit `max_bytes` each: the full shape, then each rung of the edge's ladder, then its column lineage cut."""
    ladder = _ladder(content, fields, row_fields, (run_id, event_time))
    bodies, shape, notes = ladder.fitted(max_bytes)
    report = _cut(ladder.report, shape, notes)
    return BuiltRun(run_id, format_time(event_time), bodies, report, tuple(notes))


class Measure(Protocol):
    """How large a shape's larger body is, and how many of its lineage columns fit a size."""

    def size(self, shape: Shape) -> int: ...

    def columns_that_fit(self, shape: Shape, max_bytes: int) -> int: ...


@dataclass(frozen=True)
class Ladder:
    """What differs between the kinds of edge: how a shape renders, how it is measured (made only when the
    full shape does not fit), the rungs that drop optional content in order, the report, what the run is."""

    render: Callable[[Shape], Bodies]
    measure: Callable[[], Measure]
    steps: Sequence[Step]
    report: LineageReport
    what: str

    def fitted(self, max_bytes: int) -> tuple[Bodies, Shape, list[str]]:
        """The bodies in the first shape whose events both fit, the shape and the notes of the rungs taken."""

        def fits(bodies: Bodies) -> bool:
            return all(len(body) <= max_bytes for _, body in bodies)

        # Render first: nearly every event fits whole, and then nothing is measured at all.
        shape = Shape()
        notes: list[str] = []
        bodies = self.render(shape)
        if fits(bodies):
            return bodies, shape, notes
        measure = self.measure()
        for change, note in self.steps:
            if measure.size(shape) <= max_bytes:
                break
            shape = change(shape)
            notes.append(note)
        if measure.size(shape) > max_bytes:
            shape = replace(shape, lineage_columns=measure.columns_that_fit(shape, max_bytes))
        bodies = self.render(shape)
        while not fits(bodies) and (shape.lineage_columns is None or shape.lineage_columns > 0):
            # The measures are exact; this only guards against a change in how Serde serialises.
            kept = self.report.matched if shape.lineage_columns is None else shape.lineage_columns
            shape = replace(shape, lineage_columns=max(0, kept - max(1, kept // 50)))
            bodies = self.render(shape)
        if not fits(bodies):
            raise EventTooLarge(
                f"{self.what} needs {max(len(b) for _, b in bodies)} bytes even at its most degraded; "
                f"DataZone accepts {max_bytes}"
            )
        return bodies, shape, notes


class Rendered:
    """Measures a shape by rendering it (once: the bodies are kept), for a run of few fields; its column
    lineage is cut by halves."""

    def __init__(self, render: Callable[[Shape], Bodies], columns: int) -> None:
        self._render, self.columns = render, columns
        self._bodies: dict[Shape, Bodies] = {}

    def bodies(self, shape: Shape) -> Bodies:
        if shape not in self._bodies:
            self._bodies[shape] = self._render(shape)
        return self._bodies[shape]

    def size(self, shape: Shape) -> int:
        return max(len(body) for _, body in self.bodies(shape))

    def columns_that_fit(self, shape: Shape, max_bytes: int) -> int:
        kept = self.columns if shape.lineage_columns is None else shape.lineage_columns
        while kept:
            kept //= 2
            if self.size(replace(shape, lineage_columns=kept)) <= max_bytes:
                break
        return kept


def _ladder(
    content: Content, fields: Sequence[TopicField], row_fields: Mapping[str, str], run: tuple[str, datetime]
) -> Ladder:
    """The ladder of the edge `content` describes."""
    if isinstance(content, RunContent):
        return _sink_ladder(content, fields, row_fields, run)
    if isinstance(content, HopContent):
        return _hop_ladder(content, fields, row_fields, run)
    run_id, event_time = run
    if isinstance(content, LocationContent):
        location = content
        edge = Rendered(lambda shape: location_bodies(location, fields, shape, run_id, event_time), 0)
        return _ladder_without_columns(
            edge, fields, len(row_fields), f"the location edge of {content.key.key}"
        )
    consumer = content
    edge = Rendered(lambda shape: consumer_bodies(consumer, fields, shape, run_id, event_time), 0)
    what = f"the consumer edge of {content.key.key} ({content.group})"
    return _ladder_without_columns(edge, fields, len(row_fields), what)


def _sink_ladder(
    content: RunContent,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run: tuple[str, datetime],
) -> Ladder:
    """A sink edge's, measured by the size model: a table and its topic can have hundreds of fields."""
    matches = match_columns(row_fields, content.table)
    matched_names = {match.column for match in matches}
    report = LineageReport(
        matched=len(matches),
        emitted=len(matches),
        table_columns=len(content.table.columns),
        row_fields=len(row_fields),
        unmatched_columns=tuple(c.name for c in content.table.columns if c.name not in matched_names),
    )
    row_paths = frozenset(row_fields.values())
    parts = RunParts(content, fields, row_paths, matches, *run)
    steps: list[Step] = []
    if any(f.description for f in fields) or any(c.comment for c in content.table.columns):
        steps.append(_NO_DESCRIPTIONS)
    if row_paths and len(row_paths) < len(fields):
        steps.append(
            (
                lambda s: replace(s, topic_schema="row"),
                f"topic schema facet cut to its {len(row_paths)} row fields",
            )
        )
    steps += [
        _NO_TOPIC_SCHEMA,
        (lambda s: replace(s, table_schema=False), "table schema facet dropped"),
        _NO_TRANSFORMATIONS,
    ]
    what = f"the run for {content.key.key}"
    return Ladder(Renderer(parts).render, lambda: SizeModel(parts), steps, report, what)


def _hop_ladder(
    content: HopContent,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run: tuple[str, datetime],
) -> Ladder:
    """A first hop's: the source table's schema facet is always plain, the topic's is the one dropped."""
    run_id, event_time = run
    matches = content.matches(row_fields)
    types = {f.name: f.type for f in fields}
    hop = Rendered(
        lambda shape: hop_bodies(content, fields, types, matches, shape, run_id, event_time), len(matches)
    )
    report = LineageReport(
        matched=len(matches), emitted=len(matches), table_columns=len(matches), row_fields=len(row_fields)
    )
    steps = (_NO_DESCRIPTIONS, _NO_TOPIC_SCHEMA, _NO_TRANSFORMATIONS)
    return Ladder(hop.bodies, lambda: hop, steps, report, f"the first hop of {content.key.key}")


def _ladder_without_columns(
    edge: Rendered, fields: Sequence[TopicField], row_fields: int, what: str
) -> Ladder:
    """The ladder of an edge whose output has no columns lineage knows (a location, or no output at all):
    descriptions, then the topic's schema facet; its report counts no columns."""
    steps = [_NO_DESCRIPTIONS] if any(f.description for f in fields) else []
    report = LineageReport(matched=0, emitted=0, table_columns=0, row_fields=row_fields)
    return Ladder(edge.bodies, lambda: edge, [*steps, _NO_TOPIC_SCHEMA], report, what)


def _cut(report: LineageReport, shape: Shape, notes: list[str]) -> LineageReport:
    """The report of a run whose column lineage `shape` cut (noted in `notes`), or `report` as it is."""
    if shape.lineage_columns is None:
        return report
    notes.append(f"column lineage cut to {shape.lineage_columns} of {report.matched} columns")
    return replace(report, emitted=shape.lineage_columns)
