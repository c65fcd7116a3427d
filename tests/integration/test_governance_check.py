"""The deploy-time governance check (Custom::DataZoneGovernanceCheck) and the stand-ins' governed domains:
policy grants, domain units, domain versions and keys, project members."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any, cast

import pytest
from aws_lambda_powertools.utilities.typing import LambdaContext as PowertoolsContext

from asset_type_resource.governance import GovernanceError
from asset_type_resource.provision import create_form_types
from kafka_lineage.model.failures import AccessDenied
from local.deployed import DeployedFunctions, Handler
from tests.fixtures import FakeContext

ROOT = Path(__file__).resolve().parents[2]
SMITHY = ROOT / "smithy"
DOMAIN = "dzd_governed01"
PROJECT = "prj_lineage"
UNIT = "unit_streaming"
KEY = "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
ROLES = {
    "schema-sync": ("arn:aws:iam::123456789012:role/KafkaLineage-SchemaSync", "PROJECT_CONTRIBUTOR"),
    "lineage-emission": (
        "arn:aws:iam::123456789012:role/KafkaLineage-LineageEmission",
        "PROJECT_CONTRIBUTOR",
    ),
    "asset-type-resource": ("arn:aws:iam::123456789012:role/KafkaLineage-AssetTypeHandler", "PROJECT_OWNER"),
}


def lambda_context() -> PowertoolsContext:
    return cast(PowertoolsContext, FakeContext(function_name="asset-type-resource"))


def check_event(request: str = "Create", **props: Any) -> dict[str, Any]:
    properties = {
        "ServiceToken": "arn:aws:lambda:eu-west-1:123456789012:function:provider",
        "DomainId": DOMAIN,
        "ProjectId": PROJECT,
        "DomainUnitId": "",
        "GrantsByStack": "false",
        "KmsKeyArn": "",
        "MembershipMode": "stack",
        "Members": json.dumps(
            [{"name": n, "roleArn": arn, "designation": d} for n, (arn, d) in ROLES.items()]
        ),
        **props,
    }
    return {
        "RequestType": request,
        "ResourceType": "Custom::DataZoneGovernanceCheck",
        "LogicalResourceId": "DataZoneTypesGovernanceCheck",
        "StackId": "arn:aws:cloudformation:eu-west-1:123456789012:stack/KafkaLineage/1",
        "RequestId": "req-1",
        "ResourceProperties": properties,
    }


@pytest.fixture
def check(deployed: DeployedFunctions) -> Handler:
    """The custom resource, as deployed: under its role."""
    return deployed.handler("asset-type-resource")


def run_check(check: Handler, **props: Any) -> dict[str, Any]:
    answer: dict[str, Any] = check(check_event(**props), lambda_context())
    return answer


def failure(check: Handler, **props: Any) -> str:
    with pytest.raises(GovernanceError) as raised:
        run_check(check, **props)
    return str(raised.value)


def governed(local_aws: Any, **domain: Any) -> Any:
    """A governed domain (no default grants) with the project in its own domain unit."""
    backend = local_aws.datazone
    backend.add_domain(DOMAIN, governed=True, **domain)
    backend.add_domain_unit(DOMAIN, UNIT)
    backend.add_project(DOMAIN, PROJECT, domain_unit=UNIT)
    return local_aws.client("datazone")


def run_printed_command(datazone: Any, message: str, policy: str) -> None:
    """Run the `aws datazone add-policy-grant` the message prints for `policy`, as an operator would."""
    line = next(part for part in message.split("\n") if f"--policy-type {policy}" in part)
    words = shlex.split(line[line.index("aws datazone add-policy-grant") :].split(" -- ")[0])
    options = dict(zip(words[3::2], words[4::2], strict=True))
    datazone.add_policy_grant(
        domainIdentifier=options["--domain-identifier"],
        entityType=options["--entity-type"],
        entityIdentifier=options["--entity-identifier"],
        policyType=options["--policy-type"],
        principal=json.loads(options["--principal"]),
        detail=json.loads(options["--detail"]),
    )


def test_an_open_domain_passes_and_reports_its_version(local_aws: Any, check: Handler):
    # Given a domain as the stand-in makes one by default (types may be created by any project)
    local_aws.datazone.add_domain(DOMAIN, [PROJECT])
    # When the check runs / Then it passes; the missing memberships (stack mode) are no reason to fail
    answer = run_check(check)
    assert answer["Data"]["DomainVersion"] == "V1"
    assert answer["Data"]["DomainUnitId"] == local_aws.datazone.root_domain_unit(DOMAIN)


def test_missing_grants_fail_naming_grant_unit_project_and_the_command(local_aws: Any, check: Handler):
    datazone = governed(local_aws)
    # When the check runs without domainUnitId in a governed domain
    message = failure(check)
    # Then one message per grant, naming it, the domain unit and the project, with the CLI and the setting
    for policy in ("CREATE_FORM_TYPE", "CREATE_ASSET_TYPE"):
        assert re.search(rf"project {PROJECT} lacks the {policy} policy grant on domain unit {UNIT}", message)
        assert f"--policy-type {policy}" in message
    assert message.count("aws datazone add-policy-grant") == 2
    assert f"set domainUnitId to {UNIT}" in message
    # And once an operator runs the printed commands, the check passes
    for policy in ("CREATE_FORM_TYPE", "CREATE_ASSET_TYPE"):
        run_printed_command(datazone, message, policy)
    assert run_check(check)["Data"]["DomainUnitId"] == UNIT


def test_a_grant_on_a_parent_unit_counts_only_when_it_includes_child_units(local_aws: Any, check: Handler):
    datazone = governed(local_aws)
    root = local_aws.datazone.root_domain_unit(DOMAIN)
    for policy, detail in (("CREATE_FORM_TYPE", "createFormType"), ("CREATE_ASSET_TYPE", "createAssetType")):
        datazone.add_policy_grant(
            domainIdentifier=DOMAIN,
            entityType="DOMAIN_UNIT",
            entityIdentifier=root,
            policyType=policy,
            principal={
                "project": {
                    "projectDesignation": "OWNER",
                    "projectGrantFilter": {
                        "domainUnitFilter": {"domainUnit": root, "includeChildDomainUnits": True}
                    },
                }
            },
            detail={detail: {"includeChildDomainUnits": policy == "CREATE_FORM_TYPE"}},
        )
    # Then the inherited form-type grant counts, the asset-type grant (not inherited) does not
    message = failure(check)
    assert "CREATE_ASSET_TYPE" in message
    assert "CREATE_FORM_TYPE" not in message


def test_a_project_in_another_unit_than_domain_unit_id_is_named(local_aws: Any, check: Handler):
    governed(local_aws)
    message = failure(check, DomainUnitId="unit_other", GrantsByStack="true")
    assert f"project {PROJECT} belongs to domain unit {UNIT}, not to domainUnitId unit_other" in message


@pytest.mark.parametrize(
    ("domain_key", "setting", "named"),
    [
        (KEY, "", f"set domainKmsKeyArn to {KEY}"),
        (KEY, KEY.replace("1234abcd", "99999999"), f"uses {KEY}: set it to that"),
        (None, KEY, "has no customer managed key: remove domainKmsKeyArn"),
    ],
)
def test_the_domain_key_and_domain_kms_key_arn_must_agree(
    local_aws: Any, check: Handler, domain_key: str | None, setting: str, named: str
):
    local_aws.datazone.add_domain(DOMAIN, [PROJECT], kms_key_arn=domain_key)
    assert named in failure(check, KmsKeyArn=setting)


def test_a_cmk_v2_domain_with_the_key_set_passes(local_aws: Any, check: Handler):
    # Given a SageMaker Unified Studio domain encrypted with a customer managed key
    local_aws.datazone.add_domain(DOMAIN, [PROJECT], version="V2", kms_key_arn=KEY)
    datazone = local_aws.client("datazone")
    assert datazone.get_domain(identifier=DOMAIN)["kmsKeyIdentifier"] == KEY
    # When the check runs with domainKmsKeyArn set / Then it passes and reports V2
    assert run_check(check, KmsKeyArn=KEY)["Data"]["DomainVersion"] == "V2"


def test_manual_membership_names_each_missing_member_and_its_command(local_aws: Any, check: Handler):
    local_aws.datazone.add_domain(DOMAIN, [PROJECT], version="V2")
    datazone = local_aws.client("datazone")
    # Given the schema-sync role already added by a project owner, as a contributor
    arn, designation = ROLES["schema-sync"]
    datazone.create_project_membership(
        domainIdentifier=DOMAIN,
        projectIdentifier=PROJECT,
        member={"userIdentifier": arn},
        designation=designation,
    )
    # And the custom resource's role added as a mere contributor (it needs ownership)
    owner_arn, _ = ROLES["asset-type-resource"]
    local_aws.datazone.add_member(DOMAIN, PROJECT, owner_arn, "PROJECT_CONTRIBUTOR")
    message = failure(check, MembershipMode="manual")
    # Then the two that lack what they need are named, each with its command
    assert "schema-sync" not in message
    assert f"lineage-emission role {ROLES['lineage-emission'][0]} is not a PROJECT_CONTRIBUTOR" in message
    assert f"asset-type-resource role {owner_arn} is not a PROJECT_OWNER" in message
    assert message.count("aws datazone create-project-membership") == 2
    # And once added, the check passes
    for name in ("lineage-emission", "asset-type-resource"):
        role, wanted = ROLES[name]
        local_aws.datazone.add_member(DOMAIN, PROJECT, role, wanted)
    assert run_check(check, MembershipMode="manual")["Data"]["DomainVersion"] == "V2"


def test_an_unknown_project_is_named(local_aws: Any, check: Handler):
    local_aws.datazone.add_domain(DOMAIN, [PROJECT])
    assert "GetProject found nothing" in failure(check, ProjectId="prj_missing")


def test_delete_does_nothing(local_aws: Any, check: Handler):
    answer = check(check_event("Delete"), lambda_context())
    assert answer["PhysicalResourceId"].endswith(":governance")


# --------------------------------------------------------------------------- the stand-ins themselves


def test_a_governed_domain_refuses_type_creation_until_the_project_holds_the_grant(local_aws: Any):
    datazone = governed(local_aws)
    # When the form types are created without the grant / Then DataZone's 403
    with pytest.raises(AccessDenied, match="not permitted to perform operation: CreateFormType"):
        create_form_types(datazone, DOMAIN, PROJECT, SMITHY)
    grant = {
        "domainIdentifier": DOMAIN,
        "entityType": "DOMAIN_UNIT",
        "entityIdentifier": UNIT,
        "policyType": "CREATE_FORM_TYPE",
        "principal": {"project": {"projectDesignation": "OWNER", "projectIdentifier": PROJECT}},
        "detail": {"createFormType": {"includeChildDomainUnits": False}},
    }
    datazone.add_policy_grant(**grant)
    # Then it succeeds; adding the same grant again answers the same grant id
    assert create_form_types(datazone, DOMAIN, PROJECT, SMITHY)["KafkaSchemaFormType"] == "1"
    listed = datazone.list_policy_grants(
        domainIdentifier=DOMAIN,
        entityType="DOMAIN_UNIT",
        entityIdentifier=UNIT,
        policyType="CREATE_FORM_TYPE",
    )["grantList"]
    assert [g["grantId"] for g in listed] == [datazone.add_policy_grant(**grant)["grantId"]]
    # And once removed, creation is refused again
    datazone.remove_policy_grant(**{k: v for k, v in grant.items() if k != "detail"})
    with pytest.raises(AccessDenied):
        datazone.create_form_type(
            domainIdentifier=DOMAIN,
            name="AnotherFormType",
            model={"smithy": "structure AnotherFormType { a: String }"},
            owningProjectIdentifier=PROJECT,
        )


def test_a_contributor_designation_grant_does_not_cover_the_owners(local_aws: Any, check: Handler):
    datazone = governed(local_aws)
    datazone.add_policy_grant(
        domainIdentifier=DOMAIN,
        entityType="DOMAIN_UNIT",
        entityIdentifier=UNIT,
        policyType="CREATE_FORM_TYPE",
        principal={"project": {"projectDesignation": "CONTRIBUTOR", "projectIdentifier": PROJECT}},
        detail={"createFormType": {}},
    )
    assert "CREATE_FORM_TYPE policy grant" in failure(check)


def test_a_cluster_in_another_region_than_the_deployed_stack_is_named(
    local_aws: Any, check: Handler, monkeypatch: pytest.MonkeyPatch
):
    # Given an environment-agnostic stack (synth could not compare) deployed to eu-west-1
    local_aws.datazone.add_domain(DOMAIN, [PROJECT])
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    # When its second source's cluster is in us-east-1 / Then the deploy stops naming that source
    message = failure(check, ClusterRegions=json.dumps(["eu-west-1", "us-east-1"]))
    assert "kafkaLineage.sources[1].clusterArn is in us-east-1, but the stack deploys to eu-west-1" in message
    assert "sources[0]" not in message
    assert run_check(check, ClusterRegions=json.dumps(["eu-west-1"]))["Data"]["DomainVersion"] == "V1"
