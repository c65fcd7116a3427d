"""Edges from channels and delivery streams: described as AWS documents them (tests/events/delivery/),
read into paths by the adapter's parsers, derived into edges and notes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from kafka_lineage.aws.delivery import channel_path, stream_path
from kafka_lineage.config import Source
from kafka_lineage.delivery import derive
from kafka_lineage.model.delivery import DeliveryPath, DeliveryReads, IcebergDestination
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

ANSWERS = Path(__file__).resolve().parents[2] / "events" / "delivery"
CLUSTER = "arn:aws:kafka:us-east-1:123456789012:cluster/my-express-cluster/abc123"
TOPIC = TopicKey("my-registry", "orders-topic")


def answer(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ANSWERS / name).read_text())
    return loaded


def source(**settings: Any) -> Source:
    return Source.model_validate({"registryName": "my-registry", "clusterArn": CLUSTER, **settings})


def tables_channel() -> DeliveryPath:
    return channel_path(answer("describe_channel_s3_tables.json"), CLUSTER)


def stream() -> DeliveryPath:
    path = stream_path(answer("describe_delivery_stream_msk_iceberg.json")["DeliveryStreamDescription"])
    assert path is not None
    return path


def test_a_channel_to_s3_tables_feeds_its_table_in_the_table_buckets_catalog() -> None:
    derived = derive(DeliveryReads(paths=(tables_channel(),)), [TOPIC], [source()])

    (edge,) = derived.edges
    assert edge.key == TOPIC
    assert edge.table == TableRef("sales", "orders", glue_catalog="s3tablescatalog/my-table-bucket")
    assert edge.table.name == "s3tablescatalog/my-table-bucket/sales/orders"
    assert (edge.origin, edge.job_namespace, edge.job_name) == (
        "channel:orders-channel",
        "msk-channel://my-express-cluster",
        "orders-channel",
    )
    assert derived.notes == ()


def test_a_suspended_channel_to_a_bucket_is_reported_and_keeps_its_s3_edge() -> None:
    path = channel_path(answer("describe_channel_s3.json"), CLUSTER)

    derived = derive(DeliveryReads(paths=(path,)), [TOPIC], [source()])

    assert [(e.dataset, e.origin) for e in derived.edges] == [
        (("s3://my-raw-bucket", "orders/"), "channel:orders-s3-channel")
    ]
    assert [(i.origin, i.status) for i in derived.inactive] == [("channel:orders-s3-channel", "SUSPENDED")]


def test_a_deleting_channel_has_no_edges() -> None:
    path = replace(tables_channel(), status="DELETING")

    assert derive(DeliveryReads(paths=(path,)), [TOPIC], [source()]).edges == ()


def test_a_channel_validating_against_another_schema_is_reported() -> None:
    path = tables_channel()
    other = replace(
        path.topics[0], schema_arn=path.topics[0].schema_arn.replace("/orders-topic", "/orders-v2")
    )

    derived = derive(DeliveryReads(paths=(replace(path, topics=(other,)),)), [TOPIC], [source()])

    assert derived.edges == ()
    assert [(n.kind, n.key) for n in derived.notes] == [("undetermined", TOPIC)]
    assert "'orders-v2'" in derived.notes[0].reason


def test_a_firehose_stream_feeds_its_configured_table_in_its_catalog_arns_catalog() -> None:
    derived = derive(DeliveryReads(paths=(stream(),)), [TOPIC], [source()])

    (edge,) = derived.edges
    # Glue keeps names in lower case: Firehose's UserEvents is Glue's userevents
    assert edge.table == TableRef("userevents", "customer_id", glue_catalog="s3tablescatalog/my-table-bucket")
    assert (edge.origin, edge.job_namespace) == (
        "firehose:orders-to-lake",
        "firehose://us-east-1/123456789012",
    )


def test_per_record_routing_is_undetermined_and_names_the_stream() -> None:
    path = stream()
    assert path.iceberg is not None
    routed = replace(path, iceberg=replace(path.iceberg, routing="by a Lambda function (arn:...:router)"))

    derived = derive(DeliveryReads(paths=(routed,)), [TOPIC], [source()])

    assert derived.edges == ()
    assert [(n.kind, n.connector) for n in derived.notes] == [("undetermined", "firehose:orders-to-lake")]
    assert "firehose orders-to-lake routes each record" in derived.notes[0].reason


def test_a_catalog_in_another_account_or_region_is_reported() -> None:
    path = stream()
    assert path.iceberg is not None
    others = (replace(path.iceberg, account="444455556666"), replace(path.iceberg, region="eu-west-1"))
    for iceberg in others:
        elsewhere = replace(path, iceberg=iceberg)

        derived = derive(DeliveryReads(paths=(elsewhere,)), [TOPIC], [source()])

        assert derived.edges == ()
        assert derived.notes[0].kind == "undetermined"


def test_several_topics_into_several_tables_are_ambiguous_and_one_into_several_feeds_each() -> None:
    path = tables_channel()
    assert path.iceberg is not None
    two_tables = replace(path.iceberg, tables=(("sales", "orders"), ("sales", "orders_copy")))
    second = replace(path.topics[0], topic="refunds", schema_arn="")
    refunds = TopicKey("my-registry", "refunds")

    one_topic = derive(DeliveryReads(paths=(replace(path, iceberg=two_tables),)), [TOPIC], [source()])
    both = derive(
        DeliveryReads(paths=(replace(path, iceberg=two_tables, topics=(*path.topics, second)),)),
        [TOPIC, refunds],
        [source()],
    )

    assert sorted(e.table.table for e in one_topic.edges if e.table) == ["orders", "orders_copy"]
    assert both.edges == ()
    assert {n.kind for n in both.notes} == {"ambiguous"}


def test_settings_off_filters_and_other_clusters_select_the_paths() -> None:
    reads = DeliveryReads(paths=(tables_channel(), stream()))

    assert derive(reads, [TOPIC], [source(channels="off")]).edges[0].origin == "firehose:orders-to-lake"
    assert [e.origin for e in derive(reads, [TOPIC], [source(firehose={"exclude": ["orders-*"]})]).edges] == [
        "channel:orders-channel"
    ]
    other = Source.model_validate(
        {"registryName": "my-registry", "clusterArn": CLUSTER.replace("abc123", "zzz999")}
    )
    assert derive(reads, [TOPIC], [other]).edges == ()


def test_an_unlisted_kind_or_an_unread_path_keeps_its_edges() -> None:
    derived = derive(
        DeliveryReads(paths=(stream(),), unread=("channel:orders-channel",), firehose_ok=False),
        [TOPIC],
        [source()],
    )

    assert derived.keeps("channel:orders-channel")
    assert derived.keeps("firehose:anything")
    assert not derived.keeps("channel:another")


def test_an_iceberg_destination_without_tables_or_with_invalid_names_is_undetermined() -> None:
    path = tables_channel()
    for tables in ((), (("sales", "bad name"),)):
        empty = replace(
            path, iceberg=IcebergDestination("123456789012", "us-east-1", "s3tablescatalog/b", tables)
        )

        derived = derive(DeliveryReads(paths=(empty,)), [TOPIC], [source()])

        assert derived.edges == ()
        assert derived.notes[0].kind == "undetermined"
