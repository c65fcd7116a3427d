"""Overlapping runs on one role (one writer per role), cross-account grants and their cluster policy, and a
reconciling run that continues across invocations."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS
from kafka_lineage.grants.requests import parse_request
from kafka_lineage.grants.run import GrantRun
from kafka_lineage.grants.settings import DEADLINE_MARGIN_SECONDS, GrantSettings
from kafka_lineage.model.iam import IamCall
from kafka_lineage.model.subscriptions import GrantRecord
from tests.unit.grants.fakes import ACCOUNT, CLUSTER, CONSUMER_ACCOUNT, DOMAIN, NOW, ROLE, FakeWorld, NoLeases
from tests.unit.grants.test_grants_run import event

BOTH_ACCOUNTS = AccessSettings.parse(
    {"consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/*", f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/*"]}
)
REMOTE_ROLE = f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/payments-reader"


def settings(access: AccessSettings = BOTH_ACCOUNTS) -> GrantSettings:
    return GrantSettings(domain_id=DOMAIN, mapping_path="/kafka-lineage", access=access)


def grant_run(world: FakeWorld, remaining: Any = lambda: 900.0) -> Any:
    """One invocation's run: `.run(request)` executes it under its deadline."""
    deadline = Deadline(remaining, DEADLINE_MARGIN_SECONDS)
    run = GrantRun(settings(), world.ports(), now=lambda: NOW)
    return SimpleNamespace(run=lambda request: run.execute(request, deadline))


def overlapping(world: FakeWorld) -> dict[str, Any]:
    """Run A (grant 1) and, started from inside A's first IAM write, run B (grant 2, created at that moment).
    A waits up to a second for B before it writes, so without a lease B's write lands first and A's stale
    one after it."""
    world.datazone.add_grant(1, "orders.created")
    world.iam.add_role(ROLE)
    b_done = threading.Event()
    results: dict[str, Any] = {}
    a_thread = threading.current_thread()

    def run_b() -> None:
        results["b"] = grant_run(world).run(
            parse_request(event("subscription_grant_requested.json", "grant0002"))
        )
        b_done.set()

    def on_write(role: str, call: IamCall) -> None:
        if threading.current_thread() is a_thread and "b" not in results and not b_done.is_set():
            world.iam.on_write = None
            world.datazone.add_grant(2, "orders.shipped")
            thread = threading.Thread(target=run_b)
            thread.start()
            results["thread"] = thread
            b_done.wait(timeout=1.0)

    world.iam.on_write = on_write
    results["a"] = grant_run(world).run(
        parse_request(event("subscription_grant_requested.json", "grant0001"))
    )
    results["thread"].join(timeout=10)
    return results


def test_two_grants_for_one_role_in_overlapping_runs_both_stand() -> None:
    # Given two runs on one role that interleave (B starts while A is about to write)
    world = FakeWorld()
    results = overlapping(world)
    # Then the role holds both topics, and both grants are GRANTED
    resources = world.iam.resources(ROLE)
    assert any(r.endswith("/orders.created") for r in resources)
    assert any(r.endswith("/orders.shipped") for r in resources)
    assert world.datazone.status_of("grant0001") == "GRANTED"
    assert world.datazone.status_of("grant0002") == "GRANTED"
    assert results["a"].granted.total == 1
    assert results["b"].granted.total == 1


def test_without_the_lease_the_same_overlap_loses_a_grant() -> None:
    # The control: the interleaving above is a real race, which the lease is what wins
    world = FakeWorld(leases=NoLeases())
    overlapping(world)
    resources = world.iam.resources(ROLE)
    assert world.datazone.status_of("grant0002") == "GRANTED"
    assert not any(r.endswith("/orders.shipped") for r in resources)


