"""Grants to roles in another account: the governance stack with `access.consumerAccountRole`, and the
consumer account's stack (`-c kafkaLineageConsumer=...`) whose role subscription-grants assumes there.

Both synthesized in one app as `make synth` would: cdk-nag clean (synth raises on a finding), cfn-lint clean,
every grant usable per the SAR; the trust, and the consumer role's IAM evaluated with the stand-ins' IAM
evaluator for the consumer account.
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
from kafka_lineage_cdk import KafkaLineageConsumer, KafkaLineageConsumerConfig
from local.standins.iam_policy import Request, evaluate, parse_policy
from local.standins.iam_roles import _Resolver
from stacks.app import build_app
from stacks.config import CONTEXT_KEY
from stacks.consumer_config import CONSUMER_CONTEXT_KEY, load_consumer_config
from tests.infrastructure.sar import check_template, template_statements
from tests.infrastructure.stack_synth import CONSUMER_ACCOUNT, FULL_ACCESS, shipped_context

GOVERNANCE_ROLE = "arn:aws:iam::111122223333:role/KafkaLineage-SubscriptionGrantsRole1A2B3C4D-EXAMPLE"
CONSUMER = {
    "trustedRoleArn": GOVERNANCE_ROLE,
    "externalId": FULL_ACCESS["externalId"],
    "consumerRoles": [
        f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/orders-consumer",
        "arn:aws:iam::*:role/team-a/*",
    ],
}
OURS = f"arn:aws:iam::{CONSUMER_ACCOUNT}:policy/kafka-lineage/KafkaLineageAccess-orders-consumer-1"


class Both:
    def __init__(self, outdir: Path, governance: dict[str, Any], consumer: dict[str, Any]) -> None:
        self.outdir, self.governance, self.consumer = outdir, governance, consumer

    def role(self) -> dict[str, Any]:
        (role,) = [r for r in self.consumer["Resources"].values() if r["Type"] == "AWS::IAM::Role"]
        return role

    def statements(self) -> list[dict[str, Any]]:
        resolver = _Resolver(self.consumer, "eu-west-1", CONSUMER_ACCOUNT, "KafkaLineageConsumer")
        (policy,) = [r for r in self.consumer["Resources"].values() if r["Type"] == "AWS::IAM::Policy"]
        return list(resolver.resolve(policy["Properties"]["PolicyDocument"])["Statement"])


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Both:
    context = shipped_context()
    context[CONTEXT_KEY]["access"] = FULL_ACCESS
    context[CONSUMER_CONTEXT_KEY] = json.dumps(CONSUMER)  # JSON text, as on the command line
    outdir = tmp_path_factory.mktemp("cdk.out")
    app = cdk.App(context=context, outdir=str(outdir), builtin_cloud_formation_validation=False)
    governance = build_app(app)
    app.synth()  # cdk-nag findings raise here
    consumer = app.node.find_child("KafkaLineageConsumer")
    assert isinstance(consumer, cdk.Stack)
    return Both(
        outdir, dict(Template.from_stack(governance).to_json()), dict(Template.from_stack(consumer).to_json())
    )


def _allowed(both: Both, action: str, resource: str, **context: str) -> bool:
    statements = parse_policy({"Version": "2012-10-17", "Statement": both.statements()})
    request = Request(action, (resource,), {key: (value,) for key, value in context.items()})
    return evaluate(statements, request).allowed


def test_both_stacks_synthesize_nag_clean_and_lint_clean(both: Both):
    report = json.loads((both.outdir / "validation-report.json").read_text())
    assert [r for r in report["pluginReports"] if r.get("conclusion") != "success"] == []
    for name in ("KafkaLineage", "KafkaLineageConsumer"):
        text = (both.outdir / f"{name}.template.json").read_text()
        matches = lint(text, config=ManualArgs(regions=["eu-west-1", "us-east-1"]))
        assert [f"{m.rule.id} {m.message}" for m in matches if m.rule.id[0] == "E"] == [], name


@pytest.mark.parametrize("which", ["governance", "consumer"])
def test_every_grant_of_either_stack_is_usable_per_the_sar(both: Both, which: str):
    template = getattr(both, which)
    assert list(template_statements(template))
    assert [str(finding) for finding in check_template(template)] == []


def test_the_role_trusts_only_the_grants_role_with_the_external_id_for_an_hour(both: Both):
    role = both.role()["Properties"]
    assert role["RoleName"] == "KafkaLineageConsumer"  # what access.consumerAccountRole names
    assert (
        FULL_ACCESS["consumerAccountRole"].format(account=CONSUMER_ACCOUNT).endswith(f"/{role['RoleName']}")
    )
    (trust,) = role["AssumeRolePolicyDocument"]["Statement"]
    assert trust["Principal"] == {"AWS": GOVERNANCE_ROLE}
    assert trust["Action"] == "sts:AssumeRole"
    assert trust["Condition"] == {"StringEquals": {"sts:ExternalId": FULL_ACCESS["externalId"]}}
    assert role["MaxSessionDuration"] == 3600
    assert "ManagedPolicyArns" not in role


@pytest.mark.parametrize(
    ("role_arn", "admitted"),
    [
        (f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/orders-consumer", True),
        (f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/team-a/deep/path/reader", True),
        (f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/orders-consumer-admin", False),
        (f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/admin", False),
        (f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/team-b/reader", False),
    ],
)
def test_the_role_writes_only_the_consumer_roles(both: Both, role_arn: str, admitted: bool):
    for action in ("iam:PutRolePolicy", "iam:DeleteRolePolicy", "iam:GetRole"):
        assert _allowed(both, action, role_arn) is admitted, action
    assert _allowed(both, "iam:AttachRolePolicy", role_arn, **{"iam:PolicyARN": OURS}) is admitted
    administrator = "arn:aws:iam::aws:policy/AdministratorAccess"
    assert not _allowed(both, "iam:AttachRolePolicy", role_arn, **{"iam:PolicyARN": administrator})


def test_the_role_can_do_nothing_but_the_grants_iam(both: Both):
    actions = {
        action
        for statement in both.statements()
        for action in ([statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"])
    }
    assert {action.split(":")[0] for action in actions} == {"iam"}
    assert not actions & {"iam:CreateRole", "iam:UpdateAssumeRolePolicy", "iam:PutRolePermissionsBoundary"}
    assert _allowed(both, "iam:CreatePolicy", OURS)
    assert not _allowed(both, "iam:CreatePolicy", f"arn:aws:iam::{CONSUMER_ACCOUNT}:policy/Other")


def test_the_governance_function_may_assume_the_consumer_role_only(both: Both):
    statements = [
        s
        for r in both.governance["Resources"].values()
        if r["Type"] == "AWS::IAM::Policy"
        for s in r["Properties"]["PolicyDocument"]["Statement"]
        if s.get("Sid") == "AssumeConsumerAccountRoles"
    ]
    (statement,) = statements
    assert f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/KafkaLineageConsumer" in statement["Resource"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"trustedRoleArn": "not-an-arn"}, "kafkaLineageConsumer.trustedRoleArn"),
        ({"consumerRoles": []}, "kafkaLineageConsumer.consumerRoles"),
        ({"consumerRoles": ["arn:aws:iam::444455556666:user/bob"]}, "is not an IAM role ARN pattern"),
        ({"externalId": "x"}, "kafkaLineageConsumer.externalId"),
        ({"roleName": "a/b"}, "kafkaLineageConsumer.roleName"),
        ({"surprise": True}, "kafkaLineageConsumer.surprise"),
    ],
)
def test_a_bad_setting_names_its_key(change: dict[str, Any], message: str):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        load_consumer_config({**CONSUMER, **change})


def test_the_construct_is_exported_for_any_stack(tmp_path: Path):
    # Given the construct in a user's own stack, with the typed model, in an account of its own
    app = cdk.App(outdir=str(tmp_path))
    stack = cdk.Stack(app, "Consumers", env=cdk.Environment(account=CONSUMER_ACCOUNT, region="eu-west-1"))
    KafkaLineageConsumer(stack, "Grants", config=KafkaLineageConsumerConfig.model_validate(CONSUMER))
    template = Template.from_stack(stack).to_json()
    # Then the account's own and any-account patterns are its resources
    (policy,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::IAM::Policy"]
    (read,) = [
        s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s["Sid"] == "ConsumerRoleRead"
    ]
    assert sorted(read["Resource"]) == sorted(CONSUMER["consumerRoles"])
