"""Carry out a lineage plan: post runs, delete superseded and retracted events, with per-edge isolation.

Order per emitted edge: post START, post COMPLETE, then delete what the new run replaces (the previous run
of the edge, any stale runs, and every run of the other edges of the topic it takes over, `Emit.replaces`).
Posting first means the graph never has a gap; deleting after means no ghost edge survives a successful
run. DataZone keeps exactly one run per edge: the current one.

Deletion is asynchronous (DeleteLineageEvent answers a `processingStatus`), so an accepted delete only moves
the event to the topic's `deleting` list; it counts as done once a later GetLineageEvent no longer finds it
(checked right after the deletes, and on every later run until confirmed; sent again when the event is still
there after a few checks or its processing FAILED). Because AWS does not document that a deleted event's
edges leave the graph, a run that replaces another gets an eventTime strictly later than every run it
replaces: DataZone versions lineage nodes by event time, so the new run supersedes the old one either way.

Nothing here loses track of an event. When a post fails (after botocore's own retries), the attempt is kept
in the topic's state as a stale run with the ids DataZone confirmed; the next run either adopts those events
(the same run again: same runId, same bodies, same tokens) or deletes them. Events whose response was lost
are looked up with ListLineageEvents by runId around their eventTime and around the attempt (the API does not
say which time its filters apply to), so neither an expired clientToken nor a content change in between can
leave a duplicate or a ghost.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.pool import Workers
from kafka_lineage.lineage.content import ConsumerContent, LocationContent, TopicField
from kafka_lineage.lineage.events import BuiltRun, build
from kafka_lineage.lineage.model import EVENT_TYPES, EdgeKey, LineageState, PendingDelete, StaleRun
from kafka_lineage.lineage.plan import Action, Emit, Retract
from kafka_lineage.lineage.ports import EventStore, VersionReader
from kafka_lineage.lineage.resolve import Target
from kafka_lineage.lineage.run_identity import (
    COMPLETE_AFTER,
    derive_event_time,
    derive_run_id,
    format_time,
    parse_time,
)
from kafka_lineage.model.failures import AwsError, describe_failure
from kafka_lineage.model.lineage_events import EventSummary, client_token
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.observability import logger

# Windows searched for the events of a run whose response was lost (see module doc).
EVENT_TIME_WINDOW = timedelta(seconds=1)
ATTEMPT_WINDOW_BEFORE = timedelta(minutes=5)
ATTEMPT_WINDOW_AFTER = timedelta(minutes=15)


# A pending deletion still found after this many checks is sent again (the first request may have been lost).
RESEND_AFTER_CHECKS = 3
# A replacing run starts this long after the replaced run's START (whose COMPLETE is COMPLETE_AFTER later).
SUPERSEDE_BY = 2 * COMPLETE_AFTER


@dataclass(frozen=True)
class ParsedFields:
    fields: tuple[TopicField, ...]
    row_fields: Mapping[str, str]
    warning: str | None = None


Parser = Callable[[str, str], ParsedFields]


@dataclass(frozen=True)
class TopicOutcome:
    """What one edge's action did (the name predates edges)."""

    key: EdgeKey
    kind: Literal["emitted", "cleaned", "migrated", "retracted", "retracting", "failed", "deferred"]
    state: LineageState | None  # what to keep (None: drop the entry)
    store: bool  # the state changed and must be written
    error: str | None = None
    deleted: int = 0  # events confirmed deleted (superseded, stale or retracted)
    report: dict[str, object] = field(default_factory=dict)
    dropped: tuple[EdgeKey, ...] = ()  # other edges whose runs this one took over: their entries go


def deferred_outcome(action: Action) -> TopicOutcome:
    """An action that did not start (the invocation is ending): nothing done, its state kept as it was."""
    previous = action.previous if action.previous is not None else LineageState()
    return TopicOutcome(action.key, "deferred", previous, False, "deferred: the invocation is ending")


