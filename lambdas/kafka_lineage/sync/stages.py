"""schema-sync's steps, for the engine's chunked pipeline (engine/pipeline.py) to run chunk by chunk:

- inspect (a worker): read one candidate (the run's `inspect`: GetSchema, versions, the definition when the
  fingerprint moved, then plan.decide), answering a value;
- plan_chunk (the read thread): screen the deletions the inspections found (the fail-safe's ledger goes on
  from chunk to chunk), and the chunk's plan is one frozen value, in the run's order;
- take_lease (the apply thread): the engine's lease policy before the run's first write (a run with nothing
  to write takes none: it writes nothing at all), then the asset records are read again;
- apply (a worker): one action (sync/apply.py), answering what was done;
- changes (the apply thread): the chunk's asset records, which the engine's grouped saver
  (engine/checkpoints.py) saves as one group;
- save (the saver's thread): those records, under the lease (checked before every save);
- report (the saver's thread, the one writer of the result): what the chunk read, planned, did and saved,
  then the chunk's "Topic Asset Changed" events (only after the save, so no event announces what the
  records do not hold).
A failed save fails the chunk's items (the saver reloads the asset records, so later chunks save on what
SSM holds, and goes on): the DataZone side is done and idempotent, and the next run adopts what the asset
records missed. A lost lease stops every further save, and the run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from kafka_lineage import failsafe
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.handover import unchanged_since_handover
from kafka_lineage.engine.lease import Deferred, hold
from kafka_lineage.engine.pipeline import AppliedChunk, Failed, Item, Planned
from kafka_lineage.model.failures import LeaseLost, SchemaNotFound
from kafka_lineage.observability import logger
from kafka_lineage.sync import plan
from kafka_lineage.sync.apply import Applied, Applier
from kafka_lineage.sync.ports import SyncAdapters
from kafka_lineage.sync.result import SyncResult


@dataclass(frozen=True)
class Inspected:
    """What one candidate's read answered: its action (None: unchanged), or the deletion of a schema found
    gone, or an entry of `skipped` (a schema a request named that is not there)."""

    action: plan.Action | None = None
    gone: plan.Delete | None = None
    skipped: dict[str, str] | None = None
    looked: bool = True  # False: not found, so neither unchanged nor an action
    warnings: tuple[tuple[str, str], ...] = ()  # (schema ARN, warning) the read met


@dataclass(frozen=True)
class ChunkRead:
    """A chunk's plan, and what its reads have to report (failures, warnings, skipped entries)."""

    plan: plan.SyncPlan
    failed: tuple[Failed, ...] = ()
    warnings: tuple[tuple[str, str], ...] = ()  # (schema ARN, warning)
    skipped: tuple[dict[str, str], ...] = ()


@dataclass(frozen=True)
class LeaseFailed:
    """The lease could not be taken (SSM failing): nothing may be written; the chunk's writes fail."""

    error: Exception
    pending: tuple[plan.Action, ...]


