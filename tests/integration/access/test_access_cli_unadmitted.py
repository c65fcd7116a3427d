"""`kafka-lineage access` after `consumerRoles` was narrowed, on the stand-ins (moto's IAM): the roles that
still hold this stack's policies are named, and the commands it prints, run as printed, remove exactly
that access."""

from __future__ import annotations

import json
import shlex

import boto3

from kafka_lineage.access.model import Naming
from local import world
from tests.integration.access.conftest import ORDERS, AccessWorld, reads
from tests.integration.access.test_access_cli import deploy_stack, shown

NAMING = Naming.for_stack(world.DOMAIN_ID, "KafkaTopicAssetType")


def run_as_printed(command: str) -> None:
    """An `aws iam <operation> --name value ...` line, made with boto3: the AWS CLI's names are the API's
    in kebab case (`delete-role-policy --role-name` is DeleteRolePolicy's RoleName)."""
    words = shlex.split(command)
    assert words[:2] == ["aws", "iam"], command
    operation = words[2].replace("-", "_")
    params = {
        "".join(part.capitalize() for part in words[i][2:].split("-")): words[i + 1]
        for i in range(3, len(words), 2)
    }
    getattr(boto3.client("iam"), operation)(**params)


def test_roles_no_longer_admitted_are_named_and_their_cleaning_commands_work(access: AccessWorld):
    # Given a reader granted the orders topic by the function (our inline policy)
    reader = access.role("orders-reader")
    access.subscribe(access.consumer([reader]), ORDERS)
    access.deliver()
    assert reads(reader, ORDERS)
    # And a role outside the admitted path holding a managed policy of ours, with two versions (as a wider
    # consumerRoles once let the function write it)
    iam = boto3.client("iam")
    etl = access.role("etl-prod", path="/etl/")
    document = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "glue:GetSchemaVersion", "Resource": "*"}],
        }
    )
    policy = iam.create_policy(
        PolicyName=NAMING.managed_name("etl-prod", 1), Path=NAMING.path, PolicyDocument=document
    )["Policy"]["Arn"]
    iam.create_policy_version(PolicyArn=policy, PolicyDocument=document, SetAsDefault=True)
    iam.attach_role_policy(RoleName="etl-prod", PolicyArn=policy)
    # And consumerRoles then narrowed so that it admits neither, the stack deployed with it
    access.configure(consumerRoles=["arn:aws:iam::*:role/analytics/team-*"])
    deploy_stack(access)

    # When access is asked for
    code, view = shown(access)

    # Then both roles are named with what they hold, and the view needs attention
    assert code == 1
    assert [(item["role"], item["policies"]) for item in view["unadmitted"]] == [
        (reader, [NAMING.inline_name]),
        (etl, [policy]),
    ]

    # When every command it printed is run, in order
    for item in view["unadmitted"]:
        for command in item["clean"]:
            run_as_printed(command)

    # Then the reader no longer reads, our policies are gone, and access names no role any more
    assert not reads(reader, ORDERS)
    assert iam.list_attached_role_policies(RoleName="etl-prod")["AttachedPolicies"] == []
    assert iam.list_policies(Scope="Local", PathPrefix=NAMING.path)["Policies"] == []
    _, view = shown(access)
    assert view["unadmitted"] == []
