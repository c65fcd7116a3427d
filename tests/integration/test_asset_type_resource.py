"""The asset-type custom resource and its provisioning core, on the DataZone stand-in."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, cast

import pytest
from aws_lambda_powertools.utilities.typing import LambdaContext as PowertoolsContext

from asset_type_resource.provision import (
    AssetTypeError,
    create_form_types,
    delete_asset_type,
    reconcile_asset_type,
)
from kafka_lineage.model.failures import NotFound
from local.deployed import DeployedFunctions, Handler
from local.standins.errors import not_found
from tests.fixtures import FakeContext

ROOT = Path(__file__).resolve().parents[2]
SMITHY = ROOT / "smithy"
SPEC: dict[str, Any] = json.loads((SMITHY / "KafkaTopicAssetType.json").read_text())
DOMAIN = "dzd_assettype01"
PROJECT = "prj_owner"
OTHER_PROJECT = "prj_other"


def lambda_context() -> PowertoolsContext:
    return cast(PowertoolsContext, FakeContext(function_name="asset-type-resource"))


# CreateAssetType on an existing name: a new revision, or ConflictException (readings.py).
CREATE_EXISTING = ["revision", "conflict"]


@pytest.fixture
def resource(deployed: DeployedFunctions) -> Handler:
    """The custom resource's function, as deployed: under its role."""
    return deployed.handler("asset-type-resource")


@pytest.fixture
def datazone(local_aws: Any) -> Any:
    local_aws.datazone.add_domain(DOMAIN, [PROJECT, OTHER_PROJECT])
    return local_aws.client("datazone")


def with_msk_region_member(smithy: Path) -> None:
    """A new member in one form type's model: the form type gets a new revision."""
    path = smithy / "MskSourceReferenceFormType.smithy"
    path.write_text(
        path.read_text().replace(
            "    lineage_namespace: String\n", "    lineage_namespace: String\n\n    region: String\n"
        )
    )


def writes(local_aws: Any) -> dict[str, int]:
    counts = local_aws.call_counts("datazone")
    return {op: n for op, n in counts.items() if op.split(":")[1].startswith(("Create", "Delete"))}


def event(
    request: str, removal: str = "retain", physical_id: str | None = None, **props: Any
) -> dict[str, Any]:
    properties = {
        "ServiceToken": "arn:aws:lambda:eu-west-1:123456789012:function:provider",
        "DomainId": DOMAIN,
        "ProjectId": PROJECT,
        "Spec": json.dumps(SPEC),
        "RemovalPolicy": removal,
        **props,
    }
    body: dict[str, Any] = {
        "RequestType": request,
        "ResourceType": "Custom::DataZoneAssetType",
        "LogicalResourceId": "DataZoneTypesAssetType37BE0BFF",
        "StackId": "arn:aws:cloudformation:eu-west-1:123456789012:stack/KafkaLineage/1",
        "RequestId": "req-1",
        "ResourceProperties": properties,
    }
    if physical_id is not None:
        body["PhysicalResourceId"] = physical_id
    return body


def test_form_types_are_created_once_from_the_smithy_files(datazone: Any, local_aws: Any):
    # When the local bootstrap creates the form types twice
    first = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    second = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    # Then one form type per file, created once, the same revisions reported both times
    assert first == second == {path.stem: "1" for path in SMITHY.glob("*.smithy")}
    assert writes(local_aws) == {"datazone:CreateFormType": len(list(SMITHY.glob("*.smithy")))}
    model = datazone.get_form_type(domainIdentifier=DOMAIN, formTypeIdentifier="KafkaSchemaFormType")["model"]
    assert model["smithy"] == (SMITHY / "KafkaSchemaFormType.smithy").read_text()


