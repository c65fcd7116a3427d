"""Lineage from MSK Connect connectors on the stand-ins, the function under its deployed role (IAM mode):
database table -> topic -> Glue tables, each edge its own run, precedence, and what the connectors leave open.
"""

from __future__ import annotations

import boto3
import pytest

from local import debezium, demo_connectors
from local.demo_connectors import ARCHIVE_SINK, LAKEHOUSE_SINK, MYSQL_NAMESPACE, SOURCE
from tests.fixtures import CLUSTER_ARN
from tests.integration.lineage.conftest import BROKERS, NAMESPACE, TABLE_NAMESPACE, Failed, Lakehouse

CUSTOMERS = debezium.topic_for("customers")
ORDERS = debezium.topic_for("orders")
NO_RULE = {"registryName": "cdc", "clusterArn": CLUSTER_ARN}
CONNECT = "kafka-connect://cdc"


def inventory(lakehouse: Lakehouse) -> None:
    """Two Debezium topics, and the lakehouse and archive tables the sinks write."""
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email")
    lakehouse.table("orders", "order_number", "purchaser", "quantity")
    lakehouse.table("orders", "order_number", "purchaser", database="archive")


def connector(name: str, config: dict[str, str]) -> str:
    return demo_connectors.create(boto3.client("kafkaconnect"), name, config, BROKERS)


def drop(name: str) -> None:
    demo_connectors.delete(boto3.client("kafkaconnect"), name)


@pytest.fixture
def connected(lakehouse: Lakehouse) -> Lakehouse:
    lakehouse.configure(NO_RULE)
    inventory(lakehouse)
    connector("inventory-mysql", SOURCE)
    connector("lakehouse-sink", LAKEHOUSE_SINK)
    return lakehouse


def test_connector_configuration_alone_draws_first_hops_and_sink_edges(connected: Lakehouse) -> None:
    # Given no rule and no mapping: a Debezium MySQL source, and an Iceberg sink reading by topics.regex
    # When lineage runs under its deployed role
    result = connected.emit()
    # Then every call was allowed, and each topic has its first hop and its sink edge, each its own run
    assert connected.aws.iam.denials == []
    assert (result["emitted"], result["failed"], result["unmapped"]) == (4, [], [])
    assert sorted(
        (e["topic"], e.get("table") or e.get("sourceDataset"), e["origin"]) for e in result["emissions"]
    ) == [
        (CUSTOMERS, "lakehouse/customers", "connector:lakehouse-sink"),
        (CUSTOMERS, f"{MYSQL_NAMESPACE}/inventory.customers", "connector:inventory-mysql"),
        (ORDERS, "lakehouse/orders", "connector:lakehouse-sink"),
        (ORDERS, f"{MYSQL_NAMESPACE}/inventory.orders", "connector:inventory-mysql"),
    ]
    assert len(connected.runs()) == 4
    drawn = {(e.upstream, e.downstream): e for e in connected.edges().values()}
    hop = drawn[(f"{MYSQL_NAMESPACE}/inventory.customers", f"{NAMESPACE}/{CUSTOMERS}")]
    assert (hop.job_namespace, hop.job_name) == (CONNECT, "inventory-mysql")
    assert ("first_name", "after.first_name") in hop.columns
    sink = drawn[(f"{NAMESPACE}/{ORDERS}", f"{TABLE_NAMESPACE}/lakehouse/orders")]
    assert (sink.job_namespace, sink.job_name) == (CONNECT, "lakehouse-sink")
    assert ("after.purchaser", "purchaser") in sink.columns
    # And a rerun posts nothing
    again = connected.emit()
    assert (again["emitted"], again["unchanged"]) == (0, 4)


def test_one_topic_feeds_two_tables_through_two_sinks_and_a_removed_sink_is_retracted(
    connected: Lakehouse,
) -> None:
    # Given the archive sink also reads orders
    connector("archive-sink", ARCHIVE_SINK)
    connected.emit()
    orders_out = {d for (u, d) in connected.edges() if u == f"{NAMESPACE}/{ORDERS}"}
    assert orders_out == {f"{TABLE_NAMESPACE}/lakehouse/orders", f"{TABLE_NAMESPACE}/archive/orders"}
    # When the archive sink is deleted
    drop("archive-sink")
    connected.emit()  # the listing may still show it DELETING (a reading): its edges stay until it is gone
    result = connected.emit()
    # Then its edge is retracted, and only its edge: no ghost in DataZone, the lakehouse edge untouched
    orders_out = {d for (u, d) in connected.edges() if u == f"{NAMESPACE}/{ORDERS}"}
    assert orders_out == {f"{TABLE_NAMESPACE}/lakehouse/orders"}
    retracted = connected.emit()["retracted"] + result["retracted"]
    assert retracted == [] or all(r["table"] == "archive/orders" for r in retracted)
    assert len(connected.runs()) == 4


