"""subscription-grants in the governance stack: deployed with `access` only, its environment, triggers,
alarms and outputs, and a role whose IAM is synthesized from `access.consumerRoles` and grants nothing more.

The role's policies are evaluated with the stand-ins' IAM evaluator (local/standins/iam_policy.py: IAM's
wildcards, ARN matching field by field, condition operators), resolved for account 111122223333.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Annotations, Match, Template

from kafka_lineage.access.model import Naming
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.aws.lease import lease_path, role_holder
from kafka_lineage.model import metrics as catalog
from kafka_lineage_cdk.deployed import find_deployment
from local.standins.iam_policy import Request, evaluate
from local.standins.iam_roles import Role, roles_from_template
from stacks.config import ACCESS_VARIABLE, CONTEXT_KEY, GRANTS_VARIABLES, load_config
from stacks.grants import GRANTS_HANDLER, GRANTS_TIMEOUT_SECONDS
from stacks.lineage_stack import EXTRA_ENVIRONMENT, KafkaLineageStack
from stacks.triggers import subscription_grant_pattern
from tests.infrastructure.sar import check_template
from tests.infrastructure.stack_synth import (
    CONSUMER_ACCOUNT,
    FULL_ACCESS,
    PROD_CLUSTER_ARN,
    Synthesized,
    full_context,
    shipped_context,
)

ACCOUNT = "111122223333"
REGION = "eu-west-1"
# The full context's stack: its domain and asset type name its policies (Naming.for_stack).
PREFIX = Naming.for_stack(
    full_context()[CONTEXT_KEY]["domainId"], full_context()[CONTEXT_KEY]["assetTypeName"]
).prefix
OURS = f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/{PREFIX}-orders-reader-1"
ANALYTICS_ROLE = f"arn:aws:iam::{ACCOUNT}:role/analytics/team/orders-reader"


@pytest.fixture(scope="module")
def full(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    return synth_factory(full_context())


@pytest.fixture(scope="module")
def empty(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    # `access: {}` admits no role; the reconciling schedule turned off
    context = shipped_context()
    context[CONTEXT_KEY]["access"] = {}
    context[CONTEXT_KEY]["schedules"] = {"grants": "off"}
    return synth_factory(context)


@pytest.fixture(scope="module")
def unset(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    return synth_factory(shipped_context())


@pytest.fixture(scope="module")
def role(full: Synthesized) -> Role:
    return roles_from_template(full.cfn, REGION, ACCOUNT)["subscription-grants"]


def _functions(synth: Synthesized) -> dict[str, dict[str, Any]]:
    return {
        logical_id: resource["Properties"]
        for logical_id, resource in synth.resources("AWS::Lambda::Function").items()
        if resource["Properties"].get("Handler") == GRANTS_HANDLER
    }


def _grants_function(synth: Synthesized) -> tuple[str, dict[str, Any]]:
    ((logical_id, properties),) = _functions(synth).items()
    return logical_id, properties


def _allowed(role: Role, action: str, resource: str, **context: str) -> bool:
    request = Request(action, (resource,), {key: (value,) for key, value in context.items()})
    return evaluate(role.statements, request).allowed


def _iam_actions(synth: Synthesized) -> set[str]:
    role = _grants_function(synth)[1]["Role"]["Fn::GetAtt"][0]
    actions: set[str] = set()
    for policy in synth.resources("AWS::IAM::Policy").values():
        if {"Ref": role} in policy["Properties"]["Roles"]:
            for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                listed = statement["Action"]
                actions.update([listed] if isinstance(listed, str) else listed)
    return actions


# --------------------------------------------------------------------------------------------- deployed


def test_without_access_no_function_rule_alarm_or_output_is_deployed(unset: Synthesized):
    # Given the stack as shipped (no `access`)
    assert _functions(unset) == {}
    patterns = [r["Properties"].get("EventPattern") for r in unset.resources("AWS::Events::Rule").values()]
    assert not [p for p in patterns if p and p.get("source") == ["aws.datazone"]]
    alarms = "".join(unset.resources("AWS::CloudWatch::Alarm"))
    assert "Grants" not in alarms
    assert not [key for key in unset.cfn["Outputs"] if key.startswith("SubscriptionGrants")]
    # and the other functions are not given ACCESS
    for function in unset.resources("AWS::Lambda::Function").values():
        assert ACCESS_VARIABLE not in function["Properties"].get("Environment", {}).get("Variables", {})


def test_with_access_the_function_reads_only_its_variables_and_access_as_json(full: Synthesized):
    _, function = _grants_function(full)
    variables = function["Environment"]["Variables"]
    # (the settings it reads are written when required or not at their defaults)
    assert {"DOMAIN_ID", "SOURCES", ACCESS_VARIABLE} <= set(variables)
    assert set(variables) <= {*GRANTS_VARIABLES, ACCESS_VARIABLE, *EXTRA_ENVIRONMENT}
    # ACCESS is what the function reads back into the same settings
    assert AccessSettings.from_environment(variables) == AccessSettings.parse(FULL_ACCESS)
    assert function["Timeout"] == GRANTS_TIMEOUT_SECONDS
    assert "ReservedConcurrentExecutions" not in function  # reserveConcurrency is off in this context
    assert function["TracingConfig"] == {"Mode": "Active"}


def test_the_function_retries_then_sends_to_the_failure_queue(full: Synthesized):
    logical_id, _ = _grants_function(full)
    (config,) = [
        r["Properties"]
        for r in full.resources("AWS::Lambda::EventInvokeConfig").values()
        if r["Properties"]["FunctionName"] == {"Ref": logical_id}
    ]
    assert config["MaximumRetryAttempts"] == 2
    (queue,) = full.resources("AWS::SQS::Queue")
    assert config["DestinationConfig"]["OnFailure"]["Destination"] == {"Fn::GetAtt": [queue, "Arn"]}


def test_the_rule_sends_the_domains_grant_events_to_the_function(full: Synthesized):
    logical_id, _ = _grants_function(full)
    domain = full_context()[CONTEXT_KEY]["domainId"]
    (rule,) = [
        r["Properties"]
        for r in full.resources("AWS::Events::Rule").values()
        if r["Properties"].get("EventPattern", {}).get("source") == ["aws.datazone"]
    ]
    # Exactly the pattern tests/infrastructure/test_event_patterns.py runs through an event-pattern engine
    assert rule["EventPattern"] == subscription_grant_pattern(domain)
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [logical_id, "Arn"]}
    assert "DeadLetterConfig" in target
    assert target["RetryPolicy"]["MaximumRetryAttempts"] == 4


def test_the_reconciling_run_is_hourly_by_default_and_off_turns_it_off(full: Synthesized, empty: Synthesized):
    logical_id, _ = _grants_function(full)
    scheduled = [
        r["Properties"]
        for r in full.resources("AWS::Events::Rule").values()
        if r["Properties"].get("Targets", [{}])[0].get("Arn") == {"Fn::GetAtt": [logical_id, "Arn"]}
        and "ScheduleExpression" in r["Properties"]
    ]
    assert [r["ScheduleExpression"] for r in scheduled] == ["cron(50 * * * ? *)"]
    assert "Input" not in scheduled[0]["Targets"][0]  # its own "Scheduled Event" asks for the reconciling run
    empty_id, _ = _grants_function(empty)
    assert not [
        r
        for r in empty.resources("AWS::Events::Rule").values()
        if "ScheduleExpression" in r["Properties"]
        and r["Properties"]["Targets"][0]["Arn"] == {"Fn::GetAtt": [empty_id, "Arn"]}
    ]


def test_its_alarms_are_the_catalogs_and_notify_the_topic(full: Synthesized):
    alarms = full.resources("AWS::CloudWatch::Alarm")
    for alarm, statistic, period in (
        (catalog.GRANTS_FAILED_ALARM, "Sum", 300),
        (catalog.GRANTS_STUCK_ALARM, "Maximum", 3600),
    ):
        ((_, resource),) = [(lid, r) for lid, r in alarms.items() if alarm.construct_id in lid]
        properties = resource["Properties"]
        (metric,) = alarm.metrics
        assert (properties["MetricName"], properties["Namespace"]) == (metric.name, "KafkaLineage")
        assert (properties["Statistic"], properties["Period"]) == (statistic, period)
        assert properties["Threshold"] == 1
        assert properties["AlarmActions"]
    errors = [
        lid for lid in alarms if lid.startswith("SubscriptionGrants") and catalog.ERRORS.construct_id in lid
    ]
    assert len(errors) == 1
    assert alarms[errors[0]]["Properties"]["AlarmActions"]


def test_outputs_name_the_function_and_role_and_the_cli_finds_them(full: Synthesized):
    outputs = full.cfn["Outputs"]
    assert outputs["SubscriptionGrantsFunctionName"]["Value"] == {"Ref": _grants_function(full)[0]}
    assert "Fn::GetAtt" in outputs["SubscriptionGrantsRoleArn"]["Value"]
    # Given DescribeStacks' outputs of this template, the CLI resolves the function by its name
    described = {
        "StackName": "KafkaLineage",
        "Outputs": [{"OutputKey": key, "OutputValue": f"value-of-{key}"} for key in outputs],
    }
    deployment = find_deployment(described)
    assert deployment.function("subscription-grants") == "value-of-SubscriptionGrantsFunctionName"
    assert deployment.function("schema-sync") == "value-of-SchemaSyncFunctionName"


# --------------------------------------------------------------------------------------------- its IAM


@pytest.mark.parametrize(
    ("role_arn", "admitted"),
    [
        (ANALYTICS_ROLE, True),
        (f"arn:aws:iam::{ACCOUNT}:role/analytics/a/b/c/deep_name.with+all=the,chars@-", True),
        (f"arn:aws:iam::{ACCOUNT}:role/analytics/x", True),
        (f"arn:aws:iam::{ACCOUNT}:role/analytics-admin", False),
        (f"arn:aws:iam::{ACCOUNT}:role/Analytics/x", False),
        (f"arn:aws:iam::{ACCOUNT}:role/admin", False),
        (f"arn:aws:iam::{ACCOUNT}:role/" + "r" * 64, False),
        (f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/orders-consumer", True),
        (f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/orders-consumer-2", False),
    ],
)
def test_role_writes_are_granted_exactly_where_consumer_roles_admits(
    role: Role, role_arn: str, admitted: bool
):
    # Given the synthesized policy and the function's own reading of consumerRoles
    settings = AccessSettings.parse(FULL_ACCESS)
    # Then IAM's wildcards grant the writes exactly on the roles the function admits
    assert settings.admits_role(role_arn) is admitted
    for action in (
        "iam:PutRolePolicy",
        "iam:DeleteRolePolicy",
        "iam:GetRole",
        "iam:ListAttachedRolePolicies",
    ):
        assert _allowed(role, action, role_arn) is admitted, action
    assert _allowed(role, "iam:AttachRolePolicy", role_arn, **{"iam:PolicyARN": OURS}) is admitted


@pytest.mark.parametrize(
    "policy_arn",
    [
        "arn:aws:iam::aws:policy/AdministratorAccess",
        f"arn:aws:iam::{ACCOUNT}:policy/{PREFIX}-orders-reader-1",  # our name, not our path
        f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/SomethingElse",
        f"arn:aws:iam::{CONSUMER_ACCOUNT}:policy/kafka-lineage/{PREFIX}-orders-reader-1",
        # another stack's of this account (another domain or asset type): never ours to attach or detach
        f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/KafkaLineageAccess-0badc0de-orders-reader-1",
    ],
)
def test_only_our_own_policies_can_be_attached_or_detached(role: Role, policy_arn: str):
    assert _allowed(role, "iam:AttachRolePolicy", ANALYTICS_ROLE, **{"iam:PolicyARN": OURS})
    assert _allowed(role, "iam:DetachRolePolicy", ANALYTICS_ROLE, **{"iam:PolicyARN": OURS})
    assert not _allowed(role, "iam:AttachRolePolicy", ANALYTICS_ROLE, **{"iam:PolicyARN": policy_arn})
    assert not _allowed(role, "iam:DetachRolePolicy", ANALYTICS_ROLE, **{"iam:PolicyARN": policy_arn})
    # and a request without the key (IAM always sends it) is not granted either
    assert not _allowed(role, "iam:AttachRolePolicy", ANALYTICS_ROLE)


def test_managed_policy_writes_stay_under_our_path_and_prefix(role: Role):
    for action in (
        "iam:CreatePolicy",
        "iam:CreatePolicyVersion",
        "iam:DeletePolicyVersion",
        "iam:DeletePolicy",
    ):
        assert _allowed(role, action, OURS), action
        assert not _allowed(role, action, f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/Other"), action
        assert not _allowed(role, action, f"arn:aws:iam::{ACCOUNT}:policy/Admin"), action
    # Reading any policy is granted (a boundary can be any), writing it is not
    assert _allowed(role, "iam:GetPolicyVersion", "arn:aws:iam::aws:policy/AdministratorAccess")
    assert _allowed(role, "iam:GetPolicy", f"arn:aws:iam::{ACCOUNT}:policy/boundaries/project-boundary")
    assert not _allowed(role, "iam:ListPolicyVersions", f"arn:aws:iam::{ACCOUNT}:policy/Admin")


def test_no_iam_action_beyond_what_the_function_calls(full: Synthesized):
    # The actions kafka_lineage.aws.iam_roles calls, and nothing that could change a role's trust, its
    # boundary, or create a role or user
    iam = {action for action in _iam_actions(full) if action.startswith("iam:")}
    assert iam == {
        "iam:GetRole",
        "iam:ListRolePolicies",
        "iam:GetRolePolicy",
        "iam:ListAttachedRolePolicies",
        "iam:PutRolePolicy",
        "iam:DeleteRolePolicy",
        "iam:AttachRolePolicy",
        "iam:DetachRolePolicy",
        "iam:CreatePolicy",
        "iam:CreatePolicyVersion",
        "iam:DeletePolicy",
        "iam:DeletePolicyVersion",
        "iam:GetPolicy",
        "iam:GetPolicyVersion",
        "iam:ListEntitiesForPolicy",
        "iam:ListPolicies",
        "iam:ListRoles",
        "iam:ListPolicyVersions",
    }


def test_cluster_policies_consumer_account_roles_and_leases_are_scoped(role: Role):
    for action in ("kafka:PutClusterPolicy", "kafka:GetClusterPolicy", "kafka:DescribeClusterV2"):
        assert _allowed(role, action, PROD_CLUSTER_ARN), action
        assert not _allowed(role, action, PROD_CLUSTER_ARN.replace("/prod/", "/other/")), action
    consumer_role = FULL_ACCESS["consumerAccountRole"]
    assert _allowed(role, "sts:AssumeRole", consumer_role.format(account=CONSUMER_ACCOUNT))
    assert not _allowed(role, "sts:AssumeRole", consumer_role.format(account="555566667777"))
    assert not _allowed(role, "sts:AssumeRole", f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/admin")
    lease = lease_path("/kafka-lineage", role_holder(ANALYTICS_ROLE)) + "/0000000001"
    parameter = f"arn:aws:ssm:{REGION}:{ACCOUNT}:parameter{{}}"
    assert _allowed(role, "ssm:PutParameter", parameter.format(lease))
    assert not _allowed(
        role, "ssm:PutParameter", parameter.format("/kafka-lineage/config/lease/schema-sync/1")
    )
    assert not _allowed(role, "ssm:PutParameter", parameter.format("/kafka-lineage/assets/x"))
    assert _allowed(role, "datazone:UpdateSubscriptionGrantStatus", "*")


def test_access_without_roles_deploys_the_function_with_no_iam_and_warns(empty: Synthesized):
    _, function = _grants_function(empty)
    assert function["Environment"]["Variables"][ACCESS_VARIABLE] == "{}"
    assert function["ReservedConcurrentExecutions"] == 2  # reserveConcurrency's default
    actions = _iam_actions(empty)
    assert not [a for a in actions if a.startswith(("iam:", "kafka:", "sts:"))]
    assert "datazone:UpdateSubscriptionGrantStatus" in actions  # it still reports each grant as failed
    Annotations.from_stack(empty.stack).has_warning(
        "*", Match.string_like_regexp("access.consumerRoles is empty")
    )
    assert [str(finding) for finding in check_template(empty.cfn)] == []


def test_with_a_known_account_other_accounts_roles_get_a_warning_and_no_iam_here(tmp_path: Path):
    # Given a stack with an explicit account, and a consumer role in another account with no
    # consumerAccountRole to reach it
    access = copy.deepcopy(FULL_ACCESS)
    del access["consumerAccountRole"], access["externalId"]
    settings = {**shipped_context()[CONTEXT_KEY], "access": access}
    app = cdk.App(
        context={"aws:cdk:bundling-stacks": []},
        outdir=str(tmp_path),
        builtin_cloud_formation_validation=False,
    )
    stack = KafkaLineageStack(
        app, "KafkaLineage", config=load_config(settings), env=cdk.Environment(account=ACCOUNT, region=REGION)
    )
    app.synth()
    # Then synth warns, naming the key
    warnings = " ".join(
        str(message.entry.data)
        for message in Annotations.from_stack(stack).find_warning("*", Match.any_value())
    )
    assert f"consumerRoles[1] names account {CONSUMER_ACCOUNT}" in warnings
    # and the role is given IAM on this account's roles only (IAM acts in the caller's account alone)
    grants = roles_from_template(Template.from_stack(stack).to_json(), REGION, ACCOUNT)["subscription-grants"]
    assert _allowed(grants, "iam:PutRolePolicy", ANALYTICS_ROLE)
    resources = {r for s in grants.statements for r in s.resources}
    assert not [r for r in resources if CONSUMER_ACCOUNT in r]
    assert not [s for s in grants.statements if s.sid in ("AssumeConsumerAccountRoles", "ClusterPolicies")]
