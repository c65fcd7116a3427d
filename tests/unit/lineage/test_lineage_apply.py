"""Applying a plan against an in-memory lineage store: posting, replacing, recovering, retracting."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from datetime import datetime

import pytest
from botocore.exceptions import ReadTimeoutError

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.lineage.apply import Applier
from kafka_lineage.lineage.model import EdgeKey, LineageState, LoadedStates
from kafka_lineage.lineage.plan import EmitScope, make_plan, select, tables_needed
from kafka_lineage.lineage.resolve import resolve
from kafka_lineage.lineage.run_identity import parse_time
from kafka_lineage.lineage.world import parse_topic_fields
from kafka_lineage.model.lineage_events import EventSummary
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.tables import TableReads, TableRef
from kafka_lineage.model.topics import TopicKey
from local import debezium
from tests.unit.fake_clients import aws_error, sdk_failure
from tests.unit.lineage.lineage_builders import record, records, settings, table
from tests.unit.lineage.openlineage_rules import assert_valid

CUSTOMERS = "dbserver1.inventory.customers"
ORDERS = "dbserver1.inventory.orders"
KEY = TopicKey("cdc", CUSTOMERS)
EDGE = EdgeKey.sink(KEY, TableRef("lakehouse", "customers"))


@dataclass
class Stored:
    event_id: str
    body: bytes
    event: dict


@dataclass
class MemoryLineage:
    """DataZone's lineage events as far as the emitter can tell: idempotent tokens, lost responses, faults."""

    events: dict[str, Stored] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    posts: list[str] = field(default_factory=list)  # tokens, in order
    lose_responses: int = 0  # the next N posts are stored but answer a timeout
    lose_response_of: set[str] = field(default_factory=set)  # event types whose next post answers a timeout
    fail_posts: int = 0  # the next N posts fail before storing anything
    fail_deletes: set[str] = field(default_factory=set)
    deletes: list[str] = field(default_factory=list)
    counter: int = 0
    delete_lag: int = 0  # status checks that still find a deleted event (deletion is asynchronous)
    deleting: dict[str, int] = field(default_factory=dict)  # event id -> checks that will still find it
    checks: list[str] = field(default_factory=list)

    def post(self, body: bytes, token: str) -> str:
        self.posts.append(token)
        if self.fail_posts:
            self.fail_posts -= 1
            raise aws_error("InternalServerException", "boom", "PostLineageEvent")
        if token in self.tokens:
            event_id = self.tokens[token]
        else:
            self.counter += 1
            event_id = f"evt{self.counter:011d}"
            self.events[event_id] = Stored(event_id, body, json.loads(body))
            self.tokens[token] = event_id
        event_type = json.loads(body)["eventType"]
        if self.lose_responses or event_type in self.lose_response_of:
            self.lose_responses = max(0, self.lose_responses - 1)
            self.lose_response_of.discard(event_type)
            raise sdk_failure(
                ReadTimeoutError(endpoint_url="https://datazone.eu-west-1.amazonaws.com"), "PostLineageEvent"
            )
        return event_id

    def delete(self, event_id: str) -> bool:
        self.deletes.append(event_id)
        if event_id in self.fail_deletes:
            raise aws_error("ThrottlingException", "slow", "DeleteLineageEvent")
        if event_id not in self.events:
            return False
        if self.delete_lag:
            self.deleting.setdefault(event_id, self.delete_lag)
        else:
            del self.events[event_id]
        return True

    def status(self, event_id: str) -> str | None:
        self.checks.append(event_id)
        if event_id not in self.events:
            return None
        left = self.deleting.get(event_id)
        if left is not None and left <= 0:
            del self.events[event_id], self.deleting[event_id]
            return None
        if left is not None:
            self.deleting[event_id] = left - 1
        return "SUCCESS"

    def list_events(self, after: datetime, before: datetime):
        for stored in list(self.events.values()):
            moment = parse_time(stored.event["eventTime"])
            assert moment is not None
            if after < moment < before:
                yield EventSummary(
                    stored.event_id,
                    stored.event["run"]["runId"],
                    stored.event["eventType"],
                    moment,
                    stored.event["job"]["namespace"],
                    stored.event["job"]["name"],
                    "SUCCESS",
                )

    def runs(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for stored in self.events.values():
            found.setdefault(stored.event["run"]["runId"], []).append(stored.event["eventType"])
        return found


class Versions:
    def __init__(self) -> None:
        self.reads = 0
        self.broken: set[str] = set()

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition:
        self.reads += 1
        if schema_arn in self.broken:
            raise aws_error("EntityNotFoundException", "gone", "GetSchemaVersion")
        name = schema_arn.rsplit(".", 1)[1]
        definition = debezium.table_envelope(name) if version_number == 1 else debezium.table_v2(name)
        return VersionDefinition(definition, "AVRO", "2025-03-14 09:15:02.123456", f"v{version_number}")


class World:
    """Plan + apply + state, the way `emit_lineage` strings them together."""

    def __init__(self) -> None:
        self.lineage = MemoryLineage()
        self.versions = Versions()
        self.states: dict[str, LineageState] = {}
        self.migrated: frozenset[str] = frozenset()  # edges read from the per-topic layout (load_states)
        self.tables = {
            "customers": table("customers", "id", "first_name", "email"),
            "orders": table("orders", "id"),
        }

    def run(
        self,
        recs,
        scope=None,
        nonce="",
        remaining=None,
        found=None,
        config=None,
        mappings=(),
        delivery=None,
        consumers=None,
    ):
        scope = scope or EmitScope()
        config = config or settings()
        resolution = resolve(recs.values(), config, list(mappings), [], found, delivery, consumers)
        selection = select(scope, recs, self.states, ["cdc"])
        tables = {
            ref: self.tables.get(ref.name, self.tables.get(ref.table))
            for ref in tables_needed(selection, resolution)
        }
        states = LoadedStates(dict(self.states), {}, (), frozenset(self.migrated))
        plan = make_plan(scope, selection, resolution, TableReads(tables), states, 0.5)
        applier = Applier(
            self.lineage, self.versions, parse_topic_fields, concurrency=2, force_nonce=nonce,
            deadline=Deadline(remaining, 60.0),
        )  # fmt: skip
        outcomes = applier.apply(plan.actions)
        for outcome in outcomes:
            if outcome.store:
                for dropped in outcome.dropped:
                    self.states.pop(dropped.key, None)
                self.migrated -= {outcome.key.key}
                if outcome.state is None or not outcome.state.to_entry():
                    self.states.pop(outcome.key.key, None)
                else:
                    self.states[outcome.key.key] = outcome.state
        return plan, {o.key.topic.topic: o for o in outcomes}


def body_token(stored: Stored) -> str:
    return hashlib.sha256(stored.body).hexdigest()


def test_first_emission_posts_start_then_complete_under_body_tokens():
    world = World()
    _, outcomes = world.run(records(record(CUSTOMERS)))
    outcome = outcomes[CUSTOMERS]
    assert outcome.kind == "emitted"
    assert outcome.error is None
    # Then two events of one run exist, each posted under the sha256 of its body, and both are valid
    assert [s.event["eventType"] for s in world.lineage.events.values()] == ["START", "COMPLETE"]
    assert world.lineage.posts == [body_token(s) for s in world.lineage.events.values()]
    for stored in world.lineage.events.values():
        assert_valid(stored.body)
    state = world.states[EDGE.key]
    assert state.event_ids == tuple(world.lineage.events)
    assert state.table == "lakehouse/customers"
    assert outcome.report["columnLineage"] == {
        "matched": 3,
        "emitted": 3,
        "tableColumns": 3,
        "rowFields": 4,
        "unmatchedColumns": [],
    }


def test_a_rerun_with_nothing_changed_posts_nothing_and_reads_no_definition():
    world = World()
    world.run(records(record(CUSTOMERS)))
    posts, reads = len(world.lineage.posts), world.versions.reads
    plan, outcomes = world.run(records(record(CUSTOMERS)))
    assert plan.unchanged == (EDGE,)
    assert outcomes == {}
    assert (len(world.lineage.posts), world.versions.reads) == (posts, reads)


def test_a_new_version_posts_one_new_run_then_deletes_the_old_one():
    world = World()
    world.run(records(record(CUSTOMERS)))
    old = world.states[EDGE.key]
    _, outcomes = world.run(records(record(CUSTOMERS, version=2)))
    new = world.states[EDGE.key]
    assert outcomes[CUSTOMERS].report["replacedEvents"] == 2
    assert new.run_id != old.run_id
    assert world.lineage.runs() == {new.run_id: ["START", "COMPLETE"]}
    assert world.lineage.deletes == list(old.event_ids)


def test_a_lost_response_then_a_rerun_leaves_exactly_one_run():
    world = World()
    # Given the COMPLETE post is stored by DataZone but its response never arrives (beyond the SDK's retries)
    world.lineage.lose_response_of = {"COMPLETE"}
    _, outcomes = world.run(records(record(CUSTOMERS)))
    assert outcomes[CUSTOMERS].kind == "failed"
    assert "posting COMPLETE" in (outcomes[CUSTOMERS].error or "")
    stale = world.states[EDGE.key].stale
    assert len(stale) == 1
    assert stale[0].event_ids == ("evt00000000001",)
    assert not stale[0].complete
    # And DataZone forgot the tokens meanwhile (its idempotency window is undocumented)
    world.lineage.tokens.clear()
    posts = len(world.lineage.posts)
    _, outcomes = world.run(records(record(CUSTOMERS)))
    # Then the rerun adopts both events (the COMPLETE found by runId) and posts nothing
    assert outcomes[CUSTOMERS].kind == "emitted"
    assert len(world.lineage.posts) == posts
    state = world.states[EDGE.key]
    assert state.event_ids == ("evt00000000001", "evt00000000002")
    assert state.stale == ()
    assert list(world.lineage.runs().values()) == [["START", "COMPLETE"]]


def test_a_content_change_after_a_failed_attempt_deletes_the_attempts_events():
    world = World()
    world.lineage.lose_responses = 1  # START is stored, its answer lost: the run stops there
    world.run(records(record(CUSTOMERS)))
    assert len(world.lineage.events) == 1
    failed_run = world.states[EDGE.key].stale[0].run_id
    # When the topic changes before the retry
    world.run(records(record(CUSTOMERS, version=2)))
    # Then only the new run exists: the failed attempt's START (its id never known) was found and deleted
    runs = world.lineage.runs()
    assert failed_run not in runs
    assert list(runs.values()) == [["START", "COMPLETE"]]
    assert world.states[EDGE.key].stale == ()


def test_force_reposts_the_same_run_under_fresh_tokens_and_keeps_one_copy():
    world = World()
    world.run(records(record(CUSTOMERS)))
    before = world.states[EDGE.key]
    first_tokens = list(world.lineage.posts)
    _, outcomes = world.run(records(record(CUSTOMERS)), EmitScope(force=True), nonce="request-1")
    after = world.states[EDGE.key]
    # Then the same run (runId, eventTime, bodies) was posted again under new tokens
    assert outcomes[CUSTOMERS].report["reason"] == "forced"
    assert (after.run_id, after.event_time) == (before.run_id, before.event_time)
    assert set(world.lineage.posts[2:]).isdisjoint(first_tokens)
    # And the older copies were deleted: one copy of the run remains
    assert after.event_ids != before.event_ids
    assert set(world.lineage.events) == set(after.event_ids)
    assert [s.body for s in world.lineage.events.values()] == [
        world.lineage.events[i].body for i in after.event_ids
    ]


def test_a_failed_delete_is_remembered_and_cleaned_up_next_run():
    world = World()
    world.run(records(record(CUSTOMERS)))
    old = world.states[EDGE.key].event_ids
    world.lineage.fail_deletes = {old[1]}
    _, outcomes = world.run(records(record(CUSTOMERS, version=2)))
    # Then the new run is live, the failure is reported, and the undeleted event is kept as stale
    assert outcomes[CUSTOMERS].kind == "emitted"
    assert "deleting replaced events failed" in (outcomes[CUSTOMERS].error or "")
    assert world.states[EDGE.key].stale[0].event_ids == (old[1],)
    # When the delete works again, an otherwise unchanged run cleans it up without posting
    world.lineage.fail_deletes = set()
    posts = len(world.lineage.posts)
    _, outcomes = world.run(records(record(CUSTOMERS, version=2)))
    assert outcomes[CUSTOMERS].kind == "cleaned"
    assert len(world.lineage.posts) == posts
    assert old[1] not in world.lineage.events
    assert world.states[EDGE.key].stale == ()


def test_retracting_deletes_every_event_and_drops_the_state():
    world = World()
    world.run(records(record(CUSTOMERS), record(ORDERS)))
    scope = EmitScope(mode="event", topics=(TopicSelectorFor(CUSTOMERS),))
    _, outcomes = world.run(records(record(ORDERS)), scope)
    assert outcomes[CUSTOMERS].kind == "retracted"
    assert outcomes[CUSTOMERS].report["deletedEvents"] == 2
    assert EDGE.key not in world.states
    assert all(s.event["inputs"][0]["name"] == ORDERS for s in world.lineage.events.values())


def test_a_partly_failed_retraction_keeps_what_is_left():
    world = World()
    world.run(records(record(CUSTOMERS)))
    ids = world.states[EDGE.key].event_ids
    world.lineage.fail_deletes = {ids[0]}
    scope = EmitScope(mode="event", topics=(TopicSelectorFor(CUSTOMERS),))
    _, outcomes = world.run({}, scope)
    assert outcomes[CUSTOMERS].kind == "failed"
    assert world.states[EDGE.key].stale[0].event_ids == (ids[0],)
    assert not world.states[EDGE.key].emitted
    world.lineage.fail_deletes = set()
    world.run({}, scope)
    assert EDGE.key not in world.states
    assert world.lineage.events == {}


def test_topics_are_isolated_from_each_others_failures():
    world = World()
    world.versions.broken = {record(CUSTOMERS).schema_arn}
    _, outcomes = world.run(records(record(CUSTOMERS), record(ORDERS)))
    assert outcomes[CUSTOMERS].kind == "failed"
    assert "EntityNotFoundException" in (outcomes[CUSTOMERS].error or "")
    assert outcomes[ORDERS].kind == "emitted"


def test_nothing_starts_when_the_invocation_is_ending():
    world = World()
    _, outcomes = world.run(records(record(CUSTOMERS)), remaining=lambda: 10.0)
    assert outcomes[CUSTOMERS].kind == "deferred"
    assert world.lineage.posts == []


@pytest.mark.parametrize("failures", [1, 2])
def test_a_post_that_fails_outright_is_retried_next_run_without_duplicates(failures):
    world = World()
    world.lineage.fail_posts = failures
    for _ in range(failures + 1):  # each failed run stops at its first failed post
        world.run(records(record(CUSTOMERS)))
    assert list(world.lineage.runs().values()) == [["START", "COMPLETE"]]
    assert world.states[EDGE.key].stale == ()


def TopicSelectorFor(topic: str):
    from kafka_lineage.lineage.plan import TopicSelector

    return TopicSelector(topic, "cdc")


def test_no_stale_run_is_ever_dropped_however_many_pile_up():
    # Given a topic whose replaced runs cannot be deleted, run after run (12 new versions)
    world = World()
    world.run(records(record(CUSTOMERS)))
    for version in range(2, 14):
        world.lineage.fail_deletes = set(world.lineage.events)
        world.run(records(record(CUSTOMERS, version=version % 2 + 1, schema_version_id=f"v{version}")))
    # Then every replaced run is still in the state (none forgotten), each event to be deleted exactly once
    stale_ids = [i for run in world.states[EDGE.key].stale for i in run.event_ids]
    assert len(stale_ids) == len(set(stale_ids)) == 24
    # When deleting works again, the next run removes them all
    world.lineage.fail_deletes = set()
    world.run(records(record(CUSTOMERS, version=13 % 2 + 1, schema_version_id="v13")))
    assert world.states[EDGE.key].settled
    assert list(world.lineage.runs().values()) == [["START", "COMPLETE"]]


def test_a_deletion_still_processing_is_kept_and_confirmed_by_a_later_run():
    # Given DataZone accepts deletes but still shows the event for two more looks
    world = World()
    world.run(records(record(CUSTOMERS)))
    old = world.states[EDGE.key].event_ids
    world.lineage.delete_lag = 2
    _, outcomes = world.run(records(record(CUSTOMERS, version=2)))
    # Then the replaced events are pending, not counted as deleted
    assert outcomes[CUSTOMERS].report["replacedEvents"] == 0
    assert outcomes[CUSTOMERS].report["pendingDeletions"] == 2
    assert {p.event_id for p in world.states[EDGE.key].deleting} == set(old)
    # When later runs look again, they confirm the deletions without posting anything
    posts = len(world.lineage.posts)
    for _ in range(2):
        _, outcomes = world.run(records(record(CUSTOMERS, version=2)))
        assert outcomes[CUSTOMERS].kind == "cleaned"
    assert world.states[EDGE.key].settled
    assert len(world.lineage.posts) == posts
    assert set(world.lineage.events) == set(world.states[EDGE.key].event_ids)


def test_a_replacing_run_is_strictly_later_than_the_run_it_replaces():
    world = World()
    world.run(records(record(CUSTOMERS, version=2)))
    later = world.states[EDGE.key].event_time
    # When the topic's new content describes an earlier moment (its registration time did not move)
    world.tables["customers"] = table("customers", "id", "email")
    world.run(records(record(CUSTOMERS, version=2)))
    assert world.states[EDGE.key].event_time > later
    event_times = sorted(s.event["eventTime"] for s in world.lineage.events.values())
    assert event_times[0] > later


def test_an_attempt_whose_events_are_all_known_is_adopted_without_a_lookup(monkeypatch):
    # Given an attempt of the run whose COMPLETE response was lost, later known in full (both ids, complete)
    world = World()
    world.lineage.lose_response_of = {"COMPLETE"}
    world.run(records(record(CUSTOMERS)))
    (attempt,) = world.states[EDGE.key].stale
    ids = tuple(world.lineage.events)
    world.states[EDGE.key] = replace(
        world.states[EDGE.key], stale=(replace(attempt, event_ids=ids, complete=True),)
    )
    # And DataZone forgot the tokens, and any lookup of the run's events would be an error
    world.lineage.tokens.clear()
    monkeypatch.setattr(world.lineage, "list_events", lambda after, before: pytest.fail("looked up"))
    posts = len(world.lineage.posts)
    # When the run is made again
    _, outcomes = world.run(records(record(CUSTOMERS)))
    # Then both events are adopted as they are: nothing posted, looked up or deleted
    assert outcomes[CUSTOMERS].kind == "emitted"
    assert len(world.lineage.posts) == posts
    assert world.states[EDGE.key].event_ids == ids
    assert world.states[EDGE.key].stale == ()
    assert world.lineage.deletes == []