def test_an_operator_mapping_replaces_the_connector_edge_and_the_first_hop_stays(
    connected: Lakehouse,
) -> None:
    connected.emit()
    # When an operator maps orders to another table
    connected.table("orders_enriched", "order_number", "purchaser", database="analytics")
    connected.mapping("team/orders", topic=ORDERS, database="analytics", table="orders_enriched")
    result = connected.emit()
    # Then orders feeds the operator's table only, its first hop stays, and the result says why
    (emission,) = result["emissions"]
    assert (emission["table"], emission["origin"], emission["previousTable"]) == (
        "analytics/orders_enriched",
        "operator",
        "lakehouse/orders",
    )
    from_orders = {d for (u, d) in connected.edges() if u == f"{NAMESPACE}/{ORDERS}"}
    assert from_orders == {f"{TABLE_NAMESPACE}/analytics/orders_enriched"}
    assert (f"{MYSQL_NAMESPACE}/inventory.orders", f"{NAMESPACE}/{ORDERS}") in connected.edges()


def test_dynamic_routing_is_reported_undetermined_and_the_rule_takes_the_topic(lakehouse: Lakehouse) -> None:
    # Given a sink that routes each record by a field of its own (the table is not knowable from config)
    rule = {"database": "lakehouse", "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}
    lakehouse.configure({**NO_RULE, "tableRule": rule})
    inventory(lakehouse)
    connector("dynamic-sink", {
        "connector.class": "io.tabular.iceberg.connect.IcebergSinkConnector", "topics": ORDERS,
        "iceberg.catalog.catalog-impl": "org.apache.iceberg.aws.glue.GlueCatalog",
        "iceberg.tables.dynamic-enabled": "true", "iceberg.tables.route-field": "db_table",
    })  # fmt: skip
    result = lakehouse.emit()
    # Then the topic is listed undetermined with the reason, never guessed, and falls back to the rule
    (item,) = result["undetermined"]
    assert (item["topic"], item["connector"]) == (ORDERS, "dynamic-sink")
    assert "db_table" in item["reason"]
    assert {(e["topic"], e["origin"]) for e in result["emissions"]} == {(CUSTOMERS, "rule"), (ORDERS, "rule")}


def test_connectors_that_cannot_be_listed_keep_their_edges_and_fail_the_run(connected: Lakehouse) -> None:
    connected.emit()
    before = set(connected.edges())
    # Given the role can no longer list MSK Connect connectors
    connected.aws.iam.revoke("lineage-emission", "kafkaconnect:ListConnectors")
    with pytest.raises(Failed) as raised:
        connected.emit()
    summary = raised.value.summary
    # Then the failure is reported, nothing is retracted, and every connector edge is still drawn
    assert "kafkaconnect:ListConnectors" in summary["connectorErrors"][0]["error"]
    assert (summary["retracted"], summary["retracting"], summary["emitted"]) == ([], [], 0)
    assert summary["keptConnectorEdges"] == 4
    assert set(connected.edges()) == before


def test_drift_impact_follows_the_connector_edges_to_every_table_the_topic_feeds(
    connected: Lakehouse,
) -> None:
    # Given orders fed by two sinks, into lakehouse.orders and archive.orders, emitted at v1
    connector("archive-sink", ARCHIVE_SINK)
    connected.emit()
    caught = connected.catch_drift()
    # When v2 of orders drops `purchaser`, which both tables take
    connected.schema(ORDERS, debezium.table_without("orders", "purchaser"))
    result = connected.emit()
    # Then one breaking drift names both connector-fed tables and their column
    (event,) = caught.drain()
    detail = event["detail"]
    assert (detail["topic"], detail["severity"]) == (ORDERS, "breaking")
    assert {(t["table"], tuple(t["columns"])) for t in detail["impacted"]} == {
        ("lakehouse/orders", ("purchaser",)),
        ("archive/orders", ("purchaser",)),
    }
    # And each sink edge's v2 run carries the drift facet
    facets = [e["run"]["facets"] for e in connected.events() if e["job"]["name"] != "inventory-mysql"]
    assert sum(1 for f in facets if f.get("schemaDrift", {}).get("toVersion") == 2) == 4  # 2 runs x 2 events
    assert result["failed"] == []
