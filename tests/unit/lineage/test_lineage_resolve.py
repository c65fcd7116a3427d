"""Topic -> table resolution: explicit mappings (operator over stack), then the tableRule, else unmapped."""

from __future__ import annotations

import json

from kafka_lineage.lineage.model import TableRef, TopicKey
from kafka_lineage.lineage.resolve import MappingParameter, parse_mappings, resolve
from tests.unit.lineage.lineage_builders import record, settings, source

PATH = "/kafka-lineage/table-mappings"


def param(name: str, **value: str) -> MappingParameter:
    return MappingParameter(f"{PATH}/{name}", json.dumps(value))


def run(parameters: list[MappingParameter], *topics: str, registry: str = "cdc", config=None):
    mappings, invalid = parse_mappings(parameters, PATH)
    return resolve([record(t, registry) for t in topics], config or settings(), mappings, invalid)


def test_rule_maps_a_matching_topic_lower_cased():
    # Given the source's rule and a topic whose table part has capitals
    resolution = run([], "dbserver1.inventory.Customers")
    # Then the topic feeds lakehouse/customers, by the rule
    target = resolution.targets[TopicKey("cdc", "dbserver1.inventory.Customers")]
    assert target.table == TableRef("lakehouse", "customers")
    assert target.origin == "rule"
    assert resolution.unmapped == ()


def test_a_topic_no_rule_matches_is_unmapped_not_dropped():
    # Given the Debezium heartbeat topic, which the rule does not match
    resolution = run([], "__debezium-heartbeat.dbserver1", "dbserver1.inventory.orders")
    # Then it is reported unmapped and the other topic still maps
    assert resolution.unmapped == (TopicKey("cdc", "__debezium-heartbeat.dbserver1"),)
    assert TopicKey("cdc", "dbserver1.inventory.orders") in resolution.targets


def test_operator_mapping_beats_the_stacks_which_beats_the_rule():
    topic = "dbserver1.inventory.orders"
    stack = param("cdk/orders", topic=topic, database="stackdb", table="orders_stack")
    operator = param("team-a/orders", topic=topic, database="Opsdb", table="Orders_Ops")
    # Given both mappings: the operator's wins, lower-cased
    target = run([stack, operator], topic).targets[TopicKey("cdc", topic)]
    assert (target.table, target.origin, target.mapping and target.mapping.parameter) == (
        TableRef("opsdb", "orders_ops"),
        "operator",
        f"{PATH}/team-a/orders",
    )
    # Given only the stack's: it beats the rule
    target = run([stack], topic).targets[TopicKey("cdc", topic)]
    assert (target.table, target.origin) == (TableRef("stackdb", "orders_stack"), "stack")


def test_registry_specific_mapping_beats_a_generic_one_in_the_same_tier():
    topic = "shared.topic"
    config = settings(source("cdc"), source("erp"))
    generic = param("generic", topic=topic, database="db", table="generic")
    specific = param("specific", topic=topic, database="db", table="erp_only", registryName="erp")
    mappings, invalid = parse_mappings([generic, specific], PATH)
    resolution = resolve([record(topic, "cdc"), record(topic, "erp")], config, mappings, invalid)
    assert resolution.targets[TopicKey("cdc", topic)].table == TableRef("db", "generic")
    assert resolution.targets[TopicKey("erp", topic)].table == TableRef("db", "erp_only")


def test_an_operators_generic_mapping_beats_the_stacks_specific_one():
    topic = "dbserver1.inventory.orders"
    stack = param("cdk/orders", topic=topic, database="db", table="stack", registryName="cdc")
    operator = param("ops/orders", topic=topic, database="db", table="ops")
    assert run([stack, operator], topic).targets[TopicKey("cdc", topic)].table == TableRef("db", "ops")


def test_conflicting_mappings_fail_the_topic_and_are_both_reported():
    topic = "dbserver1.inventory.orders"
    one = param("a/orders", topic=topic, database="db", table="one")
    two = param("b/orders", topic=topic, database="db", table="two")
    resolution = run([one, two], topic, "dbserver1.inventory.customers")
    # Then the topic fails (no silent pick), both mappings are invalid, and the other topic proceeds
    assert [p.key for p in resolution.failed] == [TopicKey("cdc", topic)]
    assert "a/orders -> db/one" in resolution.failed[0].error
    assert {i.parameter for i in resolution.invalid_mappings} == {f"{PATH}/a/orders", f"{PATH}/b/orders"}
    assert TopicKey("cdc", "dbserver1.inventory.customers") in resolution.targets


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
    assert resolution.targets[TopicKey("cdc", topic)].origin == "rule"


def test_weird_but_valid_names_map_explicitly():
    # Given GSR's full character set and its 255-character limit
    topic = "__debezium-heartbeat.$srv#1-" + "x" * 227
    registry = "cdc.prod-$1#"
    assert len(topic) == 255
    config = settings(source(registry))
    mapping = param("weird", topic=topic, database="lake-house.v2", table="heart_beat", registryName=registry)
    resolution = run([mapping], topic, registry=registry, config=config)
    assert resolution.targets[TopicKey(registry, topic)].table == TableRef("lake-house.v2", "heart_beat")


def test_records_of_an_unconfigured_registry_are_left_alone():
    resolution = resolve([record("dbserver1.inventory.orders", "gone")], settings(), [], [])
    assert resolution.unconfigured == (TopicKey("gone", "dbserver1.inventory.orders"),)
    assert not resolution.targets
    assert not resolution.unmapped
