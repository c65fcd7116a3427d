"""Edges: a topic feeding several tables, first hops, precedence, connector edges retracted or kept, and the
per-topic state of earlier releases carried over (plan + apply + state, in memory)."""

from __future__ import annotations

import json

from kafka_lineage.lineage.model import EdgeKey, LineageState, load_states, state_entries
from kafka_lineage.lineage.plan import Emit, Retract
from kafka_lineage.lineage.resolve import parse_mappings
from kafka_lineage.model.connectors import ConnectorNote
from kafka_lineage.model.table_mapping import MappingParameter
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey
from tests.unit.lineage.lineage_builders import (
    MYSQL,
    derivation,
    record,
    records,
    settings,
    sink_edge,
    source,
    source_edge,
    table,
)
from tests.unit.lineage.test_lineage_apply import World

ORDERS = "dbserver1.inventory.orders"
TOPIC = TopicKey("cdc", ORDERS)
ICEBERG = EdgeKey.sink(TOPIC, TableRef("lakehouse", "orders"))
ARCHIVE = EdgeKey.sink(TOPIC, TableRef("archive", "orders"))
RULE_TABLE = EdgeKey.sink(TOPIC, TableRef("lakehouse", "orders_by_rule"))
HOP = EdgeKey.source(TOPIC, MYSQL, "inventory.orders")
NO_RULE = settings(source(tableRule=None))
RULE = settings(
    source(
        tableRule={
            "database": "lakehouse",
            "match": r"^dbserver1\.inventory\.(?P<t>[^.]+)$",
            "table": "{t}_by_rule",
        }
    )
)


def world() -> World:
    w = World()
    w.tables["orders"] = table("orders", "id", "order_date", "purchaser")
    w.tables["orders_by_rule"] = table("orders_by_rule", "id", database="lakehouse")
    w.tables["archive/orders"] = table("orders", "id", "order_date", database="archive")
    return w


def live_edges(w: World) -> set[tuple[str, str, str]]:
    """(input, output, job) of every event DataZone holds."""
    found = set()
    for stored in w.lineage.events.values():
        event = stored.event
        for inp in event["inputs"]:
            for out in event["outputs"]:
                found.add((inp["name"], out["name"], event["job"]["name"]))
    return found