def test_the_asset_type_pins_custom_and_managed_form_revisions(datazone: Any):
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    # When provisioned from smithy/KafkaTopicAssetType.json
    revision = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions).revision
    # Then its forms are pinned: custom ones as given, DataZone's at the revision GetFormType reports
    asset_type = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")
    managed = datazone.get_form_type(
        domainIdentifier=DOMAIN, formTypeIdentifier="amazon.datazone.AssetCommonDetailsFormType"
    )["revision"]
    assert revision == asset_type["revision"] == "1"
    assert asset_type["owningProjectId"] == PROJECT
    assert asset_type["description"] == SPEC["description"]
    assert asset_type["formsOutput"]["KafkaSchemaFormType"] == {
        "typeName": "KafkaSchemaFormType",
        "typeRevision": revisions["KafkaSchemaFormType"],
        "required": True,
    }
    assert asset_type["formsOutput"]["AssetCommonDetailsForm"]["typeRevision"] == managed
    assert asset_type["formsOutput"]["RelationalTableForm"]["required"] is False
    assert set(asset_type["formsOutput"]) == set(SPEC["forms"])


def test_unchanged_input_writes_nothing(datazone: Any, local_aws: Any):
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    first = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions).revision
    before = writes(local_aws)
    # When provisioned again with the same input
    second = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions).revision
    # Then the same revision, without a CreateAssetType call
    assert second == first
    assert writes(local_aws) == before


def test_a_changed_form_type_makes_a_new_asset_type_revision(datazone: Any, tmp_path: Path):
    smithy = tmp_path / "smithy"
    shutil.copytree(SMITHY, smithy)
    first = reconcile_asset_type(
        datazone, DOMAIN, PROJECT, SPEC, create_form_types(datazone, DOMAIN, PROJECT, smithy)
    ).revision
    # Given a new member in one form type's model
    with_msk_region_member(smithy)
    revisions = create_form_types(datazone, DOMAIN, PROJECT, smithy)
    assert revisions == {
        **{path.stem: "1" for path in SMITHY.glob("*.smithy")},
        "MskSourceReferenceFormType": "2",
    }
    # When the asset type is provisioned with the new revisions
    second = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions).revision
    # Then a new asset type revision pins the new form revision
    assert (first, second) == ("1", "2")
    forms = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")["formsOutput"]
    assert forms["MskSourceReferenceFormType"]["typeRevision"] == "2"


def test_a_changed_description_alone_makes_a_new_revision(datazone: Any, local_aws: Any):
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    reconcile_asset_type(
        datazone, DOMAIN, PROJECT, {**SPEC, "description": "Kafka topics, mirrored."}, revisions
    )
    assert writes(local_aws)["datazone:CreateAssetType"] == 2


def test_an_asset_type_owned_by_another_project_is_not_taken_over(datazone: Any):
    revisions = create_form_types(datazone, DOMAIN, OTHER_PROJECT, SMITHY)
    reconcile_asset_type(datazone, DOMAIN, OTHER_PROJECT, SPEC, revisions)
    with pytest.raises(AssetTypeError, match=f"owned by project {OTHER_PROJECT}, not {PROJECT}"):
        reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({**SPEC, "forms": {"Bad.Name": {"typeName": "KafkaSchemaFormType"}}}, "not a DataZone FormName"),
        ({**SPEC, "forms": {"F": {"typeName": "UnknownFormType"}}}, "no revision given for custom form type"),
        ({**SPEC, "forms": {"F": {"typeName": "KafkaSchemaFormType", "required": "yes"}}}, "true or false"),
        ({**SPEC, "forms": {}}, "needs 1-10 forms"),
        ({**SPEC, "name": "amazon.datazone.Mine"}, "DataZone's own"),
    ],
)
def test_an_invalid_spec_fails_before_any_write(
    datazone: Any, local_aws: Any, spec: dict[str, Any], message: str
):
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    before = writes(local_aws)
    with pytest.raises(AssetTypeError, match=message):
        reconcile_asset_type(datazone, DOMAIN, PROJECT, spec, revisions)
    assert writes(local_aws) == before