def _as_stale(state: LineageState) -> list[StaleRun]:
    """Every run of `state` that may exist in DataZone, its current run first."""
    runs = list(state.stale)
    if state.emitted:
        runs.insert(
            0, StaleRun(state.run_id, state.event_time, state.event_time, state.event_ids, complete=True)
        )
    return runs


def _with_taken_over(own: LineageState, replaces: Sequence[tuple[EdgeKey, LineageState]]) -> LineageState:
    """The edge's state with the runs of the edges it takes over as stale runs, their deletions pending."""
    return replace(
        own,
        stale=(*own.stale, *(run for _, state in replaces for run in _as_stale(state))),
        deleting=(*own.deleting, *(d for _, state in replaces for d in state.deleting)),
    )


def _run_identity(
    action: Emit, previous: LineageState, version: VersionDefinition, forced: bool
) -> tuple[str, datetime]:
    """The runId and eventTime of the run to post. A forced run is the same run again (same runId and
    eventTime, so the same bodies under fresh tokens); an earlier attempt of this very run fixed its
    eventTime, kept so the bodies are the same; otherwise the time is derived (`_event_time`)."""
    if forced:
        run_id = previous.run_id
        moment = parse_time(previous.event_time)
    else:
        basis = previous.run_id or next((state.run_id for _, state in action.replaces if state.run_id), "")
        run_id = derive_run_id(action.fingerprint, basis)
        earlier = next((r for r in previous.stale if r.run_id == run_id), None)
        moment = parse_time(earlier.event_time) if earlier is not None else None
    return run_id, moment or _event_time(action, previous, version, run_id)


def _event_time(action: Emit, previous: LineageState, version: VersionDefinition, run_id: str) -> datetime:
    """When the edge became true (the schema version's registration, the mapping's change), and strictly
    later than every run it replaces, whatever their events' deletion does."""
    record = action.target.record
    mapping = action.target.mapping if isinstance(action.target, Target) else None
    registered = (
        parse_time(version.created_time) or parse_time(record.updated_time) or parse_time(record.created_time)
    )
    moment = derive_event_time(registered, mapping.last_modified if mapping else None)
    times = [previous.event_time, *(r.event_time for r in previous.stale if r.run_id != run_id)]
    floor = max((t for t in map(parse_time, times) if t is not None), default=None)
    if floor is not None and moment < floor + SUPERSEDE_BY:
        return floor + SUPERSEDE_BY
    return moment


@dataclass
class _Attempt:
    """Before posting: the stale runs that are not this run, the event ids adopted from earlier attempts of
    it (by event type), and duplicates of its events found in DataZone (deleted once the run is posted)."""

    stale: list[StaleRun]
    adopted: dict[str, str] = field(default_factory=dict)
    extra: list[str] = field(default_factory=list)


@dataclass
class _Deletions:
    """What a round of deletes left: runs to retry, deletions to confirm, confirmed count, errors."""

    remaining: list[StaleRun] = field(default_factory=list)
    pending: list[PendingDelete] = field(default_factory=list)
    deleted: int = 0
    errors: list[str] = field(default_factory=list)


