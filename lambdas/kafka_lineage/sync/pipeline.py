"""schema-sync's engine: chunks, pacing estimates, the read/apply/save threads, the deadline, and where a
run stops and resumes. It is handed what to call for each stage (`Stages`); it knows nothing of the
catalog, the registry or the asset records.

- The work (candidates and deletions, in the order of the asset records' hash groups) is cut into chunks on
  group boundaries (`plan.cut`), so each SSM parameter of the asset records is saved once per run.
- Three stages: the reads of chunk k+1 run (in the caller's thread, on the read pool) while the writes of
  chunk k (the apply thread, on the write pool) and the save of chunk k-1 (the save thread) do. Each service
  has its own rate limiter, so the stages pace independently and the run goes at the pace of its slowest
  service. Read-ahead is one chunk; every chunk that is read is applied and saved.
- A chunk is started only when the pacing estimates (`Pace`: the configured rates, then the speeds measured
  so far) say its read, its writes and its save all end before the deadline (`Deadline`: the invocation's
  time less `deadline_margin_seconds`), with time left to release the lease and hand on. A stage that runs
  late skips the rest of its items, so that the later stages of the chunk still end in time.
- A run that stops says `incomplete`, how many items are `remaining`, and the last item a follow-up need
  not look at again (`Progress`): the follow-up redoes no finished read or write.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from kafka_lineage.config import Tuning
from kafka_lineage.model import clock
from kafka_lineage.model.state_layout import MAX_VALUE_BYTES
from kafka_lineage.observability import logger
from kafka_lineage.sync import plan
from kafka_lineage.sync.apply import Applied

CHUNK_ITEMS = 24  # items per chunk (whole hash groups, so a bigger group makes a bigger chunk)
# Pacing estimates: calls per item at the configured rates.
GLUE_CALLS_PER_READ = 3  # GetSchema, ListSchemaVersions, GetSchemaVersion
DATAZONE_CALLS_PER_WRITE = 2  # CreateAsset / CreateAssetRevision / DeleteAsset + the listing change
ENTRY_BYTES = 480  # a packed asset record entry, rounded up
SAFETY = 1.25  # estimates are multiplied by this, plus STAGE_SECONDS per stage
STAGE_SECONDS = 0.1

Item = tuple[plan.Position, plan.Work]
T = TypeVar("T")


class Deadline:
    """The invocation's deadline as a monotonic time, the margin already taken off (no deadline: never)."""

    def __init__(self, remaining_seconds: Callable[[], float] | None, margin: float) -> None:
        self._remaining = remaining_seconds
        self._margin = margin

    def at(self) -> float:
        if self._remaining is None:
            return float("inf")
        return clock.monotonic() + self._remaining() - self._margin

    def allows(self, seconds: float) -> bool:
        """Whether `seconds` from now is still before the deadline."""
        return clock.monotonic() + seconds <= self.at()


class Stop:
    """Whether the run stops starting work, in one place: a stage asked (the lease was busy or lost, or SSM
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
        """A stage asked to stop (not a crash): the lease is not this run's any more, or never was."""
        return self._event.is_set() and self.crash is None


@dataclass(frozen=True)
class Progress:
    """Where the run stopped: `incomplete` (items were left for a follow-up), how many, and the last item
    a follow-up need not look at again (None: start from the beginning)."""

    incomplete: bool = False
    remaining: int = 0
    resume_after: plan.Position | None = None


class Each(Protocol):
    """What a stage is handed: run `work` over `items` on the stage's pool, starting none once the stage's
    time is up or the run stops; True when every item was started."""

    def __call__(self, work: Callable[[T], None], items: Sequence[T]) -> bool: ...


@dataclass(frozen=True)
class ReadChunk:
    """A chunk after its reads: the plan for it, and whether every item was looked at."""

    number: int
    items: Sequence[Item]
    chunk_plan: plan.SyncPlan
    complete: bool
    apply_until: float  # no write starts after this (monotonic): the save must still fit

    @property
    def last(self) -> plan.Position:
        return self.items[-1][0]


@dataclass(frozen=True)
class AppliedChunk:
    read: ReadChunk
    done: tuple[Applied, ...]
    complete: bool


@dataclass(frozen=True)
class Stages:
    """What the engine calls, per chunk: `read` looks at its items and plans them; `apply` writes the plan,
    answering what was done and whether it was all started (None: it may write nothing, the lease is not
    this run's); `save` records that (the SSM writes it made, or
    None when it could not: the chunk's items must be looked at again); `saved` then counts and announces
    it. `needs_lease` says whether the first write still has to take the lease (its time is estimated)."""

    read: Callable[[Sequence[Item], Each], tuple[plan.SyncPlan, bool]]
    apply: Callable[[ReadChunk, Each], tuple[tuple[Applied, ...], bool] | None]
    save: Callable[[AppliedChunk], int | None]
    saved: Callable[[AppliedChunk, int], None]
    needs_lease: Callable[[], bool]


