"""Delivery paths and federated catalogs in the resolution: a channel's or stream's table edges rank with
the connectors' (below an operator's mapping, above the stack's and the rule), keep when unread, and a
mapping or rule may name a federated catalog. Its S3 locations are edges of their own, which an operator's
mapping replaces and which name no table."""

from __future__ import annotations

import json

from kafka_lineage.lineage.model import EdgeKey
from kafka_lineage.lineage.resolve import Location, Target, parse_mappings, resolve
from kafka_lineage.model.connectors import ConnectorNote
from kafka_lineage.model.delivery import DeliveryDerivation, DeliveryEdge, InactivePath
from kafka_lineage.model.table_mapping import MappingParameter
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey
from tests.unit.lineage.lineage_builders import RULE, record, settings, source

PATH = "/kafka-lineage/table-mappings"
TOPIC = "dbserver1.inventory.orders"
KEY = TopicKey("cdc", TOPIC)
LAKE = TableRef("sales", "orders", glue_catalog="s3tablescatalog/lake-tables")


def channel_edge(table: TableRef = LAKE, name: str = "orders-channel") -> DeliveryEdge:
    return DeliveryEdge(
        KEY,
        f"channel:{name}",
        f"arn:aws:kafka:eu-west-1:123456789012:channel/c/u/{name}",
        "msk-channel://c",
        name,
        table,
    )


def targets(resolution, key=KEY) -> list[Target]:
    return [e for e in resolution.edges_of(key) if isinstance(e, Target)]


def test_a_channel_edge_beats_the_stacks_mapping_and_the_rule_and_names_its_job() -> None:
    stack = MappingParameter(
        f"{PATH}/cdk/o", json.dumps({"topic": TOPIC, "database": "stackdb", "table": "t"})
    )
    mappings, invalid = parse_mappings([stack], PATH)

    resolution = resolve(
        [record(TOPIC)], settings(), mappings, invalid, delivery=DeliveryDerivation(edges=(channel_edge(),))
    )

    (target,) = targets(resolution)
    assert (target.table, target.origin) == (LAKE, "channel:orders-channel")
    assert target.connector is not None
    assert (target.connector.job_namespace, target.connector.job_name) == (
        "msk-channel://c",
        "orders-channel",
    )


def test_an_operators_mapping_in_a_federated_catalog_beats_a_stream() -> None:
    operator = MappingParameter(
        f"{PATH}/team/o",
        json.dumps(
            {"topic": TOPIC, "database": "Fin", "table": "Orders", "catalog": "s3tablescatalog/finance"}
        ),
    )
    mappings, invalid = parse_mappings([operator], PATH)
    stream = DeliveryEdge(
        KEY,
        "firehose:s",
        "arn:aws:firehose:eu-west-1:123456789012:deliverystream/s",
        "firehose://eu-west-1/123456789012",
        "s",
        LAKE,
    )

    resolution = resolve(
        [record(TOPIC)], settings(), mappings, invalid, delivery=DeliveryDerivation(edges=(stream,))
    )

    (target,) = targets(resolution)
    assert (target.table, target.origin) == (
        TableRef("fin", "orders", glue_catalog="s3tablescatalog/finance"),
        "operator",
    )
    assert target.table.name == "s3tablescatalog/finance/fin/orders"


def test_a_rule_naming_a_catalog_maps_into_it() -> None:
    config = settings(source(tableRule={**RULE, "catalog": "s3tablescatalog/lake-tables"}))

    (target,) = targets(resolve([record(TOPIC)], config, []))

    assert target.table.glue_catalog == "s3tablescatalog/lake-tables"
    assert target.origin == "rule"


def test_unread_paths_and_failed_listings_keep_their_edges_and_notes_are_reported() -> None:
    note = ConnectorNote(
        "undetermined", "firehose:routed", "firehose routed routes each record to its table", KEY
    )
    delivery = DeliveryDerivation(
        notes=(note,),
        inactive=(InactivePath("channel:orders-channel", "FAILED", "channel orders-channel is FAILED"),),
        unread=("channel:orders-channel",),
        unknown_kinds=frozenset({"firehose"}),
    )

    resolution = resolve([record(TOPIC)], settings(), [], (), delivery=delivery)

    assert resolution.keeps("channel:orders-channel")
    assert resolution.keeps("firehose:anything")
    assert not resolution.keeps("channel:other")
    assert [(i.connector, i.key) for i in resolution.undetermined] == [("firehose:routed", KEY)]
    assert [p.status for p in resolution.inactive_paths] == ["FAILED"]


def bucket_edge(
    name: str = "raw", prefix: str = "orders/", kind: str = "channel", bucket: str = "raw-zone"
) -> DeliveryEdge:
    return DeliveryEdge(
        KEY, f"{kind}:{name}", f"arn:{name}", f"{kind}://c", name, dataset=(f"s3://{bucket}", prefix)
    )


