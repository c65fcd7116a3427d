"""Roles and policies from a synthesized template: intrinsics resolved for one region and account."""

from __future__ import annotations

from typing import Any

import pytest

from local.standins.iam_policy import PolicyError, Request, evaluate
from local.standins.iam_roles import roles_from_template


def arn_join(*parts: Any) -> dict[str, Any]:
    return {"Fn::Join": ["", list(parts)]}


PARTITION, REGION, ACCOUNT = ({"Ref": "AWS::Partition"}, {"Ref": "AWS::Region"}, {"Ref": "AWS::AccountId"})


def template(statements: list[Any], managed: list[str] | None = None) -> dict[str, Any]:
    role_properties: dict[str, Any] = {"AssumeRolePolicyDocument": {}}
    if managed:
        role_properties["ManagedPolicyArns"] = managed
    return {
        "Resources": {
            "SyncRole1": {"Type": "AWS::IAM::Role", "Properties": role_properties},
            "SyncRoleDefaultPolicy": {
                "Type": "AWS::IAM::Policy",
                "Properties": {
                    "Roles": [{"Ref": "SyncRole1"}],
                    "PolicyDocument": {"Version": "2012-10-17", "Statement": statements},
                },
            },
            "SyncFunction1": {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "Handler": "schema_sync.handler.handler",
                    "Role": {"Fn::GetAtt": ["SyncRole1", "Arn"]},
                },
            },
            "Other": {
                "Type": "AWS::Lambda::Function",
                "Properties": {"Handler": "framework.onEvent", "Role": {"Fn::GetAtt": ["SyncRole1", "Arn"]}},
            },
        }
    }


def test_a_functions_role_with_its_grants_resolved():
    # Given grants written with pseudo parameters and the function's own ARN
    statements = [
        {
            "Effect": "Allow",
            "Action": "glue:GetSchema",
            "Resource": [arn_join("arn:", PARTITION, ":glue:", REGION, ":", ACCOUNT, ":registry/cdc")],
        },
        {
            "Effect": "Allow",
            "Action": "lambda:InvokeFunction",
            "Resource": {"Fn::GetAtt": ["SyncFunction1", "Arn"]},
        },
    ]

    roles = roles_from_template(template(statements), "eu-west-1", "123456789012")

    # Then only our handlers' functions are roles, named by their short name, and the ARNs are concrete
    assert list(roles) == ["schema-sync"]
    role = roles["schema-sync"]
    assert role.function_arn == "arn:aws:lambda:eu-west-1:123456789012:function:schema-sync"
    assert role.arn.startswith("arn:aws:iam::123456789012:role/KafkaLineage-SyncRole1-")
    assert len(role.role_name) <= 64
    assert role.session_arn("123456789012") == (
        f"arn:aws:sts::123456789012:assumed-role/{role.role_name}/schema-sync"
    )
    registry = "arn:aws:glue:eu-west-1:123456789012:registry/cdc"
    assert evaluate(role.statements, Request("glue:GetSchema", (registry,))).allowed
    assert evaluate(role.statements, Request("lambda:InvokeFunction", (role.function_arn,))).allowed


def test_what_cannot_be_resolved_or_is_not_modelled_fails_loudly():
    with pytest.raises(PolicyError, match="Fn::ImportValue"):
        roles_from_template(
            template([{"Effect": "Allow", "Action": "s3:GetObject", "Resource": {"Fn::ImportValue": "x"}}]),
            "eu-west-1",
            "1",
        )
    with pytest.raises(PolicyError, match="managed policies"):
        roles_from_template(
            template([{"Effect": "Allow", "Action": "s3:GetObject", "Resource": "*"}], managed=["arn:x"]),
            "eu-west-1",
            "1",
        )
