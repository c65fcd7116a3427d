"""A stack update that adds the drift form, end to end on the DataZone stand-in (IAM mode).

The old model (the asset type without KafkaSchemaDriftFormType) is deployed and synced; then the stack is
updated as CloudFormation would: the form types from smithy/ (a new one), then the asset type's custom
resource with RequestType Update. Assets made under the old type revision must migrate without losing a
form or being duplicated, whichever way DataZone answers what it leaves undocumented:
- `revision_changes_type_revision`: may a revision move an asset to the newer type revision?
- `asset_type_create_existing`: does CreateAssetType on the existing name make a revision at all?
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import boto3
import pytest

from asset_type_resource.handler import physical_id
from asset_type_resource.provision import create_form_types
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.sync.drift import DRIFT_FORM_TYPE, drift_key
from local import world
from local.deployed import DeployedFunctions
from tests.fixtures import FakeContext
from tests.integration.sync.conftest import CdcWorld, EventCatcher
from tests.integration.sync.test_drift_form import V2, record_drift

NEW_SMITHY = Path(world.SMITHY)
TOPICS = ("orders", "__debezium-heartbeat.dbserver1", "inventory.parts$#v2")
SUMMARY = DriftSummary(1, 2, "breaking", ("lakehouse/orders",), 1, 1, "f1", "2026-11-30T15:00:00Z")


def deploy(deployed: DeployedFunctions, smithy: Path, request: str) -> dict[str, Any]:
    """What CloudFormation does with smithy/: the form types (AWS::DataZone::FormType, the deployer's
    credentials), then the asset type's custom resource (under its role), whose answer's Data is returned."""
    datazone = boto3.client("datazone", region_name=world.REGION)
    revisions = create_form_types(datazone, world.DOMAIN_ID, world.PROJECT_ID, smithy)
    spec = json.loads((smithy / "KafkaTopicAssetType.json").read_text())
    event: dict[str, Any] = {
        "RequestType": request,
        "ResourceType": "Custom::DataZoneAssetType",
        "LogicalResourceId": "DataZoneTypesAssetType",
        "StackId": f"arn:aws:cloudformation:{world.REGION}:{world.ACCOUNT}:stack/KafkaLineage/local",
        "RequestId": f"local-{request.lower()}",
        "ResourceProperties": {
            "DomainId": world.DOMAIN_ID,
            "ProjectId": world.PROJECT_ID,
            "Spec": json.dumps(spec, sort_keys=True, separators=(",", ":")),
            "FormRevisions": revisions,
            "RemovalPolicy": "retain",
        },
    }
    if request == "Update":
        event["PhysicalResourceId"] = physical_id(world.DOMAIN_ID, spec["name"])
    answer = deployed.invoke("asset-type-resource", event, FakeContext(function_name="asset-type-resource"))
    data: dict[str, Any] = answer["Data"]
    return data


@pytest.fixture
def old_stack(
    local_aws: Any,
    deployed: DeployedFunctions,
    monkeypatch: pytest.MonkeyPatch,
    fast_retries: None,
    tmp_path: Path,
) -> CdcWorld:
    """The stack as deployed before the drift form: three topics synced, `orders` at v2."""
    old = tmp_path / "smithy"
    shutil.copytree(NEW_SMITHY, old)
    (old / f"{DRIFT_FORM_TYPE}.smithy").unlink()
    spec = json.loads((old / "KafkaTopicAssetType.json").read_text())
    del spec["forms"][DRIFT_FORM_TYPE]
    (old / "KafkaTopicAssetType.json").write_text(json.dumps(spec))
    local_aws.datazone.add_domain(world.DOMAIN_ID, project_ids=[world.PROJECT_ID])
    assert deploy(deployed, old, "Create")["Revision"] == "1"
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    cdc = CdcWorld(local_aws, EventCatcher(), monkeypatch, deployed)
    cdc.configure()
    for topic in TOPICS:
        cdc.register(topic)
    cdc.register("orders", V2)
    assert cdc.sync()["created"] == 3
    assert {asset.type_revision for asset in cdc.assets()} == {"1"}
    assert all(DRIFT_FORM_TYPE not in asset.forms for asset in cdc.assets())
    cdc.events.drain()
    # lineage has recorded the drift of orders v1 -> v2 meanwhile
    record_drift({drift_key("cdc", "orders"): SUMMARY})
    return cdc


def by_topic(cdc: CdcWorld) -> dict[str, Any]:
    return {asset.name: asset for asset in cdc.assets()}


@pytest.mark.parametrize("moves", [True, False], ids=["revision-moves-type", "revision-keeps-type"])
def test_a_stack_update_migrates_every_asset_once_and_loses_no_form(old_stack: CdcWorld, moves: bool) -> None:
    cdc = old_stack
    cdc.aws.set_readings(revision_changes_type_revision=moves)
    before = by_topic(cdc)

    # When the stack is updated to the model with the drift form
    data = deploy(cdc.deployed, NEW_SMITHY, "Update")

    # Then the asset type has a new revision pinning it
    assert data["Revision"] == "2"
    assert "NotConverged" not in data
    # And the hourly run stays as cheap as ever: unchanged listings, nothing revised yet
    assert cdc.sync()["updated"] == 0
    # When the verify run (daily; or run by hand after the deploy) looks at every schema
    cdc.reset_calls()
    result = cdc.sync({"verify": True})

    # Then each asset is revised exactly once, none is created, duplicated or lost
    assert (result["created"], result["updated"], result["deleted"], result["failed"]) == (0, 3, 0, []), (
        result
    )
    assert cdc.aws.call_counts("datazone", ok=True)["datazone:CreateAssetRevision"] == 3
    after = by_topic(cdc)
    assert set(after) == set(before)
    assert {a.id for a in after.values()} == {a.id for a in before.values()}
    for topic, asset in after.items():
        assert int(asset.revision) == int(before[topic].revision) + 1
        assert asset.listed_revision == asset.revision
        # every form it had is still there, with the same content
        assert {name: asset.forms[name] for name in before[topic].forms} == before[topic].forms
    if moves:
        # on the new type revision, with the drift form: the recorded drift, or "none"
        assert {a.type_revision for a in after.values()} == {"2"}
        assert after["orders"].forms[DRIFT_FORM_TYPE]["drift_status"] == "breaking"
        assert {after[t].forms[DRIFT_FORM_TYPE]["drift_status"] for t in TOPICS[1:]} == {"none"}
        assert result["warnings"] == []
    else:
        # DataZone keeps each asset at its type revision: revised there, with the forms it has, and said so
        assert {a.type_revision for a in after.values()} == {"1"}
        assert all(set(a.forms) == set(before[t].forms) for t, a in after.items())
        assert len(result["warnings"]) == 3
        assert all("stays at KafkaTopicAssetType revision 1" in w["warning"] for w in result["warnings"])
    assert sorted(e["change"] for e in cdc.events.drain()) == ["revised"] * 3

    # And a second verify run writes nothing: the migration happens once
    cdc.reset_calls()
    again = cdc.sync({"verify": True})
    assert (again["updated"], again["unchanged"]) == (0, 3), again
    assert "datazone:CreateAssetRevision" not in cdc.calls()
    # And a schema registered now gets the new type revision with its drift form either way
    cdc.register("fresh")
    assert cdc.sync()["created"] == 1
    fresh = by_topic(cdc)["fresh"]
    assert fresh.type_revision == "2"
    assert fresh.forms[DRIFT_FORM_TYPE]["drift_status"] == "none"


def test_when_datazone_refuses_a_new_type_revision_the_sync_keeps_the_old_one_and_changes_nothing(
    old_stack: CdcWorld,
) -> None:
    cdc = old_stack
    # Given DataZone answers CreateAssetType on the existing name with ConflictException (its API text)
    cdc.aws.set_readings(asset_type_create_existing="conflict")
    before = by_topic(cdc)

    # When the stack is updated: assets use the type, so it cannot be replaced
    data = deploy(cdc.deployed, NEW_SMITHY, "Update")

    # Then the deploy goes on at revision 1 and says why
    assert data["Revision"] == "1"
    assert "NotConverged" in data
    # And the sync keeps working with that revision: no drift form, no revision, no failure
    result = cdc.sync({"verify": True})
    assert (result["updated"], result["unchanged"], result["failed"]) == (0, 3, []), result
    assert {t: a.revision for t, a in by_topic(cdc).items()} == {t: a.revision for t, a in before.items()}
