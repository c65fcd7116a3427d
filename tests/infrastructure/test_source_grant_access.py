"""Clusters in source accounts: the source stack's `grantAccess`, and the governance stack's grants that
follow it (contract §9, "Clusters in source accounts").

The source role may describe the clusters `clusters` lists and read and write their cluster policies, and
nothing more; the governance stack's subscription-grants role may assume the source role exactly when a
consumer in another account than the cluster's may be granted its topics. Both stacks synthesized in one
app from the two-account example files, cdk-nag clean (synth raises), cfn-lint clean, usable per the SAR;
the roles' policies evaluated with the stand-ins' IAM evaluator.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from cfnlint.api import ManualArgs, lint

from kafka_lineage.config import ConfigError
from kafka_lineage_cdk import KafkaLineageSource
from local.standins.iam_policy import Request, evaluate
from local.standins.iam_roles import Role, roles_from_template
from local.standins.iam_trust import assumable_roles_from_template
from stacks.app import build_app
from stacks.config import CONTEXT_KEY
from stacks.grants import CLUSTER_POLICY_ACTIONS
from stacks.source_config import SOURCE_CONTEXT_KEY, load_source_config
from tests.infrastructure.sar import check_template
from tests.infrastructure.stack_synth import ROOT, shipped_context

EXAMPLES = ROOT / "docs" / "two-accounts"
GOVERNANCE, SOURCE, THIRD = "111122223333", "444455556666", "777788889999"
REGION = "eu-west-1"
GOVERNANCE_SETTINGS: dict[str, Any] = json.loads((EXAMPLES / "governance.json").read_text())
SOURCE_SETTINGS: dict[str, Any] = json.loads((EXAMPLES / "source.json").read_text())
CLUSTER = GOVERNANCE_SETTINGS["sources"][0]["clusterArn"]
SOURCE_ROLE = GOVERNANCE_SETTINGS["sources"][0]["roleArn"]
OTHER_CLUSTER = CLUSTER.replace("/cdc/", "/billing/")
GRANTS_ROLE = f"arn:aws:iam::{GOVERNANCE}:role/KafkaLineage-SubscriptionGrantsRole9C8D7E6F-EXAMPLE"
ACCESS = {
    "consumerRoles": [
        f"arn:aws:iam::{GOVERNANCE}:role/analytics/*",
        f"arn:aws:iam::{SOURCE}:role/analytics/*",
        f"arn:aws:iam::{THIRD}:role/analytics/*",
    ],
    "consumerAccountRole": "arn:aws:iam::{account}:role/KafkaLineageConsumer",
    "externalId": "kafka-lineage-consumers-7f3c",
}
GRANT_ACCESS = {
    **SOURCE_SETTINGS,
    "trustedRoleArns": [*SOURCE_SETTINGS["trustedRoleArns"], GRANTS_ROLE],
    "grantAccess": True,
    "clusters": [CLUSTER],
}


class Synthesized:
    def __init__(self, outdir: Path, governance: dict[str, Any], source: dict[str, Any]) -> None:
        self.outdir, self.governance, self.source = outdir, governance, source

    def source_role(self) -> Role:
        roles = assumable_roles_from_template(self.source, REGION, SOURCE, "KafkaLineageSource")
        return roles[SOURCE_ROLE].role

    def grants_role(self) -> Role:
        return roles_from_template(self.governance, REGION, GOVERNANCE)["subscription-grants"]


def synthesize(outdir: Path, access: dict[str, Any] | None, source: dict[str, Any]) -> Synthesized:
    context = shipped_context()
    context[CONTEXT_KEY] = {**GOVERNANCE_SETTINGS, **({"access": access} if access is not None else {})}
    context[SOURCE_CONTEXT_KEY] = json.dumps(source)
    app = cdk.App(context=context, outdir=str(outdir), builtin_cloud_formation_validation=False)
    governance = build_app(app)
    app.synth()  # cdk-nag findings raise here
    stack = app.node.find_child("KafkaLineageSource")
    assert isinstance(stack, cdk.Stack)
    return Synthesized(
        outdir, dict(Template.from_stack(governance).to_json()), dict(Template.from_stack(stack).to_json())
    )


@pytest.fixture(scope="module")
def granting(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    return synthesize(tmp_path_factory.mktemp("cdk.out"), ACCESS, GRANT_ACCESS)


@pytest.fixture(scope="module")
def reading(tmp_path_factory: pytest.TempPathFactory) -> Synthesized:
    """The example files as they ship: no `access`, no `grantAccess`."""
    return synthesize(tmp_path_factory.mktemp("cdk.out"), None, SOURCE_SETTINGS)


def _allowed(role: Role, action: str, resource: str) -> bool:
    return evaluate(role.statements, Request(action, (resource,), {})).allowed


def test_both_stacks_synthesize_nag_clean_lint_clean_and_usable_per_the_sar(granting: Synthesized):
    report = json.loads((granting.outdir / "validation-report.json").read_text())
    assert [r for r in report["pluginReports"] if r.get("conclusion") != "success"] == []
    for name in ("KafkaLineage", "KafkaLineageSource"):
        text = (granting.outdir / f"{name}.template.json").read_text()
        matches = lint(text, config=ManualArgs(regions=["eu-west-1", "us-east-1"]))
        assert [f"{m.rule.id} {m.message}" for m in matches if m.rule.id[0] == "E"] == [], name
    for template in (granting.governance, granting.source):
        assert [str(finding) for finding in check_template(template)] == []


@pytest.mark.parametrize("action", CLUSTER_POLICY_ACTIONS)
def test_grant_access_lets_the_source_role_write_the_listed_clusters_policies_only(
    granting: Synthesized, action: str
):
    # Given the source stack with grantAccess and one listed cluster
    role = granting.source_role()
    # Then the role may describe and read and write that cluster's policy, and no other cluster's
    assert _allowed(role, action, CLUSTER)
    assert not _allowed(role, action, OTHER_CLUSTER)
    assert not _allowed(role, action, CLUSTER.replace(SOURCE, THIRD))


def test_grant_access_adds_one_statement_and_nothing_else(granting: Synthesized, reading: Synthesized):
    # Given the same source stack with and without grantAccess
    def statements(synthesized: Synthesized) -> dict[str, Any]:
        return {str(s.sid): s for s in synthesized.source_role().statements}

    added = set(statements(granting)) - set(statements(reading))
    # Then the only difference is the cluster-policy statement: the four actions on the listed ARN
    assert added == {"MskClusterPolicies"}
    statement = statements(granting)["MskClusterPolicies"]
    assert sorted(statement.actions) == sorted(CLUSTER_POLICY_ACTIONS)
    assert statement.resources == (CLUSTER,)
    assert {k: v for k, v in statements(granting).items() if k in statements(reading)} == statements(reading)
    # ... and without it, the role may touch no cluster policy
    for action in CLUSTER_POLICY_ACTIONS:
        assert not _allowed(reading.source_role(), action, CLUSTER), action


def test_the_source_role_trusts_the_grants_role_with_the_external_id(granting: Synthesized):
    roles = assumable_roles_from_template(granting.source, REGION, SOURCE, "KafkaLineageSource")
    trust = roles[SOURCE_ROLE].trust
    principals = sorted(a for s in trust for a in _as_list(s["Principal"]["AWS"]))
    assert principals == sorted(GRANT_ACCESS["trustedRoleArns"])
    for statement in trust:
        assert statement["Condition"] == {"StringEquals": {"sts:ExternalId": GRANT_ACCESS["externalId"]}}


def test_the_grants_role_assumes_the_source_role_and_writes_no_source_cluster_itself(granting: Synthesized):
    # Given consumers admitted in the governance, source and third accounts, and the cluster in the source
    # account, read through its role
    role = granting.grants_role()
    # Then subscription-grants may assume the source role (the cluster policy is written through it) ...
    assert _allowed(role, "sts:AssumeRole", SOURCE_ROLE)
    assert not _allowed(role, "sts:AssumeRole", SOURCE_ROLE.replace(SOURCE, THIRD))
    # ... and the consumer-account roles (each consumer's IAM is written in its own account) ...
    assert _allowed(role, "sts:AssumeRole", f"arn:aws:iam::{SOURCE}:role/KafkaLineageConsumer")
    assert _allowed(role, "sts:AssumeRole", f"arn:aws:iam::{THIRD}:role/KafkaLineageConsumer")
    # ... but holds no MSK action of its own on the source account's cluster (IAM acts in its own account)
    for action in CLUSTER_POLICY_ACTIONS:
        assert not _allowed(role, action, CLUSTER), action


def test_the_grants_role_assumes_the_source_role_only_when_a_cluster_policy_is_needed(tmp_path: Path):
    # Given the same source, and consumerRoles naming one account at a time
    def assumes(*consumer_roles: str) -> bool:
        access = {**copy.deepcopy(ACCESS), "consumerRoles": list(consumer_roles)}
        outdir = tmp_path / str(abs(hash(consumer_roles)))
        role = synthesize(outdir, access, GRANT_ACCESS).grants_role()
        return _allowed(role, "sts:AssumeRole", SOURCE_ROLE)

    # Then a role in the governance account, or in any, needs the cluster policy: the source role
    assert assumes(f"arn:aws:iam::{GOVERNANCE}:role/analytics/*")
    assert assumes("arn:aws:iam::*:role/analytics/*")
    # ... and a role in the cluster's own account needs no cluster policy, so no source role
    assert not assumes(f"arn:aws:iam::{SOURCE}:role/analytics/*")


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"grantAccess": True}, "clusters is empty"),
        ({"clusters": [CLUSTER]}, "clusters is given without grantAccess"),
        ({"grantAccess": "yes", "clusters": [CLUSTER]}, "grantAccess: Input should be a valid boolean"),
        ({"grantAccess": True, "clusters": [CLUSTER.replace("/cdc/", "/*/")]}, "clusters: .*no wildcard"),
        ({"grantAccess": True, "clusters": [CLUSTER.rsplit("/", 1)[0] + "/*"]}, "clusters: .*no wildcard"),
        ({"grantAccess": True, "clusters": [SOURCE_ROLE]}, "not an MSK cluster ARN"),
        ({"grantAccess": True, "clusters": [CLUSTER, CLUSTER.replace(SOURCE, THIRD)]}, "several accounts"),
    ],
)
def test_a_bad_grant_access_setting_fails_naming_the_key(change: dict[str, Any], message: str):
    raw = {**SOURCE_SETTINGS, **change}
    with pytest.raises(ConfigError, match=message):
        load_source_config(json.dumps(raw))


def test_clusters_of_another_account_than_the_stacks_fail_at_synth(tmp_path: Path):
    # Given the construct in a stack of the governance account, listing the source account's cluster
    app = cdk.App(outdir=str(tmp_path))
    stack = cdk.Stack(app, "Wrong", env=cdk.Environment(account=GOVERNANCE, region=REGION))
    # When it is built / Then synth refuses, naming the setting
    with pytest.raises(ConfigError, match=rf"kafkaLineageSource.clusters are in account {SOURCE}"):
        KafkaLineageSource(stack, "Source", config=GRANT_ACCESS)


def test_in_the_clusters_own_account_the_construct_grants_them(tmp_path: Path):
    app = cdk.App(outdir=str(tmp_path))
    stack = cdk.Stack(app, "Right", env=cdk.Environment(account=SOURCE, region=REGION))
    KafkaLineageSource(stack, "Source", config=GRANT_ACCESS)
    template = Template.from_stack(stack).to_json()
    roles = assumable_roles_from_template(template, REGION, SOURCE, "Right")
    (role,) = [r.role for r in roles.values() if r.role.name == "kafka-lineage-source-reader"]
    assert _allowed(role, "kafka:PutClusterPolicy", CLUSTER)