def locations(resolution, key=KEY) -> list[Location]:
    return [e for e in resolution.edges_of(key) if isinstance(e, Location)]


def test_an_s3_location_is_an_edge_of_its_own_and_the_topic_is_not_unmapped() -> None:
    # Given no rule and no mapping: a channel writes the topic to a bucket
    delivery = DeliveryDerivation(edges=(bucket_edge(),))

    # When the edges are resolved
    resolution = resolve([record(TOPIC)], settings(source(tableRule=None)), [], (), delivery=delivery)

    # Then the topic has one location edge, named by the node's identifier, and nothing is reported
    (location,) = locations(resolution)
    assert (location.origin, location.dataset) == ("channel:raw", ("s3://raw-zone", "orders/"))
    assert location.edge == EdgeKey.location(KEY, "s3://raw-zone", "orders/")
    assert location.edge.key == f"cdc/{TOPIC}|s3://raw-zone/orders/"
    assert targets(resolution) == []
    assert (resolution.unmapped, resolution.undetermined) == ((), ())


def test_a_location_decides_no_table_so_the_stacks_mapping_or_the_rule_still_names_one() -> None:
    # Given a stream writing raw records to a bucket, and the rule naming the topic's Iceberg table
    delivery = DeliveryDerivation(edges=(bucket_edge("raw-orders", kind="firehose"),))
    stack = MappingParameter(
        f"{PATH}/cdk/o", json.dumps({"topic": TOPIC, "database": "stackdb", "table": "t"})
    )
    mappings, invalid = parse_mappings([stack], PATH)

    # When the edges are resolved with the rule alone, then with the stack's mapping too
    by_rule = resolve([record(TOPIC)], settings(), [], (), delivery=delivery)
    by_stack = resolve([record(TOPIC)], settings(), mappings, invalid, delivery=delivery)

    # Then both outputs are drawn: the location, and the table of the lower tier
    assert [loc.origin for loc in locations(by_rule)] == ["firehose:raw-orders"]
    assert [(t.table, t.origin) for t in targets(by_rule)] == [(TableRef("lakehouse", "orders"), "rule")]
    assert [loc.origin for loc in locations(by_stack)] == ["firehose:raw-orders"]
    assert [(t.table, t.origin) for t in targets(by_stack)] == [(TableRef("stackdb", "t"), "cdk")]


def test_a_derived_table_edge_beside_a_location_holds_the_lower_tiers_back_as_before() -> None:
    delivery = DeliveryDerivation(edges=(bucket_edge(), channel_edge()))

    resolution = resolve([record(TOPIC)], settings(), [], (), delivery=delivery)

    assert [t.origin for t in targets(resolution)] == ["channel:orders-channel"]
    assert [loc.origin for loc in locations(resolution)] == ["channel:raw"]


def test_an_operators_mapping_replaces_the_location_with_the_other_derived_edges() -> None:
    operator = MappingParameter(
        f"{PATH}/team/o", json.dumps({"topic": TOPIC, "database": "fin", "table": "orders"})
    )
    mappings, invalid = parse_mappings([operator], PATH)
    delivery = DeliveryDerivation(edges=(bucket_edge(), channel_edge()))

    resolution = resolve([record(TOPIC)], settings(), mappings, invalid, delivery=delivery)

    assert locations(resolution) == []
    assert [(t.table, t.origin) for t in targets(resolution)] == [(TableRef("fin", "orders"), "operator")]


def test_two_paths_to_one_location_are_one_edge_and_two_locations_are_two() -> None:
    delivery = DeliveryDerivation(
        edges=(
            bucket_edge("b-stream", kind="firehose"),
            bucket_edge("a-channel"),
            bucket_edge("root", prefix="/"),
        )
    )

    resolution = resolve([record(TOPIC)], settings(source(tableRule=None)), [], (), delivery=delivery)

    assert [(loc.origin, loc.edge.other) for loc in locations(resolution)] == [
        ("channel:root", "s3://raw-zone//"),
        ("channel:a-channel", "s3://raw-zone/orders/"),
    ]


def test_a_location_whose_state_key_cannot_be_stored_is_reported_not_drawn() -> None:
    delivery = DeliveryDerivation(edges=(bucket_edge("odd", prefix="day=1\n/"),))

    resolution = resolve([record(TOPIC)], settings(source(tableRule=None)), [], (), delivery=delivery)

    assert locations(resolution) == []
    assert resolution.unmapped == (KEY,)
    (issue,) = resolution.undetermined
    assert (issue.connector, issue.key) == ("channel:odd", KEY)
    assert "line feed" in issue.reason
