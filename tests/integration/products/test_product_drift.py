"""A drift's `subscribers` include the projects subscribed to a data product that holds the topic: the real
schema-sync keeps the product, the real lineage-emission announces the drift (both under their roles)."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import debezium, world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests.fixtures import FakeContext

CUSTOMERS = debezium.topic_for("customers")
RULE = {"database": "lakehouse", "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}
PRODUCT_SUBSCRIBER = "productsubscriber1"
PRODUCTS = [{"name": "Inventory", "include": ["^dbserver1\\.inventory\\."]}]


def sync(deployed: DeployedFunctions) -> dict[str, Any]:
    result: dict[str, Any] = deployed.invoke("schema-sync", {}, FakeContext(function_name="schema-sync"))
    return result


def emit(deployed: DeployedFunctions) -> dict[str, Any]:
    result: dict[str, Any] = deployed.invoke("lineage-emission", {}, FakeContext())
    return result


@pytest.fixture
def mirrored(local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch) -> LocalAws:
    """customers v1 mirrored into the Inventory product, and its lineage emitted."""
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.datazone.add_project(world.DOMAIN_ID, PRODUCT_SUBSCRIBER)
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    world.create_registry("cdc")
    world.register("cdc", world.SchemaSpec(CUSTOMERS, "AVRO", debezium.table_envelope("customers")))
    for key, value in world.environment([world.source_config(tableRule=RULE)]).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("DATA_PRODUCTS", json.dumps(PRODUCTS))
    glue = boto3.client("glue", region_name=world.REGION)
    glue.create_database(DatabaseInput={"Name": "lakehouse"})
    columns = [{"Name": c, "Type": "string"} for c in ("id", "first_name", "email")]
    glue.create_table(
        DatabaseName="lakehouse", TableInput={"Name": "customers", "StorageDescriptor": {"Columns": columns}}
    )
    assert sync(deployed)["dataProducts"][0]["change"] == "created"
    emit(deployed)
    return local_aws


def test_a_drift_names_the_projects_subscribed_to_a_product_holding_the_topic(
    mirrored: LocalAws, deployed: DeployedFunctions
) -> None:
    # Given a project subscribed to the product that holds the customers topic (not to its asset)
    [product] = [
        item["dataProductItem"]["id"]
        for item in boto3.client("datazone", region_name=world.REGION).search(
            domainIdentifier=world.DOMAIN_ID,
            searchScope="DATA_PRODUCT",
            owningProjectIdentifier=world.PROJECT_ID,
        )["items"]
    ]
    listing = mirrored.datazone.product_listing(world.DOMAIN_ID, product)
    assert listing is not None
    subscription = mirrored.datazone.subscribe_listing(world.DOMAIN_ID, listing[0], PRODUCT_SUBSCRIBER)
    caught = world.BusCatcher("kafka-lineage.lineage-emission", "Schema Drift Detected")

    # When v2 drops `first_name`, which feeds a table column, and both functions run
    world.register(
        "cdc", world.SchemaSpec(CUSTOMERS, "AVRO", debezium.table_without("customers", "first_name"))
    )
    sync(deployed)
    result = emit(deployed)

    # Then the drift names the product's subscriber
    assert mirrored.iam.denials == []
    assert result["failed"] == []
    (event,) = caught.drain()
    assert event["detail"]["subscribers"] == [
        {"projectId": PRODUCT_SUBSCRIBER, "subscriptionId": subscription}
    ]
