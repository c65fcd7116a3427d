"""Iceberg sink connectors: which topic feeds which Glue table, decided by the configuration alone."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_lineage.config import Source
from kafka_lineage.connectors import derive
from kafka_lineage.model.connectors import ConnectorConfig, ConnectorReads
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/orders-cluster/11111111-2222"
OTHER_CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/other/33333333-4444"
APACHE = "org.apache.iceberg.connect.IcebergSinkConnector"
TABULAR = "io.tabular.iceberg.connect.IcebergSinkConnector"
GLUE = {"iceberg.catalog.catalog-impl": "org.apache.iceberg.aws.glue.GlueCatalog"}


def source(registry: str = "cdc", cluster_arn: str = CLUSTER_ARN, **extra: Any) -> Source:
    return Source.model_validate({"registryName": registry, "clusterArn": cluster_arn, **extra})


def sink(name: str = "lake-sink", cls: str = APACHE, cluster: str = "orders-cluster", **config: str):
    return ConnectorConfig(
        name=name,
        arn=f"arn:aws:kafkaconnect:eu-west-1:123456789012:connector/{name}/abc",
        cluster_name=cluster,
        bootstrap_servers=("b-1.orders:9098",),
        state="RUNNING",
        connector_class=cls,
        config={"connector.class": cls, **GLUE, **config},
    )


def keys(*topics: str, registry: str = "cdc") -> list[TopicKey]:
    return [TopicKey(registry, topic) for topic in topics]


def pairs(derivation) -> set[tuple[str, str]]:
    return {(edge.key.topic, edge.table.name) for edge in derivation.sinks}


@pytest.mark.parametrize("cls", [APACHE, TABULAR])
def test_one_table_is_fed_by_every_listed_topic_for_both_sink_classes(cls):
    # Given a sink of either class listing two topics (with spaces) into one table, one topic unlisted
    connector = sink(
        cls=cls, topics=" inv.shop.orders , inv.shop.refunds", **{"iceberg.tables": "Lake.Orders"}
    )
    # When derived
    derived = derive([connector], keys("inv.shop.orders", "inv.shop.refunds", "inv.shop.other"), [source()])
    # Then each listed topic feeds the table, its names lower-cased as Glue keeps them
    assert pairs(derived) == {("inv.shop.orders", "lake/orders"), ("inv.shop.refunds", "lake/orders")}
    edge = derived.sinks[0]
    assert (edge.job_namespace, edge.job_name, edge.connector) == (
        "kafka-connect://orders-cluster",
        "lake-sink",
        "lake-sink",
    )
    assert edge.connector_arn.endswith("connector/lake-sink/abc")
    assert derived.notes == ()
    assert derived.read_ok


def test_topics_regex_is_a_java_full_match_against_the_registry_topics():
    # Given topics.regex `inv\.shop\..*` (Kafka subscribes by Pattern.matcher(topic).matches())
    connector = sink(**{"topics.regex": r"inv\.shop\..*", "iceberg.tables": "lake.orders"})
    topics = keys("inv.shop.orders", "xinv.shop.orders", "inv.shop", "inv.shopping.x")
    # Then only the topics the whole pattern matches feed the table (no search, no prefix match)
    assert pairs(derive([connector], topics, [source()])) == {("inv.shop.orders", "lake/orders")}


def test_a_java_only_regex_construct_is_translated_not_misread():
    # Given Java syntax Python's re spells differently: \p{Lower}, a named group, \Q...\E quoting
    connector = sink(**{"topics.regex": r"(?<env>\p{Lower}+)\Q.orders$\E", "iceberg.tables": "lake.orders"})
    topics = keys("prod.orders$", "Prod.orders$", "prod.ordersX", "prod.orders")
    # Then they mean what Java means
    assert pairs(derive([connector], topics, [source()])) == {("prod.orders$", "lake/orders")}


def test_a_regex_python_cannot_match_faithfully_is_reported_unreadable():
    # Given a Java class intersection, which Python's re would read as literal '&' characters
    connector = sink(**{"topics.regex": r"[a-z&&[^x]]+", "iceberg.tables": "lake.orders"})
    derived = derive([connector], keys("abc", "&&"), [source()])
    # Then no edge is guessed and the connector is reported
    assert derived.sinks == ()
    (note,) = derived.notes
    assert (note.kind, note.connector, note.key) == ("unreadable", "lake-sink", None)
    assert "topics.regex" in note.reason
    assert "intersection" in note.reason


def test_several_tables_without_a_route_field_each_get_every_topic():
    # Given two tables and no iceberg.tables.route-field: SinkWriter writes every record to every table
    connector = sink(topics="a,b", **{"iceberg.tables": "lake.t1, lake.t2"})
    # Then each topic feeds both tables: the configuration decides it
    assert pairs(derive([connector], keys("a", "b"), [source()])) == {
        ("a", "lake/t1"),
        ("a", "lake/t2"),
        ("b", "lake/t1"),
        ("b", "lake/t2"),
    }


def test_several_tables_routed_by_a_record_field_are_ambiguous_per_topic():
    # Given static routing by the record field `type` (its values unknowable from the configuration)
    connector = sink(
        topics="events,audit",
        **{
            "iceberg.tables": "lake.events_list,lake.events_create",
            "iceberg.tables.route-field": "type",
            "iceberg.table.lake.events_list.route-regex": "list",
            "iceberg.table.lake.events_create.route-regex": "create",
        },
    )
    derived = derive([connector], keys("events", "audit"), [source()])
    # Then nothing is guessed: one ambiguous note per topic, naming the field and the tables
    assert derived.sinks == ()
    assert [(n.kind, n.key) for n in derived.notes] == [
        ("ambiguous", TopicKey("cdc", "audit")),
        ("ambiguous", TopicKey("cdc", "events")),
    ]
    assert "'type'" in derived.notes[0].reason
    assert "lake/events_create, lake/events_list" in derived.notes[0].reason


def test_route_regex_pairs_topics_when_the_route_field_carries_the_topic():
    # Given Iceberg's KafkaMetadataTransform (flat: `_kafka_metadata_topic`) and route-regexes on the topic
    connector = sink(
        **{
            "topics.regex": r"inv\..*",
            "transforms": "meta",
            "transforms.meta.type": "org.apache.iceberg.connect.transforms.KafkaMetadataTransform",
            "iceberg.tables": "lake.orders,lake.customers",
            "iceberg.tables.route-field": "_kafka_metadata_topic",
            "iceberg.table.lake.orders.route-regex": r"inv\.shop\.orders",
            "iceberg.table.lake.customers.route-regex": r"inv\..*customers",
        }
    )
    topics = keys("inv.shop.orders", "inv.shop.customers", "inv.shop.other")
    # Then each topic feeds the tables whose route-regex fully matches its name, and no other
    derived = derive([connector], topics, [source()])
    assert pairs(derived) == {("inv.shop.orders", "lake/orders"), ("inv.shop.customers", "lake/customers")}
    assert derived.notes == ()


def test_insert_field_topic_field_routes_too_but_not_after_a_router():
    base = {
        "topics": "inv.a",
        "iceberg.tables": "lake.a,lake.b",
        "iceberg.tables.route-field": "src_topic",
        "iceberg.table.lake.a.route-regex": r"inv\.a",
        "iceberg.table.lake.b.route-regex": "renamed",
        "transforms.topic.type": "org.apache.kafka.connect.transforms.InsertField$Value",
        "transforms.topic.topic.field": "src_topic!",
        "transforms.rename.type": "org.apache.kafka.connect.transforms.RegexRouter",
        "transforms.rename.regex": ".*",
        "transforms.rename.replacement": "renamed",
    }
    # Given InsertField copies the topic into `src_topic` before any router
    derived = derive([sink(**base, transforms="topic,rename")], keys("inv.a"), [source()])
    assert pairs(derived) == {("inv.a", "lake/a")}
    # Given a RegexRouter renames the topic first: the field no longer holds the consumed topic, so with
    # two topics which feeds which is unknown
    two = {**base, "topics": "inv.a,inv.c"}
    derived = derive([sink(**two, transforms="rename,topic")], keys("inv.a", "inv.c"), [source()])
    assert derived.sinks == ()
    assert [n.kind for n in derived.notes] == ["ambiguous", "ambiguous"]
    # and with the single topic it names, that topic is the only source of both routed tables
    derived = derive([sink(**base, transforms="rename,topic")], keys("inv.a"), [source()])
    assert pairs(derived) == {("inv.a", "lake/a"), ("inv.a", "lake/b")}


def test_one_routed_table_is_the_only_place_a_topic_can_go():
    # Given a route field the configuration cannot read, but only one table with a route-regex
    connector = sink(
        topics="events",
        **{
            "iceberg.tables": "lake.events_list,lake.unrouted",
            "iceberg.tables.route-field": "type",
            "iceberg.table.lake.events_list.route-regex": "list",
        },
    )
    # Then the topic feeds that table (records not matching are skipped, never written elsewhere)
    assert pairs(derive([connector], keys("events"), [source()])) == {("events", "lake/events_list")}


def test_dynamic_routing_is_undetermined_per_topic():
    # Given dynamic routing: each record's `db_table` field names its table
    connector = sink(
        topics="a,b", **{"iceberg.tables.dynamic-enabled": "TRUE", "iceberg.tables.route-field": "db_table"}
    )
    derived = derive([connector], keys("a", "b", "c"), [source()])
    # Then no edge, and each consumed topic is reported undetermined with the field named
    assert derived.sinks == ()
    assert [(n.kind, n.key and n.key.topic) for n in derived.notes] == [
        ("undetermined", "a"),
        ("undetermined", "b"),
    ]
    assert "db_table" in derived.notes[0].reason


def test_a_non_glue_catalog_is_undetermined_and_glue_by_type_is_accepted():
    rest = sink(topics="a", **{"iceberg.tables": "lake.a"})
    rest = ConnectorConfig(
        **{
            **rest.__dict__,
            "config": {"topics": "a", "iceberg.tables": "lake.a", "iceberg.catalog.type": "rest"},
        }
    )
    derived = derive([rest], keys("a"), [source()])
    assert derived.sinks == ()
    assert [n.kind for n in derived.notes] == ["undetermined"]
    assert "not Glue" in derived.notes[0].reason
    by_type = ConnectorConfig(
        **{
            **rest.__dict__,
            "config": {"topics": "a", "iceberg.tables": "lake.a", "iceberg.catalog.type": "glue"},
        }
    )
    assert pairs(derive([by_type], keys("a"), [source()])) == {("a", "lake/a")}


@pytest.mark.parametrize(
    ("tables", "why"),
    [
        ("orders", "not <database>.<table>"),
        ("a.b.c", "not <database>.<table>"),
        ("lake.bad name", "not a valid Glue"),
    ],
)
def test_a_table_glue_cannot_hold_is_unreadable(tables, why):
    derived = derive([sink(topics="a", **{"iceberg.tables": tables})], keys("a"), [source()])
    assert derived.sinks == ()
    assert [n.kind for n in derived.notes] == ["unreadable"]
    assert why in derived.notes[0].reason


def test_neither_topics_nor_regex_is_unreadable_and_other_connectors_still_count():
    broken = sink(name="broken", **{"iceberg.tables": "lake.a"})
    good = sink(name="good", topics="a", **{"iceberg.tables": "lake.a"})
    derived = derive([broken, good], keys("a"), [source()])
    assert pairs(derived) == {("a", "lake/a")}
    assert [(n.kind, n.connector) for n in derived.notes] == [("unreadable", "broken")]


def test_two_sinks_on_one_topic_are_two_edges():
    # Given an Iceberg sink and an archive sink both consuming `orders`
    lake = sink(name="lake", topics="orders", **{"iceberg.tables": "lake.orders"})
    archive = sink(name="archive", topics="orders", **{"iceberg.tables": "archive.orders_history"})
    derived = derive([lake, archive], keys("orders"), [source()])
    # Then the topic has two edges, one per connector
    assert sorted((e.connector, e.table.name) for e in derived.sinks) == [
        ("archive", "archive/orders_history"),
        ("lake", "lake/orders"),
    ]


def test_connectors_apply_to_the_sources_on_their_cluster_and_setting_only():
    connector = sink(topics="a", **{"iceberg.tables": "lake.a"})
    topics = keys("a", registry="cdc") + keys("a", registry="erp") + keys("a", registry="offsite")
    sources = [
        source("cdc"),
        source("erp", connectors={"exclude": ["lake-*"]}),
        source("offsite", cluster_arn=OTHER_CLUSTER_ARN),
    ]
    # Then only cdc's topic: erp excludes the connector by glob, offsite is another cluster
    derived = derive([connector], topics, sources)
    assert [(e.key.registry_name, e.key.topic) for e in derived.sinks] == [("cdc", "a")]
    # And with connectors "off" nothing is derived
    assert derive([connector], topics, [source("cdc", connectors="off")]).sinks == ()


def test_the_adapters_cluster_arn_decides_when_given():
    connector = ConnectorConfig(
        **{**sink(topics="a", **{"iceberg.tables": "lake.a"}).__dict__, "cluster_arn": OTHER_CLUSTER_ARN}
    )
    sources = [source("cdc"), source("erp", cluster_arn=OTHER_CLUSTER_ARN)]
    derived = derive([connector], keys("a", registry="cdc") + keys("a", registry="erp"), sources)
    assert [e.key.registry_name for e in derived.sinks] == ["erp"]


def test_a_deleting_connector_has_no_edges_and_reads_carry_over():
    going = ConnectorConfig(
        **{**sink(topics="a", **{"iceberg.tables": "lake.a"}).__dict__, "state": "DELETING"}
    )
    failed = ConnectorConfig(
        **{**sink(name="f", topics="a", **{"iceberg.tables": "lake.f"}).__dict__, "state": "FAILED"}
    )
    reads = ConnectorReads(connectors=(going, failed), unread=("x",), read_ok=False)
    derived = derive(reads, keys("a"), [source()])
    # A FAILED connector is still configured to write there; a DELETING one is going away
    assert pairs(derived) == {("a", "lake/f")}
    assert (derived.read_ok, derived.unread) == (False, ("x",))


def test_weird_and_255_character_topic_names():
    long_topic = "t" * 250 + "$#.-_"
    weird = "reg$#.-_/x"
    connector = sink(topics=f"{long_topic},{weird},__heartbeat", **{"iceberg.tables": "lake.t"})
    registry = "r$#.-_" + "r" * 249
    topics = keys(long_topic, weird, "__heartbeat", registry=registry)
    derived = derive([connector], topics, [source(registry)])
    assert {e.key.topic for e in derived.sinks} == {long_topic, weird, "__heartbeat"}
    assert len(long_topic) == 255
    assert len(registry) == 255


def test_derivation_is_stable_whatever_the_input_order():
    a = sink(name="a", topics="x,y", **{"iceberg.tables": "lake.t1,lake.t2"})
    b = sink(name="b", **{"topics.regex": ".*", "iceberg.tables": "lake.t3"})
    topics = keys("x", "y", "z")
    assert derive([a, b], topics, [source()]) == derive([b, a], list(reversed(topics)), [source()])


def test_glue_table_names_longer_than_glue_allows_are_unreadable():
    connector = sink(topics="a", **{"iceberg.tables": "lake." + "t" * 256})
    derived = derive([connector], keys("a"), [source()])
    assert derived.sinks == ()
    assert derived.notes[0].kind == "unreadable"
    ok = sink(topics="a", **{"iceberg.tables": "lake." + "t" * 255})
    assert [e.table for e in derive([ok], keys("a"), [source()]).sinks] == [TableRef("lake", "t" * 255)]


def test_a_sink_writing_to_another_accounts_glue_catalog_is_undetermined():
    elsewhere = sink(topics="a", **{"iceberg.tables": "lake.a", "iceberg.catalog.glue.id": "210987654321"})
    derived = derive([elsewhere], keys("a"), [source()])
    assert derived.sinks == ()
    assert [n.kind for n in derived.notes] == ["undetermined"]
    assert "210987654321" in derived.notes[0].reason
    here = sink(topics="a", **{"iceberg.tables": "lake.a", "iceberg.catalog.glue.id": "123456789012"})
    assert pairs(derive([here], keys("a"), [source()])) == {("a", "lake/a")}
