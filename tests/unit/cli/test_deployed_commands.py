"""`kafka-lineage plan|sync|lineage|status` against a deployed stack: the stack's outputs, Lambda Invoke.

AWS is botocore's Stubber here: each call's parameters are checked against the service model (the
CloudFormation, Lambda and SQS APIs as documented), and its answers shaped as the model says.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from click.testing import CliRunner

from kafka_lineage_cdk import cli
from kafka_lineage_cdk.deployed import NotDeployed, find_deployment
from kafka_lineage_cdk.outcome import BAD_INPUT, FAILED, OK, PARTIAL

SYNC_NAME = "KafkaLineage-SchemaSyncFunction1A2B3C-EXAMPLE"
LINEAGE_NAME = "KafkaLineage-LineageEmissionFunction4D5E6F-EXAMPLE"
QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/111122223333/KafkaLineage-FailureQueue"
RESULT = {
    "dryRun": False,
    "trigger": "manual",
    "created": 2,
    "updated": 0,
    "unchanged": 5,
    "deleted": 0,
    "adopted": 0,
    "failed": [],
    "failedTotal": 0,
    "skipped": [],
    "skippedTotal": 0,
    "warnings": [],
    "warningsTotal": 0,
    "mappingWrites": 2,
    "eventsFailed": 0,
    "chunks": 1,
}


def _outputs(prefix: str = "", suffix: str = "") -> list[dict[str, str]]:
    values = {
        "SchemaSyncFunctionName": SYNC_NAME,
        "LineageFunctionName": LINEAGE_NAME,
        "FailureQueueUrl": QUEUE_URL,
    }
    return [{"OutputKey": f"{prefix}{key}{suffix}", "OutputValue": value} for key, value in values.items()]


def _stack(outputs: list[dict[str, str]], status: str = "UPDATE_COMPLETE") -> dict[str, Any]:
    return {
        "StackName": "KafkaLineage",
        "CreationTime": "2026-11-30T10:00:00Z",
        "StackStatus": status,
        "Outputs": outputs,
    }


class Aws:
    """Stubbed clients, handed to the command line in place of boto3's."""

    def __init__(self) -> None:
        self.clients = {
            service: boto3.client(
                service, region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="y"
            )
            for service in ("cloudformation", "lambda", "sqs")
        }
        self.stubs = {service: Stubber(client) for service, client in self.clients.items()}

    def describe(self, stack: dict[str, Any], name: str = "KafkaLineage") -> None:
        self.stubs["cloudformation"].add_response("describe_stacks", {"Stacks": [stack]}, {"StackName": name})

    def invoke(
        self, function_name: str, payload: dict[str, Any], answer: Any, function_error: str | None = None
    ) -> None:
        body = json.dumps(answer).encode()
        response: dict[str, Any] = {"StatusCode": 200, "Payload": StreamingBody(io.BytesIO(body), len(body))}
        if function_error:
            response["FunctionError"] = function_error
        expected = {
            "FunctionName": function_name,
            "InvocationType": "RequestResponse",
            "Payload": json.dumps(payload).encode(),
        }
        self.stubs["lambda"].add_response("invoke", response, expected)


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Aws]:
    stubbed = Aws()
    monkeypatch.setattr(cli, "make_clients", lambda region, profile: stubbed.clients.__getitem__)
    for stub in stubbed.stubs.values():
        stub.activate()
    yield stubbed
    for stub in stubbed.stubs.values():
        stub.assert_no_pending_responses()


def _run(*args: str) -> Any:
    return CliRunner().invoke(cli.main, list(args), catch_exceptions=False)


