"""The Glue Data Catalog's lineage graph as a second target (`lineageTargets` ["datazone", "glue"]), on the
stand-ins, the function under its deployed role (IAM mode): every edge DataZone gets, Glue gets too, in
Glue's dataset identity, exactly once, each target with its own state and failures."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import debezium, demo_connectors, demo_consumers
from local.demo_connectors import LAKEHOUSE_SINK, MYSQL_NAMESPACE, SOURCE
from tests.fixtures import CLUSTER_ARN
from tests.integration.lineage.conftest import (
    ACCOUNT,
    BROKERS,
    NAMESPACE,
    REGION,
    RULE,
    Failed,
    Lakehouse,
)
from tests.integration.lineage.test_lineage_delivery import BUCKET, bucket_stream

CUSTOMERS = debezium.topic_for("customers")
ORDERS = debezium.topic_for("orders")
GLUE_NAMESPACE = f"arn:aws:glue:{REGION}:{ACCOUNT}"
BOTH = '["datazone", "glue"]'
WITH_RULE = {"registryName": "cdc", "clusterArn": CLUSTER_ARN, "tableRule": RULE}
NO_RULE = {"registryName": "cdc", "clusterArn": CLUSTER_ARN}


def table_arn(database: str, table: str) -> str:
    return f"{GLUE_NAMESPACE}:table/{database}/{table}"


class Graph:
    """The Glue lineage graph of the functions' account, read back as a person would (GetLineageNode)."""

    def __init__(self, lakehouse: Lakehouse) -> None:
        lakehouse.aws.glue_lineage.settle(ACCOUNT, REGION)
        self.glue = boto3.client("glue", region_name=REGION)

    def node(self, identifier: str) -> dict[str, Any]:
        return dict(self.glue.get_lineage_node(Identifier=identifier))

    def upstream(self, identifier: str) -> list[dict[str, Any]]:
        return [self.node(ref["Id"]) for ref in self.node(identifier)["UpstreamNodes"]]

    def downstream(self, identifier: str) -> list[dict[str, Any]]:
        return [self.node(ref["Id"]) for ref in self.node(identifier)["DownstreamNodes"]]


def glue_on(lakehouse: Lakehouse, *sources: dict[str, Any]) -> None:
    lakehouse.configure(*(sources or (WITH_RULE,)))
    lakehouse.monkeypatch.setenv("LINEAGE_TARGETS", BOTH)


def inventory(lakehouse: Lakehouse) -> None:
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email")
    lakehouse.table("orders", "order_number", "purchaser", "quantity")


def posts(lakehouse: Lakehouse) -> int:
    return lakehouse.count("glue:PostLineageEvent")


def test_every_edge_kind_reaches_glue_in_glues_identity(lakehouse: Lakehouse) -> None:
    # Given no rule: a Debezium source connector (first hops), an Iceberg sink connector (sink edges), a
    # Firehose stream writing the orders topic to an S3 bucket, and a consumer group reading customers
    glue_on(lakehouse, NO_RULE)
    inventory(lakehouse)
    kafkaconnect = boto3.client("kafkaconnect")
    demo_connectors.create(kafkaconnect, "inventory-mysql", SOURCE, BROKERS)
    demo_connectors.create(kafkaconnect, "lakehouse-sink", LAKEHOUSE_SINK, BROKERS)
    boto3.client("firehose").create_delivery_stream(**bucket_stream("orders-raw", ORDERS, "raw/orders/"))
    demo_consumers.lag(boto3.client("cloudwatch"), CLUSTER_ARN, "customer-service", CUSTOMERS)

    # When lineage runs under its deployed role
    result = lakehouse.emit()

    # Then every call was allowed; DataZone got its six edges (two first hops, two sink edges, a location, a
    # consumer), and Glue each of them once (one COMPLETE)
    assert lakehouse.aws.iam.denials == []
    assert (result["emitted"], result["failed"]) == (6, []), result
    assert result["glue"]["posted"] == 6
    assert posts(lakehouse) == 6
    graph = Graph(lakehouse)
    # And the table is Glue's node: namespace arn:aws:glue:<region>:<account>, name table/<db>/<table>
    (sink,) = graph.upstream(table_arn("lakehouse", "customers"))
    assert (sink["TypeName"], sink["SourceIdentifier"]) == ("Job", "kafka-connect://cdc/lakehouse-sink")
    # (the sink connector's one job reads both topics: each edge was its own run of it)
    topics = {n["SourceIdentifier"]: n for n in graph.upstream(sink["Id"])}
    assert set(topics) == {f"{NAMESPACE}/{CUSTOMERS}", f"{NAMESPACE}/{ORDERS}"}
    topic = topics[f"{NAMESPACE}/{CUSTOMERS}"]
    # And the topic's first hop comes from the source table, named as OpenLineage names it
    (hop,) = graph.upstream(topic["Id"])
    assert hop["SourceIdentifier"] == "kafka-connect://cdc/inventory-mysql"
    assert {n["SourceIdentifier"] for n in graph.upstream(hop["Id"])} == {
        f"{MYSQL_NAMESPACE}/inventory.customers",
        f"{MYSQL_NAMESPACE}/inventory.orders",
    }
    # And the consumer group reads the topic, writing nothing
    readers = {n["SourceIdentifier"]: n for n in graph.downstream(topic["Id"])}
    assert set(readers) == {
        "kafka-connect://cdc/lakehouse-sink",
        "kafka-consumer://cdc/consumer/customer-service",
    }
    assert readers["kafka-consumer://cdc/consumer/customer-service"]["DownstreamNodes"] == []
    # And the S3 location is s3://<bucket> + /<path>
    (stream,) = graph.upstream(f"s3://{BUCKET}/raw/orders")
    assert stream["Name"] == "orders-raw"
    # And the column lineage went along: the table's node shows its schema as Glue drew it
    (form,) = graph.node(table_arn("lakehouse", "customers"))["FormsOutput"]
    assert {"name": "first_name", "type": "string"} in json.loads(form["Content"])["fields"]


