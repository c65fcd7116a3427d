"""The lineage-emission handler on the stand-ins: topic -> Glue table edges in DataZone, exact, no duplicates.

Every test ends with every live lineage event checked against the OpenLineage 2-0-2 rules (the `lakehouse`
fixture checks after each run, so every posted event is checked while it lives).
"""

from __future__ import annotations

from pathlib import Path

import boto3
import pytest

from kafka_lineage.aws.clients import RETRY_CONFIG
from local import debezium
from local.lineage_view import show
from tests.fixtures import CLUSTER_ARN, DOMAIN_ID, load_event
from tests.integration.lineage.conftest import NAMESPACE, TABLE_NAMESPACE, Failed, FakeContext, Lakehouse

CUSTOMERS = debezium.topic_for("customers")
ORDERS = debezium.topic_for("orders")
CUSTOMERS_EDGE = (f"{NAMESPACE}/{CUSTOMERS}", f"{TABLE_NAMESPACE}/lakehouse/customers")
# The connectors are read once per run: the cluster's brokers, then one ListConnectors page (none here).
NO_CHANGE_READS = {
    "ssm:GetParametersByPath",
    "glue:GetTables",
    "kafka:GetBootstrapBrokers",
    "kafkaconnect:ListConnectors",
    # the managed delivery paths: one listing of the cluster's channels, one of the delivery streams
    "kafka:ListChannels",
    "firehose:ListDeliveryStreams",
    # the consumer groups: one ListMetrics listing of the cluster's lag metrics
    "cloudwatch:ListMetrics",
}


def customers(lakehouse: Lakehouse, data_format: str = "AVRO") -> None:
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers", data_format), data_format=data_format)
    lakehouse.table(
        "customers", ("id", "int"), "First_Name", "last_name", "email", ("_ingested_at", "timestamp")
    )


@pytest.mark.parametrize("data_format", ["AVRO", "JSON", "PROTOBUF"])
def test_first_emission_draws_the_edge_with_column_lineage(lakehouse: Lakehouse, data_format: str) -> None:
    # Given a Debezium topic (a real envelope) and its Iceberg table, one column of which the CDC row lacks
    customers(lakehouse, data_format)
    # When the lineage Lambda runs on its schedule
    result = lakehouse.emit(load_event("lineage_scheduled"))
    # Then one run (START, COMPLETE) is posted for the topic
    assert (result["emitted"], result["unchanged"], result["failed"]) == (1, 0, [])
    assert list(lakehouse.runs().values()) == [["START", "COMPLETE"]]
    # And DataZone has the edge topic -> table through the job, with the after.* fields as column lineage
    edge = lakehouse.edges()[CUSTOMERS_EDGE]
    assert (edge.job_namespace, edge.job_name) == ("kafka-iceberg-sink", "sink/lakehouse.customers")
    assert edge.columns == {
        ("after.id", "id"),
        ("after.first_name", "First_Name"),
        ("after.last_name", "last_name"),
        ("after.email", "email"),
    }
    (emission,) = result["emissions"]
    assert emission["columnLineage"] == {
        "matched": 4,
        "emitted": 4,
        "tableColumns": 5,
        "rowFields": 4,
        "unmatchedColumns": ["_ingested_at"],
    }
    assert emission["tableArn"] == f"{TABLE_NAMESPACE}/lakehouse/customers"


def test_a_rerun_with_nothing_changed_posts_nothing_and_reads_only_ssm_and_glue_tables(
    lakehouse: Lakehouse,
) -> None:
    customers(lakehouse)
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("orders", "order_number", "purchaser")
    lakehouse.emit()
    lakehouse.reset_calls()
    # When it runs again with nothing changed
    result = lakehouse.emit()
    # Then nothing is posted or written, and only the SSM mapping/state and one GetTables were read
    assert (result["emitted"], result["unchanged"]) == (0, 2)
    calls = lakehouse.aws.call_counts()
    assert set(calls) <= NO_CHANGE_READS, calls
    assert calls["glue:GetTables"] == 1  # both tables of `lakehouse` in one batch
    assert (calls["kafka:ListChannels"], calls["firehose:ListDeliveryStreams"]) == (1, 1)
    assert calls["cloudwatch:ListMetrics"] == 1


