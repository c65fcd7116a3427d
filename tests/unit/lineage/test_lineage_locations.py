"""S3 locations as lineage: a channel or stream writing a topic to an S3 general purpose bucket is one run
(topic -> `s3://<bucket>` / `<prefix>`), planned, handed over, retracted and kept like the other edges."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from kafka_lineage.lineage.content import LocationContent, TopicField
from kafka_lineage.lineage.events import MAX_EVENT_BYTES, build
from kafka_lineage.lineage.model import EdgeKey
from kafka_lineage.lineage.plan import Emit, EmitScope, Retract
from kafka_lineage.lineage.resolve import parse_mappings
from kafka_lineage.lineage.run_identity import derive_run_id
from kafka_lineage.lineage.world import parse_topic_fields
from kafka_lineage.model.delivery import DeliveryDerivation, DeliveryEdge
from kafka_lineage.model.table_mapping import MappingParameter
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey
from local import debezium
from tests.unit.lineage.lineage_builders import (
    NAMESPACE,
    REGISTERED,
    record,
    records,
    settings,
    source,
    table,
)
from tests.unit.lineage.openlineage_rules import assert_valid
from tests.unit.lineage.test_lineage_apply import World

ORDERS = "dbserver1.inventory.orders"
TOPIC = TopicKey("cdc", ORDERS)
NO_RULE = settings(source(tableRule=None))
STREAM_ARN = "arn:aws:firehose:eu-west-1:123456789012:deliverystream/orders-raw"
CHANNEL_ARN = "arn:aws:kafka:eu-west-1:123456789012:channel/cdc/0f1e2d3c/orders-channel"
LAKE = TableRef("sales", "orders", glue_catalog="s3tablescatalog/lake-tables")
RAW = EdgeKey.location(TOPIC, "s3://raw-zone", "orders/")
TABLES = EdgeKey.sink(TOPIC, LAKE)


def stream_edge(prefix: str = "orders/", bucket: str = "raw-zone", topic: TopicKey = TOPIC) -> DeliveryEdge:
    """What `kafka_lineage.delivery` derives from a stream with an ExtendedS3 destination."""
    return DeliveryEdge(
        topic,
        "firehose:orders-raw",
        STREAM_ARN,
        "firehose://eu-west-1/123456789012",
        "orders-raw",
        dataset=(f"s3://{bucket}", prefix),
    )


def channel_edge(*, table: TableRef | None = None, prefix: str | None = None) -> DeliveryEdge:
    """The orders channel, to an S3 Tables table or to the raw-zone bucket."""
    return DeliveryEdge(
        TOPIC,
        "channel:orders-channel",
        CHANNEL_ARN,
        "msk-channel://cdc",
        "orders-channel",
        table=table,
        dataset=("s3://raw-zone", prefix) if prefix is not None else None,
    )


def paths(*edges: DeliveryEdge, **derivation: Any) -> DeliveryDerivation:
    return DeliveryDerivation(edges=edges, **derivation)


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


def world() -> World:
    w = World()
    lake = table("orders", "id", "order_date", "purchaser", database="sales")
    w.tables["orders"] = replace(lake, ref=LAKE)
    return w


def live(w: World) -> set[tuple[str, str, str, str]]:
    """(input, output namespace, output name, job) of every event DataZone holds."""
    return {
        (inp["name"], out["namespace"], out["name"], stored.event["job"]["name"])
        for stored in w.lineage.events.values()
        for inp in stored.event["inputs"]
        for out in stored.event["outputs"]
    }


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
    built = build(location(), fields, {}, derive_run_id("x"), REGISTERED)
    tight = build(location(), fields[:2_000], {}, derive_run_id("x"), REGISTERED, max_bytes=120_000)

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


# -- plan and apply ----------------------------------------------------------------------------------------


def test_a_stream_to_a_bucket_posts_one_run_and_a_rerun_posts_nothing() -> None:
    # Given no rule: a Firehose stream writes the orders topic to s3://raw-zone/orders/
    w = world()
    recs = records(record(ORDERS))

    # When lineage runs
    plan, outcomes = w.run(recs, config=NO_RULE, delivery=paths(stream_edge()))

    # Then one edge, its own state entry, its run in DataZone; the topic is not unmapped
    (emit,) = plan.actions
    assert isinstance(emit, Emit)
    assert (emit.key, emit.reason, emit.target.origin) == (RAW, "new", "firehose:orders-raw")
    assert plan.unmapped == ()
    assert emit.describe()["location"] == "s3://raw-zone/orders/"
    assert set(w.states) == {f"cdc/{ORDERS}|s3://raw-zone/orders/"}
    assert (w.states[RAW.key].origin, w.states[RAW.key].table) == ("firehose:orders-raw", "")
    assert live(w) == {(ORDERS, "s3://raw-zone", "orders/", "orders-raw")}
    report = outcomes[ORDERS].report
    assert (report["location"], report["origin"]) == ("s3://raw-zone/orders/", "firehose:orders-raw")
    assert "columnLineage" not in report
    assert "table" not in report
    # And a rerun has nothing to do
    plan, outcomes = w.run(recs, config=NO_RULE, delivery=paths(stream_edge()))
    assert (plan.unchanged, plan.actions, outcomes) == ((RAW,), (), {})


def test_a_channel_moved_from_s3_tables_to_a_bucket_hands_its_edge_over_and_back() -> None:
    w = world()
    recs = records(record(ORDERS))
    w.run(recs, config=NO_RULE, delivery=paths(channel_edge(table=LAKE)))
    old = w.states[TABLES.key]

    # When the channel is recreated to write the raw-zone bucket instead
    plan, outcomes = w.run(recs, config=NO_RULE, delivery=paths(channel_edge(prefix="orders/")))

    # Then the location's run takes the table edge over: posted, then the table's run deleted
    (emit,) = plan.actions
    assert isinstance(emit, Emit)
    assert (emit.key, [key for key, _ in emit.replaces]) == (RAW, [TABLES])
    assert set(w.states) == {RAW.key}
    assert w.states[RAW.key].event_time > old.latest_event_time
    assert outcomes[ORDERS].report["previousTable"] == LAKE.name
    assert live(w) == {(ORDERS, "s3://raw-zone", "orders/", "orders-channel")}
    # And back to S3 Tables: the table edge takes the location over
    plan, outcomes = w.run(recs, config=NO_RULE, delivery=paths(channel_edge(table=LAKE)))
    (emit,) = plan.actions
    assert isinstance(emit, Emit)
    assert (emit.key, [key for key, _ in emit.replaces]) == (TABLES, [RAW])
    assert outcomes[ORDERS].report["previousLocation"] == "s3://raw-zone/orders/"
    assert set(w.states) == {TABLES.key}
    assert live(w) == {(ORDERS, "arn:aws:glue:eu-west-1:123456789012:table", LAKE.name, "orders-channel")}


def test_a_table_edge_that_fails_keeps_the_location_it_would_take_over() -> None:
    # Given the channel wrote the bucket, and is recreated to write a table the catalog does not hold
    w = world()
    recs = records(record(ORDERS))
    w.run(recs, config=NO_RULE, delivery=paths(channel_edge(prefix="orders/")))
    missing = TableRef("sales", "returns", glue_catalog="s3tablescatalog/lake-tables")
    del w.tables["orders"]

    plan, _ = w.run(recs, config=NO_RULE, delivery=paths(channel_edge(table=missing)))

    # Then the table's edge fails, and the location is neither retracted nor replaced: it waits
    assert plan.actions == ()
    assert [(f.key, "does not exist" in f.error) for f in plan.failed] == [
        (EdgeKey.sink(TOPIC, missing), True)
    ]
    assert set(w.states) == {RAW.key}
    assert live(w) == {(ORDERS, "s3://raw-zone", "orders/", "orders-channel")}


def test_a_removed_stream_retracts_its_location_and_another_keeps_its_own() -> None:
    # Given two streams of two topics write the bucket, and a rule names the orders topic's table
    w = world()
    w.tables["orders"] = table("orders", "id", database="lakehouse")
    customers = TopicKey("cdc", "dbserver1.inventory.customers")
    recs = records(record(ORDERS), record(customers.topic))
    both = paths(stream_edge(), stream_edge("customers/", topic=customers))
    w.run(recs, delivery=both)
    assert len(w.states) == 4  # two locations, two tables by the rule

    # When the orders topic's stream is deleted
    plan, _ = w.run(recs, delivery=paths(stream_edge("customers/", topic=customers)))

    # Then only its location is retracted (the topic still feeds its table), with every event deleted
    (retract,) = plan.actions
    assert isinstance(retract, Retract)
    assert (retract.key, retract.reason) == (RAW, "edge removed")
    assert retract.describe()["location"] == "s3://raw-zone/orders/"
    assert RAW.key not in w.states
    assert ("s3://raw-zone", "orders/") not in {(ns, name) for _, ns, name, _ in live(w)}
    assert (customers.topic, "s3://raw-zone", "customers/", "orders-raw") in live(w)


def test_a_topic_whose_only_location_is_removed_is_unmapped_and_retracted() -> None:
    w = world()
    recs = records(record(ORDERS))
    w.run(recs, config=NO_RULE, delivery=paths(stream_edge()))

    plan, _ = w.run(recs, config=NO_RULE, delivery=paths())

    assert [(a.key, getattr(a, "reason", "")) for a in plan.actions] == [(RAW, "unmapped")]
    assert plan.unmapped == (TOPIC,)
    assert (w.states, w.lineage.events) == ({}, {})


def test_an_unreadable_listing_or_description_keeps_the_location_as_it_is() -> None:
    w = world()
    recs = records(record(ORDERS))
    w.run(recs, config=NO_RULE, delivery=paths(stream_edge()))
    before, events = dict(w.states), set(w.lineage.events)

    for unread in (
        paths(unknown_kinds=frozenset({"firehose"})),  # ListDeliveryStreams failed
        paths(unread=("firehose:orders-raw",)),  # listed, not described
    ):
        # When the stream's kind, or the stream, could not be read
        plan, outcomes = w.run(recs, config=NO_RULE, delivery=unread)
        # Then its location is kept as it is, and the topic is not reported unmapped
        assert (plan.actions, plan.kept, plan.unmapped, outcomes) == ((), (RAW,), (), {})
        assert (w.states, set(w.lineage.events)) == (before, events)


def test_a_kept_location_holds_no_lower_tier_back() -> None:
    # Given the stream's location, then its listing fails while a rule names the topic's table
    w = world()
    w.tables["orders"] = table("orders", "id", database="lakehouse")
    recs = records(record(ORDERS))
    w.run(recs, delivery=paths(stream_edge()))

    plan, _ = w.run(recs, delivery=paths(unknown_kinds=frozenset({"firehose"})))

    # Then the location is kept and the rule's table stays drawn beside it (it was, and is, unchanged)
    assert plan.kept == (RAW,)
    assert plan.unchanged == (EdgeKey.sink(TOPIC, TableRef("lakehouse", "orders")),)


def test_an_operators_mapping_takes_the_location_over() -> None:
    w = world()
    recs = records(record(ORDERS))
    w.run(recs, config=NO_RULE, delivery=paths(stream_edge()))
    w.tables["fin/orders"] = table("orders", "id", database="fin")
    operator = MappingParameter(
        "/kafka-lineage/table-mappings/team/orders",
        json.dumps({"topic": ORDERS, "database": "fin", "table": "orders"}),
    )
    mappings, _ = parse_mappings([operator], "/kafka-lineage/table-mappings")

    # When an operator maps the topic (the stream still writes the bucket)
    plan, _ = w.run(recs, config=NO_RULE, mappings=mappings, delivery=paths(stream_edge()))

    # Then the mapping's table replaces the derived location: its run takes the location's over
    (emit,) = plan.actions
    assert isinstance(emit, Emit)
    assert (emit.key, [key for key, _ in emit.replaces]) == (
        EdgeKey.sink(TOPIC, TableRef("fin", "orders")),
        [RAW],
    )
    assert set(w.states) == {EdgeKey.sink(TOPIC, TableRef("fin", "orders")).key}
    assert {(ns, name) for _, ns, name, _ in live(w)} == {
        ("arn:aws:glue:eu-west-1:123456789012:table", "fin/orders")
    }


def test_a_plan_describes_the_location_it_would_post() -> None:
    plan, _ = world().run(
        records(record(ORDERS)), scope=EmitScope(dry_run=True), config=NO_RULE, delivery=paths(stream_edge())
    )
    assert plan.describe() == [
        {
            "action": "emit",
            "registryName": "cdc",
            "topic": ORDERS,
            "location": "s3://raw-zone/orders/",
            "job": "firehose://eu-west-1/123456789012/orders-raw",
            "reason": "new",
            "origin": "firehose:orders-raw",
            "replaces": None,
        }
    ]
