"""The chunked pipeline: read chunk k+1 while chunk k is applied and chunk k-1 saved, and stop in time.

It runs a `ChunkedRun` (schema-sync's steps, sync/stages.py) and knows nothing of what its items are:

- The work (items in the order of their positions, engine/order.py) is cut into chunks on hash-group
  boundaries, so each parameter of the saved state is written once per run.
- Three stages: the reads of chunk k+1 run (in the caller's thread, on the read pool) while the writes of
  chunk k (the apply thread, on the write pool) and the save of chunk k-1 do. The save is the engine's one
  grouped saver's (engine/checkpoints.py): the applier hands it each chunk as one group (its `changes`),
  and the saver's thread saves it under the lease, then tells the pipeline, which `report`s the chunk on
  that thread. Workers hand their values back; the run's `plan_chunk` (read thread) and `report` (the
  saver's thread) see them, and `report` alone writes the run's result. Read-ahead is two chunks (one
  waits for the applier while the next is read), and the applier waits while two chunks are still to save;
  every chunk read is applied and saved.
- A chunk is started only when the pacing estimates (engine/pace.py) say its read, its writes and its save
  all end before the deadline (engine/deadline.py), with time left to release the lease and hand on. The
  first chunk is one round of the workers (slow start: what the account leaves is measured before a chunk is
  sized by it). A stage that runs late starts none of the rest of its items, so the later stages of the chunk
  still end in time.
- The lease (engine/lease.py) is the run's to take before the first write (`take_lease`); a run that cannot
  take it, or loses it, stops starting work (`Stop`).
- A run that stops says `incomplete`, how many items are `remaining`, and the last item a follow-up need not
  look at again (`Progress`): the follow-up redoes no finished read or write.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from kafka_lineage.engine.checkpoints import GROUP_BY_GROUP, Checkpoints
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.order import Position, cut
from kafka_lineage.engine.pace import Pace, Timeline
from kafka_lineage.engine.pool import NOT_STARTED, Workers
from kafka_lineage.model import clock
from kafka_lineage.observability import logger

CHUNK_ITEMS = 24  # items per chunk (whole hash groups, so a bigger group makes a bigger chunk)
# Slow start: the first chunk is one round of the workers, and each later chunk's size limit at most this
# much above the one before, up to CHUNK_ITEMS. Why gently: a chunk is saved once it is read and applied,
# and the next one is read while this one is applied. When a chunk is much bigger than the one before, the
# saver finishes the small one and waits while the big one is read and applied. Reads and writes go at
# about the same rate, so the saver stays busy while each chunk is at most about 1.2 times the last
# (docs/performance.md, "The pipeline's slow start"). Jumping from one round to CHUNK_ITEMS left the SSM
# writes idle for 1.8 s of a 200-schema first sync.
CHUNK_GROWTH = 1.25
# Chunks handed to the saver and not yet saved, at most: the one it saves and the next. The applier waits
# beyond that, so a slow saver holds back the reads too and the deadline's estimates stay near the clock.
SAVES_PENDING = 2

Item = tuple[Position, Any]
T = TypeVar("T")


class Stop:
    """Whether the run stops starting work, in one place: the run asked (the lease was busy or lost, or SSM
    refused it), or a stage crashed (a bug: re-raised in the run's thread once every stage has ended)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self.crash: BaseException | None = None

    def request(self) -> None:
        self._event.set()

    def crashed(self, error: BaseException) -> None:
        self.crash = error
        self._event.set()

    def is_set(self) -> bool:
        return self._event.is_set()

    def requested(self) -> bool:
        """The run asked to stop (not a crash): the lease is not this run's any more, or never was."""
        return self._event.is_set() and self.crash is None


@dataclass(frozen=True)
class Progress:
    """Where the run stopped: `incomplete` (items were left for a follow-up), how many, and the last item
    a follow-up need not look at again (None: start from the beginning)."""

    incomplete: bool = False
    remaining: int = 0
    resume_after: Position | None = None


@dataclass(frozen=True)
class Failed:
    """An item whose `inspect` or `apply` raised: that item failed, the others go on."""

    item: Any
    error: Exception


@dataclass(frozen=True)
class Planned:
    """A chunk's plan as the pipeline needs it: the run's own value (`plan`), the actions to apply in order,
    how many of them are writes (a refresh of the saved state alone is not), and how many writes the items
    read decided (the pace learns what share of the items read need a write)."""

    plan: Any
    actions: tuple[Any, ...]
    writes: int
    read_writes: int


@dataclass(frozen=True)
class ReadChunk:
    """A chunk after its reads: the plan for it, and whether every item was looked at."""

    number: int
    items: Sequence[Item]
    planned: Planned
    complete: bool
    apply_until: float  # no write starts after this (monotonic): the save must still fit

    @property
    def last(self) -> Position:
        return self.items[-1][0]


@dataclass(frozen=True)
class AppliedChunk:
    """A chunk after its writes: what each applied action answered (`done`), the actions that failed, and
    what stopped the chunk before its writes (`refused`: the run's `take_lease` answer)."""

    read: ReadChunk
    done: tuple[Any, ...]
    complete: bool
    failed: tuple[Failed, ...] = ()
    refused: Any = None


class ChunkedRun(Protocol):
    """What a run gives the pipeline. `inspect` and `apply` run on the workers and answer values (an
    exception fails that item alone); the other steps run in the stage's own thread, and `report` is the one
    step that writes the run's result."""

    def reads(self, item: Any) -> bool:
        """Whether the item is inspected (the others, deletions, go to the plan as they are)."""
        ...

    def inspect(self, item: Any) -> Any: ...

    def plan_chunk(self, chunk: Sequence[Item], inspected: Sequence[tuple[Any, Any]]) -> Planned:
        """The chunk's plan, from the values its items' inspections answered (or `Failed`)."""
        ...

    def needs_lease(self) -> bool:
        """Whether the first write still has to take the lease (its time is estimated)."""
        ...

    def take_lease(self, planned: Planned) -> Any:
        """Take the lease before the first write: None when held, else what the run reports (a `Deferred`,
        a failure); the run then stops."""
        ...

    def apply(self, action: Any) -> Any: ...

    def changes(self, applied: AppliedChunk) -> dict[str, Any]:
        """What the applied chunk writes to the saved state (entry key -> entry, None: remove it)."""
        ...

    def save(self, changes: dict[str, Any], lost: bool) -> int:
        """Write `changes` under the lease (`lost`: the run already knows it lost the lease, or never took
        it): the writes made; raises `LeaseLost` when the lease is not this run's, or why the save failed."""
        ...

    def reload(self) -> None:
        """After a failed save the store may hold part of it: read it again."""
        ...

    def report(self, applied: AppliedChunk, writes: int | None, error: Exception | None) -> None:
        """The chunk after its save: `writes` made (None: not saved, `error` why; its items must be looked
        at again by the next run)."""
        ...


def _taken(inbox: queue.Queue[T | None]) -> Iterator[T]:
    """What a stage's thread is handed, one at a time, until the end (None)."""
    while True:
        item = inbox.get()
        inbox.task_done()
        if item is None:
            return
        yield item


class Pipeline:
    """Read chunk k+1 while chunk k is applied and chunk k-1 saved; stop in time (see the module doc)."""

    def __init__(self, run: ChunkedRun, pace: Pace, deadline: Deadline) -> None:
        self.run_steps = run
        self.pace = pace
        self.deadline = deadline
        self.stop = Stop()
        self.workers = pace.workers
        self.timeline = Timeline()  # when the applier and the saver are free
        # Where a follow-up resumes: past every chunk saved in order, until one left items undone.
        self._lock = threading.Lock()
        self._resume_frozen = False
        self._resume_after: Position | None = None
        self._incomplete = False
        self._remaining = 0
        self.read_pool = Workers(self.workers, "run-read")
        self.write_pool = Workers(self.workers, "run-write")
        self._pending = threading.BoundedSemaphore(SAVES_PENDING)
        self._save_started = 0.0  # the saver's thread's own: when the save under way started
        self.checkpoints: Checkpoints = Checkpoints(
            {},
            save=lambda changes: run.save(changes, self.stop.requested()),
            reload=run.reload,
            write_seconds=lambda: pace.rates.seconds_per("save"),
            listener=self,
            policy=GROUP_BY_GROUP,
        )

    # -- the loop: this thread reads; one thread applies, one saves
    def run(self, work: Sequence[Item]) -> Progress:
        to_apply: queue.Queue[ReadChunk | None] = queue.Queue(maxsize=1)
        applier = threading.Thread(target=self._guard, args=(self._apply_loop, to_apply), daemon=True)
        position = 0
        try:
            with self.checkpoints:  # the saver's thread: on leaving, what was handed to it is saved
                applier.start()
                try:
                    position = self._read_loop(work, to_apply)
                finally:
                    to_apply.put(None)
                    applier.join()
        finally:
            self.read_pool.close()
            self.write_pool.close()
        if self.stop.crash is not None:
            raise self.stop.crash
        left = len(work) - position
        return Progress(self._incomplete or left > 0, self._remaining + left, self._resume_after)

    def _read_loop(self, work: Sequence[Item], to_apply: queue.Queue[ReadChunk | None]) -> int:
        """Read chunk after chunk for the applier while they fit before the deadline: where the reads
        stopped."""
        position = 0
        number = 0
        limit = float(self.workers)
        while position < len(work) and not self.stop.is_set():
            # Slow start: the first chunk is one round of the workers, so the estimates of the next ones
            # rest on the speed it measured (what the account's quotas leave may be far below the
            # limiters' rates: a neighbour's share is known only once calls are throttled); the next
            # ones grow by CHUNK_GROWTH at most, so the saver is not left waiting.
            end = cut(work, position, min(CHUNK_ITEMS, math.ceil(limit)), self._fits)
            limit *= CHUNK_GROWTH
            if end == position:
                logger.warning(
                    "stopping: the next chunk could not finish before the deadline",
                    extra={"remaining": len(work) - position},
                )
                break
            read = self._read(number, work[position:end])
            number += 1
            position = end if read.complete else position
            to_apply.put(read)
            if not read.complete:
                break
            # Read-ahead is two chunks: the next read starts at once, and its chunk waits in `to_apply`
            # (one place) until the applier has taken this one. The reads and the writes go at about the
            # same rate; a chunk read ahead keeps a read that ran slow from holding the writes back.
        return position

    def _guard(self, loop: Callable[..., None], inbox: queue.Queue[Any]) -> None:
        try:
            loop(inbox)
        except BaseException as error:  # a bug: drain so nobody blocks, and re-raise in the run's thread
            self.stop.crashed(error)
            for _ in _taken(inbox):
                pass

    # -- the deadline: when a chunk would be done, and when each of its stages must stop starting items
    def _reads(self, chunk: Sequence[Item]) -> int:
        return sum(1 for _, item in chunk if self.run_steps.reads(item))

    def _estimates(self, chunk: Sequence[Item]) -> tuple[float, float, float]:
        """(read, apply, save) seconds of `chunk`, the lease's taking included."""
        read, apply, save = self.pace.estimate(chunk, self._reads(chunk))
        if self.run_steps.needs_lease():
            apply += self.pace.lease_seconds()
        return read, apply, save

    def _finish_times(self, chunk: Sequence[Item]) -> tuple[float, float]:
        """When `chunk`, read from now on, would be applied and saved (monotonic), by the pacing estimates."""
        read, apply, save = self._estimates(chunk)
        apply_free, save_free = self.timeline.free_at()
        applied = max(clock.monotonic() + read, apply_free) + apply
        return applied, max(applied, save_free) + save

    def _last_save_by(self) -> float:
        """When the last save must have ended (monotonic)."""
        return self.deadline.at() - self.pace.finish_seconds()

    def _fits(self, chunk: Sequence[Item]) -> bool:
        return self._finish_times(chunk)[1] <= self._last_save_by()

    def _stage_limits(self, chunk: Sequence[Item]) -> tuple[float, float]:
        """(read until, apply until): a stage that runs late skips the rest of its items, so the later
        stages of the chunk still end in time (the skipped items are the follow-up's)."""
        _, apply, save = self.pace.estimate(chunk, self._reads(chunk))
        until = self._last_save_by()
        return until - apply - save, until - save

    def _may_start(self, until: float) -> Callable[[], bool]:
        return lambda: not self.stop.is_set() and clock.monotonic() <= until

    # -- stage 1: reads (this thread, with the read pool)
    def _read(self, number: int, chunk: Sequence[Item]) -> ReadChunk:
        read, apply, save = self._estimates(chunk)
        read_until, apply_until = self._stage_limits(chunk)
        started = clock.monotonic()
        self.timeline.plan(number, started + read, apply, save)
        steps = self.run_steps
        to_read = [item for _, item in chunk if steps.reads(item)]
        inspected: list[tuple[Any, Any]] = []

        def receive(item: Any, value: Any) -> None:
            if value is not NOT_STARTED:
                inspected.append((item, value))

        complete = self.read_pool.each(
            to_read, _isolated(steps.inspect), receive, self._may_start(read_until)
        )
        planned = steps.plan_chunk(chunk, inspected)
        self.timeline.mark(number, "read", "ended")
        self.pace.observe("read", len(to_read), clock.monotonic() - started)
        self.pace.observe_writes(len(to_read), planned.read_writes)
        return ReadChunk(number, chunk, planned, complete, apply_until)

    # -- stage 2: the writes (the apply thread, with the write pool), then the chunk to the saver
    def _apply_loop(self, inbox: queue.Queue[ReadChunk | None]) -> None:
        for read in _taken(inbox):
            started = clock.monotonic()
            self.timeline.mark(read.number, "apply", "started")
            applied = self._apply(read)
            self.timeline.mark(read.number, "apply", "ended")
            if applied.refused is None:
                self.pace.observe("apply", read.planned.writes, clock.monotonic() - started)
            changes = self.run_steps.changes(applied)
            self._pending.acquire()  # given back once the saver is done with a chunk
            # The chunk is whole hash groups, so one group of the saver, saved once all of it is applied.
            self.checkpoints.add(f"chunk {read.number}", changes, worked=bool(applied.done), token=applied)

    def _apply(self, read: ReadChunk) -> AppliedChunk:
        steps, actions = self.run_steps, read.planned.actions
        if actions and steps.needs_lease():
            refused = steps.take_lease(read.planned)
            if refused is not None:
                self.stop.request()
                return AppliedChunk(read, (), False, refused=refused)
        done: list[Any] = []
        failed: list[Failed] = []

        def receive(_: Any, value: Any) -> None:
            if isinstance(value, Failed):
                failed.append(value)
            elif value is not NOT_STARTED:
                done.append(value)

        complete = self.write_pool.each(
            actions, _isolated(steps.apply), receive, self._may_start(read.apply_until)
        )
        return AppliedChunk(read, tuple(done), read.complete and complete, tuple(failed))

    # -- stage 3: the save (the saver's thread, engine/checkpoints.py), then the report of the chunk
    def saving(self, tokens: Sequence[Any]) -> None:
        """The saver starts saving these chunks (`AppliedChunk`s, in order)."""
        self._save_started = clock.monotonic()
        for applied in tokens:
            self.timeline.mark(applied.read.number, "save", "started")

    def saved(self, tokens: Sequence[Any], writes: int | None, error: Exception | None) -> None:
        """The saver saved these chunks (`writes` in all; None: not saved): move the resume point, learn the
        save's pace, and report each chunk, in order, on this thread (the one writer of the result)."""
        try:
            if self.stop.crash is not None:
                return  # a stage crashed: the run raises it, nothing more is reported
            seconds = clock.monotonic() - self._save_started
            if self.checkpoints.halted:
                self.stop.request()  # the lease was lost: nothing more may be written
            if writes is not None:
                self.pace.observe("save", writes, seconds)
            for index, applied in enumerate(tokens):
                self.timeline.mark(applied.read.number, "save", "ended")
                if writes is None:
                    with self._lock:
                        self._resume_frozen = True  # unrecorded: the follow-up must look at these again
                else:
                    self._advance(applied)
                # One chunk a save (GROUP_BY_GROUP); were there several, their writes count once.
                self.run_steps.report(
                    applied, None if writes is None else (writes if index == 0 else 0), error
                )
        except BaseException as crash:  # a bug: the run re-raises it once every stage has ended
            self.stop.crashed(crash)
        finally:
            for _ in tokens:
                self._pending.release()

    def _advance(self, applied: AppliedChunk) -> None:
        """Move the resume point past a chunk whose every item was looked at (chunks come in order)."""
        with self._lock:
            if not applied.complete:
                # Items skipped for time (read or write): the follow-up must see them again.
                self._resume_frozen = True
                self._incomplete = True
                self._remaining += len(applied.read.items) - len(applied.done)
            elif not self._resume_frozen:
                self._resume_after = applied.read.last


def _isolated(step: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """`step` on one item, its exception that item's failure (a value) rather than the run's."""

    def one(item: Any) -> Any:
        try:
            return step(item)
        except Exception as error:
            return Failed(item, error)

    return one