def test_connector_config_alone_gives_the_first_hop_and_a_topic_feeding_two_tables_through_two_sinks():
    # Given no mapping and no rule: a Debezium source and two Iceberg sinks (two tables) for the topic
    w = world()
    found = derivation(
        source_edge(ORDERS, "inventory.orders"),
        sink_edge(ORDERS, "orders", "iceberg-sink"),
        sink_edge(ORDERS, "orders", "archive-sink", database="archive"),
    )
    # When lineage runs
    plan, _ = w.run(records(record(ORDERS)), found=found, config=NO_RULE)
    # Then three edges, each its own run and state entry, each decided by its connector
    assert sorted(a.key for a in plan.actions) == sorted([ICEBERG, ARCHIVE, HOP])
    assert set(w.states) == {ICEBERG.key, ARCHIVE.key, HOP.key}
    assert {w.states[k.key].origin for k in (ICEBERG, ARCHIVE)} == {
        "connector:iceberg-sink",
        "connector:archive-sink",
    }
    assert len(w.lineage.runs()) == 3
    assert live_edges(w) == {
        ("inventory.orders", ORDERS, "inventory-source"),
        (ORDERS, "lakehouse/orders", "iceberg-sink"),
        (ORDERS, "archive/orders", "archive-sink"),
    }
    # And the first hop maps each source column to the topic's after.<column>
    (hop_event,) = [
        s.event for s in w.lineage.events.values() if s.event["inputs"][0]["name"] == "inventory.orders"
    ][-1:]
    assert hop_event["inputs"][0]["namespace"] == MYSQL
    lineage = hop_event["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert lineage["after.purchaser"]["inputFields"][0]["field"] == "purchaser"
    # And a rerun has nothing to do
    plan, outcomes = w.run(records(record(ORDERS)), found=found, config=NO_RULE)
    assert (len(plan.unchanged), outcomes) == (3, {})


def test_a_removed_sink_connector_retracts_only_its_edge():
    w = world()
    both = derivation(
        sink_edge(ORDERS, "orders", "iceberg-sink"),
        sink_edge(ORDERS, "orders", "archive-sink", database="archive"),
    )
    w.run(records(record(ORDERS)), found=both, config=NO_RULE)
    # When the archive sink is deleted
    plan, _ = w.run(
        records(record(ORDERS)), found=derivation(sink_edge(ORDERS, "orders", "iceberg-sink")), config=NO_RULE
    )
    # Then its edge is retracted (the topic still feeds the other table) and no ghost is left
    (retract,) = plan.actions
    assert isinstance(retract, Retract)
    assert (retract.key, retract.reason) == (ARCHIVE, "edge removed")
    assert set(w.states) == {ICEBERG.key}
    assert live_edges(w) == {(ORDERS, "lakehouse/orders", "iceberg-sink")}


def test_a_reconfigured_connector_moves_the_edge_like_a_remap_later_than_the_edge_it_replaces():
    w = world()
    w.run(
        records(record(ORDERS)),
        found=derivation(sink_edge(ORDERS, "orders", "archive-sink", database="archive")),
        config=RULE,
    )
    old = w.states[ARCHIVE.key]
    # When the sink is reconfigured to write lakehouse.orders instead
    plan, outcomes = w.run(
        records(record(ORDERS)), found=derivation(sink_edge(ORDERS, "orders", "archive-sink")), config=RULE
    )
    # Then one action: the new edge takes the old one over (posts, then deletes it), strictly later in time
    (emit,) = plan.actions
    assert isinstance(emit, Emit)
    assert [key for key, _ in emit.replaces] == [ARCHIVE]
    assert set(w.states) == {ICEBERG.key}
    assert w.states[ICEBERG.key].event_time > old.latest_event_time
    assert outcomes[ORDERS].report["previousTable"] == "archive/orders"
    assert live_edges(w) == {(ORDERS, "lakehouse/orders", "archive-sink")}


def test_precedence_operator_then_connector_then_rule():
    w = world()
    recs = records(record(ORDERS))
    found = derivation(sink_edge(ORDERS, "orders"), source_edge(ORDERS, "inventory.orders"))
    # Given the connector and the rule: the connector's table
    w.run(recs, found=found, config=RULE)
    assert set(w.states) == {ICEBERG.key, HOP.key}
    # When an operator maps the topic: it replaces the derived sink edge, the first hop stays
    operator = MappingParameter(
        "/kafka-lineage/table-mappings/team/orders",
        json.dumps({"topic": ORDERS, "database": "lakehouse", "table": "orders_by_rule"}),
    )
    mappings, _ = parse_mappings([operator], "/kafka-lineage/table-mappings")
    w.run(recs, found=found, config=RULE, mappings=mappings)
    assert set(w.states) == {RULE_TABLE.key, HOP.key}
    assert w.states[RULE_TABLE.key].origin == "operator"
    # When the mapping and the connectors are gone: the rule's table, and the first hop retracted
    w.run(recs, found=derivation(), config=RULE)
    assert set(w.states) == {RULE_TABLE.key}
    assert w.states[RULE_TABLE.key].origin == "rule"
    assert {e[2] for e in live_edges(w)} == {"sink/lakehouse.orders_by_rule"}


def test_unreadable_connectors_keep_their_edges_and_no_lower_tier_replaces_them():
    w = world()
    recs = records(record(ORDERS))
    w.run(
        recs,
        found=derivation(sink_edge(ORDERS, "orders"), source_edge(ORDERS, "inventory.orders")),
        config=RULE,
    )
    before = dict(w.states)
    events = set(w.lineage.events)
    # When the connectors cannot be listed (their absence proves nothing)
    plan, outcomes = w.run(recs, found=derivation(read_ok=False), config=RULE)
    # Then nothing connector-derived is retracted and the rule does not take the topic over
    assert plan.actions == ()
    assert sorted(plan.kept) == sorted([ICEBERG, HOP])
    assert (w.states, set(w.lineage.events), outcomes) == (before, events, {})
    # And the same when only that connector could not be described
    note = ConnectorNote("unreadable", "iceberg-sink", "DescribeConnector: AccessDeniedException")
    plan, _ = w.run(
        recs, found=derivation(source_edge(ORDERS, "inventory.orders"), notes=(note,)), config=RULE
    )
    assert plan.actions == ()
    assert plan.kept == (ICEBERG,)


def test_ambiguous_and_undetermined_topics_fall_through_and_are_not_guessed():
    w = world()
    note = ConnectorNote("undetermined", "dynamic-sink", "iceberg.tables.dynamic-enabled", TOPIC)
    plan, _ = w.run(records(record(ORDERS)), found=derivation(notes=(note,)), config=RULE)
    assert [a.key for a in plan.actions] == [RULE_TABLE]
    plan, _ = w.run(records(record(ORDERS)), found=derivation(notes=(note,)), config=NO_RULE)
    assert plan.unmapped == (TOPIC,)


def test_state_of_the_per_topic_layout_carries_over_without_a_new_run_or_a_ghost():
    # Given the state a per-topic release left for a topic (keyed by the topic, table in `tb`), its run live
    w = world()
    recs = records(record(ORDERS))
    w.run(recs, found=derivation(), config=RULE)
    current = w.states.pop(RULE_TABLE.key)
    entries = state_entries(TOPIC.key, LineageState(
        fingerprint=current.fingerprint, run_id=current.run_id, event_time=current.event_time,
        event_ids=current.event_ids, table=current.table,
    ))  # fmt: skip
    loaded = load_states(entries)
    w.states, w.migrated = dict(loaded.states), loaded.migrated
    posts = len(w.lineage.posts)
    # When the per-edge release runs
    plan, outcomes = w.run(recs, found=derivation(), config=RULE)
    # Then the entry is rewritten under the edge's key, nothing posted or deleted, one run in DataZone
    assert [(a.key, a.reason) for a in plan.actions if isinstance(a, Emit)] == [(RULE_TABLE, "migrate")]
    assert outcomes[ORDERS].kind == "migrated"
    assert (len(w.lineage.posts), w.lineage.deletes) == (posts, [])
    assert w.states[RULE_TABLE.key].run_id == current.run_id
    assert w.states[RULE_TABLE.key].origin == "rule"
    assert list(w.lineage.runs()) == [current.run_id]
    # And a second run does nothing at all
    plan, outcomes = w.run(recs, found=derivation(), config=RULE)
    assert (plan.actions, outcomes) == ((), {})


def test_an_old_entry_remapped_by_a_connector_is_replaced_and_deleted():
    w = world()
    recs = records(record(ORDERS))
    w.run(recs, found=derivation(), config=RULE)
    current = w.states.pop(RULE_TABLE.key)
    legacy = LineageState(
        fingerprint=current.fingerprint, run_id=current.run_id, event_time=current.event_time,
        event_ids=current.event_ids, table=current.table,
    )  # fmt: skip
    w.states = dict(load_states(state_entries(TOPIC.key, legacy)).states)
    # When a sink connector now routes the topic to another table
    plan, _ = w.run(recs, found=derivation(sink_edge(ORDERS, "orders")), config=RULE)
    (emit,) = plan.actions
    assert isinstance(emit, Emit)
    assert [key for key, _ in emit.replaces] == [RULE_TABLE]
    # Then the old run is gone and only the connector's edge is left, in state and in DataZone
    assert set(w.states) == {ICEBERG.key}
    assert current.run_id not in w.lineage.runs()
    assert live_edges(w) == {(ORDERS, "lakehouse/orders", "iceberg-sink")}


def test_a_crash_before_the_state_is_saved_converges_with_no_duplicate_and_no_ghost():
    # Given the topic feeds the archive through a sink, then the sink is reconfigured and a second sink added
    w = world()
    recs = records(record(ORDERS))
    w.run(
        recs,
        found=derivation(sink_edge(ORDERS, "orders", "archive-sink", database="archive")),
        config=NO_RULE,
    )
    moved = derivation(
        sink_edge(ORDERS, "orders", "archive-sink"),
        sink_edge(ORDERS, "orders", "second-sink", database="archive"),
        source_edge(ORDERS, "inventory.orders"),
    )
    saved = dict(w.states)
    # When the run posts and deletes but dies before any state is saved
    w.run(recs, found=moved, config=NO_RULE)
    w.states = saved
    # And the next run starts from the state as it was
    w.run(recs, found=moved, config=NO_RULE)
    # Then every edge has exactly one run in DataZone, the moved edge none, and the state names them all
    runs = w.lineage.runs()
    assert sorted(runs.values()) == [["START", "COMPLETE"]] * 3
    assert set(runs) == {w.states[k].run_id for k in w.states}
    assert set(w.states) == {ICEBERG.key, ARCHIVE.key, HOP.key}
    assert live_edges(w) == {
        ("inventory.orders", ORDERS, "inventory-source"),
        (ORDERS, "lakehouse/orders", "archive-sink"),
        (ORDERS, "archive/orders", "second-sink"),
    }
    # And a third run has nothing left to do
    plan, _ = w.run(recs, found=moved, config=NO_RULE)
    assert plan.actions == ()