@dataclass
class SyncSteps:
    """The engine's `ChunkedRun` for one run of schema-sync (see the module doc)."""

    # The run's read of one candidate; it tells `warn(schema_arn, text)` what it met on the way.
    inspect_one: Callable[[plan.Candidate, Callable[[str, str], None]], plan.Action | None]
    adapters: SyncAdapters
    applier: Applier
    result: SyncResult
    ledger: failsafe.Ledger  # the read thread's alone: chunks are planned one after the other
    deadline: Deadline
    # Each chunk's plan (a dry run's whole plan), whether the lease is held.
    plans: list[plan.SyncPlan] = field(init=False, default_factory=list)
    leased: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.leased = self.adapters.lease is None  # a dry run has none: it writes nothing

    # -- read: inspect the candidates, screen the deletions found, plan the chunk
    def reads(self, item: Any) -> bool:
        return isinstance(item, plan.Candidate)

    def inspect(self, candidate: plan.Candidate) -> Inspected:
        met: list[tuple[str, str]] = []  # this call's own: the worker shares nothing
        try:
            action = self.inspect_one(candidate, lambda arn, warning: met.append((arn, warning)))
            return Inspected(action=action, warnings=tuple(met))
        except SchemaNotFound:
            deletion = plan.gone(candidate)
            if deletion is None and candidate.reason == plan.REQUESTED:
                # Named by a request or an event, and not there: say so rather than do nothing silently.
                where = {"registryName": candidate.registry_name, "topic": candidate.schema_name}
                return Inspected(skipped={**where, "reason": "schema not found"}, looked=False)
            return Inspected(gone=deletion, looked=False)

    def plan_chunk(self, chunk: Sequence[Item], inspected: Sequence[tuple[Any, Any]]) -> Planned:
        deletions = [item for _, item in chunk if isinstance(item, plan.Delete)]
        decided: list[plan.Action] = []
        gone: list[plan.Delete] = []
        failed: list[Failed] = []
        warnings: list[tuple[str, str]] = []
        skipped: list[dict[str, str]] = []
        unchanged = 0
        for _, value in inspected:
            if isinstance(value, Failed):
                failed.append(value)
                continue
            assert isinstance(value, Inspected)
            if value.gone is not None:
                gone.append(value.gone)
            if value.skipped is not None:
                skipped.append(value.skipped)
            warnings.extend(value.warnings)
            action = value.action
            warning = getattr(getattr(action, "desired", None), "warning", None)
            if warning and action is not None:
                warnings.append((action.schema_arn, warning))
            if action is not None:
                decided.append(action)
            elif value.looked:
                unchanged += 1
        verdict, self.ledger = self.ledger.screen(
            gone, group=lambda d: d.registry_name, confirmed=lambda d: d.confirmed
        )
        # Apply in the run's order: a dry run lists its plan the same way every time.
        order = {position.key: index for index, (position, _) in enumerate(chunk)}
        actions = sorted([*decided, *verdict.kept, *deletions], key=lambda a: order.get(a.schema_arn, -1))
        chunk_plan = plan.SyncPlan(actions=tuple(actions), held_back=verdict.held, unchanged=unchanged)
        writes = chunk_plan.writes()
        return Planned(
            ChunkRead(chunk_plan, tuple(failed), tuple(warnings), tuple(skipped)),
            writes,
            writes=_writes(writes),
            read_writes=sum(1 for a in chunk_plan.actions if isinstance(a, plan.Create | plan.Revise)),
        )

    # -- apply: the DataZone writes, under the lease
    def needs_lease(self) -> bool:
        return not self.leased

    def take_lease(self, planned: Planned) -> Deferred | LeaseFailed | None:
        """Hold the state lease before the first write, then read the asset records again (the run planned on
        what it read before: a decision made stale meanwhile is an idempotent write, a conflict adopts)."""
        try:
            deferred = hold(self.adapters.lease, self.deadline, self.adapters.lease_wait_seconds)
        except Exception as error:  # SSM failing: nothing may be written without the lease
            return LeaseFailed(error, tuple(planned.actions))
        if deferred is not None:
            return deferred
        self.leased = True
        # The saver has saved nothing yet (no earlier chunk had a change): read them again, unless nobody
        # wrote them since this run read them (the lease follows the handing invocation's).
        if not unchanged_since_handover(self.adapters.lease):
            self.adapters.asset_records.load()
        return None

    def apply(self, action: plan.Action) -> Applied:
        return self.applier.apply(action)

    # -- save: the asset records under the lease (on the engine's grouped saver)
    def changes(self, applied: AppliedChunk) -> dict[str, Any]:
        return {done.action.schema_arn: done.record for done in applied.done}

    def save(self, changes: dict[str, Any], lost: bool) -> int:
        lease = self.adapters.lease
        if lease is not None and lost:
            raise LeaseLost("the lease was lost earlier in this run")
        if lease is not None:
            lease.ensure_held()
        return self.adapters.asset_records.save(changes)

    def reload(self) -> None:
        """After a failed save SSM may hold part of it: re-read, so later chunks save on what is there."""
        try:
            self.adapters.asset_records.load()
        except Exception as error:
            logger.error("asset records reload failed", extra={"error": str(error)})

    # -- report: the one writer of the result; then the chunk's events
    def report(self, applied: AppliedChunk, writes: int | None, error: Exception | None) -> None:
        read: ChunkRead = applied.read.planned.plan
        result, chunk_plan = self.result, read.plan
        for failed in read.failed:
            item = failed.item
            result.fail(failed.error, schemaArn=item.key, registryName=item.registry_name)
        for schema_arn, warning in read.warnings:
            result.warn(warning, schemaArn=schema_arn)
        result.skip(read.skipped)
        result.hold(chunk_plan)
        result.count_unchanged(chunk_plan.unchanged)
        self.plans.append(chunk_plan)
        self._report_applied(applied, writes, error)

    def _report_applied(self, applied: AppliedChunk, writes: int | None, error: Exception | None) -> None:
        result = self.result
        self._report_refused(applied.refused)
        for failed in applied.failed:
            result.fail(
                failed.error, schemaArn=failed.item.schema_arn, registryName=failed.item.registry_name
            )
        for done in applied.done:
            if done.warning:
                result.warn(done.warning, schemaArn=done.action.schema_arn)
        if writes is None:
            # The DataZone side is done and idempotent: the next run adopts what the asset records missed.
            for done in applied.done:
                why = error or RuntimeError("not saved")
                result.fail(why, doing="mapping not saved", schemaArn=done.action.schema_arn)
            return
        self._report_saved(applied, writes)

    def _report_refused(self, refused: Deferred | LeaseFailed | None) -> None:
        if isinstance(refused, Deferred):
            self.result.defer(refused)
        elif isinstance(refused, LeaseFailed):
            for action in refused.pending:
                self.result.fail(
                    refused.error,
                    doing="mapping lease not acquired",
                    schemaArn=action.schema_arn,
                    registryName=action.registry_name,
                )

    def _report_saved(self, applied: AppliedChunk, writes: int) -> None:
        events = []
        for done in applied.done:
            if done.held is not None:
                self.result.record_held(done.held)  # a deletion not done: not counted as deleted
            else:
                self.result.count(done.action, done.adopted)
            if done.refused is not None:
                self.result.record_refused(done.refused)
            detail = done.event_detail()
            if detail is not None:
                events.append(detail)
        self.result.record_chunk(writes, saved=True)
        read = applied.read
        logger.info(
            "schema-sync chunk saved",
            extra={
                "chunk": read.number,
                "items": len(read.items),
                "writes": writes,
                "through": read.last.group,
            },
        )
        if events:
            try:
                rejected = self.adapters.events.put(events)
            except Exception as error:
                rejected = events
                logger.error("Topic Asset Changed events not put", extra={"error": str(error)})
            self.result.record_rejected_events(len(rejected))


def _writes(actions: Sequence[plan.Action]) -> int:
    """The DataZone writes among `actions` (a touch refreshes the asset record alone)."""
    return sum(1 for action in actions if not isinstance(action, plan.Touch))


@dataclass
class PlanOnly(SyncSteps):
    """A dry run's steps: each chunk is read and planned as in a real run, and its plan is the answer. No
    action goes to the applier, so nothing is written and no lease is taken; its ports refuse writes anyway
    (SyncAdapters.dry_run)."""

    def plan_chunk(self, chunk: Sequence[Item], inspected: Sequence[tuple[Any, Any]]) -> Planned:
        planned = super().plan_chunk(chunk, inspected)
        return replace(planned, actions=(), writes=0, read_writes=0)

    def _report_applied(self, applied: AppliedChunk, writes: int | None, error: Exception | None) -> None:
        chunk_plan = applied.read.planned.plan.plan
        self.result.record_plan(chunk_plan)
        number = applied.read.number
        logger.info("schema-sync dry run: planned", extra={"chunk": number, "planned": chunk_plan.describe()})
        self.result.record_chunk(0, saved=False)
