"""The engine's pool and lease policy on their own: values come back to the owner's thread, an item kept from
starting is handed back as such, a bug is raised once every item ended; a busy lease is a `Deferred`, never
an exception, and the wait never runs into the deadline margin."""

from __future__ import annotations

import threading

import pytest

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS, Deferred, hold
from kafka_lineage.engine.pool import NOT_STARTED, Workers
from kafka_lineage.model.failures import LeaseBusy


def test_given_items_when_run_on_the_pool_then_each_value_is_received_in_the_owners_thread() -> None:
    # Given 40 items and a pool of 4 workers
    owner = threading.current_thread().name
    worked_in: set[str] = set()
    received: dict[int, tuple[object, str]] = {}

    def square(n: int) -> int:
        worked_in.add(threading.current_thread().name)
        return n * n

    # When they run
    with Workers(4, "test-pool") as pool:
        complete = pool.each(
            range(40), square, lambda n, value: received.update({n: (value, threading.current_thread().name)})
        )

    # Then the work ran on the pool's threads, and every value came back to the owner's thread
    assert complete is True
    assert worked_in
    assert all(name.startswith("test-pool") for name in worked_in)
    assert received == {n: (n * n, owner) for n in range(40)}


def test_given_a_stop_when_items_run_then_those_not_started_come_back_as_such() -> None:
    # Given a run that may start only its first 5 items
    started: list[int] = []
    lock = threading.Lock()
    values: dict[int, object] = {}

    def may_start() -> bool:
        with lock:
            return len(started) < 5

    def work(n: int) -> int:
        with lock:
            started.append(n)
        return n

    # When 20 items run one at a time
    with Workers(1, "test-pool") as pool:
        complete = pool.each(list(range(20)), work, values.__setitem__, may_start)

    # Then 5 ran, the other 15 were handed back as not started, and the round says it was not complete
    assert complete is False
    assert sorted(n for n, value in values.items() if value is not NOT_STARTED) == [0, 1, 2, 3, 4]
    assert sum(1 for value in values.values() if value is NOT_STARTED) == 15


def test_given_a_bug_in_one_item_when_run_then_it_is_raised_after_every_other_item_ended() -> None:
    # Given work that raises for one item (a bug: runs turn items' own failures into values)
    received: list[int] = []

    def work(n: int) -> int:
        if n == 3:
            raise ZeroDivisionError("a bug")
        return n

    # When 12 items run on 4 workers, then the bug is raised in the owner's thread, after the others came back
    with Workers(4, "test-pool") as pool, pytest.raises(ZeroDivisionError, match="a bug"):
        pool.each(list(range(12)), work, lambda _, value: received.append(value))  # type: ignore[arg-type]
    assert sorted(received) == [n for n in range(12) if n != 3]


class Lease:
    def __init__(self, busy: bool = False, error: Exception | None = None) -> None:
        self.busy, self.error = busy, error
        self.waited: float | None = None

    def acquire(self, wait_seconds: float) -> None:
        self.waited = wait_seconds
        if self.error is not None:
            raise self.error
        if self.busy:
            raise LeaseBusy("held by req-1 until 12:00:00")

    def ensure_held(self) -> None:
        pass


@pytest.mark.parametrize(("left", "waited"), [(900.0, LEASE_WAIT_SECONDS), (65.0, 5.0), (30.0, 0.0)])
def test_given_a_deadline_when_the_lease_is_taken_then_the_one_wait_never_runs_into_the_margin(
    left: float, waited: float
) -> None:
    # Given an invocation with `left` seconds and a 60 s margin
    lease = Lease()
    # When the lease is taken, then it waits at most the one wait, and never past the margin
    assert hold(lease, Deadline(lambda: left, 60.0)) is None
    assert lease.waited == waited


def test_given_a_lease_another_invocation_keeps_when_taken_then_the_run_is_deferred_busy() -> None:
    # Given a lease another live invocation holds
    lease = Lease(busy=True)
    # When the run takes it, then it is deferred (busy), not raised; no lease at all is nothing to take
    assert hold(lease, Deadline.never()) == Deferred("busy", "held by req-1 until 12:00:00")
    assert hold(None, Deadline.never()) is None


def test_given_ssm_failing_when_the_lease_is_taken_then_the_failure_is_the_runs_to_report() -> None:
    # Given SSM refusing the lease's calls
    lease = Lease(error=RuntimeError("AccessDeniedException"))
    # When the run takes it, then the failure is raised (nothing may be written without the lease)
    with pytest.raises(RuntimeError, match="AccessDenied"):
        hold(lease, Deadline.never())
