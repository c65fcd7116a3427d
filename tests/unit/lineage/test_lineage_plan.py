"""The lineage plan: which edges emit, stay unchanged, clean up, retract or fail; and the fail-safes."""

from __future__ import annotations

from typing import Any

from kafka_lineage.lineage.edge_content import content_for
from kafka_lineage.lineage.model import EdgeKey, LineageState, LoadedStates, StaleRun
from kafka_lineage.lineage.plan import (
    Emit,
    EmitScope,
    Retract,
    TopicSelector,
    make_plan,
    select,
    tables_needed,
)
from kafka_lineage.lineage.resolve import ExplicitMapping, Target, resolve
from kafka_lineage.model.tables import GlueTable, TableReads, TableRef
from kafka_lineage.model.topics import TopicKey
from tests.unit.lineage.lineage_builders import record, records, settings, source, table

CUSTOMERS = "dbserver1.inventory.customers"
ORDERS = "dbserver1.inventory.orders"
KEY = TopicKey("cdc", CUSTOMERS)
EDGE = EdgeKey.sink(KEY, TableRef("lakehouse", "customers"))
ORDERS_EDGE = EdgeKey.sink(TopicKey("cdc", ORDERS), TableRef("lakehouse", "orders"))


def loaded(states: dict[str, Any], unreadable: tuple[str, ...] = ()) -> LoadedStates:
    """States as the run loads them (each edge one entry)."""
    return LoadedStates(dict(states), {}, unreadable)


def plan_for(recs, states=None, tables=None, scope=None, config=None, share=0.5):
    scope = scope or EmitScope()
    config = config or settings(share=share)
    states = states or {}
    resolution = resolve(recs.values(), config, [], [])
    selection = select(scope, recs, states, [s.registry_name for s in config.sources])
    if tables is None:
        tables = {ref: table(ref.table, "id") for ref in tables_needed(selection, resolution)}
    return make_plan(scope, selection, resolution, TableReads(tables), loaded(states), share), resolution


def emitted_state(recs, key=KEY, **changes) -> LineageState:
    """The state a successful emission of `key` leaves, as apply would write it."""
    resolution = resolve(recs.values(), settings(), [], [])
    (target,) = resolution.edges_of(key)
    assert isinstance(target, Target)
    fingerprint = content_for(target, table(target.table.table, "id")).fingerprint()
    values: dict[str, Any] = {
        "fingerprint": fingerprint,
        "run_id": "11111111-1111-5111-8111-111111111111",
        "event_time": "2025-03-14T09:15:02.123Z",
        "event_ids": ("startevent0001", "completeevt001"),
        "table": target.table.name,
        "origin": "rule",
    }
    values.update(changes)
    return LineageState(**values)


def test_a_new_topic_is_emitted_and_an_unchanged_one_is_not():
    recs = records(record(CUSTOMERS), record(ORDERS))
    plan, _ = plan_for(recs, {EDGE.key: emitted_state(recs)})
    # Then customers (already emitted, same content) is unchanged and orders is new
    assert plan.unchanged == (EDGE,)
    assert [(a.key.topic.topic, a.reason) for a in plan.actions if isinstance(a, Emit)] == [(ORDERS, "new")]


def test_any_change_to_what_the_event_carries_emits_again():
    recs = records(record(CUSTOMERS))
    state = {EDGE.key: emitted_state(recs)}
    # A new schema version
    plan, _ = plan_for(records(record(CUSTOMERS, version=2)), state)
    assert [a.reason for a in plan.actions if isinstance(a, Emit)] == ["changed"]
    # New table columns
    plan, _ = plan_for(recs, state, {TableRef("lakehouse", "customers"): table("customers", "id", "email")})
    assert [a.reason for a in plan.actions if isinstance(a, Emit)] == ["changed"]
    # Nothing: unchanged
    plan, _ = plan_for(recs, state)
    assert plan.actions == ()


def test_force_re_emits_an_unchanged_topic():
    recs = records(record(CUSTOMERS))
    plan, _ = plan_for(recs, {EDGE.key: emitted_state(recs)}, scope=EmitScope(force=True))
    (action,) = plan.actions
    assert isinstance(action, Emit)
    assert action.reason == "forced"