def test_custom_resource_create_update_and_retained_delete(datazone: Any, resource: Handler, local_aws: Any):
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    # When CloudFormation creates the resource
    created = resource(event("Create", FormRevisions=revisions), lambda_context())
    # Then the revision is the resource's attribute and the physical id names domain and type
    assert created == {
        "PhysicalResourceId": f"{DOMAIN}:KafkaTopicAssetType",
        "Data": {"Revision": "1", "Name": "KafkaTopicAssetType"},
    }
    creates = writes(local_aws).get("datazone:CreateAssetType")
    # When an update carries the same input / Then nothing is written and the id stays
    updated = resource(
        event("Update", physical_id=created["PhysicalResourceId"], FormRevisions=revisions), lambda_context()
    )
    assert updated == created
    assert writes(local_aws).get("datazone:CreateAssetType") == creates
    # When the stack deletes it under the default policy / Then the asset type stays
    deleted = resource(event("Delete", physical_id=created["PhysicalResourceId"]), lambda_context())
    assert deleted == {"PhysicalResourceId": created["PhysicalResourceId"]}
    assert (
        datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")["revision"] == "1"
    )
    assert "datazone:DeleteAssetType" not in writes(local_aws)


def test_custom_resource_destroy_policy_deletes_only_what_it_made(datazone: Any, resource: Handler):
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    created = resource(event("Create", FormRevisions=revisions), lambda_context())
    # A Delete for another physical id (e.g. the rollback of a failed Create) leaves the type alone
    resource(event("Delete", removal="destroy", physical_id="req-1-failed"), lambda_context())
    assert datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")
    # Its own Delete under "destroy" removes it; a repeated Delete succeeds
    for _ in range(2):
        resource(
            event("Delete", removal="destroy", physical_id=created["PhysicalResourceId"]), lambda_context()
        )
    # (the client the resource was handed is instrumented: its errors are the typed failures)
    with pytest.raises(NotFound):
        datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")


def test_deleting_an_asset_type_still_in_use_fails_with_advice(datazone: Any):
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    create_heartbeat_asset(datazone)
    with pytest.raises(AssetTypeError, match="still used by assets"):
        delete_asset_type(datazone, DOMAIN, "KafkaTopicAssetType")
    assert datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")


def create_heartbeat_asset(datazone: Any) -> None:
    """One asset of the type (a heartbeat topic in a registry with `.`, `-` and `$` in its name)."""
    arn = "arn:aws:glue:eu-west-1:123456789012:schema/cdc.prod-$1/__debezium-heartbeat.dbserver1"
    datazone.create_asset(
        domainIdentifier=DOMAIN,
        owningProjectIdentifier=PROJECT,
        name="__debezium-heartbeat.dbserver1",
        typeIdentifier="KafkaTopicAssetType",
        externalIdentifier=arn,
        formsInput=[
            {
                "formName": "KafkaSchemaFormType",
                "typeIdentifier": "KafkaSchemaFormType",
                "content": json.dumps(
                    {
                        "kafka_topic": "__debezium-heartbeat.dbserver1",
                        "schema_version": "1",
                        "schema_arn": arn,
                        "registry_arn": "arn:aws:glue:eu-west-1:123456789012:registry/cdc.prod-$1",
                        "registry_name": "cdc.prod-$1",
                        "data_format": "AVRO",
                    }
                ),
            },
            {
                "formName": "MskSourceReferenceFormType",
                "typeIdentifier": "MskSourceReferenceFormType",
                "content": json.dumps(
                    {"cluster_arn": "arn:aws:kafka:eu-west-1:123456789012:cluster/c/1", "cluster_type": "MSK"}
                ),
            },
            {
                "formName": "AssetCommonDetailsForm",
                "typeIdentifier": "amazon.datazone.AssetCommonDetailsFormType",
                "content": json.dumps(
                    {"sourceIdentifier": "kafka://b-1:9098/__debezium-heartbeat.dbserver1"}
                ),
            },
        ],
    )


def test_unknown_request_types_are_rejected(datazone: Any, resource: Handler):
    with pytest.raises(ValueError, match="unexpected RequestType 'Import'"):
        resource(event("Import"), lambda_context())