def test_a_glue_etl_job_reading_the_table_joins_its_node_not_a_second_one(lakehouse: Lakehouse) -> None:
    # Given the customers edge posted to both graphs
    glue_on(lakehouse)
    inventory(lakehouse)
    lakehouse.emit()
    # When a Glue 6.1 job reads the Iceberg table and writes a report table, and posts its run as Glue does
    report = {
        "eventType": "COMPLETE",
        "eventTime": "2026-12-01T06:00:00.000Z",
        "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/spark",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "01937a4e-1c2b-7d3e-8f4a-5b6c7d8e9f00"},
        "job": {"namespace": "glue", "name": "customer_report.execute_insert_into"},
        "inputs": [{"namespace": GLUE_NAMESPACE, "name": "table/lakehouse/customers"}],
        "outputs": [{"namespace": GLUE_NAMESPACE, "name": "table/analytics/customer_report"}],
    }
    boto3.client("glue", region_name=REGION).post_lineage_event(Event=json.dumps(report))
    graph = Graph(lakehouse)
    # Then the report walks back through the Glue job to the one customers node, and on to the topic
    (job,) = graph.upstream(table_arn("analytics", "customer_report"))
    (customers,) = graph.upstream(job["Id"])
    assert customers["SourceIdentifier"] == table_arn("lakehouse", "customers")
    assert [n["SourceIdentifier"] for n in graph.upstream(customers["Id"])] == [
        "kafka-iceberg-sink/sink/lakehouse.customers"
    ]
    # And DataZone's identity (namespace ...:table, name lakehouse/customers) is no node of Glue's graph
    with pytest.raises(Exception, match="EntityNotFoundException"):
        graph.node(f"{GLUE_NAMESPACE}:table:lakehouse/customers")


def test_a_target_added_later_gets_every_current_edge_once(lakehouse: Lakehouse) -> None:
    # Given two edges emitted to DataZone alone
    lakehouse.configure(WITH_RULE)
    inventory(lakehouse)
    assert lakehouse.emit()["emitted"] == 2
    # When the Glue target is added
    lakehouse.monkeypatch.setenv("LINEAGE_TARGETS", BOTH)
    lakehouse.reset_calls()
    added = lakehouse.emit()
    # Then DataZone posts nothing again, and Glue gets both edges, once
    assert (added["emitted"], added["unchanged"]) == (0, 2)
    assert added["glue"]["posted"] == 2
    assert (lakehouse.count("datazone:PostLineageEvent"), posts(lakehouse)) == (0, 2)
    # And the next run posts nothing to either
    lakehouse.reset_calls()
    again = lakehouse.emit()
    assert (again["emitted"], again["glue"]["posted"], again["glue"]["unchanged"]) == (0, 0, 2)
    assert (lakehouse.count("datazone:PostLineageEvent"), posts(lakehouse)) == (0, 0)


def test_a_no_change_run_posts_nothing_to_either_target_and_writes_nothing(lakehouse: Lakehouse) -> None:
    # Given both targets up to date
    glue_on(lakehouse)
    inventory(lakehouse)
    lakehouse.emit()
    # When lineage runs again with nothing changed
    lakehouse.reset_calls()
    result = lakehouse.emit()
    # Then nothing is posted, to either graph, and no state is written (no lease either)
    assert (result["emitted"], result["glue"]["posted"], result["stateWrites"]) == (0, 0, 0)
    calls = lakehouse.aws.call_counts()
    assert (
        calls["glue:PostLineageEvent"] == calls["datazone:PostLineageEvent"] == calls["ssm:PutParameter"] == 0
    )