def test_an_unchanged_topic_with_stale_events_is_cleaned_up():
    recs = records(record(CUSTOMERS))
    stale = (
        StaleRun(
            "22222222-2222-5222-8222-222222222222", "2025-01-01T00:00:00.000Z", "x", ("oldevent000001",)
        ),
    )
    plan, _ = plan_for(recs, {EDGE.key: emitted_state(recs, stale=stale)})
    (action,) = plan.actions
    assert isinstance(action, Emit)
    assert action.reason == "cleanup"
    assert action.describe()["action"] == "cleanup"


def test_a_missing_table_fails_the_topic_and_keeps_its_edge():
    recs = records(record(CUSTOMERS))
    plan, _ = plan_for(
        recs, {EDGE.key: emitted_state(recs)}, tables={TableRef("lakehouse", "customers"): None}
    )
    assert plan.actions == ()
    assert [f.as_dict() for f in plan.failed] == [
        {
            "registryName": "cdc",
            "topic": CUSTOMERS,
            "table": "lakehouse/customers",
            "error": "Glue table lakehouse/customers does not exist in the Data Catalog",
        }
    ]


def test_a_topic_that_lost_its_table_is_unmapped_and_its_edge_retracted():
    # Given customers was emitted under a rule that no longer matches it
    recs = records(record(CUSTOMERS))
    state = {EDGE.key: emitted_state(recs)}
    config = settings(source(tableRule={"database": "lakehouse", "match": "^nothing$", "table": "x"}))
    plan, _ = plan_for(recs, state, config=config)
    assert plan.unmapped == (KEY,)
    (action,) = plan.actions
    assert isinstance(action, Retract)
    assert action.describe() == {
        "action": "retract",
        "registryName": "cdc",
        "topic": CUSTOMERS,
        "table": "lakehouse/customers",
        "origin": "rule",
        "reason": "unmapped",
    }


def test_an_unmapped_topic_without_state_is_only_reported():
    plan, _ = plan_for(records(record("__debezium-heartbeat.dbserver1")))
    assert plan.unmapped == (TopicKey("cdc", "__debezium-heartbeat.dbserver1"),)
    assert plan.actions == ()


def test_a_deleted_schema_is_retracted_within_the_fail_safe():
    # Given two emitted topics, one of whose schemas is gone
    recs = records(record(CUSTOMERS), record(ORDERS))
    states = {
        EDGE.key: emitted_state(recs),
        ORDERS_EDGE.key: emitted_state(recs, TopicKey("cdc", ORDERS)),
    }
    remaining = records(record(ORDERS))
    # Then a scheduled run retracts it: 1 of 2 edges is not more than half
    plan, _ = plan_for(remaining, states)
    assert [(type(a).__name__, a.key.topic.topic) for a in plan.actions] == [("Retract", CUSTOMERS)]
    # But with every schema gone (an empty mapping looks the same) nothing is retracted, and it is reported
    plan, _ = plan_for({}, states)
    assert plan.actions == ()
    assert len(plan.held_back) == 2
    assert all("allowMassDelete" in f.error for f in plan.failed)
    # Unless the request allows it
    plan, _ = plan_for({}, states, scope=EmitScope(allow_mass_delete=True))
    assert len(plan.actions) == 2


def test_an_event_for_a_deleted_schema_always_retracts():
    recs = records(record(CUSTOMERS))
    scope = EmitScope(mode="event", topics=(TopicSelector(CUSTOMERS, "cdc"),))
    plan, _ = plan_for({}, {EDGE.key: emitted_state(recs)}, scope=scope)
    (action,) = plan.actions
    assert isinstance(action, Retract)
    assert action.reason == "schema deleted"


