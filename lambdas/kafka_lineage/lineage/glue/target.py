"""The Glue target of one run: its plan (plan.py), then its posts, each edge on its own, and its state.

One post per edge: the run's COMPLETE event (Glue's graph is built from what runs read and wrote; a START adds
no edge, and nothing posted can be taken back). Its runId is `uuid5(fingerprint, "glue:" + superseded
runId)` and its eventTime the edge's own moment (the schema version's registration, the mapping's change),
later than the run it supersedes: a retried post is the same run, byte for byte. A forced run posts the
same run again.

A post that fails (after the call layer's retries: ThrottlingException is retried, paced by the operation's
own limiter) leaves the edge's state as it was, so the next run posts it again; the failure is reported with
`"target": "glue"`. DataZone's posts are not touched by it, nor it by theirs. The state is saved once,
after the posts, under the run's lease.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.pool import NOT_STARTED, Workers
from kafka_lineage.lineage.apply import SUPERSEDE_BY, ParsedFields
from kafka_lineage.lineage.events import build
from kafka_lineage.lineage.glue.identity import closing_body, to_glue
from kafka_lineage.lineage.glue.plan import (
    TARGET,
    GlueAction,
    GlueClose,
    GluePlan,
    GluePost,
    make_glue_plan,
)
from kafka_lineage.lineage.glue.state import GlueEdgeState, load_glue_states
from kafka_lineage.lineage.model import EdgeKey
from kafka_lineage.lineage.plan import EmitScope, LineagePlan, Selection
from kafka_lineage.lineage.ports import GlueGraphs, StateStore, VersionReader
from kafka_lineage.lineage.resolve import Resolution, Target
from kafka_lineage.lineage.run_identity import derive_event_time, derive_run_id, parse_time
from kafka_lineage.model.failures import describe_failure
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.report import failure_item
from kafka_lineage.model.tables import TableReads
from kafka_lineage.observability import logger

Parser = Callable[[str, str], ParsedFields]


@dataclass(frozen=True)
class GlueOutcome:
    key: EdgeKey
    kind: Literal["posted", "closed", "forgotten", "failed", "deferred"]
    state: GlueEdgeState | None  # what to keep (None: drop the entry)
    store: bool
    error: str = ""
    report: Mapping[str, object] = field(default_factory=dict)


@dataclass
class GlueReport:
    """What the Glue target did this run (the lineage result's `glue` member)."""

    posted: int = 0
    unchanged: int = 0
    closed: list[dict[str, object]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    remaining: int = 0
    state_writes: int = 0
    planned: list[dict[str, object]] | None = None
    lease_lost: bool = False

    def as_dict(self, sample: int) -> dict[str, object]:
        answer: dict[str, object] = {
            "posted": self.posted,
            "unchanged": self.unchanged,
            "closed": self.closed[:sample],
            "skipped": self.skipped[:sample],
            "counts": {"closed": len(self.closed), "skipped": len(self.skipped), "failed": len(self.failed)},
            "stateWrites": self.state_writes,
        }
        if self.remaining:
            answer["remaining"] = self.remaining
        if self.planned is not None:
            answer["planned"] = len(self.planned)
        return answer


class SharedVersions:
    """A run's schema versions read once for both targets (GetSchemaVersion by ARN and version)."""

    def __init__(self, versions: VersionReader) -> None:
        self._versions = versions
        self._read: dict[tuple[str, int], VersionDefinition] = {}
        self._lock = threading.Lock()

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition:
        with self._lock:
            found = self._read.get((schema_arn, version_number))
        if found is None:
            found = self._versions.read(schema_arn, version_number)
            with self._lock:
                self._read[(schema_arn, version_number)] = found
        return found


@dataclass(frozen=True)
class GlueStates:
    """The Glue state as read: each edge's, and the keys of the entries that could not be read."""

    states: Mapping[str, GlueEdgeState]
    unreadable: tuple[str, ...] = ()


@dataclass(frozen=True)
class GlueTarget:
    """The Glue Data Catalog's lineage graphs as a second target: the ports it posts through, its state."""

    graphs: GlueGraphs
    state: StateStore
    name: str = TARGET

    def load(self) -> GlueStates:
        """Read the Glue state (once per planning pass: with DataZone off it is the plan's reference too)."""
        states, unreadable = load_glue_states(self.state.load())
        for key in unreadable:
            logger.error("unreadable Glue lineage state entry left untouched", extra={"key": key})
        return GlueStates(states, tuple(unreadable))

    def plan(
        self,
        scope: EmitScope,
        selection: Selection,
        resolution: Resolution,
        reads: TableReads,
        reference: LineagePlan,
        loaded: GlueStates,
    ) -> GluePlan:
        """Plan against the Glue state `loaded` (pure)."""
        return make_glue_plan(
            scope, selection, resolution, reads, loaded.states, reference, loaded.unreadable
        )

    def report_plan(self, plan: GluePlan) -> GlueReport:
        report = GlueReport(unchanged=plan.unchanged, skipped=[skip.as_dict() for skip in plan.skipped])
        for skip in plan.skipped:
            logger.warning("edge not posted to Glue's lineage graph", extra=skip.as_dict())
        for key in plan.unreadable:
            report.failed.append(
                failure_item(
                    "its Glue lineage state entry in SSM is unreadable; left untouched",
                    **EdgeKey.parse(key).as_dict(),
                    target=TARGET,
                )
            )
        return report

    def apply(self, plan: GluePlan, run: GlueRun, report: GlueReport) -> GlueReport:
        """Post and close what `plan` says, `run.concurrency` at a time, until the deadline; then save."""
        changes: dict[str, dict[str, Any] | None] = {}

        def receive(action: GlueAction, outcome: GlueOutcome | object) -> None:
            if outcome is NOT_STARTED or not isinstance(outcome, GlueOutcome):
                report.remaining += 1
                return
            _record(report, outcome)
            if outcome.store:
                changes[outcome.key.key] = outcome.state.to_entry() if outcome.state else None

        with Workers(run.concurrency, "glue-lineage") as workers:
            workers.each(
                plan.actions,
                lambda action: self._one(action, run),
                receive,
                lambda: not run.deadline.ending(),
            )
        if changes:
            try:
                report.state_writes += run.save(self.state, changes)
            except Exception as error:  # LeaseLost included: the posts are the same runs next time
                logger.exception("saving the Glue lineage state failed: those edges are posted again")
                report.lease_lost = type(error).__name__ == "LeaseLost"
                report.failed.append(
                    failure_item(error, doing="saving the Glue lineage state failed", target=TARGET)
                )
        return report

    def _one(self, action: GlueAction, run: GlueRun) -> GlueOutcome:
        try:
            if isinstance(action, GlueClose):
                return self._close(action)
            return self._post(action, run)
        except Exception as error:  # one edge's failure never stops the others, nor DataZone's
            logger.exception("Glue lineage post failed", extra={"edge": action.key.key, "target": TARGET})
            previous = action.previous
            return GlueOutcome(action.key, "failed", previous, False, describe_failure(error))

    def _post(self, post: GluePost, run: GlueRun) -> GlueOutcome:
        record = post.edge.record
        version = run.versions.read(record.schema_arn, record.latest_version)
        parsed = run.parse(version.data_format or record.data_format, version.definition)
        run_id, moment = run_identity(post, version)
        built = build(post.content, parsed.fields, parsed.row_fields, run_id, moment)
        body = to_glue(dict(built.bodies)["COMPLETE"], post.content)
        self.graphs.post(post.graph, body)
        state = GlueEdgeState(
            post.fingerprint,
            run_id,
            built.event_time,
            post.content.job_namespace,
            post.content.job_name,
            post.graph,
            post.edge.origin,
        )
        report = {**post.key.as_dict(), "job": post.content.job, "runId": run_id, "graph": post.graph}
        return GlueOutcome(post.key, "posted", state, state != post.previous, report=report)

    def _close(self, close: GlueClose) -> GlueOutcome:
        previous = close.previous
        report: dict[str, object] = {
            **close.key.as_dict(),
            "job": f"{previous.job_namespace}/{previous.job_name}",
            "closingRun": close.post,
        }
        if close.post:
            run_id = derive_run_id(f"closed:{previous.fingerprint}", previous.run_id)
            moment = (parse_time(previous.event_time) or datetime.fromtimestamp(0)) + SUPERSEDE_BY
            why = (
                f"Kafka topic {close.key.topic.topic} (registry {close.key.topic.registry_name}) no longer "
                f"flows through this job to {close.key.other}: this run reads and writes nothing, and "
                "supersedes the job's earlier run."
            )
            self.graphs.post(
                previous.graph, closing_body(previous.job_namespace, previous.job_name, run_id, moment, why)
            )
            report["runId"] = run_id
        return GlueOutcome(close.key, "closed" if close.post else "forgotten", None, True, report=report)


@dataclass(frozen=True)
class GlueRun:
    """What the Glue posts of one run share with DataZone's: the schema versions (read once for both), the
    definition parser, the deadline, the pool's width and the save under the run's lease."""

    versions: VersionReader
    parse: Parser
    deadline: Deadline
    concurrency: int
    save: Callable[[StateStore, dict[str, dict[str, Any] | None]], int]


def run_identity(post: GluePost, version: VersionDefinition) -> tuple[str, datetime]:
    """The Glue run's runId and eventTime: a forced run is the same run again; otherwise derived from the
    fingerprint and the run it supersedes, and later than that run."""
    previous = post.previous
    if post.reason == "forced" and previous is not None:
        moment = parse_time(previous.event_time)
        if moment is not None:
            return previous.run_id, moment
    run_id = derive_run_id(post.fingerprint, f"glue:{previous.run_id if previous else ''}")
    record = post.edge.record
    mapping = post.edge.mapping if isinstance(post.edge, Target) else None
    registered = (
        parse_time(version.created_time) or parse_time(record.updated_time) or parse_time(record.created_time)
    )
    moment = derive_event_time(registered, mapping.last_modified if mapping else None)
    floor = parse_time(previous.event_time) if previous is not None else None
    if floor is not None and moment < floor + SUPERSEDE_BY:
        moment = floor + SUPERSEDE_BY
    return run_id, moment


def _record(report: GlueReport, outcome: GlueOutcome) -> None:
    if outcome.kind == "posted":
        report.posted += 1
        logger.info("lineage posted to Glue", extra=dict(outcome.report))
    elif outcome.kind in ("closed", "forgotten"):
        report.closed.append(dict(outcome.report))
    elif outcome.kind == "failed":
        failure = failure_item(outcome.error, **outcome.key.as_dict(), target=TARGET)
        logger.warning("Glue lineage action failed", extra=failure)
        report.failed.append(failure)
