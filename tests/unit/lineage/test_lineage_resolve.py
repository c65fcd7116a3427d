"""Topic -> edges: an operator's mapping, else connector-derived edges, else the stack's mapping, else the
tableRule, else unmapped; first hops from source connectors; what the connectors leave open, reported."""

from __future__ import annotations

import json

from kafka_lineage.lineage.resolve import FirstHop, Resolution, Target, parse_mappings, resolve
from kafka_lineage.model.connectors import ConnectorNote, Derivation
from kafka_lineage.model.table_mapping import MappingParameter
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey
from tests.unit.lineage.lineage_builders import derivation, record, settings, sink_edge, source, source_edge

PATH = "/kafka-lineage/table-mappings"


def param(name: str, **value: str) -> MappingParameter:
    return MappingParameter(f"{PATH}/{name}", json.dumps(value))


def run(parameters: list[MappingParameter], *topics: str, registry: str = "cdc", config=None):
    mappings, invalid = parse_mappings(parameters, PATH)
    return resolve([record(t, registry) for t in topics], config or settings(), mappings, invalid)


def only(resolution: Resolution, key: TopicKey) -> Target:
    """The topic's one sink edge."""
    (target,) = [edge for edge in resolution.edges_of(key) if isinstance(edge, Target)]
    return target


def test_rule_maps_a_matching_topic_lower_cased():
    # Given the source's rule and a topic whose table part has capitals
    resolution = run([], "dbserver1.inventory.Customers")
    # Then the topic feeds lakehouse/customers, by the rule
    target = only(resolution, TopicKey("cdc", "dbserver1.inventory.Customers"))
    assert target.table == TableRef("lakehouse", "customers")
    assert target.origin == "rule"
    assert resolution.unmapped == ()


def test_a_topic_no_rule_matches_is_unmapped_not_dropped():
    # Given the Debezium heartbeat topic, which the rule does not match
    resolution = run([], "__debezium-heartbeat.dbserver1", "dbserver1.inventory.orders")
    # Then it is reported unmapped and the other topic still maps
    assert resolution.unmapped == (TopicKey("cdc", "__debezium-heartbeat.dbserver1"),)
    assert TopicKey("cdc", "dbserver1.inventory.orders") in resolution.by_topic


def test_operator_mapping_beats_the_stacks_which_beats_the_rule():
    topic = "dbserver1.inventory.orders"
    stack = param("cdk/orders", topic=topic, database="stackdb", table="orders_stack")
    operator = param("team-a/orders", topic=topic, database="Opsdb", table="Orders_Ops")
    # Given both mappings: the operator's wins, lower-cased
    target = only(run([stack, operator], topic), TopicKey("cdc", topic))
    assert (target.table, target.origin, target.mapping and target.mapping.parameter) == (
        TableRef("opsdb", "orders_ops"),
        "operator",
        f"{PATH}/team-a/orders",
    )
    # Given only the stack's: it beats the rule
    target = only(run([stack], topic), TopicKey("cdc", topic))
    assert (target.table, target.origin) == (TableRef("stackdb", "orders_stack"), "cdk")


def test_registry_specific_mapping_beats_a_generic_one_in_the_same_tier():
    topic = "shared.topic"
    config = settings(source("cdc"), source("erp"))
    generic = param("generic", topic=topic, database="db", table="generic")
    specific = param("specific", topic=topic, database="db", table="erp_only", registryName="erp")
    mappings, invalid = parse_mappings([generic, specific], PATH)
    resolution = resolve([record(topic, "cdc"), record(topic, "erp")], config, mappings, invalid)
    assert only(resolution, TopicKey("cdc", topic)).table == TableRef("db", "generic")
    assert only(resolution, TopicKey("erp", topic)).table == TableRef("db", "erp_only")


def test_an_operators_generic_mapping_beats_the_stacks_specific_one():
    topic = "dbserver1.inventory.orders"
    stack = param("cdk/orders", topic=topic, database="db", table="stack", registryName="cdc")
    operator = param("ops/orders", topic=topic, database="db", table="ops")
    assert only(run([stack, operator], topic), TopicKey("cdc", topic)).table == TableRef("db", "ops")