def test_outputs_are_found_in_the_repositorys_stack_and_in_a_users_stack():
    # Given the repository's own stack (plain output names) and a user's (the construct's prefix, a hash)
    own = find_deployment(_stack(_outputs()))
    embedded = find_deployment(_stack(_outputs("DataPlatformLineage", "3B8552DE")))
    # Then both name the same functions
    assert own.function("schema-sync") == embedded.function("schema-sync") == SYNC_NAME
    assert embedded.construct == "DataPlatformLineage"
    # And two constructs in one stack need --construct
    both = _stack(_outputs("Team1", "11111111") + _outputs("Team2", "22222222"))
    with pytest.raises(NotDeployed, match="--construct"):
        find_deployment(both)
    assert find_deployment(both, "Team2").outputs["FailureQueueUrl"] == QUEUE_URL
    with pytest.raises(NotDeployed, match="no kafka-lineage outputs"):
        find_deployment(_stack([{"OutputKey": "BucketName", "OutputValue": "b"}]))


def test_sync_invokes_schema_sync_with_the_options_payload_and_prints_the_result(aws: Aws):
    # Given a deployed stack
    aws.describe(_stack(_outputs()))
    arn = "arn:aws:glue:eu-west-1:111122223333:schema/cdc/dbserver1.inventory.customers"
    aws.invoke(SYNC_NAME, {"schemaArns": [arn], "allowMassDelete": True}, RESULT)
    # When a sync of one schema runs, as JSON (the function takes verify with a full sync only)
    done = _run("sync", "--stack", "KafkaLineage", "--schema-arn", arn, "--allow-mass-delete", "--json")
    # Then the function got the payload, and its result is printed as it returned it
    assert done.exit_code == OK
    assert json.loads(done.stdout) == RESULT


def test_plan_is_schema_syncs_dry_run_shown_as_tables(aws: Aws):
    planned = [
        {"action": "create", "registryName": "cdc", "topic": "orders", "schemaArn": "arn:x", "reason": "new"}
    ]
    aws.describe(_stack(_outputs("KafkaLineage", "ABCDEF12")))
    aws.invoke(SYNC_NAME, {"dryRun": True}, {**RESULT, "dryRun": True, "planned": planned, "plannedTotal": 1})
    # When planned / Then the plan's entries are a table
    done = _run("plan", "--stack", "KafkaLineage")
    assert done.exit_code == OK
    assert "planned" in done.stdout
    assert "create" in done.stdout
    assert "orders" in done.stdout


def test_lineage_dry_run_shows_the_planned_edges_and_every_list_it_returns(aws: Aws):
    # Given a lineage dry run's result: planned edges, a stream not active, a connector edge kept
    planned = [{"action": "emit", "topic": "dbserver1.inventory.orders", "table": "lakehouse/orders"}]
    inactive = [{"path": "firehose:orders-raw", "status": "CREATING"}]
    result = {
        "dryRun": True,
        "emitted": 1,
        "unchanged": 0,
        "emissions": [],
        "inactivePaths": inactive,
        "deliveryErrors": [],
        "counts": {"emissions": 0, "inactivePaths": 1, "deliveryErrors": 0},
        "keptConnectorEdges": 2,
        "planned": planned,
    }
    aws.describe(_stack(_outputs()))
    aws.invoke(LINEAGE_NAME, {"dryRun": True}, result)
    # When the dry run is asked for as tables
    done = _run("lineage", "--stack", "KafkaLineage", "--dry-run")
    # Then the planned edge, the inactive stream and the kept edges' count all show
    assert done.exit_code == OK
    for text in (
        "planned",
        "dbserver1.inventory.orders",
        "inactivePaths",
        "orders-raw",
        "keptConnectorEdges",
    ):
        assert text in done.stdout


def test_a_run_with_failed_items_exits_partial_and_lists_them(aws: Aws):
    # Given a lineage run that raised after finishing, its result as the error message (LineageEmissionFailed)
    result = {
        "dryRun": False,
        "emitted": 3,
        "unchanged": 0,
        "failed": [{"topic": "orders", "error": "denied"}],
    }
    result["counts"] = {"failed": 1}
    error = {"errorType": "LineageEmissionFailed", "errorMessage": json.dumps(result), "stackTrace": []}
    aws.describe(_stack(_outputs()))
    aws.invoke(
        LINEAGE_NAME,
        {"topics": [{"registryName": "111122223333:cdc", "topic": "orders"}], "force": True},
        error,
        "Unhandled",
    )
    # When lineage runs for a topic of a source account's registry
    done = _run("lineage", "--stack", "KafkaLineage", "--topic", "111122223333:cdc:orders", "--force")
    # Then it exits with the partial-failure code and the table names the failed item
    assert done.exit_code == PARTIAL
    assert "denied" in done.stdout