class Pace:
    """How long a chunk's stages take: the larger of what the configured rates allow and what the call
    latency allows (calls in a row per item, items spread over the workers); once a stage has run, the speed
    it measured replaces the guess. Estimates are on the safe side (SAFETY, STAGE_SECONDS)."""

    def __init__(self, tuning: Tuning, latency: float, cold: float = 0.0) -> None:
        self.read_unit = GLUE_CALLS_PER_READ / tuning.glue_rps
        self.write_unit = DATAZONE_CALLS_PER_WRITE / tuning.datazone_rps
        self.save_unit = 1 / tuning.ssm_write_rps
        self.workers = tuning.max_concurrency
        self.latency = latency  # one call's round trip, as the run's first calls took
        self.cold = cold  # a client's first call of a kind (writes, the lease, events): until a save ran
        self.measured: dict[str, float] = {}
        self.writes_per_candidate = 1.0  # the share of inspected schemas that needed a DataZone write
        self._lock = threading.Lock()

    def observe(self, stage: str, units: float, seconds: float) -> None:
        if units <= 0:
            return
        with self._lock:
            per_unit = seconds / units
            known = self.measured.get(stage)
            self.measured[stage] = per_unit if known is None else (known + per_unit) / 2

    def observe_writes(self, candidates: int, writes: int) -> None:
        if candidates:
            with self._lock:
                self.writes_per_candidate = (self.writes_per_candidate + writes / candidates) / 2

    def _seconds(self, stage: str, rate_unit: float, in_a_row: int, units: float, parallel: bool) -> float:
        if units <= 0:
            return STAGE_SECONDS
        rounds = math.ceil(units / self.workers) if parallel else units
        guess = max(units * rate_unit, rounds * in_a_row * self.latency)
        known = self.measured.get(stage)
        return SAFETY * (guess if known is None else max(units * rate_unit, units * known)) + STAGE_SECONDS

    def estimate(self, chunk: Sequence[Item]) -> tuple[float, float, float]:
        """(read, apply, save) seconds for `chunk`."""
        candidates = _candidates(chunk)
        writes = (len(chunk) - candidates) + candidates * self.writes_per_candidate
        groups = len({position.group for position, _ in chunk})
        parameters = groups + (len(chunk) * ENTRY_BYTES) // MAX_VALUE_BYTES
        return (
            self._seconds("read", self.read_unit, GLUE_CALLS_PER_READ, candidates, parallel=True),
            self._seconds("apply", self.write_unit, DATAZONE_CALLS_PER_WRITE, writes, parallel=True),
            # the writes of a save go one after the other, then the chunk's events
            self._seconds("save", self.save_unit, 1, parameters, parallel=False)
            + self.latency
            + (SAFETY * self.cold if "save" not in self.measured else 0.0),
        )

    def lease_seconds(self) -> float:
        """Taking the lease and reading the asset records again: a few calls in a row."""
        return SAFETY * 4 * self.latency + STAGE_SECONDS

    def finish_seconds(self) -> float:
        """After the last save the handler still releases the lease and may invoke the follow-up."""
        return 2 * self.latency + STAGE_SECONDS


def _candidates(chunk: Sequence[Item]) -> int:
    return sum(1 for _, item in chunk if isinstance(item, plan.Candidate))


def _writes(actions: Sequence[plan.Action]) -> int:
    """The DataZone writes among `actions` (a touch refreshes the asset record alone)."""
    return sum(1 for action in actions if not isinstance(action, plan.Touch))


def _taken(inbox: queue.Queue[T | None]) -> Iterator[T]:
    """What a stage's thread is handed, one at a time, until the end (None)."""
    while True:
        item = inbox.get()
        inbox.task_done()
        if item is None:
            return
        yield item


class _Stage:
    """One stage's `Each` for one chunk: its pool, and the time after which it starts no item."""

    def __init__(self, pool: ThreadPoolExecutor, workers: int, stop: Stop, until: float) -> None:
        self.pool = pool
        self.workers = workers
        self.stop = stop
        self.until = until

    def __call__(self, work: Callable[[T], None], items: Sequence[T]) -> bool:
        complete = True
        lock = threading.Lock()

        def one(item: T) -> None:
            nonlocal complete
            if self.stop.is_set() or clock.monotonic() > self.until:
                with lock:
                    complete = False
                return
            work(item)

        if len(items) <= 1 or self.workers == 1:
            for item in items:
                one(item)
        else:
            list(self.pool.map(one, items))
        return complete