def test_conflicting_mappings_fail_the_topic_and_are_both_reported():
    topic = "dbserver1.inventory.orders"
    one = param("a/orders", topic=topic, database="db", table="one")
    two = param("b/orders", topic=topic, database="db", table="two")
    resolution = run([one, two], topic, "dbserver1.inventory.customers")
    # Then the topic fails (no silent pick), both mappings are invalid, and the other topic proceeds
    assert [p.key for p in resolution.failed] == [TopicKey("cdc", topic)]
    assert "a/orders -> db/one" in resolution.failed[0].error
    assert {i.parameter for i in resolution.invalid_mappings} == {f"{PATH}/a/orders", f"{PATH}/b/orders"}
    assert TopicKey("cdc", "dbserver1.inventory.customers") in resolution.by_topic


def test_agreeing_duplicates_are_not_a_conflict():
    topic = "dbserver1.inventory.orders"
    one = param("a/orders", topic=topic, database="db", table="same")
    two = param("b/orders", topic=topic, database="DB", table="SAME")
    resolution = run([one, two], topic)
    assert resolution.failed == ()
    assert resolution.invalid_mappings == ()


def test_invalid_mappings_are_reported_with_their_parameter_and_skipped():
    topic = "dbserver1.inventory.orders"
    parameters = [
        MappingParameter(f"{PATH}/not-json", "{oops"),
        MappingParameter(f"{PATH}/missing", json.dumps({"topic": topic, "database": "db"})),
        MappingParameter(
            f"{PATH}/extra", json.dumps({"topic": topic, "database": "db", "table": "t", "x": 1})
        ),
        MappingParameter(
            f"{PATH}/bad-db", json.dumps({"topic": topic, "database": "has space", "table": "t"})
        ),
        MappingParameter(f"{PATH}/bad-topic", json.dumps({"topic": "a/b", "database": "db", "table": "t"})),
        MappingParameter(
            f"{PATH}/secret", json.dumps({"topic": topic, "database": "db", "table": "t"}), "SecureString"
        ),
        MappingParameter(f"{PATH}/list", "a,b", "StringList"),
    ]
    resolution = run(parameters, topic)
    errors = {i.parameter.rsplit("/", 1)[1]: i.error for i in resolution.invalid_mappings}
    assert set(errors) == {"not-json", "missing", "extra", "bad-db", "bad-topic", "secret", "list"}
    assert "not JSON" in errors["not-json"]
    assert "table" in errors["missing"]
    assert "String parameter" in errors["secret"]
    # And the topic falls back to the rule
    assert only(resolution, TopicKey("cdc", topic)).origin == "rule"


def test_weird_but_valid_names_map_explicitly():
    # Given GSR's full character set and its 255-character limit
    topic = "__debezium-heartbeat.$srv#1-" + "x" * 227
    registry = "cdc.prod-$1#"
    assert len(topic) == 255
    config = settings(source(registry))
    mapping = param("weird", topic=topic, database="lake-house.v2", table="heart_beat", registryName=registry)
    resolution = run([mapping], topic, registry=registry, config=config)
    assert only(resolution, TopicKey(registry, topic)).table == TableRef("lake-house.v2", "heart_beat")


def test_records_of_an_unconfigured_registry_are_left_alone():
    resolution = resolve([record("dbserver1.inventory.orders", "gone")], settings(), [], [])
    assert resolution.unconfigured == (TopicKey("gone", "dbserver1.inventory.orders"),)
    assert not resolution.edges
    assert not resolution.unmapped


ORDERS = "dbserver1.inventory.orders"
ORDERS_KEY = TopicKey("cdc", ORDERS)


def derived(parameters: list[MappingParameter], found: Derivation, *topics: str) -> Resolution:
    mappings, invalid = parse_mappings(parameters, PATH)
    return resolve([record(t) for t in topics], settings(), mappings, invalid, found)


