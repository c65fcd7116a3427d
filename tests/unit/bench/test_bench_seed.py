"""The benchmark's topics: deterministic, valid for the registry, realistic, and consistent with the naming
rule the project's lineage applies."""

from __future__ import annotations

from collections import Counter

from bench import seed
from kafka_lineage.config import TableRule
from kafka_lineage.model.names import GLUE_REGISTRY_NAME as GLUE_SCHEMA_NAME
from local.debezium import synthetic_columns


def test_the_same_size_and_seed_give_the_same_topics() -> None:
    assert seed.topics(300, seed=3) == seed.topics(300, seed=3)
    assert seed.topics(300, seed=3) != seed.topics(300, seed=4)
    # A larger world starts with the smaller one's names, so runs of different N share their prefix
    assert [t.name for t in seed.topics(1000)][:300] == [t.name for t in seed.topics(300)]


def test_names_are_unique_valid_registry_names_including_awkward_ones() -> None:
    topics = seed.topics(1000)
    names = [t.name for t in topics]

    assert len(set(names)) == len(names)
    assert all(GLUE_SCHEMA_NAME.fullmatch(name) for name in names)
    awkward = [t.name for t in topics if not t.database]
    assert len(awkward) == 1000 // seed.AWKWARD_EVERY
    assert any(name.startswith("__debezium-heartbeat.") for name in awkward)
    assert any("$" in name and "#" in name for name in awkward)
    assert any(len(name) == 255 for name in awkward)


def test_formats_and_widths_are_mixed() -> None:
    topics = seed.topics(2000)

    formats = Counter(t.data_format for t in topics)
    widths = [t.n_fields for t in topics]

    assert set(formats) == {"AVRO", "JSON", "PROTOBUF"}
    assert formats["AVRO"] > formats["JSON"] > formats["PROTOBUF"]
    assert min(widths) >= 5
    assert max(widths) <= 400
    assert sorted(widths)[len(widths) // 2] <= 40  # most tables are narrow
    assert any(width > 120 for width in widths)  # a wide tail


def test_glue_tables_follow_the_projects_table_rule() -> None:
    # Given the tableRule the benchmark configures, as the project's settings model reads it
    rule = TableRule(**seed.TABLE_RULE)

    # Then every topic maps to the table the seed creates for it, and awkward names map to none
    for topic in seed.topics(500):
        expected = (seed.GLUE_DATABASE, topic.glue_table) if topic.glue_table else None
        assert rule.table_for(topic.name) == expected, topic.name


def test_one_percent_get_a_new_version_spread_over_the_registry() -> None:
    topics = seed.topics(1000)

    evolved = seed.new_version_share(topics)

    assert len(evolved) == 10
    assert len(set(evolved)) == 10
    positions = [topics.index(t) for t in evolved]
    assert positions == sorted(positions)
    assert positions[-1] >= 900  # spread to the end, not bunched at the start
    assert len(seed.new_version_share(topics[:30])) == 1  # at least one
    assert seed.new_version_share([]) == []


def test_a_new_version_adds_one_column_to_the_definition_and_the_table() -> None:
    topic = seed.Topic("dbserver1.shop01.orders_00001", "AVRO", 12, "shop01")

    assert topic.definition(extra_fields=1) != topic.definition()
    assert len(seed.table_columns(topic, extra_fields=1)) == len(seed.table_columns(topic)) + 1
    assert [c["Name"] for c in seed.table_columns(topic)] == [c.name for c in synthetic_columns(12)]


def test_glue_types_follow_debezium_semantics() -> None:
    columns = {c.name: seed.glue_type(c) for c in synthetic_columns(21)}

    assert columns["id"] == "bigint"
    assert columns["status_2"] == "string"
    assert columns["active_4"] == "boolean"
    assert columns["level_10"] == "smallint"
    assert columns["created_at_12"] == "timestamp"
    assert columns["amount_19"] == "decimal(12,2)"
