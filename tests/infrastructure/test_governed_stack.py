"""The stack for a governed domain: domainUnitId (policy grants), domainKmsKeyArn (KMS), projectMembership
"manual" (fixed role names, no membership resources), and the governance check before the form types."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any

import aws_cdk as cdk
import pytest
from cfnlint.api import ManualArgs, lint

from kafka_lineage.config import ConfigError
from stacks.config import CONTEXT_KEY, load_config
from stacks.lineage_stack import EXTRA_ENVIRONMENT, KafkaLineageStack
from tests.infrastructure.sar import check_template
from tests.infrastructure.stack_synth import Synthesized, full_context, shipped_context

UNIT = "unit_streaming-01"
KEY = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def governed_context() -> dict[str, Any]:
    context = copy.deepcopy(full_context())
    context[CONTEXT_KEY].update(domainUnitId=UNIT, domainKmsKeyArn=KEY, projectMembership="manual")
    return context


@pytest.fixture(scope="module")
def synth(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    return synth_factory(governed_context())


def _depends_on(resource: dict[str, Any]) -> set[str]:
    return set(resource.get("DependsOn", []))


def test_the_two_grants_are_made_for_the_projects_owners_on_the_domain_unit(synth: Synthesized):
    grants = synth.resources("AWS::DataZone::PolicyGrant")
    by_policy = {g["Properties"]["PolicyType"]: g["Properties"] for g in grants.values()}
    assert set(by_policy) == {"CREATE_FORM_TYPE", "CREATE_ASSET_TYPE"}
    for policy, detail in (("CREATE_FORM_TYPE", "CreateFormType"), ("CREATE_ASSET_TYPE", "CreateAssetType")):
        props = by_policy[policy]
        assert props["EntityType"] == "DOMAIN_UNIT"
        assert props["EntityIdentifier"] == UNIT
        assert props["Principal"] == {
            "Project": {"ProjectDesignation": "OWNER", "ProjectIdentifier": "PLACEHOLDER_project_id"}
        }
        assert props["Detail"] == {detail: {"IncludeChildDomainUnits": False}}


def test_grants_then_the_check_then_the_form_types(synth: Synthesized):
    grants = set(synth.resources("AWS::DataZone::PolicyGrant"))
    (check_id,) = synth.resources("Custom::DataZoneGovernanceCheck")
    check = synth.cfn["Resources"][check_id]
    assert grants <= _depends_on(check)
    for form_type in synth.resources("AWS::DataZone::FormType").values():
        assert {check_id, *grants} <= _depends_on(form_type)
    props = check["Properties"]
    assert (props["DomainUnitId"], props["GrantsByStack"], props["KmsKeyArn"]) == (UNIT, "true", KEY)
    assert props["MembershipMode"] == "manual"
    assert json.loads(props["ClusterRegions"]) == ["eu-west-1", "eu-west-1"]


def test_manual_membership_creates_no_membership_and_names_the_roles(synth: Synthesized):
    assert synth.resources("AWS::DataZone::ProjectMembership") == {}
    names = {r["Properties"].get("RoleName") for r in synth.resources("AWS::IAM::Role").values()}
    assert {
        "KafkaLineage-SchemaSync",
        "KafkaLineage-LineageEmission",
        "KafkaLineage-AssetTypeHandler",
    } <= names


def test_every_function_may_use_the_domain_key_and_only_it(synth: Synthesized):
    # (subscription-grants too: it reads the domain's grants and listings, and reports their status)
    kms = [
        (logical_id, statement)
        for logical_id, policy in synth.resources("AWS::IAM::Policy").items()
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]
        if "kms:" in json.dumps(statement["Action"])
    ]
    assert sorted(lid.split("Role")[0] for lid, _ in kms) == [
        "LineageEmission",
        "SchemaSync",
        "SubscriptionGrants",
    ]
    for _, statement in kms:
        assert statement["Sid"] == "DomainKey"
        assert statement["Action"] == ["kms:Decrypt", "kms:GenerateDataKey"]
        assert statement["Resource"] == KEY


def test_cdk_nag_reports_no_unacknowledged_finding(synth: Synthesized):
    report = synth.validation_report()
    assert [r for r in report["pluginReports"] if r.get("conclusion") != "success"] == []


def test_cfn_lint_finds_no_error(synth: Synthesized):
    matches = lint(synth.template_path.read_text(), config=ManualArgs(regions=["eu-west-1", "us-east-1"]))
    errors = [
        f"{m.rule.id} {m.message} at {'/'.join(map(str, m.path))}" for m in matches if m.rule.id[0] == "E"
    ]
    assert errors == []


def test_every_allow_statement_is_usable_per_the_service_authorization_reference(synth: Synthesized):
    assert [str(finding) for finding in check_template(synth.cfn)] == []


def test_a_cluster_in_another_region_than_the_stack_is_refused_naming_the_source():
    # Given a stack pinned to us-east-1 and a source cluster in eu-west-1 (the shipped context)
    config = load_config(shipped_context()[CONTEXT_KEY], extra_environment=EXTRA_ENVIRONMENT)
    app = cdk.App(context={"aws:cdk:bundling-stacks": []})
    # When it is built / Then it fails before synthesis, naming the setting and both regions
    with pytest.raises(
        ConfigError, match=r"sources\[0\]\.clusterArn is in eu-west-1, but the stack deploys to us-east-1"
    ):
        KafkaLineageStack(
            app,
            "KafkaLineage",
            config=config,
            env=cdk.Environment(account="111122223333", region="us-east-1"),
        )


def test_the_asset_type_resource_changes_with_every_synthesis_so_each_deploy_re_resolves(synth: Synthesized):
    # Managed form revisions may move on between deploys (readings.py managed_form_revision_must_be_latest)
    (asset_type,) = synth.resources("Custom::DataZoneAssetType").values()
    resolved_at = asset_type["Properties"]["ResolvedAt"]
    assert datetime.fromisoformat(resolved_at).tzinfo is not None


def test_a_role_source_without_external_id_synthesizes_with_a_warning_naming_it(
    synth_factory: Callable[[dict[str, Any]], Synthesized],
):
    context = copy.deepcopy(shipped_context())
    context[CONTEXT_KEY]["sources"][0]["roleArn"] = "arn:aws:iam::111122223333:role/kafka-lineage-source-read"
    synthesized = synth_factory(context)
    warnings = [
        str(entry.data)
        for construct in synthesized.stack.node.find_all()
        for entry in construct.node.metadata
        if entry.type == "aws:cdk:warning"
    ]
    assert any("sources[0].roleArn is assumed without an externalId" in w for w in warnings)


def test_embedded_manual_roles_follow_the_enclosing_stack_and_a_name_too_long_is_refused():
    raw = {**shipped_context()[CONTEXT_KEY], "projectMembership": "manual"}
    config = load_config(raw, extra_environment=EXTRA_ENVIRONMENT)
    assert config.role_name("SchemaSync", "DataPlatform") == "DataPlatform-SchemaSync"
    with pytest.raises(ConfigError, match=r"kafkaLineage\.projectMembership: \"manual\" names the roles"):
        config.role_name("AssetTypeHandler", "D" * 48)