def test_a_glue_failure_leaves_datazone_intact_and_is_reported_with_its_target(
    lakehouse: Lakehouse, fast_retries: None
) -> None:
    # Given Glue's lineage API failing on every attempt (past the SDK's retries)
    glue_on(lakehouse)
    inventory(lakehouse)
    lakehouse.aws.faults.add(service="glue", operation="PostLineageEvent", kind="server_error", times=100)
    # When lineage runs, then it finishes, and raises with the Glue failures, each naming its target
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    summary = raised.value.summary
    assert summary["emitted"] == 2  # DataZone's posts all went out
    assert len(lakehouse.runs()) == 2
    assert sorted((f["topic"], f["target"]) for f in summary["failed"]) == [
        (CUSTOMERS, "glue"),
        (ORDERS, "glue"),
    ]
    assert all("InternalServiceException" in f["error"] for f in summary["failed"])
    # When Glue answers again, then the next run posts the Glue edges only
    lakehouse.aws.faults.clear()
    lakehouse.reset_calls()
    healed = lakehouse.emit()
    assert (healed["emitted"], healed["glue"]["posted"], healed["failed"]) == (0, 2, [])
    assert lakehouse.count("datazone:PostLineageEvent") == 0


def test_a_datazone_failure_leaves_glue_posts_intact(lakehouse: Lakehouse, fast_retries: None) -> None:
    # Given DataZone's lineage API failing on every attempt
    glue_on(lakehouse)
    inventory(lakehouse)
    lakehouse.aws.faults.add(service="datazone", operation="PostLineageEvent", kind="server_error", times=100)
    # When lineage runs
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    # Then Glue got both edges, and DataZone's failures carry their target
    summary = raised.value.summary
    assert summary["glue"]["posted"] == 2
    assert {f["target"] for f in summary["failed"]} == {"datazone"}


def test_throttling_is_retried_and_a_full_graph_is_reported_as_such(
    lakehouse: Lakehouse, fast_retries: None
) -> None:
    # Given Glue throttling the first two posts, and a graph that takes one event more only
    glue_on(lakehouse)
    inventory(lakehouse)
    lakehouse.aws.faults.add(service="glue", operation="PostLineageEvent", kind="throttle", times=2)
    lakehouse.aws.glue_lineage.max_events = 1
    # When lineage runs
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    summary = raised.value.summary
    # Then the throttled posts were retried (one edge went in), and the other is reported as the quota it hit
    assert summary["glue"]["posted"] == 1
    (failure,) = summary["failed"]
    assert failure["target"] == "glue"
    assert "ResourceNumberLimitExceededException" in failure["error"]
    assert "lineage graph" in failure["error"]


def test_a_dry_run_lists_the_posts_of_each_target_and_posts_nothing(lakehouse: Lakehouse) -> None:
    # Given two new edges
    glue_on(lakehouse)
    inventory(lakehouse)
    # When a dry run plans them
    result = lakehouse.emit({"dryRun": True})
    # Then it lists two emits for DataZone and two posts for Glue, and posts nothing
    planned = sorted((p.get("target", "datazone"), p["action"], p["topic"]) for p in result["planned"])
    assert planned == [
        ("datazone", "emit", CUSTOMERS),
        ("datazone", "emit", ORDERS),
        ("glue", "post", CUSTOMERS),
        ("glue", "post", ORDERS),
    ]
    assert result["glue"]["planned"] == 2
    assert lakehouse.count("glue:PostLineageEvent") == lakehouse.count("datazone:PostLineageEvent") == 0


def test_a_forced_run_posts_the_same_glue_run_again(lakehouse: Lakehouse) -> None:
    # Given the customers edge in Glue's graph
    glue_on(lakehouse)
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.table("customers", ("id", "int"), "first_name")
    first = lakehouse.emit()
    # When a forced run posts it again
    forced = lakehouse.emit({"force": True})
    # Then the Glue run is the same run (same runId): the job keeps one run
    assert first["glue"]["posted"] == forced["glue"]["posted"] == 1
    graph = Graph(lakehouse)
    (job,) = graph.upstream(table_arn("lakehouse", "customers"))
    assert len(lakehouse.aws.glue_lineage.runs_of(ACCOUNT, REGION, job["SourceIdentifier"])) == 1


