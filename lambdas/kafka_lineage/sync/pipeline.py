"""schema-sync's engine: chunks, pacing estimates, the read/apply/save threads, the deadline, and where a
run stops and resumes. It is handed what to call for each stage (`Stages`); it knows nothing of the
catalog, the registry or the asset records.

- The work (candidates and deletions, in the order of the asset records' hash groups) is cut into chunks on
  group boundaries (`plan.cut`), so each SSM parameter of the asset records is saved once per run.
- Three stages: the reads of chunk k+1 run (in the caller's thread, on the read pool) while the writes of
  chunk k (the apply thread, on the write pool) and the save of chunk k-1 (the save thread) do. Each service
  has its own rate limiter, so the stages pace independently and the run goes at the pace of its slowest
  service. Read-ahead is one chunk; every chunk that is read is applied and saved.
- A chunk is started only when the pacing estimates (`Pace`: the rates the calls' limiters go at, then the
  speeds measured so far) say its read, its writes and its save all end before the deadline (`Deadline`:
  the invocation's time less `deadline_margin_seconds`), with time left to release the lease and hand on.
  The estimates are on the safe side, so the applier's and the saver's expected ends (`Timeline`) are
  brought back to the clock as chunks really end: they never add up over a run. The first chunk is one
  round of the workers (slow start: what the account leaves is measured before a chunk is sized by it). A
  stage that runs late skips the rest of its items, so that the later stages of the chunk still end in time.
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

from kafka_lineage.model import clock
from kafka_lineage.model.quotas import CallRates
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
    """How long a chunk's stages take. Before a stage has run: the larger of a cautious guess from its
    operations' limiters (`CallRates`) and what the call latency allows (calls in a row per item, items
    spread over the workers). Once it has run: the speed it measured, which follows the pace the limiters
    adapted to, never less than their ceilings allow. Estimates are on the safe side (SAFETY,
    STAGE_SECONDS)."""

    def __init__(self, rates: CallRates, workers: int, latency: float, cold: float = 0.0) -> None:
        self.rates = rates
        self.workers = workers
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

    def _seconds(self, stage: str, in_a_row: int, units: float, parallel: bool) -> float:
        if units <= 0:
            return STAGE_SECONDS
        cautious, fastest = self.rates.seconds_per(_RATE_OF[stage])
        known = self.measured.get(stage)
        if known is None:
            rounds = math.ceil(units / self.workers) if parallel else units
            guess = max(units * cautious, rounds * in_a_row * self.latency)
        else:
            guess = units * max(fastest, known)
        return SAFETY * guess + STAGE_SECONDS

    def estimate(self, chunk: Sequence[Item]) -> tuple[float, float, float]:
        """(read, apply, save) seconds for `chunk`."""
        candidates = _candidates(chunk)
        writes = (len(chunk) - candidates) + candidates * self.writes_per_candidate
        groups = len({position.group for position, _ in chunk})
        parameters = groups + (len(chunk) * ENTRY_BYTES) // MAX_VALUE_BYTES
        return (
            self._seconds("read", GLUE_CALLS_PER_READ, candidates, parallel=True),
            self._seconds("apply", DATAZONE_CALLS_PER_WRITE, writes, parallel=True),
            # the writes of a save go one after the other, then the chunk's events
            self._seconds("save", 1, parameters, parallel=False)
            + self.latency
            + (SAFETY * self.cold if "save" not in self.measured else 0.0),
        )

    def lease_seconds(self) -> float:
        """Taking the lease and reading the asset records again: a few calls in a row."""
        return SAFETY * 4 * self.latency + STAGE_SECONDS

    def finish_seconds(self) -> float:
        """After the last save the handler still releases the lease and may invoke the follow-up."""
        return 2 * self.latency + STAGE_SECONDS


# The pipeline's stages by the name CallRates knows their calls by.
_RATE_OF = {"read": "read", "apply": "write", "save": "save"}


@dataclass
class _Planned:
    """A chunk's place on the timeline: its estimates, when its read ended (estimated, then as it did), and
    when its apply and save really started and ended (None: not yet)."""

    read_ended: float
    apply: float
    save: float
    apply_started: float | None = None
    apply_ended: float | None = None
    save_started: float | None = None
    save_ended: float | None = None


class Timeline:
    """When the applier and the saver will be free (monotonic): the estimated ends of the chunks they were
    given, brought back to the clock as those chunks really start and end. So estimates on the safe side
    never add up over a run: a run of 240 s whose chunks each take half their estimate still works for
    240 s, not 120."""

    def __init__(self) -> None:
        self._chunks: dict[int, _Planned] = {}
        self._lock = threading.Lock()

    def plan(self, number: int, read_end: float, apply: float, save: float) -> None:
        with self._lock:
            self._chunks[number] = _Planned(read_end, apply, save)
            for old in [n for n in self._chunks if n < number - 2]:
                del self._chunks[old]  # ended long ago: every later estimate starts from a newer one

    def mark(self, number: int, stage: str, moment: str) -> None:
        """`stage` ("read", "apply", "save") of chunk `number` started or ended (`moment`) now."""
        with self._lock:
            planned = self._chunks.get(number)
            if planned is not None:
                setattr(planned, f"{stage}_{moment}", clock.monotonic())

    def free_at(self) -> tuple[float, float]:
        """(apply, save): when the applier and the saver are done with every chunk given to them."""
        with self._lock:
            now = clock.monotonic()
            applied = saved = 0.0
            for number in sorted(self._chunks):
                planned = self._chunks[number]
                applied = _end(
                    planned.apply_started,
                    planned.apply_ended,
                    planned.apply,
                    max(planned.read_ended, applied),
                    now,
                )
                saved = _end(planned.save_started, planned.save_ended, planned.save, max(applied, saved), now)
            return applied, saved


def _end(started: float | None, ended: float | None, estimate: float, ready: float, now: float) -> float:
    """A stage's end for a chunk: as it happened, else its start plus its estimate (not before now: it has
    not ended), else when it can start plus its estimate."""
    if ended is not None:
        return ended
    if started is not None:
        return max(started + estimate, now)
    return ready + estimate


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
        self.timeline = Timeline()  # when the applier and the saver are free
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
                # Slow start: the first chunk is one round of the workers, so the estimates of the next ones
                # rest on the speed it measured (what the account's quotas leave may be far below the
                # limiters' rates: a neighbour's share is known only once calls are throttled).
                end = plan.cut(work, position, CHUNK_ITEMS if number else self.workers, self._fits)
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
    def _estimates(self, chunk: Sequence[Item]) -> tuple[float, float, float]:
        """(read, apply, save) seconds of `chunk`, the lease's taking included."""
        read, apply, save = self.pace.estimate(chunk)
        if self.dry_run:
            return read, 0.0, 0.0
        if self.stages.needs_lease():
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
        read, apply, save = self._estimates(chunk)
        read_until, apply_until = self._stage_limits(chunk)
        started = clock.monotonic()
        self.timeline.plan(number, started + read, apply, save)
        chunk_plan, complete = self.stages.read(
            chunk, _Stage(self.read_pool, self.workers, self.stop, read_until)
        )
        self.timeline.mark(number, "read", "ended")
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
            self.timeline.mark(read.number, "apply", "started")
            applied = self.stages.apply(
                read, _Stage(self.write_pool, self.workers, self.stop, read.apply_until)
            )
            self.timeline.mark(read.number, "apply", "ended")
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
            self.timeline.mark(applied.read.number, "save", "started")
            writes = self.stages.save(applied)
            self.timeline.mark(applied.read.number, "save", "ended")
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