def test_topic_selection_by_name_needs_the_registry_only_when_ambiguous():
    config = settings(source("cdc"), source("erp"))
    recs = records(record(CUSTOMERS, "cdc"), record(CUSTOMERS, "erp"), record(ORDERS, "cdc"))
    scope = EmitScope(
        mode="topics",
        topics=(
            TopicSelector(ORDERS),
            TopicSelector(CUSTOMERS),
            TopicSelector("nope"),
            TopicSelector(CUSTOMERS, "erp"),
        ),
    )
    selection = select(scope, recs, {}, ["cdc", "erp"])
    assert selection.keys == (TopicKey("cdc", ORDERS), TopicKey("erp", CUSTOMERS))
    errors = {f.key.topic: f.error for f in selection.failed}
    assert "several registries (cdc, erp)" in errors[CUSTOMERS]
    assert errors["nope"] == "no mirrored schema of that name"
    plan, _ = plan_for(recs, scope=scope, config=config)
    assert {a.key.topic for a in plan.actions} == {TopicKey("cdc", ORDERS), TopicKey("erp", CUSTOMERS)}


def test_a_dry_run_plan_describes_its_actions():
    recs = records(record(CUSTOMERS))
    plan, _ = plan_for(recs, scope=EmitScope(dry_run=True))
    assert plan.describe() == [
        {
            "action": "emit",
            "registryName": "cdc",
            "topic": CUSTOMERS,
            "table": "lakehouse/customers",
            "job": "kafka-iceberg-sink/sink/lakehouse.customers",
            "reason": "new",
            "origin": "rule",
            "replaces": None,
        }
    ]


def test_an_unreadable_database_or_state_fails_only_its_topics():
    recs = records(record(CUSTOMERS), record(ORDERS))
    scope = EmitScope()
    config = settings()
    resolution = resolve(recs.values(), config, [], [])
    selection = select(scope, recs, {}, ["cdc"])
    tables: dict[TableRef, GlueTable | None] = {
        ref: table(ref.table, "id") for ref in tables_needed(selection, resolution)
    }
    plan = make_plan(
        scope, selection, resolution, TableReads(tables, {"lakehouse": "AccessDenied"}), loaded({}), 0.5
    )
    assert plan.actions == ()
    assert {f.error for f in plan.failed} == {"reading Glue database lakehouse failed: AccessDenied"}
    plan = make_plan(scope, selection, resolution, TableReads(tables), loaded({}, (EDGE.key,)), 0.5)
    assert [a.key for a in plan.actions] == [ORDERS_EDGE]
    assert [f.key for f in plan.failed] == [KEY]


def test_a_topic_with_conflicting_mappings_fails_and_keeps_its_edge():
    # Given an emitted topic, and two operator mappings that send it to different tables
    recs = records(record(CUSTOMERS))
    states = {EDGE.key: emitted_state(recs)}
    mappings = [
        ExplicitMapping(
            f"/kafka-lineage/table-mappings/{name}", CUSTOMERS, TableRef("lakehouse", name), None, True
        )
        for name in ("a", "b")
    ]
    config = settings()
    resolution = resolve(recs.values(), config, mappings, [])
    selection = select(EmitScope(), recs, states, ["cdc"])
    # When the plan is made
    plan = make_plan(EmitScope(), selection, resolution, TableReads(), loaded(states), 0.5)
    # Then the topic fails with the conflict, and its edge is neither emitted nor retracted
    assert plan.actions == ()
    assert [f.key for f in plan.failed] == [KEY]
    assert "conflicting explicit table mappings" in plan.failed[0].error


def test_a_topic_whose_registry_is_no_longer_configured_is_left_untouched():
    # Given an emitted topic of registry "old", which the settings no longer name, asked for by name
    recs = records(record(CUSTOMERS, registry="old"))
    key = TopicKey("old", CUSTOMERS)
    edge = EdgeKey.sink(key, TableRef("lakehouse", "customers"))
    states = {edge.key: LineageState(run_id="r1", event_time="2025-03-14T09:15:02.123Z", table="customers")}
    scope = EmitScope(mode="topics", topics=(TopicSelector(CUSTOMERS, "old"),))
    # When the plan is made
    plan, resolution = plan_for(recs, states=states, scope=scope)
    # Then nothing is emitted, retracted or failed for it: its state stays as it is
    assert resolution.unconfigured == (key,)
    assert (plan.actions, plan.failed, plan.unchanged, plan.unmapped) == ((), (), (), ())