def test_a_new_schema_version_emits_exactly_one_new_run_and_removes_the_old(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.emit()
    first_run = next(iter(lakehouse.runs()))
    # When the topic gets version 2 (a new nullable column) and the table the column
    lakehouse.schema(CUSTOMERS, debezium.table_v2("customers"))
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email", "phone")
    lakehouse.reset_calls()
    result = lakehouse.emit()
    # Then exactly one new run was posted and the old run's two events deleted
    assert result["emitted"] == 1
    assert lakehouse.count("datazone:PostLineageEvent") == 2
    assert lakehouse.count("datazone:DeleteLineageEvent") == 2
    runs = lakehouse.runs()
    assert first_run not in runs
    assert list(runs.values()) == [["START", "COMPLETE"]]
    assert ("after.phone", "phone") in lakehouse.edges()[CUSTOMERS_EDGE].columns
    # And a third run changes nothing
    assert lakehouse.emit()["emitted"] == 0


def test_an_explicit_mapping_beats_the_rule_and_the_operators_beats_the_stacks(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.table("customers_curated", "id", database="curated")
    lakehouse.table("customers_ops", "id", "email", database="ops")
    lakehouse.mapping("cdk/customers", topic=CUSTOMERS, database="curated", table="customers_curated")
    operator = lakehouse.mapping("team-a/customers", topic=CUSTOMERS, database="OPS", table="Customers_Ops")
    result = lakehouse.emit()
    (emission,) = result["emissions"]
    assert (emission["table"], emission["origin"], emission["job"]) == (
        "ops/customers_ops",
        "operator",
        "kafka-iceberg-sink/sink/ops.customers_ops",
    )
    assert set(lakehouse.edges()) == {(f"{NAMESPACE}/{CUSTOMERS}", f"{TABLE_NAMESPACE}/ops/customers_ops")}
    description = lakehouse.events()[0]["job"]["facets"]["documentation"]["description"]
    assert operator in description


def test_a_remap_deletes_the_old_edges_events(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.table("customers_v2", "id", "email", database="curated")
    lakehouse.emit()
    assert set(lakehouse.edges()) == {CUSTOMERS_EDGE}
    # When an operator maps the topic to another table, without a redeploy
    lakehouse.mapping("customers", topic=CUSTOMERS, database="curated", table="customers_v2")
    result = lakehouse.emit()
    # Then the edge moved: the old edge's events are gone, no ghost remains
    (emission,) = result["emissions"]
    assert emission["previousTable"] == "lakehouse/customers"
    assert emission["replacedEvents"] == 2
    assert set(lakehouse.edges()) == {(f"{NAMESPACE}/{CUSTOMERS}", f"{TABLE_NAMESPACE}/curated/customers_v2")}
    assert len(lakehouse.events()) == 2


def test_unmapped_topics_and_invalid_mappings_are_reported_and_the_rest_proceeds(
    lakehouse: Lakehouse,
) -> None:
    customers(lakehouse)
    lakehouse.schema(debezium.HEARTBEAT_TOPIC, debezium.heartbeat())
    bad = lakehouse.mapping("broken", topic=CUSTOMERS, database="lakehouse")
    result = lakehouse.emit()
    assert result["unmapped"] == [{"registryName": "cdc", "topic": "__debezium-heartbeat.dbserver1"}]
    assert [item["parameter"] for item in result["invalidMappings"]] == [bad]
    assert "table" in result["invalidMappings"][0]["error"]
    assert result["emitted"] == 1
    assert result["failed"] == []


def test_a_missing_glue_table_fails_that_topic_after_the_others_are_done(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    summary = raised.value.summary
    assert summary["emitted"] == 1
    assert summary["failed"] == [
        {
            "registryName": "cdc",
            "topic": ORDERS,
            "table": "lakehouse/orders",
            "error": "Glue table lakehouse/orders does not exist in the Data Catalog",
        }
    ]
    assert set(lakehouse.edges()) == {CUSTOMERS_EDGE}


@pytest.mark.parametrize("tokens", ["remembered", "forgotten by the rerun", "never remembered"])
@pytest.mark.usefixtures("fast_retries")
def test_a_lost_response_beyond_the_sdk_retries_then_a_rerun_posts_no_duplicate(
    lakehouse: Lakehouse, tokens: str
) -> None:
    # Given DataZone applies the START post but every answer to it is lost, through all botocore's attempts.
    # DataZone's clientToken window is undocumented: it may outlast the rerun, end before it, or (worst case)
    # not even cover botocore's own retries, each of which then stores another copy.
    if tokens == "never remembered":
        lakehouse.aws.set_readings(client_token_ttl_seconds=0)
    customers(lakehouse)
    lakehouse.aws.faults.add(service="datazone", operation="PostLineageEvent", kind="lost_response", times=50)
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    assert "posting START" in raised.value.summary["failed"][0]["error"]
    # (botocore turns the `retries` config's max_attempts, a count of retries, into total_max_attempts)
    retries = RETRY_CONFIG.retries
    attempts = retries.get("total_max_attempts", retries.get("max_attempts", 0) + 1)
    assert lakehouse.count("datazone:PostLineageEvent") == attempts > 1
    copies = attempts if tokens == "never remembered" else 1
    assert [e["eventType"] for e in lakehouse.events()] == ["START"] * copies
    lakehouse.aws.faults.clear()
    if tokens == "forgotten by the rerun":
        lakehouse.aws.set_readings(client_token_ttl_seconds=0)
    lakehouse.reset_calls()
    # When the next run comes
    result = lakehouse.emit()
    # Then START is not posted again (found by its runId; extra copies deleted), only COMPLETE is: one run
    assert result["emitted"] == 1
    assert lakehouse.count("datazone:PostLineageEvent") == 1
    assert lakehouse.count("datazone:DeleteLineageEvent") == copies - 1
    assert list(lakehouse.runs().values()) == [["START", "COMPLETE"]]


def test_throttling_is_retried_inside_the_run(lakehouse: Lakehouse, fast_retries: None) -> None:
    customers(lakehouse)
    lakehouse.aws.faults.add(service="datazone", operation="PostLineageEvent", kind="throttle", times=3)
    result = lakehouse.emit()
    assert result["emitted"] == 1
    assert list(lakehouse.runs().values()) == [["START", "COMPLETE"]]


def test_a_dry_run_posts_and_writes_nothing(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.reset_calls()
    result = lakehouse.emit(load_event("lineage_dry_run"))
    assert result["dryRun"] is True
    assert result["emitted"] == 1
    assert [a["action"] for a in result["planned"]] == ["emit"]
    calls = lakehouse.aws.call_counts()
    assert calls["datazone:PostLineageEvent"] == 0
    assert calls["ssm:PutParameter"] == 0
    assert lakehouse.events() == []


def test_force_reposts_the_same_run_and_keeps_one_copy(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.emit()
    (run_id,) = lakehouse.runs()
    event_time = lakehouse.events()[0]["eventTime"]
    result = lakehouse.emit(
        {"force": True}, FakeContext(aws_request_id="7a2b0c3d-0000-4000-8000-000000000002")
    )
    assert result["emissions"][0]["reason"] == "forced"
    assert lakehouse.count("datazone:PostLineageEvent") == 4
    assert lakehouse.runs() == {run_id: ["START", "COMPLETE"]}
    assert lakehouse.events()[0]["eventTime"] == event_time


def test_a_topic_asset_changed_event_emits_that_topic_only(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("orders", "order_number")
    result = lakehouse.emit(load_event("topic_asset_changed"))
    assert [e["topic"] for e in result["emissions"]] == [CUSTOMERS]
    assert set(lakehouse.edges()) == {CUSTOMERS_EDGE}


def test_a_deleted_topic_event_retracts_its_edge(lakehouse: Lakehouse) -> None:
    customers(lakehouse)
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("orders", "order_number")
    lakehouse.emit()
    # When schema-sync deletes the customers asset and announces it
    lakehouse.drop_schema(CUSTOMERS)
    result = lakehouse.emit(load_event("lineage_topic_asset_deleted"))
    # Then its edge's events are deleted and the other edge stays
    assert result["retracted"] == [
        {
            "registryName": "cdc",
            "topic": CUSTOMERS,
            "table": "lakehouse/customers",
            "reason": "schema deleted",
            "deletedEvents": 2,
            "origin": "rule",
        }
    ]
    assert set(lakehouse.edges()) == {(f"{NAMESPACE}/{ORDERS}", f"{TABLE_NAMESPACE}/lakehouse/orders")}
    # And the schedule afterwards has nothing left to do
    assert lakehouse.emit()["retracted"] == []


def test_weird_registry_and_topic_names_emit_and_keep_state(lakehouse: Lakehouse) -> None:
    registry = "cdc.prod-$1#"
    topic = "__debezium-heartbeat.$srv#1-" + "x" * 227
    lakehouse.configure({"registryName": registry, "clusterArn": CLUSTER_ARN})
    lakehouse.schema(topic, debezium.heartbeat(), registry=registry)
    lakehouse.table("heartbeats", "ts_ms", database="ops")
    lakehouse.mapping("weird", topic=topic, registryName=registry, database="ops", table="heartbeats")
    assert lakehouse.emit()["emitted"] == 1
    assert lakehouse.emit()["unchanged"] == 1
    (edge,) = lakehouse.edges().values()
    assert edge.upstream == f"{NAMESPACE}/{topic}"
    assert edge.columns == {("ts_ms", "ts_ms")}


def test_dropped_iceberg_columns_are_not_lineage_targets(lakehouse: Lakehouse) -> None:
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.glue.create_database(DatabaseInput={"Name": "lakehouse"})
    lakehouse.glue.create_table(
        DatabaseName="lakehouse",
        TableInput={
            "Name": "customers",
            "StorageDescriptor": {
                "Columns": [
                    {"Name": "id", "Type": "int", "Parameters": {"iceberg.field.current": "true"}},
                    {"Name": "email", "Type": "string", "Parameters": {"iceberg.field.current": "false"}},
                ]
            },
        },
    )
    lakehouse.emit()
    assert lakehouse.edges()[CUSTOMERS_EDGE].columns == {("after.id", "id")}


@pytest.mark.slow
def test_a_2000_field_schema_stays_under_the_event_limit(lakehouse: Lakehouse) -> None:
    topic = "dbserver1.inventory.wide"
    definition = debezium.synthetic_table(topic, 2000)
    assert len(definition) <= debezium.GLUE_DEFINITION_LIMIT
    lakehouse.schema(topic, definition)
    lakehouse.table("wide", *(c.name for c in debezium.synthetic_columns(2000)))
    result = lakehouse.emit()
    (emission,) = result["emissions"]
    assert emission["largestEventBytes"] <= 300_000
    assert emission["degraded"][-1].startswith("column lineage cut to ")
    assert emission["columnLineage"]["matched"] == 2000
    edge = lakehouse.edges()[(f"{NAMESPACE}/{topic}", f"{TABLE_NAMESPACE}/lakehouse/wide")]
    assert len(edge.columns) == emission["columnLineage"]["emitted"] > 1500


def test_the_demo_view_reads_the_edges_back_through_the_datazone_api(
    lakehouse: Lakehouse, tmp_path: Path
) -> None:
    customers(lakehouse)
    lakehouse.emit()
    text, page = show(boto3.client("datazone", region_name="eu-west-1"), DOMAIN_ID, tmp_path)
    assert "dbserver1.inventory.customers  ->  lakehouse.customers" in text
    assert "after.first_name  ->  First_Name" in text
    assert page == tmp_path / "lineage.html"
    assert "sink/lakehouse.customers" in page.read_text(encoding="utf-8")


def test_a_glue_database_that_cannot_be_read_fails_only_its_topics(
    lakehouse: Lakehouse, fast_retries: None
) -> None:
    customers(lakehouse)
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("orders_v1", "order_number", database="curated")
    lakehouse.mapping("orders", topic=ORDERS, database="curated", table="orders_v1")
    # Given every attempt of the first GetTables (databases are read in name order: curated first) fails
    lakehouse.aws.faults.add(service="glue", operation="GetTables", kind="server_error", times=9)
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    (failure,) = raised.value.summary["failed"]
    assert failure["topic"] == ORDERS
    assert failure["error"].startswith("reading Glue database curated failed: GetTables:")
    assert raised.value.summary["emitted"] == 1
    assert set(lakehouse.edges()) == {CUSTOMERS_EDGE}
