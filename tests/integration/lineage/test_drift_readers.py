"""Drift names who to call, end to end on the stand-ins (each function under its deployed role): the
topic's consumer groups (MSK's consumer-lag metrics) and the projects with an approved subscription to its
asset, in the "Schema Drift Detected" event and on the asset's drift form. A removed field that feeds no
table column is still announced when consumer groups read the topic, as a warning."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import debezium, demo_consumers, world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests.fixtures import load_event
from tests.integration.lineage.conftest import FakeContext

CUSTOMERS = debezium.topic_for("customers")
RULE = {"database": "lakehouse", "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}
SUBSCRIBER = "subscriberprj1"
DRIFT_FORM = "KafkaSchemaDriftFormType"


@pytest.fixture
def mirrored(local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch) -> LocalAws:
    """customers v1 mirrored and its lineage emitted; its table has only `id` and `email`."""
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.datazone.add_project(world.DOMAIN_ID, SUBSCRIBER)
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
    assert sync(deployed, {})["created"] == 1
    emit(deployed, {})
    return local_aws


def sync(deployed: DeployedFunctions, event: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = deployed.invoke("schema-sync", event, FakeContext(function_name="schema-sync"))
    return result


def emit(deployed: DeployedFunctions, event: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = deployed.invoke("lineage-emission", event, FakeContext())
    return result


def drift_form() -> dict[str, Any]:
    datazone = boto3.client("datazone", region_name=world.REGION)
    (asset,) = datazone.search(
        domainIdentifier=world.DOMAIN_ID, searchScope="ASSET", owningProjectIdentifier=world.PROJECT_ID
    )["items"]
    answer = datazone.get_asset(domainIdentifier=world.DOMAIN_ID, identifier=asset["assetItem"]["identifier"])
    forms = {form["formName"]: json.loads(form.get("content") or "{}") for form in answer["formsOutput"]}
    return forms[DRIFT_FORM]


def asset_id() -> str:
    datazone = boto3.client("datazone", region_name=world.REGION)
    (asset,) = datazone.search(
        domainIdentifier=world.DOMAIN_ID, searchScope="ASSET", owningProjectIdentifier=world.PROJECT_ID
    )["items"]
    return str(asset["assetItem"]["identifier"])


def test_a_drift_names_the_consumer_groups_and_the_subscribers(
    mirrored: LocalAws, deployed: DeployedFunctions
) -> None:
    # Given a project subscribed to the topic's asset, and a service's group reading the topic
    subscription = mirrored.datazone.subscribe(world.DOMAIN_ID, asset_id(), SUBSCRIBER)
    demo_consumers.lag(boto3.client("cloudwatch"), world.CLUSTER_ARN, "order-service", CUSTOMERS)
    emit(deployed, {})
    caught = world.BusCatcher("kafka-lineage.lineage-emission", "Schema Drift Detected")

    # When v2 drops `first_name`, which feeds no table column, and both functions run
    world.register(
        "cdc", world.SchemaSpec(CUSTOMERS, "AVRO", debezium.table_without("customers", "first_name"))
    )
    sync(deployed, {})
    result = emit(deployed, {})

    # Then the drift is announced as a warning, naming the group and the subscription, and no table
    assert mirrored.iam.denials == []
    assert result["failed"] == []
    (event,) = caught.drain()
    detail = event["detail"]
    assert (detail["fromVersion"], detail["toVersion"], detail["severity"]) == (1, 2, "warning")
    assert detail["impacted"] == []
    assert {"field": "after.first_name", "change": "removed", "before": "string", "after": None} in detail[
        "changes"
    ]
    assert detail["consumers"] == [{"group": "order-service", "clusterArn": world.CLUSTER_ARN}]
    assert detail["subscribers"] == [{"projectId": SUBSCRIBER, "subscriptionId": subscription}]

    # And once the event reaches schema-sync, the asset's drift form names them too
    assert sync(deployed, {**load_event("schema_drift_detected"), "detail": detail})["updated"] == 1
    form = drift_form()
    assert (form["drift_status"], form["to_version"]) == ("warning", 2)
    assert (form["consumer_groups"], form["consumer_group_count"]) == (["order-service"], 1)
    assert (form["subscriber_projects"], form["subscriber_count"]) == ([SUBSCRIBER], 1)


def test_without_readers_a_drift_that_feeds_no_column_is_not_announced(
    mirrored: LocalAws, deployed: DeployedFunctions
) -> None:
    caught = world.BusCatcher("kafka-lineage.lineage-emission", "Schema Drift Detected")
    # When v2 drops `first_name` and nobody reads the topic
    world.register(
        "cdc", world.SchemaSpec(CUSTOMERS, "AVRO", debezium.table_without("customers", "first_name"))
    )
    sync(deployed, {})
    result = emit(deployed, {})
    # Then the drift is recorded as info, and nothing is announced
    assert caught.drain() == []
    (reported,) = result["drift"]
    assert (reported["severity"], reported["announced"]) == ("info", False)
