"""StateLease over real boto3 SSM, against the strict stand-ins: one writer per state."""

from __future__ import annotations

import json
import threading
from typing import Any

import pytest

from kafka_lineage.aws.clients import Clients
from kafka_lineage.aws.lease import LeaseClock, StateLease, lease_path
from kafka_lineage.model.failures import LeaseBusy, LeaseLost
from local.standins import LocalAws

PATH = "/kafka-lineage"
# This module's clients (made anew for each test's stand-ins, as a wiring's are).
CLIENTS = Clients()


class FakeClock:
    """Time that moves only when someone sleeps: waits cost nothing and expiries are exact."""

    def __init__(self, now: float = 1_800_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def lease(owner: str, clock: FakeClock, ttl: float = 900.0, holder: str = "schema-sync") -> StateLease:
    return StateLease(CLIENTS.client("ssm"), PATH, holder, ttl, owner, clock=LeaseClock(clock, clock.sleep))


def generations(holder: str = "schema-sync") -> dict[str, dict[str, Any]]:
    listing = CLIENTS.client("ssm").get_paginator("get_parameters_by_path")
    pages = listing.paginate(Path=lease_path(PATH, holder))
    return {
        p["Name"].rsplit("/", 1)[-1]: json.loads(p["Value"]) for page in pages for p in page["Parameters"]
    }


def test_acquire_release_and_next_holder(local_aws: LocalAws) -> None:
    # Given no lease yet
    clock = FakeClock()
    first = lease("invocation-a", clock)
    # When one invocation acquires it
    first.acquire(wait_seconds=0)
    # Then generation 1 exists, held by it until now + ttl, and it is held
    assert generations() == {
        "0000000001": {"owner": "invocation-a", "acquired": clock.now, "expires": clock.now + 900}
    }
    first.ensure_held()
    # When it releases, the next invocation acquires at once, as generation 2
    first.release()
    second = lease("invocation-b", clock)
    second.acquire(wait_seconds=0)
    assert second.generation == 2
    assert generations()["0000000001"]["expires"] == 0
    # And a third acquisition prunes generation 1 (only the last two are kept)
    second.release()
    third = lease("invocation-c", clock)
    third.acquire(wait_seconds=0)
    assert sorted(generations()) == ["0000000002", "0000000003"]


def test_busy_while_another_holds(local_aws: LocalAws) -> None:
    # Given a live holder with 600 s left
    clock = FakeClock()
    lease("invocation-a", clock, ttl=600).acquire(wait_seconds=0)
    # When another invocation waits 120 s for it
    contender = lease("invocation-b", clock)
    # Then it gives up with LeaseBusy naming the holder, having waited the 120 s and written nothing
    with pytest.raises(LeaseBusy, match="invocation-a"):
        contender.acquire(wait_seconds=120)
    assert 120 <= clock.now - 1_800_000_000.0 < 125
    assert list(generations()) == ["0000000001"]
    assert contender.generation is None


def test_takeover_after_expiry_and_the_old_holder_stops(local_aws: LocalAws) -> None:
    # Given a holder whose lease (its Lambda time plus margin) runs out while the contender waits
    clock = FakeClock()
    old = lease("invocation-a", clock, ttl=60)
    old.acquire(wait_seconds=0)
    # When another invocation waits up to 300 s
    new = lease("invocation-b", clock)
    new.acquire(wait_seconds=300)
    # Then it takes over as generation 2 as soon as the old one expired, not before
    assert new.generation == 2
    assert 60 <= clock.now - 1_800_000_000.0 < 63
    # And the old holder, had it outlived its lease, learns it before its next save
    with pytest.raises(LeaseLost, match="taken over by invocation-b"):
        old.ensure_held()
    new.ensure_held()


def test_own_expiry_is_lost_even_without_a_successor(local_aws: LocalAws) -> None:
    clock = FakeClock()
    holder = lease("invocation-a", clock, ttl=10)
    holder.acquire(wait_seconds=0)
    clock.sleep(11)
    with pytest.raises(LeaseLost, match="expired"):
        holder.ensure_held()


def test_unreadable_generation_counts_as_expired(local_aws: LocalAws) -> None:
    # Given a lease parameter whose value is not ours (hand-edited, truncated)
    CLIENTS.client("ssm").put_parameter(
        Name=f"{lease_path(PATH, 'schema-sync')}/0000000007", Value="{oops", Type="String"
    )
    # When an invocation acquires
    holder = lease("invocation-a", FakeClock())
    holder.acquire(wait_seconds=0)
    # Then it does not wait forever on it: the next generation is taken
    assert holder.generation == 8


def test_holders_are_separate(local_aws: LocalAws) -> None:
    clock = FakeClock()
    lease("sync", clock).acquire(wait_seconds=0)
    lineage = lease("lineage", clock, holder="lineage-emission")
    lineage.acquire(wait_seconds=0)
    assert lineage.generation == 1
    with pytest.raises(ValueError, match="unknown lease holder"):
        lease_path(PATH, "assets")


def test_racing_acquirers_one_wins(local_aws: LocalAws) -> None:
    # Given eight invocations starting at the same moment, with no lease yet (repeated, to catch races)
    for round_number in range(5):
        local_aws.reset()
        clock = FakeClock()
        leases = [lease(f"invocation-{round_number}-{i}", clock) for i in range(8)]
        winners: list[StateLease] = []
        lock = threading.Lock()
        start = threading.Barrier(len(leases))

        def contend(
            candidate: StateLease,
            winners: list[StateLease] = winners,
            start: threading.Barrier = start,
            lock: threading.Lock = lock,
        ) -> None:
            start.wait()
            try:
                candidate.acquire(wait_seconds=0)
            except LeaseBusy:
                return
            with lock:
                winners.append(candidate)

        threads = [threading.Thread(target=contend, args=(candidate,)) for candidate in leases]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        # Then exactly one holds it, and SSM names it as the live generation
        assert len(winners) == 1
        assert generations()["0000000001"]["owner"] == winners[0].owner


def test_a_follow_up_knows_whether_anyone_wrote_since_the_invocation_that_handed_it_on(
    local_aws: LocalAws,
) -> None:
    # Given an invocation that held generation 1, released it and handed its work on
    clock = FakeClock()
    first = lease("invocation-a", clock)
    first.acquire(wait_seconds=0)
    first.release()
    assert first.last_generation == 1
    # When its follow-up, told so, takes the lease
    follow_up = lease("invocation-b", clock)
    follow_up.handed = first.last_generation
    follow_up.acquire(wait_seconds=0)
    # Then its generation is the very next one: nobody wrote between the two
    assert (follow_up.generation, follow_up.follows_handover) == (2, True)
    follow_up.release()
    # When another writer held the lease in between (a scheduled run took generation 3)
    other = lease("scheduled-run", clock)
    other.acquire(wait_seconds=0)
    other.release()
    late = lease("invocation-c", clock)
    late.handed = 2
    late.acquire(wait_seconds=0)
    # Then the follow-up of generation 2 knows the state may have changed since it read it
    assert (late.generation, late.follows_handover) == (4, False)
    late.release()
    # And a retry of a follow-up that already holds its lease (it may have written) does not follow either
    retried = lease("invocation-d", clock)
    retried.handed = 4
    retried.acquire(wait_seconds=0)
    again = lease("invocation-d", clock)
    again.handed = 4
    again.acquire(wait_seconds=0)
    assert (again.generation, again.follows_handover) == (5, False)
    # And an invocation handed nothing never follows
    assert not lease("invocation-e", clock).follows_handover