@pytest.mark.parametrize("reading", ["every", "latest"])
def test_a_remapped_topic_closes_its_old_job_under_either_reading(lakehouse: Lakehouse, reading: str) -> None:
    # Given the customers edge in both graphs, and Glue drawing a job's edges from `reading` runs
    lakehouse.aws.set_readings(glue_lineage_job_edges=reading)
    glue_on(lakehouse)
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.table("customers", ("id", "int"), "email")
    lakehouse.table("customers_v2", ("id", "int"), "email", database="curated")
    lakehouse.emit()
    # When an operator maps the topic to another table
    lakehouse.mapping("customers", topic=CUSTOMERS, database="curated", table="customers_v2")
    result = lakehouse.emit()
    # Then Glue gets the new edge, and a closing run of the old job that reads and writes nothing
    assert result["glue"]["posted"] == 1
    (closed,) = result["glue"]["closed"]
    assert (closed["table"], closed["job"], closed["closingRun"]) == (
        "lakehouse/customers",
        "kafka-iceberg-sink/sink/lakehouse.customers",
        True,
    )
    graph = Graph(lakehouse)
    (new_job,) = graph.upstream(table_arn("curated", "customers_v2"))
    assert new_job["SourceIdentifier"] == "kafka-iceberg-sink/sink/lakehouse.customers".replace(
        "lakehouse.customers", "curated.customers_v2"
    )
    old_job = graph.node("kafka-iceberg-sink/sink/lakehouse.customers")
    assert old_job["Description"] == f"latest run {closed['runId']}"
    old_upstream = graph.upstream(table_arn("lakehouse", "customers"))
    if reading == "latest":
        # the old job's latest run writes nothing: the old table no longer hangs off the topic
        assert old_upstream == []
    else:
        # every run stays drawn: the old edge is still there, its job's latest run the closing one
        assert [n["SourceIdentifier"] for n in old_upstream] == [
            "kafka-iceberg-sink/sink/lakehouse.customers"
        ]
    # And a rerun closes nothing again
    assert lakehouse.emit()["glue"]["closed"] == []


def test_federated_catalogs_and_resource_links_are_skipped_and_reported(lakehouse: Lakehouse) -> None:
    # Given a channel and streams into S3 Tables (a federated catalog), and a topic an operator maps to a
    # resource link
    from local import demo_delivery
    from tests.integration.lineage.test_lineage_delivery import delivered

    glue_on(lakehouse, NO_RULE)
    delivered(lakehouse)
    addresses = debezium.topic_for("addresses")
    lakehouse.schema(addresses, debezium.table_envelope("addresses"))
    lakehouse.glue.create_database(DatabaseInput={"Name": "links"})
    lakehouse.glue.create_table(
        DatabaseName="links",
        TableInput={
            "Name": "addresses",
            "TargetTable": {"CatalogId": "444455556666", "DatabaseName": "lakehouse", "Name": "addresses"},
        },
    )
    lakehouse.mapping("addresses", topic=addresses, database="links", table="addresses")
    # When lineage runs
    result = lakehouse.emit()
    # Then DataZone gets every edge, and Glue none of the federated tables' nor the resource link's: each is
    # reported, with its target and why
    skipped = {(s.get("table"), s["reason"].split(",")[0]) for s in result["glue"]["skipped"]}
    assert skipped == {
        (f"{demo_delivery.CATALOG}/sales/orders", "the table is in a federated catalog"),
        (f"{demo_delivery.CATALOG}/crm/customers", "the table is in a federated catalog"),
        ("links/addresses", "the table is a resource link"),
    }
    assert all(s["target"] == "glue" for s in result["glue"]["skipped"])
    assert result["glue"]["posted"] == result["emitted"] - 3
    # And a rerun posts nothing, and fails nothing
    again = lakehouse.emit()
    assert (again["glue"]["posted"], again["failed"]) == (0, [])


def test_the_demos_walk_goes_from_the_report_back_to_the_source_database(lakehouse: Lakehouse) -> None:
    # Given the demo's connectors (a Debezium source, an Iceberg sink) and both targets
    from local import demo_glue

    glue_on(lakehouse, NO_RULE)
    inventory(lakehouse)
    kafkaconnect = boto3.client("kafkaconnect")
    demo_connectors.create(kafkaconnect, "inventory-mysql", SOURCE, BROKERS)
    demo_connectors.create(kafkaconnect, "lakehouse-sink", LAKEHOUSE_SINK, BROKERS)
    lakehouse.emit()
    # When the demo's Glue job posts its run and walks back from its report
    chain = demo_glue.show(lakehouse.aws)
    # Then the walk reaches the source database through the Iceberg table and the topic
    assert [line.split()[-1] for line in chain] == [
        table_arn("analytics", demo_glue.REPORT),
        "glue/customer_report_job.execute_insert_into_hadoop_fs_relation",
        table_arn("lakehouse", "customers"),
        "kafka-connect://cdc/lakehouse-sink",
        f"{NAMESPACE}/{CUSTOMERS}",
        "kafka-connect://cdc/inventory-mysql",
        f"{MYSQL_NAMESPACE}/inventory.customers",
    ]
