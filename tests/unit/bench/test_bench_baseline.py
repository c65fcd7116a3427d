"""The baseline does exactly what the seed design's algorithm does, call for call, and nothing AWS rejects.

Run on the in-process stand-ins (small: three schemas), so that anyone can check the yardstick."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from bench import baseline, seed
from local import world
from local.standins import LocalAws
from local.standins.datazone.events import parse_run_event
from local.standins.readings import Readings
from local.standins.ssm_names import check_name

REGISTRY = "cdc"
TOPICS = [
    seed.Topic("dbserver1.shop01.orders_00001", "AVRO", 8, "shop01"),
    seed.Topic("dbserver1.shop02.items_00002", "JSON", 6, "shop02"),
    seed.Topic("legacy$billing#00003.v1", "AVRO", 5, ""),
]
CONFIG = baseline.BaselineConfig(
    domain_id=world.DOMAIN_ID,
    project_id=world.PROJECT_ID,
    registry_name=REGISTRY,
    cluster_arn=world.CLUSTER_ARN,
    mapping_prefix="/bench-baseline/msk-assets",
    table_database=seed.TABLE_RULE["database"],
    table_match=seed.TABLE_RULE["match"],
    table_template=seed.TABLE_RULE["table"],
)


@pytest.fixture(scope="module")
def server() -> Iterator[LocalAws]:
    aws = LocalAws().serve()
    yield aws
    aws.shutdown()


@pytest.fixture
def aws(server: LocalAws) -> Iterator[LocalAws]:
    server.reset()
    server.activate()
    try:
        world.bootstrap_catalog(server.datazone)
        seed.register_all(boto3.client("glue"), REGISTRY, TOPICS)
        server.calls.clear()
        yield server
    finally:
        server.deactivate()


def clients() -> tuple[Any, Any, Any]:
    return boto3.client("glue"), boto3.client("datazone"), boto3.client("ssm")


def test_parameter_names_are_valid_ssm_names_for_the_longest_and_oddest_schema_arns() -> None:
    odd = "$#-_." + "x" * 250
    arns = [
        world.schema_arn("r" * 255, odd),
        world.schema_arn("awsome", "ssm-topic"),
        world.schema_arn("a", "b"),
    ]

    names = [baseline.parameter_name(CONFIG.mapping_prefix, arn) for arn in arns]

    for name in names:
        check_name(name, region=world.REGION, account=world.ACCOUNT, readings=Readings())  # raises if invalid
    assert len(set(names)) == len(names)


def test_first_sync_reads_each_schema_and_its_latest_version_then_creates_and_maps_it(aws: LocalAws) -> None:
    # When the baseline syncs three new schemas
    result = baseline.sync(CONFIG, *clients())

    # Then it made exactly the seed algorithm's calls: per schema two reads, one asset, one parameter
    assert result["created"] == 3
    assert dict(aws.call_counts()) == {
        "ssm:GetParametersByPath": 1,
        "datazone:GetAssetType": 1,
        "glue:ListSchemas": 1,
        "glue:GetSchema": 3,
        "glue:GetSchemaVersion": 3,
        "datazone:CreateAsset": 3,
        "ssm:PutParameter": 3,
    }
    assets = aws.datazone.assets(world.DOMAIN_ID)
    forms = {asset.forms["KafkaSchemaFormType"]["kafka_topic"]: asset.forms for asset in assets}
    assert set(forms) == {t.name for t in TOPICS}
    assert forms[TOPICS[0].name]["KafkaSchemaFormType"]["schema_version"] == "1"
    assert forms[TOPICS[0].name]["MskSourceReferenceFormType"]["cluster_arn"] == world.CLUSTER_ARN


def test_rerun_reads_every_schema_again_and_writes_nothing(aws: LocalAws) -> None:
    baseline.sync(CONFIG, *clients())
    aws.calls.clear()

    result = baseline.sync(CONFIG, *clients())

    assert result == {"created": 0, "updated": 0, "unchanged": 3, "deleted": 0, "failed": []}
    calls = aws.call_counts()
    assert calls["glue:GetSchema"] == calls["glue:GetSchemaVersion"] == 3
    assert not {"datazone:CreateAsset", "datazone:CreateAssetRevision", "ssm:PutParameter"} & set(calls)


def test_a_new_version_revises_the_asset_and_rewrites_its_parameter(aws: LocalAws) -> None:
    glue, datazone, ssm = clients()
    baseline.sync(CONFIG, glue, datazone, ssm)
    seed.register_new_versions(glue, REGISTRY, [TOPICS[1]])
    aws.calls.clear()

    result = baseline.sync(CONFIG, glue, datazone, ssm)

    assert (result["updated"], result["unchanged"]) == (1, 2)
    calls = aws.call_counts()
    assert (calls["datazone:CreateAssetRevision"], calls["ssm:PutParameter"]) == (1, 1)
    mapping = baseline.load_mapping(ssm, CONFIG.mapping_prefix)
    assert mapping[world.schema_arn(REGISTRY, TOPICS[1].name)]["version"] == 2


def test_lineage_posts_start_and_complete_for_every_mapped_topic_on_every_run(aws: LocalAws) -> None:
    _, datazone, ssm = clients()
    baseline.sync(CONFIG, *clients())
    aws.calls.clear()

    first = baseline.lineage(CONFIG, datazone, ssm)
    again = baseline.lineage(CONFIG, datazone, ssm)

    # Two topics follow the naming convention, the awkward one does not; nothing is ever skipped as unchanged
    assert first == again == {"emitted": 2, "unchanged": 0, "unmapped": 1, "failed": []}
    assert aws.call_counts()["datazone:PostLineageEvent"] == 8


def test_run_events_are_openlineage_run_events_of_the_seed_shape() -> None:
    body = baseline.run_event(
        CONFIG, "START", "0b5a3a3e-9a4e-4a51-9a39-2f1f1e3c6b11", TOPICS[0].name, ("lakehouse", "t")
    )

    event = parse_run_event(body)  # raises on anything PostLineageEvent would reject
    assert event["job"] == {"namespace": "kafka-iceberg-sink", "name": "sink/lakehouse.t", "facets": {}}
    assert event["outputs"][0]["name"] == "lakehouse/t"
    assert json.loads(body)["inputs"][0]["namespace"] == world.CLUSTER_ARN


def test_table_for_applies_the_naming_convention() -> None:
    assert baseline.table_for(CONFIG, TOPICS[0].name) == ("lakehouse", "shop01_orders_00001")
    assert baseline.table_for(CONFIG, TOPICS[2].name) is None
