"""Grants that cannot be fulfilled fail with a cause a person can act on, and nothing is written for the
role: a permissions boundary that denies the access, a role `access.consumerRoles` does not admit, a role
with no room left in IAM's limits."""

from __future__ import annotations

import json

import boto3

from local import access_world
from local.access_checks import may
from tests.integration.access.conftest import CLUSTER, ORDERS, AccessWorld

IAM_WRITES = ("iam:PutRolePolicy", "iam:CreatePolicy", "iam:AttachRolePolicy", "iam:CreatePolicyVersion")


def test_a_role_under_the_sagemaker_project_boundary_fails_naming_the_boundary(access: AccessWorld):
    # Given a role carrying a boundary like SageMaker Unified Studio's project roles (no kafka-cluster:*)
    role = access.role("studio-project-role", boundary=access_world.sagemaker_boundary())
    boundary = boto3.client("iam").get_role(RoleName="studio-project-role")["Role"]["PermissionsBoundary"]
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)
    access.reset_calls()

    # When the grant event reaches the function
    [result] = access.deliver()

    # Then the grant fails, its cause naming the boundary, and no IAM policy was written
    assert access.status(subscription) == "GRANT_FAILED"
    cause = access.failure(grant)
    assert boundary["PermissionsBoundaryArn"] in cause
    assert "permissions boundary" in cause
    assert result["failed"][0]["cause"] == cause
    assert not any(access.calls()[write] for write in IAM_WRITES)
    assert boto3.client("iam").list_role_policies(RoleName="studio-project-role")["PolicyNames"] == []
    assert not may(role, "kafka-cluster:Connect", CLUSTER.arn)


def test_a_role_outside_consumer_roles_fails_naming_the_setting(access: AccessWorld):
    # Given a role at a path the ACCESS setting does not admit (consumerRoles: role/analytics/*)
    role = access.role("ops-reader", path="/ops/")
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)
    access.reset_calls()

    # When the grant event reaches the function
    access.deliver()

    # Then it fails, its cause naming access.consumerRoles, and nothing was written to IAM
    assert access.status(subscription) == "GRANT_FAILED"
    assert "access.consumerRoles" in access.failure(grant)
    assert not any(access.calls()[write] for write in IAM_WRITES)
    assert not may(role, "kafka-cluster:Connect", CLUSTER.arn)


def test_a_role_with_no_room_left_in_iams_limits_fails_naming_the_limit(access: AccessWorld):
    # Given a role whose inline policies are nearly 10,240 characters and which has 10 managed policies
    role = access.role("full-reader")
    iam = boto3.client("iam")
    filler = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::bucket-{n:04d}/*"}
            for n in range(121)
        ],
    }
    text = json.dumps(filler, separators=(",", ":"))
    assert 9_500 < len(text) < 10_240
    iam.put_role_policy(RoleName="full-reader", PolicyName="team-data", PolicyDocument=text)
    for n in range(10):
        arn = iam.create_policy(
            PolicyName=f"team-{n}",
            PolicyDocument=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [{"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "*"}],
                }
            ),
        )["Policy"]["Arn"]
        iam.attach_role_policy(RoleName="full-reader", PolicyArn=arn)
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)
    access.reset_calls()

    # When the grant event reaches the function
    access.deliver()

    # Then it fails, the cause saying which limit, and the role's policies are as they were
    assert access.status(subscription) == "GRANT_FAILED"
    cause = access.failure(grant)
    assert "10,240 characters" in cause
    assert "at most 10 managed policies" in cause
    assert not any(access.calls()[write] for write in IAM_WRITES)
    assert iam.list_role_policies(RoleName="full-reader")["PolicyNames"] == ["team-data"]