@pytest.mark.parametrize("reading", CREATE_EXISTING)
def test_a_changed_type_converges_under_either_reading_of_create_on_an_existing_name(
    datazone: Any, resource: Handler, local_aws: Any, tmp_path: Path, reading: str
):
    # Given an asset type no asset uses yet, and DataZone's answer to CreateAssetType on its name
    local_aws.set_readings(asset_type_create_existing=reading)
    smithy = tmp_path / "smithy"
    shutil.copytree(SMITHY, smithy)
    reconcile_asset_type(
        datazone, DOMAIN, PROJECT, SPEC, create_form_types(datazone, DOMAIN, PROJECT, smithy)
    )
    # When a form type changes and the stack updates the resource
    with_msk_region_member(smithy)
    revisions = create_form_types(datazone, DOMAIN, PROJECT, smithy)
    updated = resource(
        event("Update", FormRevisions=revisions, physical_id=f"{DOMAIN}:KafkaTopicAssetType"),
        lambda_context(),
    )
    # Then the type pins the new form revision (a new revision, or the type replaced), and the deploy goes on
    found = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")
    assert found["formsOutput"]["MskSourceReferenceFormType"]["typeRevision"] == "2"
    assert updated["Data"] == {"Revision": found["revision"], "Name": "KafkaTopicAssetType"}
    # And a second identical update writes nothing
    before = writes(local_aws)
    again = resource(
        event("Update", FormRevisions=revisions, physical_id=f"{DOMAIN}:KafkaTopicAssetType"),
        lambda_context(),
    )
    assert again == updated
    assert writes(local_aws) == before


def test_a_conflict_on_a_type_in_use_keeps_the_current_revision_without_failing_the_deploy(
    datazone: Any, resource: Handler, local_aws: Any, tmp_path: Path
):
    # Given the pessimistic reading (CreateAssetType on an existing name is a conflict) and a type in use
    local_aws.set_readings(asset_type_create_existing="conflict")
    smithy = tmp_path / "smithy"
    shutil.copytree(SMITHY, smithy)
    reconcile_asset_type(
        datazone, DOMAIN, PROJECT, SPEC, create_form_types(datazone, DOMAIN, PROJECT, smithy)
    )
    create_heartbeat_asset(datazone)
    # When a changed type is deployed
    with_msk_region_member(smithy)
    revisions = create_form_types(datazone, DOMAIN, PROJECT, smithy)
    updated = resource(
        event("Update", FormRevisions=revisions, physical_id=f"{DOMAIN}:KafkaTopicAssetType"),
        lambda_context(),
    )
    # Then the deploy succeeds, the type stays as it was and the resource says why and what to do
    found = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")
    assert found["formsOutput"]["MskSourceReferenceFormType"]["typeRevision"] == "1"
    assert updated["Data"]["Revision"] == found["revision"]
    assert "Delete the assets of the type" in updated["Data"]["NotConverged"]
    # And once the assets are gone, the next update converges
    for asset in local_aws.datazone.assets(DOMAIN):
        datazone.delete_asset(domainIdentifier=DOMAIN, identifier=asset.id)
    outcome = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    assert outcome.converged
    found = datazone.get_asset_type(domainIdentifier=DOMAIN, identifier="KafkaTopicAssetType")
    assert (outcome.revision, found["formsOutput"]["MskSourceReferenceFormType"]["typeRevision"]) == (
        found["revision"],
        "2",
    )


def test_a_conflict_with_an_equal_type_made_meanwhile_is_success(datazone: Any, local_aws: Any):
    # Given a conflict because another deploy created the same type between our read and our create
    local_aws.set_readings(asset_type_create_existing="conflict")
    revisions = create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    made = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    local_aws.datazone.inject_fault("GetAssetType", not_found("Asset type KafkaTopicAssetType not found"))
    # When it is provisioned / Then the conflict resolves to the type that exists, without a delete
    outcome = reconcile_asset_type(datazone, DOMAIN, PROJECT, SPEC, revisions)
    assert outcome == made
    assert "datazone:DeleteAssetType" not in writes(local_aws)
