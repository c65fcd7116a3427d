"""Lineage from MSK Data Delivery channels and Firehose streams into S3 Tables and S3 general purpose
buckets, on the stand-ins, the function under its deployed role (IAM mode): the federated tables' nodes,
the `s3://` datasets, precedence, what is reported, and what a removed path or an unreadable listing
does."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import debezium, demo_delivery, world
from local.deployed import DeployedFunctions
from tests.fixtures import CLUSTER_ARN
from tests.integration.lineage.conftest import (
    ACCOUNT,
    NAMESPACE,
    REGION,
    RULE,
    TABLE_NAMESPACE,
    Failed,
    Lakehouse,
)

CUSTOMERS = debezium.topic_for("customers")
ORDERS = debezium.topic_for("orders")
PRODUCTS = debezium.topic_for("products")
NO_RULE = {"registryName": "cdc", "clusterArn": CLUSTER_ARN}
TOPICS_ORDERS = {"topics": [{"registryName": "cdc", "topic": ORDERS}]}
LAKE = demo_delivery.CATALOG
RAW_LOCATION = "/".join(demo_delivery.RAW_DATASET)  # the demo's stream of raw orders, by its static prefix
COLUMNS = {
    "orders": [("order_number", "int"), ("purchaser", "int"), ("quantity", "int")],
    "customers": [("id", "int"), ("first_name", "string"), ("email", "string")],
}


def delivered(lakehouse: Lakehouse) -> None:
    for table in ("customers", "orders", "products"):
        lakehouse.schema(debezium.topic_for(table), debezium.table_envelope(table))
    demo_delivery.create(lakehouse.aws, COLUMNS)


def test_a_channel_and_a_stream_draw_edges_to_their_s3_tables_tables(lakehouse: Lakehouse) -> None:
    # Given no rule: a channel (orders) and a stream (customers) into S3 Tables, a stream of raw orders into
    # a bucket, a stream routed by Lambda
    lakehouse.configure(NO_RULE)
    delivered(lakehouse)

    # When lineage runs under its deployed role
    result = lakehouse.emit()

    # Then every call was allowed, each path's topic feeds its federated table, the routed one is reported
    assert lakehouse.aws.iam.denials == []
    assert sorted(
        (e["topic"], e.get("table") or e["location"], e["origin"]) for e in result["emissions"]
    ) == [
        (CUSTOMERS, f"{LAKE}/crm/customers", "firehose:customers-to-s3-tables"),
        (ORDERS, RAW_LOCATION, "firehose:orders-raw-to-s3"),
        (ORDERS, f"{LAKE}/sales/orders", "channel:orders-to-s3-tables"),
    ]
    assert [(u["topic"], u["connector"]) for u in result["undetermined"]] == [
        (PRODUCTS, "firehose:products-routed")
    ]
    drawn = {(e.upstream, e.downstream): e for e in lakehouse.edges().values()}
    sink = drawn[(f"{NAMESPACE}/{ORDERS}", f"{TABLE_NAMESPACE}/{LAKE}/sales/orders")]
    assert (sink.job_namespace, sink.job_name) == ("msk-channel://cdc", "orders-to-s3-tables")
    assert ("after.purchaser", "purchaser") in sink.columns
    # And a rerun posts nothing, listing each kind once
    lakehouse.reset_calls()
    again = lakehouse.emit()
    assert (again["emitted"], again["unchanged"]) == (0, 3)
    assert lakehouse.count("kafka:ListChannels") == 1
    assert lakehouse.count("firehose:ListDeliveryStreams") == 1


def test_a_deleted_channel_is_retracted_and_an_unreadable_listing_keeps_the_streams_edge(
    lakehouse: Lakehouse,
) -> None:
    lakehouse.configure(NO_RULE)
    delivered(lakehouse)
    lakehouse.emit()
    kafka = boto3.client("kafka")
    (channel,) = kafka.list_channels(ClusterArn=CLUSTER_ARN)["Channels"]
    lakehouse.aws.set_readings(deleted_channels_linger=0)
    kafka.delete_channel(ClusterArn=CLUSTER_ARN, ChannelArn=channel["ChannelArn"])
    lakehouse.aws.faults.add(
        service="firehose", operation="ListDeliveryStreams", kind="server_error", times=20
    )

    # When lineage runs: it finishes every topic, then raises for the listing it could not read
    with pytest.raises(Failed) as raised:
        lakehouse.emit()

    # Then the removed channel's edge is retracted, the streams' (a table, a location) are kept as they are,
    # and the error is named
    result = raised.value.summary
    assert [(r["topic"], r["origin"], r["reason"]) for r in result["retracted"]] == [
        (ORDERS, "channel:orders-to-s3-tables", "edge removed")
    ]
    assert CUSTOMERS not in json.dumps(result["retracted"])
    assert result["keptConnectorEdges"] == 2
    assert result["unmapped"] == [{"registryName": "cdc", "topic": PRODUCTS}]
    assert "ListDeliveryStreams" in result["deliveryErrors"][0]["error"]


# -- S3 general purpose buckets --------------------------------------------------------------------------

BUCKET = "raw-zone.eu-1"
ODD_PREFIX = "cdc/$prod#1/a>b<c|d/orders.v-1_x/"
LONG_TOPIC = "t" * 255  # the longest Glue Schema Registry schema name
ROLE = demo_delivery.ROLE


def bucket_stream(name: str, topic: str, prefix: str) -> dict[str, Any]:
    return {
        "DeliveryStreamName": name,
        "DeliveryStreamType": "MSKAsSource",
        "MSKSourceConfiguration": {
            "MSKClusterARN": CLUSTER_ARN,
            "TopicName": topic,
            "AuthenticationConfiguration": {"RoleARN": ROLE, "Connectivity": "PRIVATE"},
        },
        "ExtendedS3DestinationConfiguration": {
            "RoleARN": ROLE,
            "BucketARN": f"arn:aws:s3:::{BUCKET}",
            "Prefix": prefix,
            "CompressionFormat": "GZIP",
        },
    }


def bucket_channel(name: str, topic: str, prefix: str) -> dict[str, Any]:
    return {
        "ClusterArn": CLUSTER_ARN,
        "ChannelName": name,
        "TopicConfigurationList": [
            {
                "TopicArn": demo_delivery.topic_arn(topic),
                "RecordConverter": {"ValueConverter": "JSON_SCHEMA_GSR"},
                "RecordSchema": {"GsrArn": world.schema_arn("cdc", topic)},
            }
        ],
        "S3DestinationConfiguration": {
            "ServiceExecutionRoleArn": ROLE,
            "DataFreshnessInSeconds": 300,
            "DeadLetterQueueS3": {"BucketArn": "arn:aws:s3:::raw-zone-dlq"},
            "Storage": {
                "BucketArn": f"arn:aws:s3:::{BUCKET}",
                "CompressionType": "ZSTD",
                "OutputPrefix": prefix,
                "StorageClass": "STANDARD",
            },
        },
    }


def to_buckets(lakehouse: Lakehouse) -> None:
    """A stream writes the orders topic (odd prefix, a timestamp after it) and a channel the customers topic
    to one bucket; a stream writes a topic of the longest name to the bucket's root."""
    lakehouse.configure(NO_RULE)
    for table in ("customers", "orders"):
        lakehouse.schema(debezium.topic_for(table), debezium.table_envelope(table))
    lakehouse.schema(LONG_TOPIC, debezium.table_envelope("orders"))
    firehose = boto3.client("firehose")
    firehose.create_delivery_stream(**bucket_stream("orders-raw", ORDERS, ODD_PREFIX + "!{timestamp:yyyy}/"))
    firehose.create_delivery_stream(**bucket_stream("long-raw", LONG_TOPIC, ""))
    boto3.client("kafka").create_channel(**bucket_channel("customers-raw", CUSTOMERS, "customers/"))


