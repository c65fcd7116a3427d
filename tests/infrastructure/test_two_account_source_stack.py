"""Two accounts: the governance stack with a source in another account, and that account's source stack.

Synthesized from the documented example files (docs/two-accounts/), as `make synth` does with the README's
command: both stacks, cdk-nag clean (synth raises on a finding), cfn-lint clean, every grant usable per the
SAR; the trust, the forwarding and the bus policy as the README describes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from cfnlint.api import ManualArgs, lint

from kafka_lineage.config import ConfigError
from stacks.app import build_app
from stacks.source_config import SOURCE_CONTEXT_KEY, load_source_config
from tests.infrastructure.sar import check_template, template_statements
from tests.infrastructure.stack_synth import ROOT, shipped_context

EXAMPLES = ROOT / "docs" / "two-accounts"
SOURCE_ACCOUNT = "444455556666"
GOVERNANCE_ACCOUNT = "111122223333"


def two_account_context() -> dict[str, Any]:
    context = shipped_context()
    context["kafkaLineage"] = json.loads((EXAMPLES / "governance.json").read_text())
    context[SOURCE_CONTEXT_KEY] = str(EXAMPLES / "source.json")  # a file path, as on the command line
    return context


class Both:
    def __init__(self, outdir: Path, governance: dict[str, Any], source: dict[str, Any]) -> None:
        self.outdir, self.governance, self.source = outdir, governance, source

    def resources(self, template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
        return {lid: r for lid, r in template["Resources"].items() if r["Type"] == kind}


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Both:
    outdir = tmp_path_factory.mktemp("cdk.out")
    app = cdk.App(context=two_account_context(), outdir=str(outdir), builtin_cloud_formation_validation=False)
    governance = build_app(app)
    app.synth()  # cdk-nag findings raise here
    source = app.node.find_child("KafkaLineageSource")
    assert isinstance(source, cdk.Stack)
    return Both(
        outdir,
        dict(Template.from_stack(governance).to_json()),
        dict(Template.from_stack(source).to_json()),
    )


def _statements(template: dict[str, Any], logical_prefix: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] == "AWS::IAM::Policy" and logical_id.startswith(logical_prefix):
            found += resource["Properties"]["PolicyDocument"]["Statement"]
    return found


def test_the_app_synthesizes_both_stacks_and_nag_reports_nothing_unacknowledged(both: Both):
    report = json.loads((both.outdir / "validation-report.json").read_text())
    assert [r for r in report["pluginReports"] if r.get("conclusion") != "success"] == []
    assert (both.outdir / "KafkaLineage.template.json").is_file()
    assert (both.outdir / "KafkaLineageSource.template.json").is_file()


@pytest.mark.parametrize("name", ["KafkaLineage", "KafkaLineageSource"])
def test_cfn_lint_finds_no_error_in_either_stack(both: Both, name: str):
    text = (both.outdir / f"{name}.template.json").read_text()
    matches = lint(text, config=ManualArgs(regions=["eu-west-1", "us-east-1"]))
    assert [f"{m.rule.id} {m.message}" for m in matches if m.rule.id[0] == "E"] == []


@pytest.mark.parametrize("which", ["governance", "source"])
def test_every_grant_of_either_stack_is_usable_per_the_sar(both: Both, which: str):
    template = getattr(both, which)
    assert list(template_statements(template))  # the checker sees the policies
    assert [str(finding) for finding in check_template(template)] == []


def test_the_reader_role_trusts_only_the_two_function_roles_with_the_external_id(both: Both):
    roles = both.resources(both.source, "AWS::IAM::Role").values()
    (role,) = [r for r in roles if r["Properties"].get("RoleName") == "kafka-lineage-source-reader"]
    trust = role["Properties"]["AssumeRolePolicyDocument"]["Statement"]
    expected = json.loads((EXAMPLES / "source.json").read_text())
    principals = sorted(arn for s in trust for arn in _as_list(s["Principal"]["AWS"]))
    assert principals == sorted(expected["trustedRoleArns"])
    for statement in trust:  # every way in needs the external id
        assert statement["Effect"] == "Allow"
        assert statement["Action"] == "sts:AssumeRole"
        assert statement["Condition"] == {"StringEquals": {"sts:ExternalId": expected["externalId"]}}
    assert role["Properties"]["MaxSessionDuration"] == 3600


def test_the_reader_role_reads_only_the_configured_registries_and_databases(both: Both):
    statements = {s["Sid"]: s for s in _statements(both.source, "ReaderRole")}
    tails = {
        sid: sorted(r["Fn::Join"][1][-1] if isinstance(r, dict) else r for r in _as_list(s["Resource"]))
        for sid, s in statements.items()
    }
    assert tails["GlueSchemaRegistryRead"] == [":registry/cdc", ":schema/cdc/*"]
    assert tails["GlueCatalogRead"] == [":catalog", ":database/lakehouse", ":table/lakehouse/*"]
    assert tails["MskBootstrapBrokers"] == ["*"]
    # The topics of this account's clusters (SAR: ListTopics takes the cluster, DescribeTopic the topic)
    assert (statements["MskTopicList"]["Action"], tails["MskTopicList"]) == (
        "kafka:ListTopics",
        [":cluster/*/*"],
    )
    assert (statements["MskTopicDescribe"]["Action"], tails["MskTopicDescribe"]) == (
        "kafka:DescribeTopic",
        [":topic/*/*/*"],
    )
    # The consumer groups of the account's clusters: ListMetrics has no resource type in the SAR
    assert statements["ConsumerGroupsList"]["Action"] == "cloudwatch:ListMetrics"
    assert tails["ConsumerGroupsList"] == ["*"]
    assert not any("Put" in str(s["Action"]) or "Create" in str(s["Action"]) for s in statements.values())


def test_registry_events_are_forwarded_to_the_governance_default_bus_through_a_role(both: Both):
    (rule,) = both.resources(both.source, "AWS::Events::Rule").values()
    pattern = rule["Properties"]["EventPattern"]
    assert pattern["source"] == ["aws.glue"]
    assert pattern["detail"]["$or"][0] == {"requestParameters": {"schemaId": {"registryName": ["cdc"]}}}
    (target,) = rule["Properties"]["Targets"]
    bus = json.dumps(target["Arn"])
    assert f":{GOVERNANCE_ACCOUNT}:event-bus/default" in bus
    # A rule whose target is another account's bus needs a role allowed to put events on that bus only.
    role_id = target["RoleArn"]["Fn::GetAtt"][0]
    (put,) = _statements(both.source, role_id[: role_id.index("Role") + 4])
    assert put["Action"] == "events:PutEvents"
    assert json.dumps(put["Resource"]) == bus


def test_the_governance_bus_accepts_glue_events_from_the_source_account_only(both: Both):
    (policy,) = both.resources(both.governance, "AWS::Events::EventBusPolicy").values()
    statement = policy["Properties"]["Statement"]
    root = ["arn:", {"Ref": "AWS::Partition"}, f":iam::{SOURCE_ACCOUNT}:root"]
    assert statement["Principal"] == {"AWS": {"Fn::Join": ["", root]}}
    assert statement["Action"] == "events:PutEvents"
    assert statement["Condition"]["ForAllValues:StringEquals"]["events:source"] == ["aws.glue"]
    assert statement["Condition"]["StringEquals"]["events:detail-type"] == "AWS API Call via CloudTrail"
    assert policy["Properties"]["EventBusName"] == "default"


def test_both_functions_may_assume_the_source_role_and_read_nothing_of_it_themselves(both: Both):
    role_arn = json.loads((EXAMPLES / "governance.json").read_text())["sources"][0]["roleArn"]
    for prefix in ("SchemaSyncRole", "LineageEmissionRole"):
        statements = {s.get("Sid", ""): s for s in _statements(both.governance, prefix)}
        assert statements["AssumeSourceRoles"]["Action"] == "sts:AssumeRole"
        assert statements["AssumeSourceRoles"]["Resource"] == role_arn
        # The only source is in the other account: no Glue, MSK or CloudWatch grant in this one.
        own = {
            "GlueSchemaRegistryRead",
            "GlueCatalogRead",
            "MskBootstrapBrokers",
            "MskTopicList",
            "MskTopicDescribe",
            "ConsumerGroupsList",
        }
        assert not own & set(statements)
    outputs = both.governance["Outputs"]
    assert {"SchemaSyncRoleArn", "LineageRoleArn"} <= set(outputs)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"externalId": "x"}, "externalId"),
        ({"trustedRoleArns": ["arn:aws:iam::111122223333:user/someone"]}, "trustedRoleArns"),
        (
            {
                "trustedRoleArns": [
                    "arn:aws:iam::111122223333:role/a",
                    "arn:aws:iam::777788889999:role/b",
                ]
            },
            "several accounts",
        ),
        ({"registries": ["no/slash"]}, "registries"),
        ({"unknownKey": 1}, "unknownKey"),
        ({"stackName": "Kafka_Lineage_Source"}, "stackName"),
        ({"readBrokers": "true"}, "readBrokers"),
        ({"forwardEvents": "no"}, "forwardEvents"),
        ({"readConsumers": "yes"}, "readConsumers"),
    ],
)
def test_a_bad_source_context_fails_naming_the_key(change: dict[str, Any], message: str):
    # Given the example source settings with one bad value
    raw = {**json.loads((EXAMPLES / "source.json").read_text()), **change}
    # When they are loaded / Then the error names the key at fault
    with pytest.raises(ConfigError, match=message):
        load_source_config(json.dumps(raw))


def test_no_source_context_means_no_source_stack(tmp_path: Path):
    assert load_source_config(None) is None
    assert load_source_config("") is None
    with pytest.raises(ConfigError, match="neither JSON nor a file"):
        load_source_config(str(tmp_path / "missing.json"))
