"""The checkpoint saver on its own: each group saved once all of its items are done, a lost lease stops
every write, a save that fails twice stops them too, and the backlog it reports to the deadline."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_lineage.engine.checkpoints import Changes, Checkpoints
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
