"""S3 locations as lineage: a channel or stream writing a topic to an S3 general purpose bucket is one run
(topic -> `s3://<bucket>` / `<prefix>`), planned, handed over, retracted and kept like the other edges."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from kafka_lineage.lineage.content import LocationContent, TopicField
from kafka_lineage.lineage.events import MAX_EVENT_BYTES, build, build_location
from kafka_lineage.lineage.run import parse_topic_fields
from kafka_lineage.lineage.run_identity import derive_run_id
from kafka_lineage.model.topics import TopicKey
from local import debezium
from tests.unit.lineage.lineage_builders import (
    NAMESPACE,
    REGISTERED,
    settings,
    source,
)
from tests.unit.lineage.openlineage_rules import assert_valid

ORDERS = "dbserver1.inventory.orders"
TOPIC = TopicKey("cdc", ORDERS)
NO_RULE = settings(source(tableRule=None))
STREAM_ARN = "arn:aws:firehose:eu-west-1:123456789012:deliverystream/orders-raw"


def location(prefix: str = "orders/", topic: str = ORDERS, **changes: Any) -> LocationContent:
    values: dict[str, Any] = {
        "key": TopicKey("cdc", topic),
        "topic_namespace": NAMESPACE,
        "schema_arn": f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{topic}",
        "schema_version": 3,
        "schema_version_id": "00000000-0000-4000-8000-000000000003",
        "schema_created": "2025-03-01T08:00:00+00:00",
        "data_format": "AVRO",
        "dataset_namespace": "s3://raw-zone",
        "dataset_name": prefix,
        "job_namespace": "firehose://eu-west-1/123456789012",
        "job_name": "orders-raw",
        "origin": "firehose:orders-raw",
        "arn": STREAM_ARN,
    }
    values.update(changes)
    return LocationContent(**values)


# -- events ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("topic", "prefix"),
    [
        (ORDERS, "orders/"),
        (ORDERS, "/"),  # the bucket's root
        ("t" * 255, "cdc$prod#1/.x-y_z/a>b<c|d/"),
    ],
)
def test_a_location_run_reads_the_topic_and_writes_the_s3_dataset(topic: str, prefix: str) -> None:
    # Given the orders topic (a real Debezium envelope) that a Firehose stream writes to raw-zone
    parsed = parse_topic_fields("AVRO", debezium.table_envelope("orders"))
    described = location(prefix, topic)

    # When its run is built
    built = build(
        described, parsed.fields, parsed.row_fields, derive_run_id(described.fingerprint()), REGISTERED
    )

    # Then START then COMPLETE, each a valid OpenLineage run: the topic in, with its schema; the S3 dataset
    # out by OpenLineage's S3 naming, with no facet (no table describes the objects); the stream's job
    assert [event_type for event_type, _ in built.bodies] == ["START", "COMPLETE"]
    for _, body in built.bodies:
        assert_valid(body)
    event = json.loads(built.bodies[1][1])
    (source_dataset,) = event["inputs"]
    assert (source_dataset["namespace"], source_dataset["name"]) == (NAMESPACE, topic)
    assert [f["name"] for f in source_dataset["facets"]["schema"]["fields"]][:2] == [
        "before",
        "before.order_number",
    ]
    assert event["outputs"] == [
        {"namespace": "s3://raw-zone", "name": prefix, "facets": {}, "outputFacets": {}}
    ]
    assert (event["job"]["namespace"], event["job"]["name"]) == (
        "firehose://eu-west-1/123456789012",
        "orders-raw",
    )
    where = "the root of s3://raw-zone" if prefix == "/" else f"s3://raw-zone under {prefix}"
    assert event["job"]["facets"]["documentation"]["description"] == (
        f"Amazon Data Firehose stream orders-raw writes Kafka topic {topic} (schema registry cdc, schema "
        f"version 3) to {where}."
    )
    assert event["run"]["facets"] == {}
    assert (built.degraded, built.lineage.matched, built.lineage.emitted) == ((), 0, 0)


def test_a_channels_run_says_it_is_a_channel() -> None:
    described = location(origin="channel:orders-channel", job_namespace="msk-channel://cdc", job_name="c")
    built = build(described, (), {}, derive_run_id("x"), REGISTERED)
    description = json.loads(built.bodies[0][1])["job"]["facets"]["documentation"]["description"]
    assert description.startswith("Amazon MSK Data Delivery channel orders-channel writes Kafka topic")


def test_a_huge_schema_degrades_descriptions_then_the_topic_schema_until_it_fits() -> None:
    # Given a topic of 20,000 described fields (several MB of schema facet)
    fields = tuple(TopicField(f"after.c{i:05d}", "string", "a description " * 8) for i in range(20_000))

    # When its location run is built at DataZone's limit, and at a tighter one
    built = build_location(location(), fields, {}, derive_run_id("x"), REGISTERED)
    tight = build_location(location(), fields[:2_000], {}, derive_run_id("x"), REGISTERED, max_bytes=120_000)

    # Then each event fits, each step taken is reported, and the location stays the output
    assert all(len(body) <= MAX_EVENT_BYTES for _, body in built.bodies)
    assert built.degraded == (
        "field descriptions dropped from the schema facets",
        "topic schema facet dropped",
    )
    assert json.loads(built.bodies[1][1])["inputs"][0]["facets"] == {}
    assert all(len(body) <= 120_000 for _, body in tight.bodies)
    assert tight.degraded == ("field descriptions dropped from the schema facets",)
    fields_kept = json.loads(tight.bodies[1][1])["inputs"][0]["facets"]["schema"]["fields"]
    assert len(fields_kept) == 2_000
    assert "description" not in fields_kept[0]
    assert json.loads(built.bodies[1][1])["outputs"][0]["name"] == "orders/"


def test_the_fingerprint_is_stable_and_moves_with_what_the_run_carries() -> None:
    base = location()
    assert base.fingerprint() == location().fingerprint()
    for changed in (
        replace(base, dataset_name="orders/v2/"),
        replace(base, dataset_namespace="s3://other-zone"),
        replace(base, job_name="orders-raw-2"),
        replace(base, arn=STREAM_ARN + "-2"),
        replace(base, origin="channel:orders-raw"),
        replace(base, schema_version=4),
    ):
        assert changed.fingerprint() != base.fingerprint()
    assert base.describe() == {"location": "s3://raw-zone/orders/"}
    assert base.job == "firehose://eu-west-1/123456789012/orders-raw"
