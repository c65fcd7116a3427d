"""The engine's chunked pipeline on its own: handed a run (the `ChunkedRun` steps), it cuts chunks, runs the
three stages, hands each item's value (or failure) back and says where a follow-up resumes; and the sync
applier's tokens."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

import pytest

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.order import Position
from kafka_lineage.engine.pace import Pace
from kafka_lineage.engine.pipeline import CHUNK_GROWTH, CHUNK_ITEMS, AppliedChunk, Item, Pipeline, Planned
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetContent
from kafka_lineage.model.failures import LeaseLost
from kafka_lineage.sync import plan
from kafka_lineage.sync.apply import Applied, Tokens
from kafka_lineage.sync.desired import Desired
from tests.fixtures import VirtualClock


def deletion(group: int, index: int) -> Item:
    arn = f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/t{group}-{index}"
    return Position(f"g{group:03d}", arn), plan.Delete("cdc", f"t{group}-{index}", arn, "gone", f"a{index}")


def work(groups: int, per_group: int = 6) -> list[Item]:
    return [deletion(group, index) for group in range(groups) for index in range(per_group)]


class Recorder:
    """A run that plans each chunk's deletions as they are, applies them all and saves them; `fail_save`
    names chunk numbers whose save fails, `crash_in` a step that raises (a bug, not an item's failure)."""

    def __init__(self, fail_save: frozenset[int] = frozenset(), crash_in: str = "") -> None:
        self.fail_save = fail_save
        self.crash_in = crash_in
        self.saved: list[int] = []
        self.reported: list[int] = []
        self.reloads = 0
        self.sizes: list[int] = []  # items per chunk, in the order read
        self.threads: set[str] = set()
        self.lock = threading.Lock()

    def reads(self, item: object) -> bool:
        return False

    def inspect(self, item: object) -> object:
        raise AssertionError("deletions are not read")

    def plan_chunk(self, chunk: Sequence[Item], inspected: Sequence[tuple[object, object]]) -> Planned:
        actions = tuple(item for _, item in chunk if isinstance(item, plan.Delete))
        self.sizes.append(len(chunk))
        return Planned(plan.SyncPlan(actions=actions), actions, writes=len(actions), read_writes=0)

    def needs_lease(self) -> bool:
        return False

    def take_lease(self, planned: Planned) -> object:
        return None

    def apply(self, action: plan.Action) -> Applied:
        with self.lock:
            self.threads.add(threading.current_thread().name)
        return Applied(action, None, "deleted")

    def changes(self, applied: AppliedChunk) -> dict[str, object]:
        return {f"chunk {applied.read.number}": applied.read.number}

    def save(self, changes: dict[str, object], lost: bool) -> int:
        numbers = [number for number in changes.values() if isinstance(number, int)]
        if any(number in self.fail_save for number in numbers):
            raise RuntimeError("ThrottlingException")
        self.saved.extend(numbers)
        return 1

    def reload(self) -> None:
        self.reloads += 1

    def report(self, applied: AppliedChunk, writes: int | None, error: Exception | None) -> None:
        if self.crash_in == "report":
            raise RuntimeError("a bug in the report step")
        self.reported.append(applied.read.number)


class FixedRates:
    """CallRates at fixed paces: `now`, the cautious guess of an item's seconds, `fastest` at the ceilings."""

    def __init__(self, now: float = 0.05, fastest: float = 0.05) -> None:
        self.now, self.fastest = now, fastest

    def seconds_per(self, stage: str) -> tuple[float, float]:
        return self.now, self.fastest


def pipeline(
    run: Recorder,
    remaining: float | Callable[[], float] | None = None,
    workers: int = 4,
) -> Pipeline:
    left = remaining if callable(remaining) or remaining is None else (lambda: remaining)
    deadline = Deadline(left, margin=0.0)
    pace = Pace(FixedRates(), workers, latency=0.001)
    return Pipeline(run, pace, deadline)


def test_given_whole_groups_when_run_then_every_chunk_is_saved_in_order_and_resumes_after_the_last() -> None:
    # Given 20 hash groups of 6 deletions (the first chunk, one round of the 4 workers, is one whole group)
    items = work(20)
    recorder = Recorder()

    # When the engine runs them with no deadline
    progress = pipeline(recorder).run(items)

    # Then each chunk was saved once, in order, the writes ran on the write pool, and nothing is left
    assert recorder.saved == recorder.reported == list(range(len(recorder.sizes)))
    assert recorder.threads
    assert all(name.startswith("run-write") for name in recorder.threads)
    assert progress.incomplete is False
    assert progress.remaining == 0
    assert progress.resume_after == items[-1][0]
    # And the chunks grew gently from one group to CHUNK_ITEMS (4 groups), never by more than CHUNK_GROWTH
    # over the limit before (whole groups: a chunk may stay at one group while the limit grows past it)
    assert recorder.sizes == [6, 6, 6, 6, 6, 12, 12, 18, 24, 24]
    assert (CHUNK_ITEMS, CHUNK_GROWTH) == (24, 1.25)


def test_given_a_save_that_fails_when_run_then_the_resume_point_stays_before_that_chunk() -> None:
    # Given a run whose second chunk cannot be saved
    items = work(10)
    recorder = Recorder(fail_save=frozenset({1}))

    # When it runs
    progress = pipeline(recorder).run(items)

    # Then the later chunks are still saved (the store reloaded once after the failure, the save not tried
    # again), but a follow-up resumes after the first chunk (one group) only
    assert recorder.saved == [0, *range(2, len(recorder.sizes))]
    assert recorder.reloads == 1
    assert recorder.reported == list(range(len(recorder.sizes)))  # the unsaved chunk is reported too
    assert progress.resume_after == items[5][0]


def test_given_no_time_left_when_run_then_nothing_starts_and_everything_is_left() -> None:
    # Given an invocation whose deadline has come
    items = work(3)
    recorder = Recorder()

    # When the engine is asked to run
    progress = pipeline(recorder, remaining=0.0).run(items)

    # Then it starts no chunk, and says all of it is left for a follow-up
    assert recorder.saved == []
    assert progress.incomplete is True
    assert progress.remaining == len(items)
    assert progress.resume_after is None


def test_given_a_stage_that_crashes_when_run_then_the_run_raises_it_and_no_thread_hangs() -> None:
    # Given a report step with a bug (a save that raises is a failed save: its chunk's items fail)
    recorder = Recorder(crash_in="report")

    # When the engine runs, then the bug is raised in the run's thread (the other stages drained), and the
    # reads stopped: fewer chunks were read than a run without the bug reads
    with pytest.raises(RuntimeError, match="a bug in the report step"):
        pipeline(recorder).run(work(10))
    assert recorder.reported == []
    whole = Recorder()
    pipeline(whole).run(work(10))
    assert len(recorder.sizes) < len(whole.sizes)


def test_given_an_action_that_raises_when_run_then_that_item_alone_fails_and_the_others_are_done() -> None:
    # Given a run whose apply raises for one action
    class OneFails(Recorder):
        def apply(self, action: plan.Action) -> Applied:
            if action.topic == "t0-3":
                raise RuntimeError("AccessDenied")
            return super().apply(action)

    failed: list[str] = []

    class Reporting(OneFails):
        def report(self, applied: AppliedChunk, writes: int | None, error: Exception | None) -> None:
            failed.extend(f"{f.item.topic}: {f.error}" for f in applied.failed)

    # When it runs, then that item is handed back as failed (a value), the others are applied
    progress = pipeline(Reporting()).run(work(2))
    assert failed == ["t0-3: AccessDenied"]
    assert progress.incomplete is False


def test_given_a_stop_requested_when_run_then_no_chunk_is_read() -> None:
    # Given a run that was asked to stop (the lease was busy)
    recorder = Recorder()
    engine = pipeline(recorder)
    engine.stop.request()

    # When the engine runs
    progress = engine.run(work(2))

    # Then nothing is read, and the work is left for a follow-up
    assert recorder.saved == []
    assert engine.stop.requested() is True
    assert progress.remaining == 12


class SlowWrites(Recorder):
    """Stages whose every write takes `seconds` on the clock (the reads and saves take none)."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.saved_at: list[float] = []

    def apply(self, action: plan.Action) -> Applied:
        from kafka_lineage.model import clock

        clock.sleep(self.seconds)
        return Applied(action, None, "deleted")

    def save(self, changes: dict[str, object], lost: bool) -> int:
        from kafka_lineage.model import clock

        self.saved_at.append(clock.monotonic())
        return super().save(changes, lost)


def test_given_estimates_on_the_safe_side_when_run_then_they_do_not_add_up_and_the_run_works_to_its_deadline(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given 1,200 deletions whose writes take 0.05 s each, one at a time (a chunk's writes 1.2 s), each
    # chunk's estimate a third longer (SAFETY and the stage allowance), and 60 s left on a clock that only
    # the writes move
    clock = VirtualClock.install(monkeypatch)
    deadline = clock.monotonic() + 60
    recorder = SlowWrites(0.05)

    # When the engine runs them
    progress = pipeline(recorder, remaining=lambda: deadline - clock.monotonic(), workers=1).run(work(200))

    # Then it stopped in time, and only when the next chunk could not have ended in time: it did not stop
    # at three quarters of its time, as estimates added up chunk after chunk would have
    assert progress.incomplete is True
    assert max(recorder.saved_at) <= deadline
    assert len(recorder.saved) >= 47, len(recorder.saved)  # of the 50 chunks 60 s allows


def test_pace_guesses_from_the_rates_now_then_follows_what_it_measured_never_past_the_ceilings() -> None:
    # Given a pace whose limiters go at 0.1 s an item now and could go at 0.05 s
    pace = Pace(FixedRates(now=0.1, fastest=0.05), workers=8, latency=0.0)
    chunk = work(4)  # 24 deletions: 24 writes
    extra = 0.1  # the stage allowance

    # When nothing was measured yet, then the apply estimate is at the rate now
    assert pace.estimate(chunk, 0)[1] == pytest.approx(1.25 * 24 * 0.1 + extra)
    # When the writes were measured at 0.07 s each, then the estimate follows them
    pace.observe("apply", 24, 24 * 0.07)
    assert pace.estimate(chunk, 0)[1] == pytest.approx(1.25 * 24 * 0.07 + extra)
    # When they were measured faster than the ceilings allow (a measurement's noise), then the ceilings hold
    fast = Pace(FixedRates(now=0.1, fastest=0.05), workers=8, latency=0.0)
    fast.observe("apply", 24, 24 * 0.01)
    assert fast.estimate(chunk, 0)[1] == pytest.approx(1.25 * 24 * 0.05 + extra)


def _create(content_hash: str) -> plan.Create:
    arn = "arn:aws:glue:eu-west-1:123456789012:schema/cdc/orders"
    record = AssetRecord(
        registry_name="cdc",
        schema_name="orders",
        schema_arn=arn,
        asset_id="",
        latest_version=1,
        data_format="AVRO",
        namespace="kafka://b-1:9098",
        updated_time="t1",
        created_time="t0",
        content_hash=content_hash,
    )
    desired = Desired(
        content=AssetContent("orders", "", ()),
        content_hash=content_hash,
        latest_version=1,
        schema_version_id="v1",
        source_fingerprint="f",
        warning=None,
    )
    return plan.Create("cdc", "orders", arn, "new", new_record=record, desired=desired)


def test_given_the_same_write_retried_then_the_same_token_and_any_other_write_another() -> None:
    # Given the tokens of one domain, and of another
    tokens, other_domain = Tokens("dzd_1"), Tokens("dzd_2")

    # Then a create retried is the same request, one with other content or replacing an asset is not
    assert tokens.create(_create("h1")) == tokens.create(_create("h1"))
    assert tokens.create(_create("h1")) != tokens.create(_create("h2"))
    assert tokens.create(_create("h1")) != tokens.create(_create("h1"), replacing="a1")
    assert tokens.create(_create("h1")) != other_domain.create(_create("h1"))
    # And a revision depends on the revision it starts from; each kind of write has tokens of its own
    assert tokens.revise("a1", "r1", "h1") != tokens.revise("a1", "r2", "h1")
    assert len({tokens.revise("a1", "r1", "h1"), tokens.unpublish("a1"), tokens.create(_create("h1"))}) == 3


class LosesTheLease(Recorder):
    """A run whose lease is taken over at the save of chunk `at`: it and every later save say LeaseLost."""

    def __init__(self, at: int) -> None:
        super().__init__()
        self.at = at
        self.lost_flags: list[bool] = []
        self.outcomes: list[tuple[int, int | None, str | None]] = []
        self.report_threads: set[str] = set()

    def save(self, changes: dict[str, object], lost: bool) -> int:
        self.lost_flags.append(lost)
        if any(number == self.at for number in changes.values()):
            raise LeaseLost("taken over by another invocation")
        return super().save(changes, lost)

    def report(self, applied: AppliedChunk, writes: int | None, error: Exception | None) -> None:
        self.report_threads.add(threading.current_thread().name)
        self.outcomes.append((applied.read.number, writes, None if error is None else type(error).__name__))
        super().report(applied, writes, error)


def test_given_the_lease_lost_at_a_save_when_run_then_no_later_chunk_is_written_and_the_run_stops() -> None:
    # Given a run of 20 groups whose lease is taken over when its second chunk is saved
    recorder = LosesTheLease(at=1)
    engine = pipeline(recorder)

    # When it runs
    progress = engine.run(work(20))

    # Then the first chunk was saved, the second and every later one handed to the saver was not (the
    # saver stopped writing: it never asked the run to save again), each reported as unsaved with why
    assert recorder.saved == [0]
    assert recorder.lost_flags == [False, False]
    assert recorder.outcomes[:2] == [(0, 1, None), (1, None, "LeaseLost")]
    assert all(writes is None and error == "LeaseLost" for _, writes, error in recorder.outcomes[1:])
    # And the run stopped starting chunks: far fewer were read than the 10 a whole run reads, the reports
    # were all made on the saver's thread, and a follow-up resumes after the first chunk
    assert engine.stop.requested() is True
    assert len(recorder.sizes) < 10
    assert recorder.report_threads == {"state-saver"}
    assert progress.resume_after == work(20)[5][0]
