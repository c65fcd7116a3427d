"""Connector configurations from public examples (tests/events/connectors/), through the allow-list and
the derivation, as MSK Connect would hand them over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kafka_lineage.config import Source
from kafka_lineage.connectors import derive
from kafka_lineage.model.connector_keys import kept_config
from kafka_lineage.model.connectors import ConnectorConfig
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

EXAMPLES = Path(__file__).resolve().parents[2] / "events" / "connectors"
ACCOUNT = "123456789012"
CLUSTER_ARN = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/orders-cluster/11111111-2222"


def example(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((EXAMPLES / name).read_text())
    return loaded


def connector(config: dict[str, str], name: str = "events-sink") -> ConnectorConfig:
    kept = kept_config(config)  # what the adapter keeps of what DescribeConnector answers
    return ConnectorConfig(
        name=name,
        arn=f"arn:aws:kafkaconnect:eu-west-1:{ACCOUNT}:connector/{name}/abc",
        cluster_name="orders-cluster",
        bootstrap_servers=("b-1.orders:9098",),
        state="RUNNING",
        connector_class=kept.get("connector.class", ""),
        config=kept,
        cluster_arn=CLUSTER_ARN,
    )


def source() -> Source:
    return Source.model_validate({"registryName": "cdc", "clusterArn": CLUSTER_ARN})


def with_catalog(sink: str, catalog: str) -> dict[str, str]:
    """The sink's config with its catalog properties replaced by another documented catalog block."""
    config = {k: v for k, v in example(sink)["config"].items() if not k.startswith("iceberg.catalog.")}
    return {**config, **example(catalog)}


def test_iceberg_static_routing_example_feeds_both_routed_tables_from_its_one_topic() -> None:
    # Given Apache Iceberg's "multi-table fan-out, static routing" example on its documented Glue catalog
    config = with_catalog("iceberg_static_routing.json", "iceberg_glue_catalog.json")

    # When derived for the topic it reads
    derived = derive([connector(config)], [TopicKey("cdc", "events")], [source()])

    # Then the one topic feeds both routed tables, nothing is ambiguous
    assert {(e.key.topic, e.table) for e in derived.sinks} == {
        ("events", TableRef("default", "events_create")),
        ("events", TableRef("default", "events_list")),
    }
    assert derived.notes == ()


def test_the_examples_own_rest_catalog_is_not_glue_and_is_reported() -> None:
    derived = derive(
        [connector(example("iceberg_static_routing.json")["config"])], [TopicKey("cdc", "events")], [source()]
    )

    assert derived.sinks == ()
    assert [(n.kind, n.connector) for n in derived.notes] == [("undetermined", "events-sink")]
    assert "REST catalog" in derived.notes[0].reason


def test_a_catalog_in_another_region_is_reported_not_drawn_to_the_local_table() -> None:
    # Given the single-table example on a Glue catalog whose client region (as Iceberg's Hive example sets
    # it) is us-east-1, while the connector runs in eu-west-1
    config = {
        **with_catalog("iceberg_single_table.json", "iceberg_glue_catalog.json"),
        "iceberg.catalog.client.region": example("iceberg_hive_catalog.json")[
            "iceberg.catalog.client.region"
        ],
    }

    derived = derive([connector(config)], [TopicKey("cdc", "events")], [source()])

    assert derived.sinks == ()
    assert "region us-east-1, not eu-west-1" in derived.notes[0].reason


def test_the_same_region_spelled_out_still_draws_the_edge() -> None:
    config = {
        **with_catalog("iceberg_single_table.json", "iceberg_glue_catalog.json"),
        "iceberg.catalog.client.region": "eu-west-1",
    }

    derived = derive([connector(config)], [TopicKey("cdc", "events")], [source()])

    assert [e.table for e in derived.sinks] == [TableRef("default", "events")]


def test_s3_tables_rest_and_glue_federated_catalogs_name_the_table_bucket_catalog() -> None:
    for catalog in ("iceberg_s3tables_rest.json", "iceberg_glue_federated.json"):
        config = with_catalog("iceberg_single_table.json", catalog)

        derived = derive([connector(config)], [TopicKey("cdc", "events")], [source()])

        assert [e.table for e in derived.sinks] == [
            TableRef("default", "events", glue_catalog="s3tablescatalog/lake-tables")
        ], catalog
        assert derived.sinks[0].table.name == "s3tablescatalog/lake-tables/default/events"


def test_a_federated_catalog_of_another_account_is_reported() -> None:
    config = {
        **with_catalog("iceberg_single_table.json", "iceberg_glue_federated.json"),
        "iceberg.catalog.glue.id": "444455556666:s3tablescatalog/lake-tables",
    }

    derived = derive([connector(config)], [TopicKey("cdc", "events")], [source()])

    assert derived.sinks == ()
    assert "account 444455556666" in derived.notes[0].reason


def test_the_allow_list_keeps_region_and_catalog_keys_and_drops_credentials() -> None:
    kept = kept_config(
        {
            **with_catalog("iceberg_single_table.json", "iceberg_hive_catalog.json"),
            **example("iceberg_s3tables_rest.json"),
        }
    )

    assert kept["iceberg.catalog.client.region"] == "us-east-1"
    assert kept["iceberg.catalog.uri"] == "https://s3tables.eu-west-1.amazonaws.com/iceberg"
    assert kept["iceberg.catalog.warehouse"].startswith("arn:aws:s3tables:")
    assert not any("secret" in key or "access-key" in key or "credential" in key for key in kept)


def test_debezium_tutorial_connector_gives_first_hops_and_keeps_no_password() -> None:
    config = example("debezium_mysql_tutorial.json")["config"]
    topics = [
        TopicKey("cdc", t) for t in ("dbserver1.inventory.customers", "dbserver1", "schema-changes.inventory")
    ]

    derived = derive([connector(config, "inventory-connector")], topics, [source()])

    assert [(e.key.topic, e.dataset_namespace, e.dataset_name) for e in derived.sources] == [
        ("dbserver1.inventory.customers", "mysql://mysql:3306", "inventory.customers")
    ]
    assert "database.password" not in connector(config).config