def s3_edges(lakehouse: Lakehouse) -> dict[tuple[str, str], tuple[str, str]]:
    """(topic node, S3 node) -> (job namespace, job name) of every live edge into an S3 location."""
    return {
        (edge.upstream, edge.downstream): (edge.job_namespace, edge.job_name)
        for edge in lakehouse.edges().values()
        if edge.downstream.startswith("s3://")
    }


def test_streams_and_a_channel_to_a_bucket_post_runs_whose_output_is_the_s3_dataset(
    lakehouse: Lakehouse,
) -> None:
    # Given two Firehose streams and an MSK channel writing topics to an S3 general purpose bucket
    to_buckets(lakehouse)

    # When lineage runs under its deployed role
    result = lakehouse.emit()

    # Then every call was allowed, and each topic's run writes its location: the prefix's static part
    assert lakehouse.aws.iam.denials == []
    assert sorted((e["topic"], e["location"], e["origin"]) for e in result["emissions"]) == [
        (CUSTOMERS, f"s3://{BUCKET}/customers/", "channel:customers-raw"),
        (ORDERS, f"s3://{BUCKET}/{ODD_PREFIX}", "firehose:orders-raw"),
        (LONG_TOPIC, f"s3://{BUCKET}//", "firehose:long-raw"),
    ]
    assert (result["unmapped"], result["undetermined"], result["failed"]) == ([], [], [])
    firehose_jobs = f"firehose://{REGION}/{ACCOUNT}"
    assert s3_edges(lakehouse) == {
        (f"{NAMESPACE}/{CUSTOMERS}", f"s3://{BUCKET}/customers/"): ("msk-channel://cdc", "customers-raw"),
        (f"{NAMESPACE}/{ORDERS}", f"s3://{BUCKET}/{ODD_PREFIX}"): (firehose_jobs, "orders-raw"),
        (f"{NAMESPACE}/{LONG_TOPIC}", f"s3://{BUCKET}//"): (firehose_jobs, "long-raw"),
    }
    # And each event is the run of its path: the topic in (its schema), the dataset out, by S3 naming
    orders = [e for e in lakehouse.events() if e["inputs"][0]["name"] == ORDERS]
    assert sorted(e["eventType"] for e in orders) == ["COMPLETE", "START"]
    for event in orders:
        assert [(o["namespace"], o["name"], o["facets"]) for o in event["outputs"]] == [
            (f"s3://{BUCKET}", ODD_PREFIX, {})
        ]
        assert "schema" in event["inputs"][0]["facets"]
        assert (
            "Amazon Data Firehose stream orders-raw writes Kafka topic"
            in (event["job"]["facets"]["documentation"]["description"])
        )
    # And a rerun posts nothing
    lakehouse.reset_calls()
    again = lakehouse.emit()
    assert (again["emitted"], again["unchanged"]) == (0, 3)
    assert lakehouse.aws.call_counts()["datazone:PostLineageEvent"] == 0