class Applier:
    def __init__(
        self,
        events: EventStore,
        versions: VersionReader,
        parse: Parser,
        *,
        concurrency: int = 8,
        force_nonce: str = "",
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        deadline: Deadline | None = None,
    ) -> None:
        self.events = events
        self.versions = versions
        self.parse = parse
        self.concurrency = max(1, concurrency)
        self.force_nonce = force_nonce
        self.clock = clock
        self.deadline = deadline or Deadline.never()

    def apply(self, actions: Sequence[Action]) -> list[TopicOutcome]:
        """Every action's outcome, in the actions' order (`concurrency` at a time, on the engine's pool); once
        the deadline margin is reached, actions not yet started are deferred. A run streams its actions
        through the engine instead (engine/stream.py), calling `one` for each."""
        kept: list[TopicOutcome] = []

        def receive(_: Action, outcome: TopicOutcome | object) -> None:
            if isinstance(outcome, TopicOutcome):  # every action starts: `one` defers it itself
                kept.append(outcome)

        with Workers(min(self.concurrency, len(actions) or 1), "lineage-apply") as workers:
            workers.each(actions, self.one, receive)
        position = {action.key: index for index, action in enumerate(actions)}
        return sorted(kept, key=lambda outcome: position[outcome.key])

    def one(self, action: Action) -> TopicOutcome:
        """One action's outcome; never raises for the action's own failure (per-edge isolation)."""
        previous = action.previous if action.previous is not None else LineageState()
        if self.deadline.ending():
            return deferred_outcome(action)
        try:
            if isinstance(action, Retract):
                return self._retract(action)
            if action.reason in ("cleanup", "migrate"):
                return self._cleanup(action)
            return self._emit(action)
        except Exception as error:  # per-topic isolation: one topic's failure never stops the others
            logger.exception("lineage action failed", extra={"edge": action.key.key})
            return TopicOutcome(action.key, "failed", previous, False, describe_failure(error))

    # -- emit -------------------------------------------------------------------------------------------

    def _emit(self, action: Emit) -> TopicOutcome:
        own = action.previous or LineageState()
        # The edges taken over are replaced like an earlier run of this one: their runs join the stale ones.
        previous = _with_taken_over(own, action.replaces)
        record = action.target.record
        version = self.versions.read(record.schema_arn, record.latest_version)
        parsed = self.parse(version.data_format or record.data_format, version.definition)
        forced = action.reason == "forced"
        run_id, moment = _run_identity(action, previous, version, forced)
        built = build(action.content, parsed.fields, parsed.row_fields, run_id, moment)
        nonce = self.force_nonce if forced else ""
        # Under a nonce every event is posted afresh; otherwise an earlier attempt of this run is adopted.
        attempt = _Attempt(list(previous.stale)) if nonce else self._adopt(previous.stale, run_id)
        attempted_at = format_time(self.clock())
        ids = self._post_run(action, own, built, attempt.adopted, nonce, attempted_at)
        if isinstance(ids, TopicOutcome):
            return ids
        # What the new run replaces: the previous run's events and every stale run (their known ids, and
        # for incomplete ones whatever the lookup finds), never the events just posted or adopted.
        replaced = _as_stale(replace(previous, stale=tuple(attempt.stale)))
        if attempt.extra:
            replaced.append(
                StaleRun(run_id, built.event_time, attempted_at, tuple(attempt.extra), complete=True)
            )
        result = self._delete_runs(replaced, keep=set(ids), pending=previous.deleting)
        state = replace(
            own,
            fingerprint=action.fingerprint,
            run_id=run_id,
            event_time=built.event_time,
            event_ids=tuple(ids),
            table=action.key.table,
            stale=tuple(result.remaining),
            deleting=tuple(result.pending),
            forced=self.force_nonce,  # emitted within this forced request: its follow-up skips the edge
            origin=action.target.origin,
        )
        report = self._report(action, built, ids, result, parsed.warning)
        logger.info("lineage emitted", extra=report)
        problem = None
        if result.errors:
            problem = "posted; deleting replaced events failed (retried next run): " + "; ".join(
                result.errors
            )
        dropped = tuple(key for key, _ in action.replaces)
        return TopicOutcome(
            action.key,
            "emitted",
            state,
            state != own or bool(dropped),
            problem,
            result.deleted,
            report,
            dropped=dropped,
        )

    def _adopt(self, stale: Sequence[StaleRun], run_id: str) -> _Attempt:
        """The events earlier attempts of this very run posted: adopted by type (an incomplete attempt's
        lost responses are looked up), duplicates set aside to delete; the other stale runs stay."""
        attempt = _Attempt([r for r in stale if r.run_id != run_id])
        for run in [r for r in stale if r.run_id == run_id]:
            attempt.adopted.update(zip(EVENT_TYPES, run.event_ids, strict=False))
            if run.complete:
                continue
            for found in self._find(run):
                if (
                    found.event_type in attempt.adopted
                    and attempt.adopted[found.event_type] != found.event_id
                ):
                    attempt.extra.append(found.event_id)
                else:
                    attempt.adopted.setdefault(found.event_type, found.event_id)
        return attempt

    def _post_run(
        self,
        action: Emit,
        own: LineageState,
        built: BuiltRun,
        adopted: Mapping[str, str],
        nonce: str,
        attempted_at: str,
    ) -> list[str] | TopicOutcome:
        """Post the run's events in order (an adopted one is not posted again): their ids, or, when a post
        fails, the failed outcome that keeps the attempt as a stale run to adopt or delete next time."""
        run_id = built.run_id
        ids: list[str] = []
        for event_type, body in built.bodies:
            if event_type in adopted:
                ids.append(adopted[event_type])
                continue
            try:
                ids.append(self.events.post(body, client_token(body, nonce)))
            except AwsError as error:
                # The edges taken over keep their own state: only this edge's attempt is recorded.
                attempt = StaleRun(run_id, built.event_time, attempted_at, tuple(ids), complete=False)
                keep = [r for r in own.stale if r.run_id != run_id]
                earlier = next((r for r in own.stale if r.run_id == run_id), None)
                if earlier is not None:
                    attempt = replace(attempt, attempted_at=min(earlier.attempted_at, attempted_at))
                state = replace(own, stale=(*keep, attempt))
                logger.warning(
                    "PostLineageEvent failed; the attempt is kept to be adopted or deleted next run",
                    extra={"edge": action.key.key, "runId": run_id, "eventType": event_type},
                )
                return TopicOutcome(
                    action.key,
                    "failed",
                    state,
                    state != own,
                    f"posting {event_type}: " + describe_failure(error),
                )
        return ids

    def _report(
        self, action: Emit, built: BuiltRun, ids: Sequence[str], deletions: _Deletions, warning: str | None
    ) -> dict[str, object]:
        report: dict[str, object] = {
            **action.key.as_dict(),
            **action.content.describe(),
            "job": action.content.job,
            "reason": action.reason,
            "origin": action.target.origin,
            "runId": built.run_id,
            "eventTime": built.event_time,
            "eventIds": list(ids),
            "largestEventBytes": built.largest,
            "replacedEvents": deletions.deleted,
        }
        # A location's lineage is dataset-level only; a consumer's run has no output.
        if not isinstance(action.content, LocationContent | ConsumerContent):
            report["columnLineage"] = built.lineage.as_dict()
        if deletions.pending:
            report["pendingDeletions"] = len(deletions.pending)
        replaced = [state.table for _, state in action.replaces if state.table]
        if (
            action.previous is not None
            and action.previous.table
            and action.previous.table != action.key.table
        ):
            replaced.insert(0, action.previous.table)
        if replaced:
            report["previousTable"] = replaced[0]
        locations = [key.other for key, _ in action.replaces if key.kind == "location"]
        if locations:
            report["previousLocation"] = locations[0]
        if built.degraded:
            report["degraded"] = list(built.degraded)
        if warning:
            report["schemaWarning"] = warning
        return report

    # -- cleanup and retract ------------------------------------------------------------------------------

    def _cleanup(self, action: Emit) -> TopicOutcome:
        previous = action.previous or LineageState()
        result = self._delete_runs(previous.stale, keep=set(previous.event_ids), pending=previous.deleting)
        state = replace(
            previous,
            stale=tuple(result.remaining),
            deleting=tuple(result.pending),
            table=action.key.table or previous.table,
            origin=action.target.origin,
        )
        error = "deleting stale events failed: " + "; ".join(result.errors) if result.errors else None
        if action.reason == "migrate":
            # Written under the edge's key even when nothing else changed: the old layout's entry goes.
            return TopicOutcome(action.key, "migrated", state, True, error, result.deleted)
        return TopicOutcome(action.key, "cleaned", state, state != previous, error, result.deleted)

    def _retract(self, action: Retract) -> TopicOutcome:
        previous = action.previous
        result = self._delete_runs(_as_stale(previous), keep=set(), pending=previous.deleting)
        report: dict[str, object] = {
            **action.key.as_dict(),
            "table": previous.table or action.key.table or None,
            "reason": action.reason,
            "deletedEvents": result.deleted,
        }
        if previous.origin:
            report["origin"] = previous.origin
        if result.remaining or result.pending:
            # Not retracted until DataZone confirms every deletion: the state keeps what is left.
            state = LineageState(
                stale=tuple(result.remaining),
                deleting=tuple(result.pending),
                table=previous.table,
                origin=previous.origin,
            )
            if result.errors:
                error = "retracting failed: " + "; ".join(result.errors)
                return TopicOutcome(action.key, "failed", state, True, error, result.deleted, report)
            report["pendingDeletions"] = len(result.pending)
            logger.info("lineage retraction requested; deletion still processing", extra=report)
            return TopicOutcome(
                action.key, "retracting", state, state != previous, None, result.deleted, report
            )
        logger.info("lineage retracted", extra=report)
        return TopicOutcome(action.key, "retracted", None, True, None, result.deleted, report)

    def _delete_runs(
        self, runs: Sequence[StaleRun], keep: set[str], pending: Sequence[PendingDelete] = ()
    ) -> _Deletions:
        """Delete every event of `runs` except `keep`, then check every deletion not yet confirmed (those
        requested now and the `pending` ones of earlier runs): what is gone counts, the rest stays pending."""
        result = _Deletions()
        requested: list[PendingDelete] = []
        for run in runs:
            ids = list(run.event_ids)
            if not run.complete:
                try:
                    ids += [f.event_id for f in self._find(run) if f.event_id not in ids]
                except AwsError as error:
                    result.errors.append(f"looking up run {run.run_id}: {describe_failure(error)}")
                    result.remaining.append(run)
                    continue
            left: list[str] = []
            for event_id in ids:
                if event_id in keep:
                    continue
                try:
                    if self.events.delete(event_id):
                        requested.append(PendingDelete(event_id))
                    else:
                        result.deleted += 1  # already gone
                except AwsError as error:
                    result.errors.append(f"deleting {event_id}: {describe_failure(error)}")
                    left.append(event_id)
            if left:
                result.remaining.append(replace(run, event_ids=tuple(left), complete=True))
        known = {p.event_id for p in requested}
        for item in [*pending, *requested]:
            if item.event_id in keep or (item in pending and item.event_id in known):
                continue
            self._confirm(item, result)
        return result

    def _confirm(self, item: PendingDelete, result: _Deletions) -> None:
        """One later look at a requested deletion: gone counts; FAILED, or still there after a few looks,
        is deleted again (DataZone's answer to the first request may have been lost or its work undone)."""
        try:
            status = self.events.status(item.event_id)
            if status is None:
                result.deleted += 1
                return
            if status == "FAILED" or item.checks + 1 >= RESEND_AFTER_CHECKS:
                if not self.events.delete(item.event_id):
                    result.deleted += 1
                    return
                result.pending.append(PendingDelete(item.event_id, 0))
                return
            result.pending.append(PendingDelete(item.event_id, item.checks + 1))
        except AwsError as error:
            result.errors.append(f"checking the deletion of {item.event_id}: {describe_failure(error)}")
            result.pending.append(item)

    def _find(self, run: StaleRun) -> list[EventSummary]:
        """The events of `run` DataZone holds, looked up around its eventTime and around the attempt."""
        windows = []
        event_time = parse_time(run.event_time)
        if event_time is not None:
            windows.append((event_time - EVENT_TIME_WINDOW, event_time + EVENT_TIME_WINDOW))
        attempted = parse_time(run.attempted_at)
        if attempted is not None and attempted != event_time:
            windows.append((attempted - ATTEMPT_WINDOW_BEFORE, attempted + ATTEMPT_WINDOW_AFTER))
        found: dict[str, EventSummary] = {}
        for after, before in windows:
            for summary in self.events.list_events(after, before):
                if summary.run_id == run.run_id:
                    found.setdefault(summary.event_id, summary)
        return sorted(
            found.values(),
            key=lambda s: (
                EVENT_TYPES.index(s.event_type) if s.event_type in EVENT_TYPES else 99,
                s.event_id,
            ),
        )
