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
Both events must fit MAX_EVENT_BYTES. The full event is rendered first; only when it does not fit is the
exact size model built and facets degraded in a fixed order, each step reported: field descriptions
dropped; the topic's schema facet cut to the row fields; the topic's schema facet dropped; the table's
schema facet dropped (both datasets keep their schemas in the DataZone catalog); column-lineage
transformations dropped; column lineage cut to the first columns that fit. A first hop degrades in the
same spirit (`build_hop`); a location edge, which has no table and no column lineage, drops the field
descriptions, then the topic's schema facet (`build_location`), and so does a consumer edge, which has no
output at all (`build_consumer`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from kafka_lineage.lineage.content import (
    ConsumerContent,
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


def build(
    content: Content,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run_id: str,
    event_time: datetime,
) -> BuiltRun:
    """The run's START and COMPLETE bodies, whichever edge it describes."""
    if isinstance(content, HopContent):
        return build_hop(content, fields, row_fields, run_id, event_time)
    if isinstance(content, LocationContent):
        return build_location(content, fields, row_fields, run_id, event_time)
    if isinstance(content, ConsumerContent):
        return build_consumer(content, fields, row_fields, run_id, event_time)
    return build_run(content, fields, row_fields, run_id, event_time)


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
    row_paths = frozenset(row_fields.values())
    parts = RunParts(content, fields, row_paths, matches, run_id, event_time)
    render = Renderer(parts).render

    def fits(bodies: tuple[tuple[str, bytes], ...]) -> bool:
        return all(len(body) <= max_bytes for _, body in bodies)

    steps: list[tuple[Callable[[Shape], Shape], str]] = []
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
    shape = Shape()
    notes: list[str] = []
    bodies = render(shape)
    if fits(bodies):
        return BuiltRun(run_id=run_id, event_time=format_time(event_time), bodies=bodies, lineage=report)
    # Too large: pick the rung with the size model (each facet serialized once), then render that shape.
    model = SizeModel(parts)
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
    report = _cut(report, shape, notes)
    return BuiltRun(
        run_id=run_id,
        event_time=format_time(event_time),
        bodies=bodies,
        lineage=report,
        degraded=tuple(notes),
    )


def build_hop(
    content: HopContent,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run_id: str,
    event_time: datetime,
    max_bytes: int = MAX_EVENT_BYTES,
) -> BuiltRun:
    """A first hop's START and COMPLETE, degraded only as far as needed to fit `max_bytes` each
    (descriptions, then the topic's schema facet, then transformations, then column lineage halved)."""
    matches = content.matches(row_fields)
    types = {f.name: f.type for f in fields}
    report = LineageReport(
        matched=len(matches), emitted=len(matches), table_columns=len(matches), row_fields=len(row_fields)
    )
    plain = Shape(descriptions=False)
    steps = [
        (plain, "field descriptions dropped from the schema facets"),
        (replace(plain, topic_schema="none"), "topic schema facet dropped"),
        (
            replace(plain, topic_schema="none", transformations=False),
            "column-lineage transformations dropped",
        ),
    ]
    bodies, shape, notes = _fitted(
        lambda shape: hop_bodies(content, fields, types, matches, shape, run_id, event_time),
        steps,
        max_bytes,
        f"the first hop of {content.key.key}",
        columns=len(matches),
    )
    report = _cut(report, shape, notes)
    return BuiltRun(run_id, format_time(event_time), bodies, report, tuple(notes))


def build_location(
    content: LocationContent,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run_id: str,
    event_time: datetime,
    max_bytes: int = MAX_EVENT_BYTES,
) -> BuiltRun:
    """A location edge's START and COMPLETE, degraded only as far as needed to fit `max_bytes` each
    (descriptions, then the topic's schema facet). Its report counts no columns: the location has none that
    lineage knows."""
    return _without_output_columns(
        lambda shape: location_bodies(content, fields, shape, run_id, event_time),
        fields,
        len(row_fields),
        (run_id, event_time),
        max_bytes,
        f"the location edge of {content.key.key}",
    )


def build_consumer(
    content: ConsumerContent,
    fields: Sequence[TopicField],
    row_fields: Mapping[str, str],
    run_id: str,
    event_time: datetime,
    max_bytes: int = MAX_EVENT_BYTES,
) -> BuiltRun:
    """A consumer edge's START and COMPLETE, degraded like a location's (descriptions, then the topic's
    schema facet). Its report counts no columns: the run has no output."""
    return _without_output_columns(
        lambda shape: consumer_bodies(content, fields, shape, run_id, event_time),
        fields,
        len(row_fields),
        (run_id, event_time),
        max_bytes,
        f"the consumer edge of {content.key.key} ({content.group})",
    )


def _cut(report: LineageReport, shape: Shape, notes: list[str]) -> LineageReport:
    """The report of a run whose column lineage `shape` cut (noted in `notes`), or `report` as it is."""
    if shape.lineage_columns is None:
        return report
    notes.append(f"column lineage cut to {shape.lineage_columns} of {report.matched} columns")
    return replace(report, emitted=shape.lineage_columns)


def _without_output_columns(
    bodies_of: Callable[[Shape], Bodies],
    fields: Sequence[TopicField],
    row_fields: int,
    run: tuple[str, datetime],
    max_bytes: int,
    what: str,
) -> BuiltRun:
    """The run of an edge whose output has no columns lineage knows (a location, or no output at all):
    degraded as far as needed (descriptions, then the topic's schema facet); its report counts no columns."""
    run_id, event_time = run
    report = LineageReport(matched=0, emitted=0, table_columns=0, row_fields=row_fields)
    plain = Shape(descriptions=False)
    steps = [(replace(plain, topic_schema="none"), "topic schema facet dropped")]
    if any(f.description for f in fields):
        steps.insert(0, (plain, "field descriptions dropped from the schema facets"))
    bodies, _, notes = _fitted(bodies_of, steps, max_bytes, what)
    return BuiltRun(run_id, format_time(event_time), bodies, report, tuple(notes))


Bodies = tuple[tuple[str, bytes], ...]


def _fitted(
    render: Callable[[Shape], Bodies],
    steps: list[tuple[Shape, str]],
    max_bytes: int,
    what: str,
    columns: int = 0,
) -> tuple[Bodies, Shape, list[str]]:
    """The bodies in the first shape whose events both fit `max_bytes`: the full one, then each of `steps`
    (a shape and what it drops), then the last with its column lineage (`columns` matched) halved until they
    fit; the shape, and the notes of the steps taken."""
    shape, notes = Shape(), []
    bodies = render(shape)
    while any(len(body) > max_bytes for _, body in bodies):
        if steps:
            shape, note = steps.pop(0)
            notes.append(note)
        else:
            kept = columns if shape.lineage_columns is None else shape.lineage_columns
            if kept == 0:
                raise EventTooLarge(f"{what} does not fit {max_bytes} bytes")
            shape = replace(shape, lineage_columns=kept // 2)
        bodies = render(shape)
    return bodies, shape, notes
