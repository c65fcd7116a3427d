"""Permissions boundaries in IAM mode (identity policies and boundary must both allow), a role's boundary
from the template, IAM requests authorised on roles with their paths, and IAM's policy sizes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local import access_world
from local.standins.iam_limits import policy_size
from local.standins.iam_policy import PolicyError, Request, denial_message, evaluate_bounded, parse_policy
from local.standins.iam_requests import Where, requests_for
from local.standins.iam_roles import roles_from_template

ALLOW_ALL_KAFKA = parse_policy(
    {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "kafka-cluster:*", "Resource": "*"}],
    }
)
TOPIC = "arn:aws:kafka:eu-west-1:111122223333:topic/cdc/0f1e/dbserver1.inventory.orders"
READ = Request("kafka-cluster:ReadData", (TOPIC,))


def test_without_a_boundary_the_identity_policy_decides():
    assert evaluate_bounded(ALLOW_ALL_KAFKA, None, READ).allowed


def test_the_sagemaker_boundary_denies_consuming_whatever_the_role_allows():
    # Given a role allowed every kafka-cluster action, bounded like a SageMaker Unified Studio project role
    boundary = parse_policy(access_world.sagemaker_boundary())

    # When it reads a topic, describes a schema version, or reads a table
    decisions = {
        action: evaluate_bounded(ALLOW_ALL_KAFKA + parse_policy(_allow(action)), boundary, Request(action))
        for action in ("kafka-cluster:ReadData", "glue:GetSchemaVersion", "kafka:DescribeClusterV2")
    }
    table = evaluate_bounded(parse_policy(_allow("glue:GetTable")), boundary, Request("glue:GetTable"))

    # Then the boundary denies the streaming ones explicitly, and lets the table read through
    assert all(d.explicit_deny and d.boundary and not d.allowed for d in decisions.values())
    assert table.allowed


def test_a_boundary_that_only_lacks_the_action_denies_implicitly_with_its_own_message():
    boundary = parse_policy(_allow("s3:GetObject"))

    decision = evaluate_bounded(ALLOW_ALL_KAFKA, boundary, READ)

    assert (decision.allowed, decision.explicit_deny, decision.boundary) == (False, False, True)
    message = denial_message("arn:aws:sts::111122223333:assumed-role/r/s", READ, decision)
    assert message.endswith(
        f"on resource: {TOPIC} because no permissions boundary allows the kafka-cluster:ReadData action"
    )


def test_a_boundary_grants_nothing_by_itself():
    decision = evaluate_bounded(parse_policy(_allow("s3:GetObject")), ALLOW_ALL_KAFKA, READ)

    assert not decision.allowed
    assert not decision.boundary


def _allow(action: str) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": action, "Resource": "*"}]}


def _template(boundary: Any) -> dict[str, Any]:
    return {
        "Resources": {
            "Role1": {
                "Type": "AWS::IAM::Role",
                "Properties": {"AssumeRolePolicyDocument": {}, "PermissionsBoundary": boundary},
            },
            "Boundary1": {
                "Type": "AWS::IAM::ManagedPolicy",
                "Properties": {"PolicyDocument": _allow("ssm:GetParameter")},
            },
            "Policy1": {
                "Type": "AWS::IAM::Policy",
                "Properties": {"Roles": [{"Ref": "Role1"}], "PolicyDocument": _allow("ssm:*")},
            },
            "Function1": {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "Handler": "lineage_emission.handler.handler",
                    "Role": {"Fn::GetAtt": ["Role1", "Arn"]},
                },
            },
        }
    }


def test_a_template_boundary_bounds_the_functions_role():
    [role] = roles_from_template(_template({"Ref": "Boundary1"}), "eu-west-1", "111122223333").values()

    assert role.boundary is not None
    assert evaluate_bounded(role.statements, role.boundary, Request("ssm:GetParameter")).allowed
    assert not evaluate_bounded(role.statements, role.boundary, Request("ssm:PutParameter")).allowed


def test_a_boundary_the_template_does_not_hold_is_refused_loudly():
    with pytest.raises(PolicyError, match="permissions boundary"):
        roles_from_template(
            _template("arn:aws:iam::aws:policy/SageMakerStudioProjectUserRolePermissionsBoundary"),
            "eu-west-1",
            "111122223333",
        )


@pytest.mark.parametrize(
    ("operation", "params", "paths", "resource"),
    [
        (
            "PutRolePolicy",
            {"RoleName": "orders"},
            {"orders": "/analytics/team-1/"},
            "role/analytics/team-1/orders",
        ),
        ("GetRole", {"RoleName": "orders"}, {}, "role/orders"),
        ("AttachRolePolicy", {"RoleName": "orders", "PolicyArn": "x"}, {"orders": "/"}, "role/orders"),
        ("CreatePolicyVersion", {"PolicyArn": "arn:aws:iam::111122223333:policy/p"}, {}, "policy/p"),
        (
            "CreatePolicy",
            {"PolicyName": "kafka-grants", "Path": "/kafka-lineage/"},
            {},
            "policy/kafka-lineage/kafka-grants",
        ),
    ],
)
def test_iam_requests_name_roles_with_their_paths_and_policies(
    operation: str, params: dict[str, Any], paths: dict[str, str], resource: str
):
    [request] = requests_for("iam", operation, params, Where("eu-west-1", "111122223333", role_paths=paths))

    assert request.resources == (f"arn:aws:iam::111122223333:{resource}",)


def test_policy_size_counts_everything_but_white_space():
    compact = json.dumps(_allow("kafka-cluster:ReadData"), separators=(",", ":"))
    indented = json.dumps(_allow("kafka-cluster:ReadData"), indent=4)

    assert policy_size(indented) == policy_size(compact) == len(compact)
