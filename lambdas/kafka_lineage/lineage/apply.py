"""Carry out a lineage plan: post runs, delete superseded and retracted events, with per-topic isolation.

Order per emitted topic: post START, post COMPLETE, then delete what the new run replaces (the previous run
of the topic and any stale runs). Posting first means the graph never has a gap; deleting after means no
ghost edge survives a successful run. DataZone keeps exactly one run per topic: the current one.

Nothing here loses track of an event. When a post fails (after botocore's own retries), the attempt is kept
in the topic's state as a stale run with the ids DataZone confirmed; the next run either adopts those events
(the same run again: same runId, same bodies, same tokens) or deletes them. Events whose response was lost
are looked up with ListLineageEvents by runId around their eventTime and around the attempt (the API does not
say which time its filters apply to), so neither an expired clientToken nor a content change in between can
leave a duplicate or a ghost.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Literal, Protocol

from botocore.exceptions import BotoCoreError, ClientError

from kafka_lineage.aws.lineage_api import EventSummary, client_token
from kafka_lineage.aws.tables import VersionDefinition
from kafka_lineage.lineage.events import (
    BuiltRun,
    TopicField,
    build_run,
    derive_event_time,
    derive_run_id,
    format_time,
    parse_time,
)
from kafka_lineage.lineage.model import EVENT_TYPES, LineageState, StaleRun, TopicKey
from kafka_lineage.lineage.plan import Action, Emit, Retract
from kafka_lineage.observability import logger

# Windows searched for the events of a run whose response was lost (see module doc).
EVENT_TIME_WINDOW = timedelta(seconds=1)
ATTEMPT_WINDOW_BEFORE = timedelta(minutes=5)
ATTEMPT_WINDOW_AFTER = timedelta(minutes=15)


class EventStore(Protocol):
    def post(self, body: bytes, token: str) -> str: ...
    def delete(self, event_id: str) -> bool: ...
    def list_events(self, after: datetime, before: datetime) -> Iterable[EventSummary]: ...


class VersionReader(Protocol):
    def read(self, schema_arn: str, version_number: int) -> VersionDefinition: ...


@dataclass(frozen=True)
class ParsedFields:
    fields: tuple[TopicField, ...]
    row_fields: Mapping[str, str]
    warning: str | None = None


Parser = Callable[[str, str], ParsedFields]


@dataclass(frozen=True)
class TopicOutcome:
    key: TopicKey
    kind: Literal["emitted", "cleaned", "retracted", "failed", "deferred"]
    state: LineageState | None  # what to keep (None: drop the entry)
    store: bool  # the state changed and must be written
    error: str | None = None
    deleted: int = 0  # events deleted (superseded, stale or retracted)
    report: dict[str, object] = field(default_factory=dict)


def describe_error(error: BaseException) -> str:
    if isinstance(error, ClientError):
        info = error.response.get("Error", {})
        operation = getattr(error, "operation_name", "")
        return f"{operation}: {info.get('Code', 'Error')}: {info.get('Message', '')}".strip()
    return f"{type(error).__name__}: {error}"


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
        remaining_seconds: Callable[[], float] | None = None,
        margin_seconds: float = 60.0,
    ) -> None:
        self.events = events
        self.versions = versions
        self.parse = parse
        self.concurrency = max(1, concurrency)
        self.force_nonce = force_nonce
        self.clock = clock
        self.remaining_seconds = remaining_seconds
        self.margin_seconds = margin_seconds

    def apply(self, actions: Sequence[Action]) -> list[TopicOutcome]:
        if not actions:
            return []
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(actions))) as pool:
            return list(pool.map(self._one, actions))

    def _one(self, action: Action) -> TopicOutcome:
        previous = action.previous if action.previous is not None else LineageState()
        if self.remaining_seconds is not None and self.remaining_seconds() < self.margin_seconds:
            return TopicOutcome(action.key, "deferred", previous, False, "deferred: the invocation is ending")
        try:
            if isinstance(action, Retract):
                return self._retract(action)
            if action.reason == "cleanup":
                return self._cleanup(action)
            return self._emit(action)
        except Exception as error:  # per-topic isolation: one topic's failure never stops the others
            logger.exception("lineage action failed", extra={"topic": action.key.key})
            return TopicOutcome(action.key, "failed", previous, False, describe_error(error))

    # -- emit -------------------------------------------------------------------------------------------

    def _emit(self, action: Emit) -> TopicOutcome:
        previous = action.previous or LineageState()
        record = action.target.record
        version = self.versions.read(record.schema_arn, record.latest_version)
        parsed = self.parse(version.data_format or record.data_format, version.definition)
        forced = action.reason == "forced"
        if forced:
            # The same run again: same runId and eventTime, so the same bodies (under fresh tokens).
            run_id = previous.run_id
            moment = parse_time(previous.event_time)
        else:
            run_id = derive_run_id(action.fingerprint, previous.run_id)
            moment = None
        if moment is None:
            mapping = action.target.mapping
            registered = (
                parse_time(version.created_time)
                or parse_time(record.updated_time)
                or parse_time(record.created_time)
            )
            moment = derive_event_time(registered, mapping.last_modified if mapping else None)
        built = build_run(action.content, parsed.fields, parsed.row_fields, run_id, moment)
        nonce = self.force_nonce if forced else ""

        stale = list(previous.stale)
        adopted: dict[str, str] = {}
        extra: list[str] = []  # duplicates of this run's events found in DataZone: deleted below
        if not nonce:
            for run in [r for r in stale if r.run_id == run_id]:
                stale.remove(run)
                adopted.update(zip(EVENT_TYPES, run.event_ids, strict=False))
                if not run.complete:
                    for found in self._find(run):
                        if found.event_type in adopted and adopted[found.event_type] != found.event_id:
                            extra.append(found.event_id)
                        else:
                            adopted.setdefault(found.event_type, found.event_id)
        attempted_at = format_time(self.clock())
        ids: list[str] = []
        for event_type, body in built.bodies:
            if event_type in adopted:
                ids.append(adopted[event_type])
                continue
            try:
                ids.append(self.events.post(body, client_token(body, nonce)))
            except (ClientError, BotoCoreError) as error:
                attempt = StaleRun(run_id, built.event_time, attempted_at, tuple(ids), complete=False)
                keep = [r for r in previous.stale if r.run_id != run_id]
                earlier = next((r for r in previous.stale if r.run_id == run_id), None)
                if earlier is not None:
                    attempt = replace(attempt, attempted_at=min(earlier.attempted_at, attempted_at))
                state = replace(previous, stale=(*keep, attempt))
                logger.warning(
                    "PostLineageEvent failed; the attempt is kept to be adopted or deleted next run",
                    extra={"topic": action.key.key, "runId": run_id, "eventType": event_type},
                )
                return TopicOutcome(
                    action.key,
                    "failed",
                    state,
                    state != previous,
                    f"posting {event_type}: " + describe_error(error),
                )
        # What the new run replaces: the previous run's events and every stale run (their known ids, and
        # for incomplete ones whatever the lookup finds), never the events just posted or adopted.
        replaced: list[StaleRun] = list(stale)
        if previous.emitted:
            replaced.insert(
                0,
                StaleRun(
                    previous.run_id,
                    previous.event_time,
                    previous.event_time,
                    previous.event_ids,
                    complete=True,
                ),
            )
        if extra:
            replaced.append(StaleRun(run_id, built.event_time, attempted_at, tuple(extra), complete=True))
        remaining, deleted, errors = self._delete_runs(replaced, keep=set(ids))
        state = LineageState(
            fingerprint=action.fingerprint,
            run_id=run_id,
            event_time=built.event_time,
            event_ids=tuple(ids),
            table=action.target.table.name,
            stale=tuple(remaining),
        )
        report = self._report(action, built, ids, deleted, parsed.warning)
        logger.info("lineage emitted", extra=report)
        problem = None
        if errors:
            problem = "posted; deleting replaced events failed (retried next run): " + "; ".join(errors)
        return TopicOutcome(action.key, "emitted", state, state != previous, problem, deleted, report)

    def _report(
        self, action: Emit, built: BuiltRun, ids: Sequence[str], deleted: int, warning: str | None
    ) -> dict[str, object]:
        report: dict[str, object] = {
            **action.key.as_dict(),
            "table": action.target.table.name,
            "tableArn": action.content.table.arn,
            "job": action.content.job,
            "reason": action.reason,
            "origin": action.target.origin,
            "runId": built.run_id,
            "eventTime": built.event_time,
            "eventIds": list(ids),
            "columnLineage": built.lineage.as_dict(),
            "largestEventBytes": built.largest,
            "replacedEvents": deleted,
        }
        if action.previous is not None and action.previous.table and action.previous.table != report["table"]:
            report["previousTable"] = action.previous.table
        if built.degraded:
            report["degraded"] = list(built.degraded)
        if warning:
            report["schemaWarning"] = warning
        return report

    # -- cleanup and retract ------------------------------------------------------------------------------

    def _cleanup(self, action: Emit) -> TopicOutcome:
        previous = action.previous or LineageState()
        remaining, deleted, errors = self._delete_runs(previous.stale, keep=set(previous.event_ids))
        state = replace(previous, stale=tuple(remaining))
        error = "deleting stale events failed: " + "; ".join(errors) if errors else None
        return TopicOutcome(action.key, "cleaned", state, state != previous, error, deleted)

    def _retract(self, action: Retract) -> TopicOutcome:
        previous = action.previous
        runs = list(previous.stale)
        if previous.emitted:
            runs.insert(
                0,
                StaleRun(
                    previous.run_id,
                    previous.event_time,
                    previous.event_time,
                    previous.event_ids,
                    complete=True,
                ),
            )
        remaining, deleted, errors = self._delete_runs(runs, keep=set())
        report: dict[str, object] = {
            **action.key.as_dict(),
            "table": previous.table or None,
            "reason": action.reason,
            "deletedEvents": deleted,
        }
        if remaining:
            state = LineageState(stale=tuple(remaining))
            return TopicOutcome(
                action.key, "failed", state, True, "retracting failed: " + "; ".join(errors), deleted, report
            )
        logger.info("lineage retracted", extra=report)
        return TopicOutcome(action.key, "retracted", None, True, None, deleted, report)

    def _delete_runs(self, runs: Sequence[StaleRun], keep: set[str]) -> tuple[list[StaleRun], int, list[str]]:
        """Delete every event of `runs` except `keep`; returns what is left to retry, the count, errors."""
        remaining: list[StaleRun] = []
        deleted = 0
        errors: list[str] = []
        for run in runs:
            ids = list(run.event_ids)
            if not run.complete:
                try:
                    ids += [f.event_id for f in self._find(run) if f.event_id not in ids]
                except (ClientError, BotoCoreError) as error:
                    errors.append(f"looking up run {run.run_id}: {describe_error(error)}")
                    remaining.append(run)
                    continue
            left: list[str] = []
            for event_id in ids:
                if event_id in keep:
                    continue
                try:
                    if self.events.delete(event_id):
                        deleted += 1
                except (ClientError, BotoCoreError) as error:
                    errors.append(f"deleting {event_id}: {describe_error(error)}")
                    left.append(event_id)
            if left:
                remaining.append(replace(run, event_ids=tuple(left), complete=True))
        return remaining, deleted, errors

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