class Pipeline:
    """Read chunk k+1 while chunk k is applied and chunk k-1 saved; stop in time (see the module doc)."""

    def __init__(self, stages: Stages, pace: Pace, deadline: Deadline, stop: Stop, dry_run: bool) -> None:
        self.stages = stages
        self.pace = pace
        self.deadline = deadline
        self.stop = stop
        self.workers = workers = pace.workers
        self.dry_run = dry_run
        self.apply_free_at = 0.0  # estimated monotonic time the applier is done with what it was given
        self.save_free_at = 0.0
        # Where a follow-up resumes: past every chunk saved in order, until one left items undone.
        self._lock = threading.Lock()
        self._resume_frozen = False
        self._resume_after: plan.Position | None = None
        self._incomplete = False
        self._remaining = 0
        self.read_pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sync-read")
        self.write_pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sync-write")

    # -- the loop: this thread reads; one thread applies, one saves
    def run(self, work: Sequence[Item]) -> Progress:
        to_apply: queue.Queue[ReadChunk | None] = queue.Queue(maxsize=1)
        to_save: queue.Queue[AppliedChunk | None] = queue.Queue(maxsize=1)
        applier = threading.Thread(
            target=self._guard, args=(self._apply_loop, to_apply, to_save), daemon=True
        )
        saver = threading.Thread(target=self._guard, args=(self._save_loop, to_save, None), daemon=True)
        applier.start()
        saver.start()
        position = 0
        number = 0
        try:
            while position < len(work) and not self.stop.is_set():
                end = plan.cut(work, position, CHUNK_ITEMS, self._fits)
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
                # Read-ahead is one chunk: the next read starts once the applier has taken this one.
                to_apply.join()
        finally:
            to_apply.put(None)
            applier.join()
            saver.join()
            self.read_pool.shutdown()
            self.write_pool.shutdown()
        if self.stop.crash is not None:
            raise self.stop.crash
        left = len(work) - position
        return Progress(self._incomplete or left > 0, self._remaining + left, self._resume_after)

    def _guard(
        self, loop: Callable[..., None], inbox: queue.Queue[Any], outbox: queue.Queue[Any] | None
    ) -> None:
        try:
            loop(inbox, outbox)
        except BaseException as error:  # a bug: drain so nobody blocks, and re-raise in the run's thread
            self.stop.crashed(error)
            for _ in _taken(inbox):
                pass
            if outbox is not None:
                outbox.put(None)

    # -- the deadline: when a chunk would be done, and when each of its stages must stop starting items
    def _finish_times(self, chunk: Sequence[Item]) -> tuple[float, float]:
        """When `chunk`, read from now on, would be applied and saved (monotonic), by the pacing estimates."""
        read, apply, save = self.pace.estimate(chunk)
        if self.dry_run:
            apply = save = 0.0
        elif self.stages.needs_lease():
            apply += self.pace.lease_seconds()
        applied = max(clock.monotonic() + read, self.apply_free_at) + apply
        return applied, max(applied, self.save_free_at) + save

    def _last_save_by(self) -> float:
        """When the last save must have ended (monotonic)."""
        return self.deadline.at() - (0.0 if self.dry_run else self.pace.finish_seconds())

    def _fits(self, chunk: Sequence[Item]) -> bool:
        return self._finish_times(chunk)[1] <= self._last_save_by()

    def _stage_limits(self, chunk: Sequence[Item]) -> tuple[float, float]:
        """(read until, apply until): a stage that runs late skips the rest of its items, so the later
        stages of the chunk still end in time (the skipped items are the follow-up's)."""
        _, apply, save = self.pace.estimate(chunk)
        until = self._last_save_by()
        return until - apply - save, until - save

    # -- stage 1: reads (this thread, with the read pool)
    def _read(self, number: int, chunk: Sequence[Item]) -> ReadChunk:
        self.apply_free_at, self.save_free_at = self._finish_times(chunk)
        read_until, apply_until = self._stage_limits(chunk)
        started = clock.monotonic()
        chunk_plan, complete = self.stages.read(
            chunk, _Stage(self.read_pool, self.workers, self.stop, read_until)
        )
        candidates = _candidates(chunk)
        self.pace.observe("read", candidates, clock.monotonic() - started)
        inspected = [a for a in chunk_plan.actions if isinstance(a, plan.Create | plan.Revise | plan.Touch)]
        self.pace.observe_writes(candidates, _writes(inspected))
        return ReadChunk(number, chunk, chunk_plan, complete, apply_until)

    # -- stage 2: the writes (the apply thread, with the write pool)
    def _apply_loop(
        self, inbox: queue.Queue[ReadChunk | None], outbox: queue.Queue[AppliedChunk | None]
    ) -> None:
        for read in _taken(inbox):
            started = clock.monotonic()
            applied = self.stages.apply(
                read, _Stage(self.write_pool, self.workers, self.stop, read.apply_until)
            )
            if applied is None:
                outbox.put(AppliedChunk(read, (), False))
                continue
            done, complete = applied
            if not self.dry_run:
                self.pace.observe("apply", _writes(read.chunk_plan.writes()), clock.monotonic() - started)
            outbox.put(AppliedChunk(read, done, read.complete and complete))
        outbox.put(None)

    # -- stage 3: the save (the save thread), then what the chunk announces
    def _save_loop(self, inbox: queue.Queue[AppliedChunk | None], _: None) -> None:
        for applied in _taken(inbox):
            started = clock.monotonic()
            writes = self.stages.save(applied)
            if writes is None:
                with self._lock:
                    self._resume_frozen = True  # unrecorded: the follow-up must look at these again
                continue
            self._advance(applied)
            self.pace.observe("save", writes, clock.monotonic() - started)
            self.stages.saved(applied, writes)

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