def test_a_run_waits_for_a_busy_role_lease_no_longer_than_its_deadline_leaves() -> None:
    # Given a grant to apply, once with 15 minutes left and once with 33 s (3 s before the 30 s margin)
    waits = []
    for remaining in (900.0, DEADLINE_MARGIN_SECONDS + 3.0):
        world = FakeWorld()
        world.datazone.add_grant(1, "orders.created")
        world.iam.add_role(ROLE)
        # When it runs
        grant_run(world, lambda remaining=remaining: remaining).run(
            parse_request(event("subscription_grant_requested.json", "grant0001"))
        )
        waits.append(world.leases.waits)
    # Then it asked for the engine's one wait (20 s) with time to spare, and for what is left before the
    # margin otherwise (as schema-sync and lineage do, engine.lease.hold)
    assert waits[0] == [LEASE_WAIT_SECONDS]
    assert len(waits[1]) == 1
    assert 2.0 < waits[1][0] <= 3.0


def test_a_cross_account_grant_merges_the_cluster_policy_through_a_version_conflict() -> None:
    # Given a role in another account than the cluster, whose policy holds the owner's statement
    world = FakeWorld()
    owner = {
        "Sid": "OwnerAdmin",
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
        "Action": ["kafka:*"],
        "Resource": [CLUSTER],
    }
    world.clusters.put_foreign(CLUSTER, owner)
    world.datazone.add_grant(
        1, "payments.settled", roles=(REMOTE_ROLE,), environment="env_pay", account=CONSUMER_ACCOUNT
    )
    world.iam.add_role(REMOTE_ROLE)
    # And another writer changes the cluster policy just before our first put
    late = {
        "Sid": "ConsoleAdded",
        "Effect": "Allow",
        "Principal": {"AWS": "arn:aws:iam::777788889999:root"},
        "Action": ["kafka:DescribeCluster"],
        "Resource": [CLUSTER],
    }
    world.clusters.interfere = lambda: world.clusters.put_foreign(CLUSTER, late)
    # When the grant event is handled
    result = grant_run(world).run(parse_request(event("subscription_grant_requested.json")))
    # Then the policy keeps both other statements and adds ours, after one re-merge; the role got its access
    document = world.clusters.policies[CLUSTER][0]
    sids = [s["Sid"] for s in document["Statement"]]
    assert sids == ["OwnerAdmin", "ConsoleAdded", f"KafkaLineageConsumer{CONSUMER_ACCOUNT}"]
    ours = document["Statement"][-1]
    assert ours["Principal"] == {"AWS": [REMOTE_ROLE]}
    assert any(r.endswith("/payments.settled") for r in ours["Resource"])
    assert world.clusters.calls["PutClusterPolicy"] == 2
    assert any(r.endswith("/payments.settled") for r in world.iam.resources(REMOTE_ROLE))
    assert world.datazone.status_of("grant0001") == "GRANTED"
    assert result.granted.total == 1


def test_revoking_the_last_cross_account_grant_removes_our_statement_only() -> None:
    world = FakeWorld()
    owner = {
        "Sid": "OwnerAdmin",
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
        "Action": ["kafka:*"],
        "Resource": [CLUSTER],
    }
    world.clusters.put_foreign(CLUSTER, owner)
    world.datazone.add_grant(
        1, "payments.settled", roles=(REMOTE_ROLE,), environment="env_pay", account=CONSUMER_ACCOUNT
    )
    world.iam.add_role(REMOTE_ROLE)
    grant_run(world).run(parse_request({}))
    world.datazone.set_state("grant0001", "REVOKE_PENDING")
    grant_run(world).run(parse_request({}))
    assert [s["Sid"] for s in world.clusters.policies[CLUSTER][0]["Statement"]] == ["OwnerAdmin"]
    assert world.iam.roles[REMOTE_ROLE].inline == {}
    assert world.datazone.status_of("grant0001") == "REVOKED"