def test_a_payload_the_function_refuses_is_bad_input(aws: Aws):
    error = {"errorType": "InvalidRequest", "errorMessage": "unexpected member 'bogus'", "stackTrace": []}
    aws.describe(_stack(_outputs()))
    aws.invoke(SYNC_NAME, {"bogus": 1}, error, "Unhandled")
    done = _run("sync", "--stack", "KafkaLineage", "--event", '{"bogus": 1}')
    assert done.exit_code == BAD_INPUT
    assert "unexpected member" in done.stdout


def test_a_function_that_timed_out_failed_as_a_whole(aws: Aws):
    # Lambda's answer for a timeout: no errorType, the message says so
    error = {"errorMessage": "2026-12-01T10:15:00.000Z abc Task timed out after 900.00 seconds"}
    aws.describe(_stack(_outputs()))
    aws.invoke(SYNC_NAME, {}, error, "Unhandled")
    done = _run("sync", "--stack", "KafkaLineage", "--json")
    assert done.exit_code == FAILED
    assert json.loads(done.stdout)["error"] == "Unhandled"


def test_an_unknown_stack_or_a_bad_option_is_bad_input(aws: Aws):
    # DescribeStacks' answer for a stack that does not exist
    aws.stubs["cloudformation"].add_client_error(
        "describe_stacks",
        "ValidationError",
        "Stack with id Nope does not exist",
        400,
        expected_params={"StackName": "Nope"},
    )
    assert _run("status", "--stack", "Nope").exit_code == BAD_INPUT
    assert _run("sync", "--stack", "S", "--event", "not json").exit_code == BAD_INPUT
    assert _run("sync").exit_code == BAD_INPUT  # --stack is required


@pytest.mark.parametrize("command", ["sync", "plan"])
def test_verify_with_a_schema_arn_is_refused_before_anything_is_invoked(aws: Aws, command: str):
    # Given schema-sync, which refuses verify with a schema list (it searches every registry)
    arn = "arn:aws:glue:eu-west-1:111122223333:schema/cdc/dbserver1.inventory.customers"
    # When both are asked on the command line
    done = CliRunner().invoke(cli.main, [command, "--stack", "S", "--schema-arn", arn, "--verify"])
    # Then it is bad input, named, and no AWS call was made (the stubs have nothing queued)
    assert done.exit_code == BAD_INPUT
    assert "--verify" in done.output
    assert "--schema-arn" in done.output


@pytest.mark.parametrize(("messages", "expected"), [("0", OK), ("3", PARTIAL)])
def test_status_reads_the_functions_and_the_failure_queue(aws: Aws, messages: str, expected: int):
    aws.describe(_stack(_outputs()))
    for name in (SYNC_NAME, LINEAGE_NAME):
        config = {
            "FunctionName": name,
            "State": "Active",
            "LastUpdateStatus": "Successful",
            "MemorySize": 1024,
            "Timeout": 900,
        }
        aws.stubs["lambda"].add_response("get_function_configuration", config, {"FunctionName": name})
    aws.stubs["sqs"].add_response(
        "get_queue_attributes",
        {"Attributes": {"ApproximateNumberOfMessages": messages}},
        {"QueueUrl": QUEUE_URL, "AttributeNames": ["ApproximateNumberOfMessages"]},
    )
    done = _run("status", "--stack", "KafkaLineage", "--json")
    assert done.exit_code == expected
    found = json.loads(done.stdout)
    assert found["failureQueueMessages"] == int(messages)
    assert [f["state"] for f in found["functions"]] == ["Active", "Active"]