def test_a_removed_stream_retracts_its_location_and_an_unreadable_listing_keeps_them(
    lakehouse: Lakehouse,
) -> None:
    to_buckets(lakehouse)
    lakehouse.emit()
    orders_node = (f"{NAMESPACE}/{ORDERS}", f"s3://{BUCKET}/{ODD_PREFIX}")
    before = s3_edges(lakehouse)

    # When both listings fail: nothing is retracted, each location is kept as it is
    for service, operation in (("firehose", "ListDeliveryStreams"), ("kafka", "ListChannels")):
        lakehouse.aws.faults.add(service=service, operation=operation, kind="server_error", times=20)
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    kept = raised.value.summary
    assert (kept["emitted"], kept["retracted"], kept["unmapped"], kept["keptConnectorEdges"]) == (
        0,
        [],
        [],
        3,
    )
    assert len(kept["deliveryErrors"]) == 2
    assert s3_edges(lakehouse) == before
    lakehouse.aws.faults.clear()

    # When the orders stream is deleted
    boto3.client("firehose").delete_delivery_stream(DeliveryStreamName="orders-raw")
    lakehouse.reset_calls()
    result = lakehouse.emit()

    # Then its location's events are deleted and the others stay; the topic has no edge left: unmapped
    assert [(r["topic"], r["location"], r["origin"], r["reason"]) for r in result["retracted"]] == [
        (ORDERS, f"s3://{BUCKET}/{ODD_PREFIX}", "firehose:orders-raw", "unmapped")
    ]
    assert lakehouse.aws.call_counts()["datazone:DeleteLineageEvent"] == 2
    assert result["unmapped"] == [{"registryName": "cdc", "topic": ORDERS}]
    assert orders_node not in s3_edges(lakehouse)
    assert set(s3_edges(lakehouse)) == set(before) - {orders_node}
    assert not [e for e in lakehouse.events() if e["inputs"][0]["name"] == ORDERS]


def test_an_operators_mapping_replaces_the_location_and_a_rule_draws_the_table_beside_it(
    lakehouse: Lakehouse,
) -> None:
    # Given the orders stream's location, and the rule naming the topic's Iceberg table too
    to_buckets(lakehouse)
    lakehouse.configure({**NO_RULE, "tableRule": RULE})
    lakehouse.table("orders", *COLUMNS["orders"])
    first = lakehouse.emit(TOPICS_ORDERS)
    assert sorted(e.get("table") or e["location"] for e in first["emissions"]) == [
        "lakehouse/orders",
        f"s3://{BUCKET}/{ODD_PREFIX}",
    ]

    # When an operator maps the topic to another table
    lakehouse.table("orders_curated", *COLUMNS["orders"], database="curated")
    lakehouse.mapping("team/orders", topic=ORDERS, database="curated", table="orders_curated")
    result = lakehouse.emit(TOPICS_ORDERS)

    # Then the mapping's table is the topic's only edge: the location and the rule's table are gone
    assert [(e["table"], e["origin"]) for e in result["emissions"]] == [
        ("curated/orders_curated", "operator")
    ]
    downstream = {d for (u, d) in lakehouse.edges() if u == f"{NAMESPACE}/{ORDERS}"}
    assert downstream == {f"{TABLE_NAMESPACE}/curated/orders_curated"}


def test_a_new_instance_describes_a_stream_anew_though_an_old_one_kept_a_description_of_its_name(
    lakehouse: Lakehouse,
) -> None:
    # Given a stream writing the orders topic to one prefix, described by the deployed function's instance
    to_buckets(lakehouse)
    lakehouse.emit()
    # and then deleted and created again under the same name with another prefix (ListDeliveryStreams
    # answers names only: a kept description of that name cannot tell)
    firehose = boto3.client("firehose")
    firehose.delete_delivery_stream(DeliveryStreamName="orders-raw")
    firehose.create_delivery_stream(**bucket_stream("orders-raw", ORDERS, "moved/orders/"))
    lakehouse.aws.firehose.set_status(ACCOUNT, "orders-raw", "ACTIVE")

    # When a new deployment's instance runs (its wiring built anew, as Lambda builds one per instance)
    lakehouse.deployed = DeployedFunctions(lakehouse.aws)
    result = lakehouse.emit()

    # Then it described the stream itself: the new prefix, not what the other instance kept
    locations = {e["topic"]: e["location"] for e in result["emissions"]}
    assert locations[ORDERS] == f"s3://{BUCKET}/moved/orders/"
