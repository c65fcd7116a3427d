"""schema-sync's stages, for the pipeline (sync/pipeline.py) to run chunk by chunk:

- read: inspect each candidate (the run's `inspect`: GetSchema, versions, the definition when the fingerprint
  moved, then plan.decide), screen the deletions it found (the fail-safe's ledger goes on from chunk to
  chunk), and the chunk's plan is one frozen value, in the run's order;
- apply: take the state lease before the run's first write (a run with nothing to write takes none: it
  writes nothing at all), read the asset records again, then apply each action (sync/apply.py);
- save: the chunk's asset records, under the lease (checked before every save); then count what was done
  and put the chunk's "Topic Asset Changed" events (only after the save, so no event announces what the
  records do not hold).
A failed save fails the chunk's items: the DataZone side is done and idempotent, and the next run adopts
what the asset records missed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from kafka_lineage import failsafe
from kafka_lineage.model.failures import LeaseBusy, LeaseLost, SchemaNotFound
from kafka_lineage.observability import logger
from kafka_lineage.sync import plan
from kafka_lineage.sync.apply import Applied, Applier
from kafka_lineage.sync.pipeline import AppliedChunk, Each, Item, ReadChunk, Stages, Stop
from kafka_lineage.sync.ports import SyncAdapters
from kafka_lineage.sync.result import SyncResult


class Chunks:
    """The pipeline's stages for one run of schema-sync: what each chunk's read, apply and save do."""

    def __init__(
        self,
        inspect: Callable[[plan.Candidate], plan.Action | None],
        adapters: SyncAdapters,
        applier: Applier,
        result: SyncResult,
        ledger: failsafe.Ledger,
        dry_run: bool,
        on_plan: Callable[[plan.SyncPlan], None] | None,
    ) -> None:
        self.inspect = inspect
        self.adapters = adapters
        self.applier = applier
        self.result = result
        self.ledger = ledger  # the read stage's alone: chunks are read one after the other
        self.dry_run = dry_run
        self.on_plan = on_plan
        self.stop = Stop()
        self.leased = self.adapters.lease is None or dry_run

    def stages(self) -> Stages:
        return Stages(self.read, self.apply, self.save, self.saved, needs_lease=lambda: not self.leased)

    # -- read: inspect the candidates, screen the deletions found, plan the chunk
    def read(self, chunk: Sequence[Item], each: Each) -> tuple[plan.SyncPlan, bool]:
        candidates = [item for _, item in chunk if isinstance(item, plan.Candidate)]
        deletions = [item for _, item in chunk if isinstance(item, plan.Delete)]
        decided: list[plan.Action] = []
        gone: list[plan.Delete] = []
        unchanged = 0
        lock = threading.Lock()

        def inspect(candidate: plan.Candidate) -> None:
            nonlocal unchanged
            try:
                action = self.inspect(candidate)
            except SchemaNotFound:
                deletion = plan.gone(candidate)
                if deletion is not None:
                    with lock:
                        gone.append(deletion)
                elif candidate.reason == plan.REQUESTED:
                    # Named by a request or an event, and not there: say so rather than do nothing silently.
                    where = {"registryName": candidate.registry_name, "topic": candidate.schema_name}
                    self.result.skip([{**where, "reason": "schema not found"}])
                return
            except Exception as error:
                self.result.fail(error, schemaArn=candidate.key, registryName=candidate.registry_name)
                return
            warning = getattr(getattr(action, "desired", None), "warning", None)
            if warning and action is not None:
                self.result.warn(warning, schemaArn=action.schema_arn)
            with lock:
                if action is None:
                    unchanged += 1
                else:
                    decided.append(action)

        complete = each(inspect, candidates)
        verdict, self.ledger = self.ledger.screen(
            gone, group=lambda d: d.registry_name, confirmed=lambda d: d.confirmed
        )
        # Apply in the run's order: a dry run lists its plan the same way every time.
        order = {position.key: index for index, (position, _) in enumerate(chunk)}
        actions = sorted([*decided, *verdict.kept, *deletions], key=lambda a: order.get(a.schema_arn, -1))
        chunk_plan = plan.SyncPlan(actions=tuple(actions), held_back=verdict.held, unchanged=unchanged)
        self.result.hold(chunk_plan)
        return chunk_plan, complete

    # -- apply: the DataZone writes, under the lease
    def apply(self, read: ReadChunk, each: Each) -> tuple[tuple[Applied, ...], bool] | None:
        chunk_plan = read.chunk_plan
        self.result.count_unchanged(chunk_plan.unchanged)
        if self.on_plan is not None:
            self.on_plan(chunk_plan)
        if self.dry_run:
            self.result.record_plan(chunk_plan)
            logger.info(
                "schema-sync dry run: planned", extra={"chunk": read.number, "planned": chunk_plan.describe()}
            )
            return (), True
        writes = chunk_plan.writes()
        if writes and not self.leased and not self._take_lease(writes):
            return None
        done: list[Applied] = []
        lock = threading.Lock()

        def apply(action: plan.Action) -> None:
            try:
                applied = self.applier.apply(action)
            except Exception as error:
                self.result.fail(error, schemaArn=action.schema_arn, registryName=action.registry_name)
                return
            with lock:
                done.append(applied)

        complete = each(apply, writes)
        return tuple(done), complete

    def _take_lease(self, pending: Sequence[plan.Action]) -> bool:
        """Hold the state lease before the first write, then read the asset records again (the run planned on
        what it read before: a decision made stale meanwhile is an idempotent write, a conflict adopts)."""
        lease = self.adapters.lease
        assert lease is not None
        try:
            lease.acquire(wait_seconds=self.adapters.lease_wait_seconds)
        except LeaseBusy as busy:
            logger.info("mapping held by another invocation: stopping", extra={"lease": str(busy)})
            self.result.record_busy()
            self.stop.request()
            return False
        except Exception as error:  # SSM failing: nothing may be written without the lease
            for action in pending:
                self.result.fail(
                    error,
                    doing="mapping lease not acquired",
                    schemaArn=action.schema_arn,
                    registryName=action.registry_name,
                )
            self.stop.request()
            return False
        self.leased = True
        self.adapters.asset_records.load()  # the saver has saved nothing yet: no earlier chunk had a change
        return True

    # -- save: the asset records under the lease; then the counts and the chunk's events
    def save(self, applied: AppliedChunk) -> int | None:
        if self.dry_run:
            return 0
        changes = {done.action.schema_arn: done.record for done in applied.done}
        lease = self.adapters.lease
        try:
            if changes and lease is not None and self.stop.requested():
                raise LeaseLost("the lease was lost earlier in this run")
            if changes and lease is not None:
                lease.ensure_held()
            return self.adapters.asset_records.save(changes) if changes else 0
        except Exception as error:
            lost = isinstance(error, LeaseLost)
            if lost:
                self.stop.request()
            # The DataZone side is done and idempotent: the next run adopts what the asset records missed.
            for done in applied.done:
                self.result.fail(error, doing="mapping not saved", schemaArn=done.action.schema_arn)
            if not lost:
                self._reload_asset_records()
            return None

    def saved(self, applied: AppliedChunk, writes: int) -> None:
        if self.dry_run:
            self.result.record_chunk(0, saved=False)
            return
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

    def _reload_asset_records(self) -> None:
        """After a failed save SSM may hold part of it: re-read, so later chunks save on what is there."""
        try:
            self.adapters.asset_records.load()
        except Exception as error:
            logger.error("asset records reload failed", extra={"error": str(error)})
