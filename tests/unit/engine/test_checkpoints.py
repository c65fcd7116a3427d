"""The checkpoint saver on its own: each group saved once all of its items are done, a lost lease stops
every write, a save that fails twice stops them too, and the backlog it reports to the deadline; and as the
schema sync's pipeline uses it: groups (chunks) added as they come, saved one a save, each save told to the
run's listener on the saver's thread, a failed save failing that group alone."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import pytest

from kafka_lineage.engine.checkpoints import GROUP_BY_GROUP, Changes, Checkpoints
from kafka_lineage.model import clock
from kafka_lineage.model.failures import LeaseLost
from tests.fixtures import VirtualClock


def TEN_A_SECOND() -> tuple[float, float]:
    return 0.1, 0.1


class Store:
    def __init__(self, fail: int = 0, lost_after: int | None = None, seconds_per_write: float = 0.0) -> None:
        self.saves: list[Changes] = []
        self.reloads = 0
        self.fail, self.lost_after = fail, lost_after
        self.seconds_per_write = seconds_per_write

    def save(self, changes: Changes) -> int:
        if self.lost_after is not None and len(self.saves) >= self.lost_after:
            raise LeaseLost("taken over")
        if self.fail:
            self.fail -= 1
            raise RuntimeError("ThrottlingException")
        self.saves.append(dict(changes))
        clock.sleep(self.seconds_per_write * len(changes))
        return len(changes)

    def reload(self) -> Any:
        self.reloads += 1


def entry(key: str) -> Changes:
    return {key: {"runId": key}}


def test_a_group_is_saved_once_when_its_last_item_is_done_and_the_report_counts_the_writes():
    # Given two groups, one with two items
    store = Store()
    groups = {"a1": "g1", "a2": "g1", "b1": "g2"}
    # When the items are done, one of them changing nothing
    with Checkpoints(groups, save=store.save, reload=store.reload, write_seconds=TEN_A_SECOND) as checkpoints:
        checkpoints.done("a1", entry("a1"), worked=True)
        checkpoints.done("b1", {}, worked=False)
        checkpoints.done("a2", entry("a2"), worked=True)
    # Then group g1 went out in one save with both entries, g2 (nothing to write) in none
    assert store.saves == [entry("a1") | entry("a2")]
    report = checkpoints.report
    assert (report.writes, report.progressed, report.lease_lost, report.error) == (2, True, False, None)


def test_a_lost_lease_halts_every_further_save():
    store = Store(lost_after=0)
    with Checkpoints(
        {"a": "g1", "b": "g2"}, save=store.save, reload=store.reload, write_seconds=TEN_A_SECOND
    ) as cp:
        cp.done("a", entry("a"), worked=True)
        cp.done("b", entry("b"), worked=True)
    assert store.saves == []
    assert (cp.halted, cp.report.lease_lost) == (True, True)
    assert not cp.report.progressed


def test_a_failed_save_is_retried_once_after_a_reload_and_a_second_failure_halts():
    # Given a store whose first save fails: the retry (after a reload) goes through
    store = Store(fail=1)
    with Checkpoints({"a": "g1"}, save=store.save, reload=store.reload, write_seconds=TEN_A_SECOND) as cp:
        cp.done("a", entry("a"), worked=True)
    assert (store.saves, store.reloads, cp.halted) == ([entry("a")], 1, False)
    # Given one whose saves fail twice: the saver stops and says why
    store = Store(fail=2)
    with Checkpoints({"a": "g1"}, save=store.save, reload=store.reload, write_seconds=TEN_A_SECOND) as cp:
        cp.done("a", entry("a"), worked=True)
    assert (cp.halted, cp.report.error) == (True, "RuntimeError: ThrottlingException")
    assert store.saves == []


def test_the_backlog_counts_the_groups_under_way_at_the_write_pace():
    store = Store()
    cp = Checkpoints(
        {"a1": "g1", "a2": "g1", "b1": "g2"},
        save=store.save,
        reload=store.reload,
        write_seconds=lambda: (0.5, 0.5),
    )
    # Nothing done yet: stopping now leaves nothing to save
    assert cp.backlog_seconds() == 0.0
    # One item of g1 done (the saver not started): g1 is under way, half a second at 2 writes/s
    cp.done("a1", entry("a1"), worked=True)
    assert cp.backlog_seconds() == 0.5
    # Its last item done: g1 is ready, still one group to write
    cp.done("a2", entry("a2"), worked=True)
    assert cp.backlog_seconds() == 0.5
    with cp:
        pass
    assert store.saves == [entry("a1") | entry("a2")]


def test_once_saves_were_measured_the_backlog_follows_their_pace_never_faster_than_the_ceiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given writes guessed at 0.2 s (cautious) and 0.1 s at the ceiling, that really take 0.4 s each
    VirtualClock.install(monkeypatch)
    store = Store(seconds_per_write=0.4)
    groups = {"a": "g1", "b": "g2", "c": "g3"}
    cp = Checkpoints(groups, save=store.save, reload=store.reload, write_seconds=lambda: (0.2, 0.1))
    cp.done("c", entry("c"), worked=True)
    # Before any save: the cautious guess
    assert cp.backlog_seconds() == pytest.approx(0.2)
    # When groups were saved (g1 and g3, 0.4 s a write), then what is left (g2) is at the measured pace
    with cp:
        cp.done("a", entry("a"), worked=True)
    cp.done("b", entry("b"), worked=True)
    assert len(store.saves) >= 1
    assert cp.backlog_seconds() == pytest.approx(0.4)

    # Given saves measured faster than the ceiling allows (a measurement's noise), then the ceiling holds
    quick = Checkpoints(groups, save=Store().save, reload=store.reload, write_seconds=lambda: (0.2, 0.1))
    with quick:
        quick.done("a", entry("a"), worked=True)
    quick.done("b", entry("b"), worked=True)
    assert quick.backlog_seconds() == pytest.approx(0.1)


class Listener:
    """What the saver told the run, and on which thread."""

    def __init__(self) -> None:
        self.heard: list[tuple[str, list[object], int | None, str | None]] = []
        self.threads: set[str] = set()

    def saving(self, tokens: Sequence[object]) -> None:
        self.threads.add(threading.current_thread().name)
        self.heard.append(("saving", list(tokens), None, None))

    def saved(self, tokens: Sequence[object], writes: int | None, error: Exception | None) -> None:
        self.threads.add(threading.current_thread().name)
        self.heard.append(("saved", list(tokens), writes, None if error is None else type(error).__name__))


def chunk_saver(store: Store, listener: Listener) -> Checkpoints:
    """A saver as the schema sync's pipeline makes it: no group known at first, one group a save."""
    return Checkpoints(
        {},
        save=store.save,
        reload=store.reload,
        write_seconds=TEN_A_SECOND,
        listener=listener,
        policy=GROUP_BY_GROUP,
    )


