"""`kafka-lineage access` on the stand-ins, after the function ran: what it reports agrees with what IAM
lets the roles do, and a hand edit shows as a disagreement."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import boto3
from click.testing import CliRunner

from kafka_lineage.access.model import Naming
from kafka_lineage_cdk import cli
from kafka_lineage_cdk.outcome import PARTIAL
from local import access_world, world
from tests.integration.access.conftest import CUSTOMERS, ORDERS, AccessWorld


def deploy_stack(access: AccessWorld) -> None:
    """The stack's outputs (CloudFormation) and the function's configuration (Lambda), as deployed."""
    import os

    variables = {key: os.environ[key] for key in ("DOMAIN_ID", "MAPPING_PATH", "ACCESS")}
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as archive:
        archive.writestr("handler.py", "def handler(event, context):\n    return {}\n")
    iam = boto3.client("iam")
    role = iam.create_role(
        RoleName="subscription-grants-role",
        AssumeRolePolicyDocument=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Principal": {"Service": "lambda.amazonaws.com"},
                        "Action": "sts:AssumeRole",
                    }
                ],
            }
        ),
    )["Role"]["Arn"]
    boto3.client("lambda").create_function(
        FunctionName="subscription-grants",
        Runtime="python3.12",
        Role=role,
        Handler="handler.handler",
        Code={"ZipFile": code.getvalue()},
        Environment={"Variables": variables},
    )
    template = {
        "Resources": {"Queue": {"Type": "AWS::SQS::Queue"}},
        "Outputs": {
            "SchemaSyncFunctionName": {"Value": "schema-sync"},
            "LineageFunctionName": {"Value": "lineage-emission"},
            "SubscriptionGrantsFunctionName": {"Value": "subscription-grants"},
        },
    }
    boto3.client("cloudformation").create_stack(StackName="KafkaLineage", TemplateBody=json.dumps(template))


def shown(access: AccessWorld) -> tuple[int, dict[str, Any]]:
    access.monkeypatch.setattr(cli, "make_clients", lambda region, profile: boto3.client)
    done = CliRunner().invoke(
        cli.main, ["access", "--stack", "KafkaLineage", "--json"], catch_exceptions=False
    )
    return done.exit_code, json.loads(done.stdout)


def test_access_shows_what_the_function_granted_and_a_policy_deleted_by_hand(access: AccessWorld):
    # Given two roles granted by the function, and a third whose grant failed at its boundary
    reader = access.role("orders-reader")
    studio = access.role("studio-project", boundary=access_world.sagemaker_boundary())
    access.subscribe(access.consumer([reader]), ORDERS)
    access.subscribe(access.consumer([studio], project="prjconsumer02"), CUSTOMERS)
    access.deliver()
    deploy_stack(access)

    # When access is asked for
    code, view = shown(access)

    # Then the reader reads orders, and the studio role's grant is listed as failed with its cause
    assert code == PARTIAL
    assert [(row["role"], row["topic"], row["iam"]) for row in view["access"]] == [(reader, ORDERS, "reads")]
    [failed] = view["failed"]
    assert failed["roles"] == [studio]
    assert "permissions boundary" in failed["cause"]

    # When the reader's policy is deleted by hand, then the view says IAM no longer lets it read
    iam = boto3.client("iam")
    iam.delete_role_policy(
        RoleName="orders-reader",
        PolicyName=Naming.for_stack(world.DOMAIN_ID, "KafkaTopicAssetType").inline_name,
    )
    code, view = shown(access)
    assert code == PARTIAL
    assert view["access"][0]["iam"].startswith("no policy allows kafka-cluster:Connect")

    # When the reconciling run restores it, then the reader reads again
    access.run({})
    code, view = shown(access)
    assert view["access"][0]["iam"] == "reads"
    assert view["leftover"] == []
