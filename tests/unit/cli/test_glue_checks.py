"""The Glue lineage target's checks on the command line: doctor's glue-lineage check (the roles that post
may call glue:PostLineageEvent) and `kafka-lineage lineage --check-glue TABLE`, the read-back a person runs
with their own credentials. AWS is botocore's Stubber, each call checked against the service's model."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from kafka_lineage_cdk.doctor import read_only_clients
from kafka_lineage_cdk.doctor_glue import glue_lineage
from kafka_lineage_cdk.findings import FAIL, OK, WARN, Target
from kafka_lineage_cdk.glue_check import check_glue, table_arn
from stacks.config import as_stack_config
from tests.unit.cli.test_doctor import CLUSTER, DOMAIN, PROJECT, _context

REGION, ACCOUNT = "eu-west-1", "111122223333"
TARGET = Target(ACCOUNT, "aws", REGION, f"arn:aws:iam::{ACCOUNT}:role/cdk-exec")
ROLE = "KafkaLineage-LineageEmission"
TABLE = f"arn:aws:glue:{REGION}:{ACCOUNT}:table/lakehouse/customers"


def client(service: str) -> Any:
    return boto3.client(service, region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")


def config(**overrides: Any) -> Any:
    return as_stack_config({**_context(**overrides), "domainId": DOMAIN, "projectId": PROJECT})


def glue_on(**overrides: Any) -> Any:
    return config(lineageTargets=["datazone", "glue"], projectMembership="manual", **overrides)


def policy(*actions: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": list(actions), "Resource": "*"}],
        }
    )


def role_answer() -> dict[str, Any]:
    return {
        "Role": {
            "Path": "/",
            "RoleName": ROLE,
            "RoleId": "AROAEXAMPLEEXAMPLE01",
            "CreateDate": datetime.now(UTC),
            "Arn": f"arn:aws:iam::{ACCOUNT}:role/{ROLE}",
        }
    }


def iam_with(*documents: str) -> tuple[Any, Stubber]:
    iam = client("iam")
    stub = Stubber(iam)
    stub.add_response("get_role", role_answer(), {"RoleName": ROLE})
    names = [f"Policy{i}" for i in range(len(documents))]
    stub.add_response("list_role_policies", {"PolicyNames": names, "IsTruncated": False}, {"RoleName": ROLE})
    for name, document in zip(names, documents, strict=True):
        stub.add_response(
            "get_role_policy",
            {"RoleName": ROLE, "PolicyName": name, "PolicyDocument": document},
            {"RoleName": ROLE, "PolicyName": name},
        )
    stub.activate()
    return read_only_clients(lambda _: iam)("iam"), stub


def test_with_glue_off_there_is_nothing_to_check() -> None:
    (finding,) = glue_lineage(None, config(), TARGET)
    assert finding.status == OK


def test_a_deployed_role_that_may_post_passes() -> None:
    iam, stub = iam_with(policy("datazone:PostLineageEvent"), policy("glue:PostLineageEvent"))
    findings = glue_lineage(iam, glue_on(), TARGET)
    assert [(f.status, f.message) for f in findings] == [(OK, f"{ROLE} may call glue:PostLineageEvent")]
    stub.assert_no_pending_responses()


def test_a_deployed_role_without_the_grant_fails_and_says_what_to_do() -> None:
    iam, _ = iam_with(policy("datazone:PostLineageEvent"))
    (finding,) = glue_lineage(iam, glue_on(), TARGET)
    assert finding.status == FAIL
    assert "deploy the stack again" in finding.message


def test_a_role_not_deployed_yet_is_fine_and_a_source_account_is_a_reminder() -> None:
    # Given the role not deployed yet, and a source read through a role in another account
    iam = client("iam")
    stub = Stubber(iam)
    stub.add_client_error("get_role", "NoSuchEntity", "not found", 404, expected_params={"RoleName": ROLE})
    stub.activate()
    cross = {
        "registryName": "payments",
        "clusterArn": CLUSTER.replace(ACCOUNT, "444455556666"),
        "roleArn": "arn:aws:iam::444455556666:role/reader",
    }
    context = _context()
    findings = glue_lineage(
        read_only_clients(lambda _: iam)("iam"),
        glue_on(sources=[*context["sources"], cross]),
        TARGET,
    )
    assert [f.status for f in findings] == [OK, WARN]
    assert "not deployed yet" in findings[0].message
    assert '"glueLineage": true' in findings[1].message


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("lakehouse.customers", TABLE),
        ("Lakehouse/Customers", TABLE),
        (TABLE, TABLE),
    ],
)
def test_the_table_is_named_as_glue_names_its_node(given: str, expected: str) -> None:
    assert table_arn(given, ACCOUNT, REGION) == expected


def _reader(nodes: dict[str, dict[str, Any]], missing: bool = False) -> Any:
    sts, glue = client("sts"), client("glue")
    sts_stub, glue_stub = Stubber(sts), Stubber(glue)
    sts_stub.add_response(
        "get_caller_identity",
        {"UserId": "AIDAEXAMPLE", "Account": ACCOUNT, "Arn": f"arn:aws:iam::{ACCOUNT}:user/me"},
    )
    if missing:
        glue_stub.add_client_error(
            "get_lineage_node",
            "EntityNotFoundException",
            "no node",
            400,
            expected_params={"Identifier": TABLE},
        )
    for identifier, node in nodes.items():
        glue_stub.add_response("get_lineage_node", node, {"Identifier": identifier})
    sts_stub.activate()
    glue_stub.activate()
    return {"sts": sts, "glue": glue}.__getitem__


def node(node_id: str, kind: str, source: str, upstream: list[str]) -> dict[str, Any]:
    return {
        "Id": node_id,
        "TypeName": kind,
        "SourceIdentifier": source,
        "Name": source.rsplit("/", 1)[-1],
        "UpstreamNodes": [{"Id": u} for u in upstream],
        "DownstreamNodes": [],
    }


def test_check_glue_walks_upstream_from_the_table() -> None:
    # Given the table's node, its sink job, and the topic upstream of it
    nodes = {
        TABLE: node("n-table", "Dataset", TABLE, ["n-job"]),
        "n-job": node("n-job", "Job", "kafka-iceberg-sink/sink/lakehouse.customers", ["n-topic"]),
        "n-topic": node("n-topic", "Dataset", "kafka://b-1:9098/dbserver1.inventory.customers", []),
    }
    code, lines = check_glue(_reader(nodes), "lakehouse.customers")
    assert code == 0
    assert lines == [
        f"Dataset: {TABLE}",
        "  <- Job: kafka-iceberg-sink/sink/lakehouse.customers",
        "    <- Dataset: kafka://b-1:9098/dbserver1.inventory.customers",
    ]


def test_check_glue_says_a_missing_node_may_be_pending() -> None:
    code, lines = check_glue(_reader({}, missing=True), "lakehouse.customers")
    assert code == 1
    assert "within minutes" in lines[0]


def test_the_lineage_command_reads_glue_back_and_invokes_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the table's node with nothing upstream, and no Lambda client at all
    from click.testing import CliRunner

    from kafka_lineage_cdk import cli

    reader = _reader({TABLE: node("n-table", "Dataset", TABLE, [])})
    monkeypatch.setattr(cli, "make_clients", lambda region, profile: reader)
    # When `kafka-lineage lineage --check-glue` runs
    outcome = CliRunner().invoke(
        cli.main, ["lineage", "--stack", "KafkaLineage", "--check-glue", "lakehouse.customers"]
    )
    # Then it prints the node and exits 0, having called only STS and Glue's GetLineageNode
    assert outcome.exit_code == 0, outcome.output
    assert f"Dataset: {TABLE}" in outcome.output
