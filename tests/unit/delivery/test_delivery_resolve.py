"""Delivery paths and federated catalogs in the resolution: a channel's or stream's table edges rank with
the connectors' (below an operator's mapping, above the stack's and the rule), keep when unread, and a
mapping or rule may name a federated catalog."""

from __future__ import annotations

import json

from kafka_lineage.lineage.resolve import Target, parse_mappings, resolve
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


def test_an_s3_location_edge_is_reported_not_silently_dropped() -> None:
    bucket = DeliveryEdge(
        KEY, "channel:raw", "arn:c", "msk-channel://c", "raw", dataset=("s3://raw-zone", "orders/")
    )

    resolution = resolve(
        [record(TOPIC)],
        settings(source(tableRule=None)),
        [],
        (),
        delivery=DeliveryDerivation(edges=(bucket,)),
    )

    assert targets(resolution) == []
    assert [(i.connector, i.key) for i in resolution.undetermined] == [("channel:raw", KEY)]
    assert "s3://raw-zone/orders/" in resolution.undetermined[0].reason