def test_the_aws_clients_invoke_once_and_wait_for_a_whole_run():
    # Given the command line's clients / Then Invoke is never retried (a retry would run the function
    # again) and waits longer than Lambda's 15-minute maximum
    config = cli.aws_clients("eu-west-1", None)("lambda").meta.config
    assert config.retries["total_max_attempts"] == 1
    assert config.read_timeout > 900
    assert config.tcp_keepalive is True


# --- AWS refusing the call: exit 3 and one line naming it, never a traceback ----------------------------
GRANTS_NAME = "KafkaLineage-SubscriptionGrantsFunction7A8B9C-EXAMPLE"
# Every command that reads the stack first, with what it needs beyond --stack.
STACK_COMMANDS = {
    "plan": [],
    "sync": [],
    "lineage": ["--dry-run"],
    "status": [],
    "grants": ["--dry-run"],
    "access": [],
}


def _one_line_naming(stderr: str, *names: str) -> None:
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    for name in names:
        assert name in lines[0], lines[0]


@pytest.mark.parametrize("command", list(STACK_COMMANDS))
@pytest.mark.parametrize(
    ("code", "status"),
    [("AccessDenied", 403), ("ExpiredToken", 403), ("InvalidClientTokenId", 403), ("Throttling", 400)],
)
def test_a_refused_describe_stacks_exits_3_naming_the_call(aws: Aws, command: str, code: str, status: int):
    # Given DescribeStacks answering an error other than ValidationError (the stack not found)
    aws.stubs["cloudformation"].add_client_error(
        "describe_stacks", code, f"{code} from CloudFormation", status, expected_params={"StackName": "S"}
    )
    # When the command runs
    done = _run(command, "--stack", "S", *STACK_COMMANDS[command])
    # Then it exits 3, with one line naming the call and AWS's answer, and no traceback
    assert done.exit_code == FAILED
    _one_line_naming(done.stderr, "cloudformation:DescribeStacks", code)
    if code in ("ExpiredToken", "InvalidClientTokenId"):
        assert "credentials are missing or expired" in done.stderr