def test_connector_edges_alone_give_the_sink_edges_and_the_first_hop():
    # Given no mapping, no rule, and connectors: a Debezium source and two Iceberg sinks reading the topic
    config = settings(source(tableRule=None))
    found = derivation(
        sink_edge(ORDERS, "orders", "iceberg-sink"),
        sink_edge(ORDERS, "orders_archive", "archive-sink", database="archive"),
        source_edge(ORDERS, "inventory.orders"),
    )
    resolution = resolve([record(ORDERS)], config, [], [], found)
    # Then the topic feeds both tables, each its own edge from its own connector, and has its first hop
    sinks = [e for e in resolution.edges_of(ORDERS_KEY) if isinstance(e, Target)]
    assert [(e.table.name, e.origin) for e in sinks] == [
        ("archive/orders_archive", "connector:archive-sink"),
        ("lakehouse/orders", "connector:iceberg-sink"),
    ]
    (hop,) = [e for e in resolution.edges_of(ORDERS_KEY) if isinstance(e, FirstHop)]
    assert (hop.edge.kind, hop.edge.other, hop.origin) == (
        "source",
        "mysql://mysql.internal:3306/inventory.orders",
        "connector:inventory-source",
    )
    assert resolution.tables_of(ORDERS_KEY) == (
        TableRef("archive", "orders_archive"),
        TableRef("lakehouse", "orders"),
    )
    assert resolution.unmapped == ()


def test_an_operator_mapping_replaces_the_derived_sink_edges_but_not_the_first_hop():
    operator = param("team/orders", topic=ORDERS, database="analytics", table="orders_enriched")
    found = derivation(sink_edge(ORDERS, "orders"), source_edge(ORDERS, "inventory.orders"))
    resolution = derived([operator], found, ORDERS)
    assert [(e.edge.kind, e.origin) for e in resolution.edges_of(ORDERS_KEY)] == [
        ("sink", "operator"),
        ("source", "connector:inventory-source"),
    ]
    assert resolution.tables_of(ORDERS_KEY) == (TableRef("analytics", "orders_enriched"),)


def test_connector_edges_come_before_the_stacks_mapping_which_comes_before_the_rule():
    stack = param("cdk/orders", topic=ORDERS, database="stackdb", table="orders_stack")
    # Given a sink connector and a stack mapping: the connector decides
    with_connector = derived([stack], derivation(sink_edge(ORDERS, "orders_iceberg")), ORDERS)
    assert [(t.table.table, t.origin) for t in with_connector.targets.values()] == [
        ("orders_iceberg", "connector:iceberg-sink")
    ]
    # Given no connector for the topic: the stack's mapping, then the rule
    assert only(derived([stack], derivation(), ORDERS), ORDERS_KEY).origin == "cdk"
    assert only(derived([], derivation(), ORDERS), ORDERS_KEY).origin == "rule"


def test_undetermined_and_ambiguous_topics_are_reported_and_fall_through_to_the_next_tier():
    # Given a dynamic-routing sink (table unknowable) and a multi-table sink that cannot pair a topic
    notes = (
        ConnectorNote(
            "undetermined", "dynamic-sink", "iceberg.tables.dynamic-enabled: route field", ORDERS_KEY
        ),
        ConnectorNote(
            "ambiguous",
            "multi-sink",
            "2 tables and no route-regex",
            TopicKey("cdc", "dbserver1.inventory.customers"),
        ),
    )
    resolution = derived([], derivation(notes=notes), ORDERS, "dbserver1.inventory.customers")
    # Then both are reported with their reason, never guessed, and the rule still maps them
    assert [i.as_dict() for i in resolution.undetermined] == [
        {"registryName": "cdc", "topic": ORDERS, "connector": "dynamic-sink",
         "reason": "iceberg.tables.dynamic-enabled: route field"}
    ]  # fmt: skip
    assert [i.key.topic for i in resolution.ambiguous] == ["dbserver1.inventory.customers"]
    assert only(resolution, ORDERS_KEY).origin == "rule"


def test_two_sinks_writing_one_table_are_one_edge():
    found = derivation(sink_edge(ORDERS, "orders", "b-sink"), sink_edge(ORDERS, "orders", "a-sink"))
    assert only(derived([], found, ORDERS), ORDERS_KEY).origin == "connector:a-sink"


def test_unreadable_connectors_are_kept_not_retracted():
    note = ConnectorNote("unreadable", "broken-sink", "AccessDenied")
    resolution = derived([], derivation(notes=(note,)), ORDERS)
    assert resolution.keeps("connector:broken-sink")
    assert not resolution.keeps("connector:other")
    assert not resolution.keeps("rule")
    assert resolution.connector_errors == ("connector broken-sink: AccessDenied",)
    listing_failed = derived([], derivation(read_ok=False), ORDERS)
    assert listing_failed.keeps("connector:anything")
