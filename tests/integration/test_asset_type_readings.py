"""Readings the asset-type resource must survive either way (local/standins/readings.py): DataZone adding
AssetCommonDetailsForm by itself, managed form revisions only at their latest, the error of DeleteAssetType
while assets exist. Each on both sides of its switch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from asset_type_resource.provision import (
    AssetTypeError,
    create_form_types,
    delete_asset_type,
    reconcile_asset_type,
)
from kafka_lineage.model.failures import Invalid
from tests.integration.test_asset_type_resource import create_heartbeat_asset, with_msk_region_member

ROOT = Path(__file__).resolve().parents[2]
SMITHY = ROOT / "smithy"
SPEC: dict[str, Any] = json.loads((SMITHY / "KafkaTopicAssetType.json").read_text())
DOMAIN = "dzd_assettype01"  # create_heartbeat_asset's
PROJECT = "prj_owner"
COMMON = "amazon.datazone.AssetCommonDetailsFormType"


@pytest.fixture
def datazone(local_aws: Any) -> Any:
    local_aws.datazone.add_domain(DOMAIN, [PROJECT])
    return local_aws.client("datazone")


def creates(local_aws: Any) -> int:
    return int(local_aws.call_counts("datazone").get("datazone:CreateAssetType", 0))


# ------------------------------------------------------------------------- AssetCommonDetailsForm


@pytest.mark.parametrize("reading", ["added", "refused", "absent"])
def test_the_type_carries_common_details_however_datazone_treats_the_declaration(
    datazone: Any, local_aws: Any, reading: str
):
    # Given DataZone's treatment of AssetCommonDetailsForm
    local_aws.set_readings(asset_type_common_details=reading)
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    # When the resource provisions the type (it declares the form: assets write its sourceIdentifier)
    outcome = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    # Then the type has exactly one AssetCommonDetailsForm, and assets carrying it are accepted
    forms = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")["formsOutput"]
    assert [name for name, f in forms.items() if f["typeName"] == COMMON] == ["AssetCommonDetailsForm"]
    assert outcome.converged
    create_heartbeat_asset(datazone)
    # And the next deploy recognises the type as its own: no write
    before = creates(local_aws)
    assert reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions) == outcome
    assert creates(local_aws) == before


@pytest.mark.parametrize(("reading", "added"), [("added", True), ("refused", True), ("absent", False)])
def test_the_standin_adds_or_refuses_common_details_per_the_reading(
    datazone: Any, local_aws: Any, reading: str, added: bool
):
    local_aws.set_readings(asset_type_common_details=reading)
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    plain = {
        "KafkaSchemaFormType": {
            "typeIdentifier": "KafkaSchemaFormType",
            "typeRevision": revisions["KafkaSchemaFormType"],
            "required": True,
        }
    }
    # When a type is declared without it / Then DataZone adds it, or not
    datazone.create_asset_type(
        domainIdentifier=DOMAIN, name="Plain", formsInput=plain, owningProjectIdentifier=PROJECT
    )
    forms = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="Plain")["formsOutput"]
    assert ("AssetCommonDetailsForm" in forms) is added
    # When it is declared / Then refused only under "refused"
    declared = {**plain, "Common": {"typeIdentifier": COMMON, "typeRevision": "6", "required": False}}
    if reading == "refused":
        with pytest.raises(Invalid, match="DataZone adds AssetCommonDetailsForm"):
            datazone.create_asset_type(
                domainIdentifier=DOMAIN, name="Declared", formsInput=declared, owningProjectIdentifier=PROJECT
            )
    else:
        datazone.create_asset_type(
            domainIdentifier=DOMAIN, name="Declared", formsInput=declared, owningProjectIdentifier=PROJECT
        )


# ------------------------------------------------------------------------- managed revisions


def test_a_newer_managed_revision_refuses_old_assets_until_the_next_deploy_re_resolves(
    datazone: Any, local_aws: Any
):
    # Given the type deployed, pinning AssetCommonDetailsFormType 6
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    first = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    # When AWS publishes revision 7 of its managed form type
    assert local_aws.datazone.publish_managed_form_revision(DOMAIN, COMMON) == "7"
    # Then assets at the old pin are refused (the reading's default: only the latest)
    with pytest.raises(Invalid, match=r"revision 6 is not the latest revision \(7\)"):
        create_heartbeat_asset(datazone)
    # And the next deploy (which updates the resource every time) re-resolves and pins 7
    second = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    forms = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")["formsOutput"]
    assert forms["AssetCommonDetailsForm"]["typeRevision"] == "7"
    assert (first.revision, second.revision) == ("1", "2")
    create_heartbeat_asset(datazone)


def test_old_managed_revisions_stay_usable_when_datazone_allows_them(datazone: Any, local_aws: Any):
    local_aws.set_readings(managed_form_revision_must_be_latest=False)
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    local_aws.datazone.publish_managed_form_revision(DOMAIN, COMMON)
    create_heartbeat_asset(datazone)  # accepted at revision 6


def test_a_create_refused_for_a_revision_that_moved_on_meanwhile_is_re_resolved_and_retried(
    datazone: Any, local_aws: Any, monkeypatch: pytest.MonkeyPatch
):
    # Given a managed revision published between the resource's GetFormType and its CreateAssetType
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    local_aws.datazone.publish_managed_form_revision(DOMAIN, COMMON)
    backend = local_aws.datazone
    original = backend.handle
    stale = {"left": 1}

    def handle(operation: str, params: dict[str, Any]) -> dict[str, Any]:
        if operation == "GetFormType" and params["formTypeIdentifier"] == COMMON and stale["left"]:
            stale["left"] -= 1
            return dict(original(operation, {**params, "revision": "6"}))
        return dict(original(operation, params))

    monkeypatch.setattr(backend, "handle", handle)
    # When the type is provisioned / Then the refusal is resolved again and the retry pins the latest
    outcome = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    forms = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")["formsOutput"]
    assert outcome.converged
    assert forms["AssetCommonDetailsForm"]["typeRevision"] == "7"
    assert creates(local_aws) == 2


# ------------------------------------------------------------------------- DeleteAssetType in use


@pytest.mark.parametrize("reading", ["conflict", "validation"])
def test_deleting_a_type_in_use_fails_with_advice_whatever_the_error(
    datazone: Any, local_aws: Any, tmp_path: Path, reading: str
):
    local_aws.set_readings(delete_asset_type_in_use=reading)
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    create_heartbeat_asset(datazone)
    # When the stack deletes the type under "destroy" / Then the advice, not DataZone's raw error
    with pytest.raises(AssetTypeError, match="still used by assets"):
        delete_asset_type(datazone, DOMAIN, "KafkaTopicAssetType")
    # And a changed type that DataZone will not revise stays at its revision, reported, the deploy going on
    local_aws.set_readings(asset_type_create_existing="conflict")
    smithy = tmp_path / "smithy"
    smithy.mkdir()
    for path in SMITHY.glob("*.smithy"):
        (smithy / path.name).write_text(path.read_text())
    with_msk_region_member(smithy)
    changed = create_form_types(datazone, DOMAIN, PROJECT, smithy)
    outcome = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, changed)
    assert not outcome.converged
    assert "Delete the assets of the type" in outcome.note