@pytest.fixture
def no_credentials(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    """boto3 as configured on a machine with no credentials anywhere (and no instance metadata to ask)."""
    for name in (
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AWS_PROFILE",
        "AWS_DEFAULT_PROFILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_ROLE_ARN",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")


@pytest.mark.parametrize("command", list(STACK_COMMANDS))
def test_missing_credentials_exit_3_naming_the_call(no_credentials: None, command: str):
    # Given the command line's own boto3 clients, and no credentials (botocore refuses before sending)
    # When the command runs
    done = _run(command, "--stack", "S", "--region", "eu-west-1", *STACK_COMMANDS[command])
    # Then it exits 3, with one line naming the call and what to do
    assert done.exit_code == FAILED
    _one_line_naming(done.stderr, "cloudformation:DescribeStacks", "NoCredentialsError", "--profile")


def test_doctor_without_credentials_exits_3_naming_the_call(no_credentials: None, tmp_path: Any):
    # Given a complete context (no placeholder), and no credentials
    context = json.loads((Path(__file__).resolve().parents[3] / "cdk.json").read_text())["context"]
    settings = context["kafkaLineage"]
    settings.update(domainId="dzd_example01", projectId="prj_lineage01")
    settings["sources"][0]["clusterArn"] = (
        "arn:aws:kafka:eu-west-1:111122223333:cluster/cdc/0f1e2d3c-4b5a-6978-8877-665544332211-1"
    )
    path = tmp_path / "cdk.json"
    path.write_text(json.dumps({"context": {"kafkaLineage": settings}}))
    # When doctor runs / Then it exits 3 naming GetCallerIdentity
    done = _run("doctor", "--context", str(path), "--region", "eu-west-1")
    assert done.exit_code == FAILED
    _one_line_naming(done.stderr, "sts:GetCallerIdentity", "NoCredentialsError")


def test_a_profile_that_does_not_exist_is_bad_input(no_credentials: None):
    done = _run("status", "--stack", "S", "--region", "eu-west-1", "--profile", "nope")
    assert done.exit_code == BAD_INPUT
    _one_line_naming(done.stderr, "--profile nope", "ProfileNotFound")


def test_no_region_is_bad_input(no_credentials: None, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    monkeypatch.delenv("AWS_REGION", raising=False)
    done = _run("sync", "--stack", "S")
    assert done.exit_code == BAD_INPUT
    _one_line_naming(done.stderr, "no region", "--region")


def test_a_refused_invoke_exits_3_naming_the_function(aws: Aws):
    # Given a caller that may read the stack but not invoke its function
    aws.describe(_stack(_outputs()))
    aws.stubs["lambda"].add_client_error("invoke", "AccessDeniedException", "not authorized", 403)
    # When lineage runs / Then exit 3, naming the call and the function
    done = _run("lineage", "--stack", "KafkaLineage")
    assert done.exit_code == FAILED
    _one_line_naming(done.stderr, "lambda:Invoke", LINEAGE_NAME, "AccessDeniedException")


def test_status_refused_a_read_exits_3_naming_the_call(aws: Aws):
    aws.describe(_stack(_outputs()))
    aws.stubs["lambda"].add_client_error(
        "get_function_configuration", "AccessDeniedException", "not authorized", 403
    )
    done = _run("status", "--stack", "KafkaLineage")
    assert done.exit_code == FAILED
    _one_line_naming(done.stderr, "GetFunctionConfiguration", "AccessDeniedException")


def test_grants_on_a_stack_without_access_is_bad_input(aws: Aws):
    # Given a stack deployed without `access` (no subscription-grants function)
    aws.describe(_stack(_outputs()))
    # When grants runs / Then bad input, naming the output it looked for and the setting
    done = _run("grants", "--stack", "KafkaLineage")
    assert done.exit_code == BAD_INPUT
    _one_line_naming(done.stderr, "SubscriptionGrantsFunctionName", "kafkaLineage.access")


def test_status_reads_subscription_grants_too_when_the_stack_has_it(aws: Aws):
    # Given a stack deployed with `access`: three functions, the grants one still updating
    outputs = [*_outputs(), {"OutputKey": "SubscriptionGrantsFunctionName", "OutputValue": GRANTS_NAME}]
    aws.describe(_stack(outputs))
    for name, state in ((SYNC_NAME, "Active"), (LINEAGE_NAME, "Active"), (GRANTS_NAME, "Pending")):
        config = {"FunctionName": name, "State": state, "LastUpdateStatus": "InProgress", "Timeout": 900}
        aws.stubs["lambda"].add_response("get_function_configuration", config, {"FunctionName": name})
    aws.stubs["sqs"].add_response(
        "get_queue_attributes",
        {"Attributes": {"ApproximateNumberOfMessages": "0"}},
        {"QueueUrl": QUEUE_URL, "AttributeNames": ["ApproximateNumberOfMessages"]},
    )
    # When status runs
    done = _run("status", "--stack", "KafkaLineage", "--json")
    # Then the grants function is read and shown, and its state needs attention
    found = json.loads(done.stdout)
    assert [(f["function"], f["state"]) for f in found["functions"]] == [
        ("schema-sync", "Active"),
        ("lineage-emission", "Active"),
        ("subscription-grants", "Pending"),
    ]
    assert done.exit_code == PARTIAL
    assert found["needsAttention"] is True


def test_an_aws_message_with_brackets_is_shown_as_it_is(aws: Aws):
    # Given an AWS answer whose message holds brackets (rich would read them as markup)
    message = "User: arn:aws:sts::111122223333:assumed-role/[ops]/me is not authorized [/red]"
    aws.stubs["cloudformation"].add_client_error("describe_stacks", "AccessDenied", message, 403)
    # When a command meets it / Then the line carries the message exactly
    done = _run("status", "--stack", "KafkaLineage")
    assert done.exit_code == FAILED
    _one_line_naming(done.stderr, message)
