"""Who reads a topic, on the stand-ins, the function under its deployed role (IAM mode): the consumer groups
MSK's consumer-lag metrics name in CloudWatch, drawn as runs of job `consumer/<group>` with the topic as
input and no output; kept, retracted and reported like every derived edge."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import debezium, demo_connectors, demo_consumers
from local.demo_connectors import ARCHIVE_SINK, LAKEHOUSE_SINK
from tests.fixtures import CLUSTER_ARN
from tests.integration.lineage.conftest import BROKERS, NAMESPACE, RULE, Failed, Lakehouse

CUSTOMERS = debezium.topic_for("customers")
ORDERS = debezium.topic_for("orders")
SOURCE = {"registryName": "cdc", "clusterArn": CLUSTER_ARN, "tableRule": RULE}
CONSUMER_NS = "kafka-consumer://cdc"


def lag(group: str, topic: str, **extra: Any) -> None:
    demo_consumers.lag(boto3.client("cloudwatch"), CLUSTER_ARN, group, topic, **extra)


def inventory(lakehouse: Lakehouse) -> None:
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email")
    lakehouse.table("orders", "order_number", "purchaser", "quantity")


def consumer_events(lakehouse: Lakehouse) -> list[dict[str, Any]]:
    return [e for e in lakehouse.events() if e["job"]["name"].startswith("consumer/")]


def consumers_of(result: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((e["topic"], e["consumerGroup"]) for e in result["emissions"] if "consumerGroup" in e)


def test_a_group_that_reads_a_topic_is_one_run_with_the_topic_in_and_no_output(lakehouse: Lakehouse) -> None:
    # Given two mirrored topics with their tables, and a service's group reading the orders topic
    lakehouse.configure(SOURCE)
    inventory(lakehouse)
    lakehouse.emit()
    lag("order-service", ORDERS)

    # When lineage runs under its deployed role
    lakehouse.reset_calls()
    result = lakehouse.emit()

    # Then the one new edge is one run: START and COMPLETE, the topic its input, no output, a streaming
    # consumer's job; one ListMetrics call, every call allowed
    assert lakehouse.aws.iam.denials == []
    assert (result["emitted"], result["unchanged"], result["failed"]) == (1, 2, [])
    assert consumers_of(result) == [(ORDERS, "order-service")]
    events = consumer_events(lakehouse)
    assert sorted(e["eventType"] for e in events) == ["COMPLETE", "START"]
    for event in events:
        assert (event["job"]["namespace"], event["job"]["name"]) == (CONSUMER_NS, "consumer/order-service")
        assert [(i["namespace"], i["name"]) for i in event["inputs"]] == [(NAMESPACE, ORDERS)]
        assert event["outputs"] == []
        job_type = event["job"]["facets"]["jobType"]
        assert (job_type["processingType"], job_type["integration"], job_type["jobType"]) == (
            "STREAMING",
            "KAFKA",
            "CONSUMER",
        )
    assert lakehouse.count("cloudwatch:ListMetrics") == 1

    # And a rerun posts nothing and lists the cluster once
    lakehouse.reset_calls()
    again = lakehouse.emit()
    assert (again["emitted"], again["unchanged"]) == (0, 3)
    assert lakehouse.count("cloudwatch:ListMetrics") == 1
    assert lakehouse.aws.call_counts("datazone").get("datazone:PostLineageEvent", 0) == 0


def test_a_cluster_with_more_than_500_lag_metrics_costs_one_call_per_500(lakehouse: Lakehouse) -> None:
    # Given 600 groups reading topics that are not mirrored, and one reading the orders topic
    lakehouse.configure(SOURCE)
    inventory(lakehouse)
    cloudwatch = boto3.client("cloudwatch")
    for n in range(600):
        demo_consumers.lag(cloudwatch, CLUSTER_ARN, f"batch-{n:03d}", f"other.topic.{n % 7}")
    lag("order-service", ORDERS)

    # When lineage runs twice
    first = lakehouse.emit()
    lakehouse.reset_calls()
    second = lakehouse.emit()

    # Then only the mirrored topic's reader is drawn, and each run lists 601 metrics in two pages
    assert consumers_of(first) == [(ORDERS, "order-service")]
    assert second["emitted"] == 0
    assert lakehouse.count("cloudwatch:ListMetrics") == 2


def test_a_group_that_stops_reading_is_retracted_two_weeks_later(lakehouse: Lakehouse) -> None:
    # Given two groups drawn on the orders topic
    lakehouse.configure(SOURCE)
    inventory(lakehouse)
    lag("order-service", ORDERS)
    lag("shipping-notifier", ORDERS)
    lakehouse.emit()
    assert len(consumer_events(lakehouse)) == 4

    # When the notifier publishes nothing for over two weeks (ListMetrics forgets it), the service goes on
    lakehouse.aws.cloudwatch.advance(days=15)
    lag("order-service", ORDERS, when=lakehouse.aws.cloudwatch.now())
    result = lakehouse.emit()

    # Then the notifier's edge is retracted and its events deleted; the service's stays as it was
    assert [(r["topic"], r["consumerGroup"], r["reason"]) for r in result["retracted"]] == [
        (ORDERS, "shipping-notifier", "edge removed")
    ]
    assert {e["job"]["name"] for e in consumer_events(lakehouse)} == {"consumer/order-service"}
    assert result["emitted"] == 0


def test_a_sink_connectors_own_group_is_folded_into_its_edge(lakehouse: Lakehouse) -> None:
    # Given an Iceberg sink connector (consuming as connect-lakehouse-sink) and one whose group id is
    # overridden, both drawn as table edges, and their groups' lag metrics
    lakehouse.configure({"registryName": "cdc", "clusterArn": CLUSTER_ARN})
    inventory(lakehouse)
    kafkaconnect = boto3.client("kafkaconnect")
    demo_connectors.create(kafkaconnect, "lakehouse-sink", LAKEHOUSE_SINK, BROKERS)
    overridden = {**ARCHIVE_SINK, "consumer.override.group.id": "archive-writer"}
    lakehouse.table("orders", "order_number", "purchaser", database="archive")
    demo_connectors.create(kafkaconnect, "archive-sink", overridden, BROKERS)
    lag("connect-lakehouse-sink", ORDERS)
    lag("connect-lakehouse-sink", CUSTOMERS)
    lag("archive-writer", ORDERS)
    lag("connect-archive-sink", CUSTOMERS)  # no edge of that connector on customers: a reader of its own

    # When lineage runs
    result = lakehouse.emit()

    # Then the connectors' groups draw nothing of their own on the topics they sink
    assert lakehouse.aws.iam.denials == []
    assert consumers_of(result) == [(CUSTOMERS, "connect-archive-sink")]
    assert sorted(e["origin"] for e in result["emissions"] if "table" in e) == [
        "connector:archive-sink",
        "connector:lakehouse-sink",
        "connector:lakehouse-sink",
    ]


def test_a_failed_listing_keeps_every_consumer_edge_and_fails_the_run(lakehouse: Lakehouse) -> None:
    lakehouse.configure(SOURCE)
    inventory(lakehouse)
    lag("order-service", ORDERS)
    lakehouse.emit()
    lakehouse.aws.cloudwatch.advance(days=15)  # nothing listed any more, were the listing to answer
    lakehouse.aws.faults.add(service="cloudwatch", operation="ListMetrics", kind="server_error", times=20)

    # When lineage runs and CloudWatch fails
    with pytest.raises(Failed) as raised:
        lakehouse.emit()

    # Then nothing is retracted, the edge is kept, and the error is named
    result = raised.value.summary
    assert result["retracted"] == []
    assert result["keptConnectorEdges"] == 1
    assert "ListMetrics" in result["consumerErrors"][0]["error"]
    assert len(consumer_events(lakehouse)) == 2


def test_the_setting_filters_groups_and_off_retracts_them(lakehouse: Lakehouse) -> None:
    # Given groups with odd names, and an exclude filter (Firehose's own group, were it known by name)
    lakehouse.configure({**SOURCE, "consumers": {"exclude": ["firehose-*"]}})
    inventory(lakehouse)
    odd = ["svc$prod#1.orders-v_2", "a@b|c>d<e", "g" * 255]
    for group in odd:
        lag(group, ORDERS)
    lag("firehose-orders-raw", ORDERS)
    drawn = lakehouse.emit()
    assert consumers_of(drawn) == sorted((ORDERS, group) for group in odd)

    # When the source turns consumers off
    lakehouse.configure({**SOURCE, "consumers": "off"})
    lakehouse.reset_calls()
    result = lakehouse.emit()

    # Then every consumer edge is retracted, and CloudWatch is not asked
    assert sorted(r["consumerGroup"] for r in result["retracted"]) == sorted(odd)
    assert consumer_events(lakehouse) == []
    assert lakehouse.count("cloudwatch:ListMetrics") == 0
    assert json.dumps(result["failed"]) == "[]"
