"""End to end on the stand-ins: schema-sync mirrors the registry; the topic's lineage node joins its asset."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import debezium, world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests.integration.lineage.conftest import FakeContext

CUSTOMERS = debezium.topic_for("customers")
RULE = {"database": "lakehouse", "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}


@pytest.fixture
def mirrored(local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch) -> LocalAws:
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    world.create_registry("cdc")
    world.register("cdc", world.SchemaSpec(CUSTOMERS, "AVRO", debezium.table_envelope("customers")))
    for key, value in world.environment([world.source_config(tableRule=RULE)]).items():
        monkeypatch.setenv(key, value)
    glue = boto3.client("glue", region_name=world.REGION)
    glue.create_database(DatabaseInput={"Name": "lakehouse"})
    glue.create_table(
        DatabaseName="lakehouse",
        TableInput={
            "Name": "customers",
            "StorageDescriptor": {"Columns": [{"Name": c, "Type": "string"} for c in ("id", "email")]},
        },
    )
    return local_aws


def sync(deployed: DeployedFunctions, event: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = deployed.invoke("schema-sync", event, FakeContext(function_name="schema-sync"))
    return result


def emit(deployed: DeployedFunctions, event: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = deployed.invoke("lineage-emission", event, FakeContext())
    return result


def changed(detail: dict[str, Any]) -> dict[str, Any]:
    return {
        "version": "0",
        "id": "0b8d1f7e-0000-4000-8000-000000000001",
        "detail-type": "Topic Asset Changed",
        "source": "kafka-lineage.schema-sync",
        "account": world.ACCOUNT,
        "time": "2025-03-14T09:15:09Z",
        "region": world.REGION,
        "resources": [],
        "detail": detail,
    }


def test_the_topics_lineage_node_is_its_catalog_asset_and_deletion_retracts_it(
    mirrored: LocalAws, deployed: DeployedFunctions
) -> None:
    # Given schema-sync mirrored the topic (its namespace from the cluster's first SASL/IAM broker)
    assert sync(deployed, {})["created"] == 1
    # When lineage is emitted
    assert emit(deployed, {})["emitted"] == 1
    # Then the topic's lineage node is the topic's catalog asset
    identifier = f"{world.NAMESPACE}/{CUSTOMERS}"
    (asset_id,) = mirrored.datazone.linked_assets(world.DOMAIN_ID, identifier)
    (edge,) = mirrored.datazone.lineage_edges(world.DOMAIN_ID)
    assert edge.upstream == identifier
    assert edge.columns == {("after.id", "id"), ("after.email", "email")}
    # When the schema is deleted, synced, and its "Topic Asset Changed" event reaches the lineage Lambda
    world.delete_schema("cdc", CUSTOMERS)
    assert (
        sync(deployed, {"allowMassDelete": True})["deleted"] == 1
    )  # (its only asset: past the fail-safe's share)
    detail = {
        "registryName": "cdc",
        "schemaArn": world.schema_arn("cdc", CUSTOMERS),
        "topic": CUSTOMERS,
        "assetId": asset_id,
        "schemaVersion": 1,
        "change": "deleted",
    }
    result = emit(deployed, changed(detail))
    # Then the edge is gone from DataZone
    assert [r["topic"] for r in result["retracted"]] == [CUSTOMERS]
    assert mirrored.datazone.lineage_edges(world.DOMAIN_ID) == set()
    assert json.dumps(result)  # JSON-serialisable