def test_a_cross_account_grant_on_a_serverless_cluster_fails_saying_why() -> None:
    world = FakeWorld()
    world.clusters.serverless_clusters.add(CLUSTER)
    world.datazone.add_grant(
        1, "payments.settled", roles=(REMOTE_ROLE,), environment="env_pay", account=CONSUMER_ACCOUNT
    )
    world.iam.add_role(REMOTE_ROLE)
    grant_run(world).run(parse_request(event("subscription_grant_requested.json")))
    assert world.iam_writes() == 0
    assert "PutClusterPolicy" not in world.clusters.calls
    assert world.datazone.status_of("grant0001") == "GRANT_FAILED"
    assert "MSK Serverless" in (world.datazone.updates[-1][3] or "")


def test_a_reconciling_run_stops_before_its_deadline_and_its_follow_up_resumes() -> None:
    # Given five roles with a pending grant each
    world = FakeWorld()
    roles = [f"arn:aws:iam::{ACCOUNT}:role/reader-{n}" for n in range(1, 6)]
    for n, role in enumerate(roles, start=1):
        world.datazone.add_grant(n, f"topic.{n}", roles=(role,), environment=f"env_{n}")
        world.iam.add_role(role)
    # When the deadline comes after two groups (each reads the time left twice: whether it fits, and how
    # long its leases may be waited for)
    answers = iter([900.0] * 4 + [10.0] * 20)
    first = grant_run(world, remaining=lambda: next(answers)).run(parse_request({}))
    # Then it stops, saying where to resume
    assert first.incomplete
    assert first.resume_after == roles[1]
    assert first.granted.total == 2
    # And the follow-up finishes the rest without reading the finished groups' roles again
    reads_before = world.iam.calls["GetRole"]
    second = grant_run(world).run(parse_request({"resumeAfter": first.resume_after}))
    assert second.granted.total == 3
    assert not second.incomplete
    assert world.iam.calls["GetRole"] - reads_before == 6  # three roles, read again under their lease
    assert all(world.datazone.status_of(f"grant{n:04d}") == "GRANTED" for n in range(1, 6))


def test_a_reconciling_run_lists_the_grants_once_however_many_role_groups_it_settles() -> None:
    # Given 120 pending grants (three pages of 50) for twelve roles, one group each
    world = FakeWorld()
    roles = [f"arn:aws:iam::{ACCOUNT}:role/reader-{n}" for n in range(12)]
    for role in roles:
        world.iam.add_role(role)
    for n in range(120):
        world.datazone.add_grant(n + 1, f"topic.{n}", roles=(roles[n % 12],), environment=f"env_{n % 12}")
    # When the schedule reconciles them
    result = grant_run(world).run(parse_request({}))
    # Then every grant stands, and the domain was listed once (3 pages), not once per group (36)
    assert result.granted.total == 120
    assert world.datazone.calls["ListSubscriptionGrants"] == 3


def test_a_role_written_by_another_run_since_the_listing_is_decided_from_a_new_listing() -> None:
    # Given two roles, each with a grant, and a run that lists the domain first
    world = FakeWorld()
    first, second = (f"arn:aws:iam::{ACCOUNT}:role/reader-{n}" for n in (1, 2))
    for n, role in enumerate((first, second), start=1):
        world.iam.add_role(role)
        world.datazone.add_grant(n, f"topic.{n}", roles=(role,), environment=f"env_{n}")
    listed = {"count": 0}
    list_grants = world.datazone.grants

    def grants_then_another_run_writes_the_second_role() -> Iterator[GrantRecord]:
        yield from list_grants()
        listed["count"] += 1
        if listed["count"] == 1:  # once our listing is taken, an event's run revokes grant 2 under its lease
            with world.leases.hold([second], 1.0):
                world.datazone.set_status("grant0002", "asset0002", "REVOKED")

    world.datazone.grants = grants_then_another_run_writes_the_second_role  # type: ignore[method-assign]
    # When the schedule reconciles
    result = grant_run(world).run(parse_request({}))
    # Then the second role's group is decided from a new listing: the revoked grant is not granted again
    assert listed["count"] == 2
    assert world.datazone.status_of("grant0002") == "REVOKED"
    assert result.granted.total == 1
