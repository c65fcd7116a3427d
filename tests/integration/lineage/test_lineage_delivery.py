"""Lineage from MSK Data Delivery channels and Firehose streams into S3 Tables, on the stand-ins, the
function under its deployed role (IAM mode): the federated tables' nodes, precedence, what is reported,
and what a removed path or an unreadable listing does."""

from __future__ import annotations

import json

import boto3
import pytest

from local import debezium, demo_delivery
from tests.fixtures import CLUSTER_ARN
from tests.integration.lineage.conftest import NAMESPACE, TABLE_NAMESPACE, Failed, Lakehouse

CUSTOMERS = debezium.topic_for("customers")
ORDERS = debezium.topic_for("orders")
PRODUCTS = debezium.topic_for("products")
NO_RULE = {"registryName": "cdc", "clusterArn": CLUSTER_ARN}
LAKE = demo_delivery.CATALOG
COLUMNS = {
    "orders": [("order_number", "int"), ("purchaser", "int"), ("quantity", "int")],
    "customers": [("id", "int"), ("first_name", "string"), ("email", "string")],
}


def delivered(lakehouse: Lakehouse) -> None:
    for table in ("customers", "orders", "products"):
        lakehouse.schema(debezium.topic_for(table), debezium.table_envelope(table))
    demo_delivery.create(lakehouse.aws, COLUMNS)


def test_a_channel_and_a_stream_draw_edges_to_their_s3_tables_tables(lakehouse: Lakehouse) -> None:
    # Given no rule: a channel (orders) and a stream (customers) into S3 Tables, a stream routed by Lambda
    lakehouse.configure(NO_RULE)
    delivered(lakehouse)

    # When lineage runs under its deployed role
    result = lakehouse.emit()

    # Then every call was allowed, each path's topic feeds its federated table, the routed one is reported
    assert lakehouse.aws.iam.denials == []
    assert sorted((e["topic"], e["table"], e["origin"]) for e in result["emissions"]) == [
        (CUSTOMERS, f"{LAKE}/crm/customers", "firehose:customers-to-s3-tables"),
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
    assert (again["emitted"], again["unchanged"]) == (0, 2)
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

    # Then the removed channel's edge is retracted, the stream's is kept as it is, and the error is named
    result = raised.value.summary
    assert [(r["topic"], r["origin"]) for r in result["retracted"]] == [
        (ORDERS, "channel:orders-to-s3-tables")
    ]
    assert CUSTOMERS not in json.dumps(result["retracted"])
    assert result["keptConnectorEdges"] == 1
    assert "ListDeliveryStreams" in result["deliveryErrors"][0]["error"]