def test_groups_added_as_they_come_are_saved_one_a_save_in_order_and_the_listener_hears_each_on_the_saver():
    # Given a saver that knows no group yet, saving group by group (the schema sync's chunks)
    store, listener = Store(), Listener()
    cp = chunk_saver(store, listener)
    # When three chunks are added before the saver runs, the middle one with nothing to write
    cp.add("chunk 0", entry("a"), worked=True, token="c0")
    cp.add("chunk 1", {}, worked=False, token="c1")
    cp.add("chunk 2", entry("b") | entry("c"), worked=True, token="c2")
    with cp:
        pass
    # Then each chunk went out in a save of its own, in order (the empty one with no SSM call at all), and
    # the listener heard of each before and after its save, on the saver's thread alone
    assert store.saves == [entry("a"), entry("b") | entry("c")]
    assert listener.heard == [
        ("saving", ["c0"], None, None),
        ("saved", ["c0"], 1, None),
        ("saving", ["c1"], None, None),
        ("saved", ["c1"], 0, None),
        ("saving", ["c2"], None, None),
        ("saved", ["c2"], 2, None),
    ]
    assert listener.threads == {"state-saver"}
    assert (cp.report.writes, cp.report.progressed) == (3, True)


def test_group_by_group_a_failed_save_fails_that_group_alone_after_one_reload_and_the_saver_goes_on():
    # Given a store whose first save fails once
    store, listener = Store(fail=1), Listener()
    with chunk_saver(store, listener) as cp:
        cp.add("chunk 0", entry("a"), worked=True, token="c0")
        cp.add("chunk 1", entry("b"), worked=True, token="c1")
    # Then that chunk is not saved (not tried again: its items fail, the next run adopts them), the store
    # was reloaded once, and the next chunk is saved: the saver did not halt
    saved = [(tokens, writes, error) for kind, tokens, writes, error in listener.heard if kind == "saved"]
    assert saved == [(["c0"], None, "RuntimeError"), (["c1"], 1, None)]
    assert (store.saves, store.reloads, cp.halted, cp.report.error) == ([entry("b")], 1, False, None)


def test_a_lost_lease_leaves_every_later_group_with_changes_unsaved_and_says_so_to_the_listener():
    # Given a lease lost at the first save
    store, listener = Store(lost_after=0), Listener()
    with chunk_saver(store, listener) as cp:
        cp.add("chunk 0", entry("a"), worked=True, token="c0")
        cp.add("chunk 1", entry("b"), worked=True, token="c1")
        cp.add("chunk 2", {}, worked=False, token="c2")
    # Then nothing is written; the chunks with changes are heard of as unsaved (a LeaseLost), the one with
    # nothing to write as saved with none
    saved = [(tokens, writes, error) for kind, tokens, writes, error in listener.heard if kind == "saved"]
    assert saved == [(["c0"], None, "LeaseLost"), (["c1"], None, "LeaseLost"), (["c2"], 0, None)]
    assert (store.saves, cp.halted, cp.report.lease_lost, cp.report.progressed) == ([], True, True, False)


def test_a_group_added_twice_is_refused():
    cp = Checkpoints({"a": "g1"}, save=Store().save, reload=lambda: None, write_seconds=TEN_A_SECOND)
    with pytest.raises(ValueError, match="already known"):
        cp.add("g1", entry("a"), worked=True)
