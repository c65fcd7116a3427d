"""`kafka-lineage access` and `kafka-lineage grants` against a deployed stack.

AWS is botocore's Stubber: each call's parameters are checked against the service model and its answers
shaped as the model says; a call the test did not expect fails it, so what `access` reads is all here, and
it is reads only (its clients refuse anything else before it is sent)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.response import StreamingBody
from botocore.stub import Stubber
from click.testing import CliRunner

from kafka_lineage.access.model import Naming
from kafka_lineage_cdk import cli
from kafka_lineage_cdk.outcome import BAD_INPUT, OK, PARTIAL

ACCOUNT = "111122223333"
DOMAIN = "dzd_4p5kx2n9lqv7ab"
# The function's inline policy: this stack's (its domain and the default asset type name it).
NAMING = Naming.for_stack(DOMAIN, "KafkaTopicAssetType")
OURS = NAMING.inline_name
FUNCTION = "KafkaLineage-SubscriptionGrantsFunction7A8B9C-EXAMPLE"
CLUSTER = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
TOPIC_PREFIX = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:topic/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
GROUP_PREFIX = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:group/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
READER = f"arn:aws:iam::{ACCOUNT}:role/analytics/orders-reader"
STUDIO = f"arn:aws:iam::{ACCOUNT}:role/analytics/studio-project"
PARTNER = "arn:aws:iam::444455556666:role/analytics/partner-reader"
WHEN = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
CAUSE = (
    f"the permissions boundary arn:aws:iam::{ACCOUNT}:policy/studio-boundary of role {STUDIO} "
    "denies kafka-cluster:Connect"
)
ENVIRONMENT = {
    "DOMAIN_ID": DOMAIN,
    "MAPPING_PATH": "/kafka-lineage",
    "ACCESS": json.dumps({"consumerRoles": ["arn:aws:iam::*:role/analytics/*"]}),
}


def _outputs(grants: bool = True) -> list[dict[str, str]]:
    values = {"SchemaSyncFunctionName": "sync-fn", "LineageFunctionName": "lineage-fn"}
    if grants:
        values["SubscriptionGrantsFunctionName"] = FUNCTION
    return [{"OutputKey": key, "OutputValue": value} for key, value in values.items()]


def _stack(grants: bool = True) -> dict[str, Any]:
    return {
        "StackName": "KafkaLineage",
        "CreationTime": WHEN,
        "StackStatus": "UPDATE_COMPLETE",
        "Outputs": _outputs(grants),
    }


def _grant(grant_id: str, listing: str, target: str, status: str, cause: str | None = None) -> dict[str, Any]:
    asset: dict[str, Any] = {"assetId": f"asset{listing}", "assetRevision": "1", "status": status}
    if cause:
        asset["failureCause"] = {"message": cause}
    return {
        "id": grant_id,
        "createdBy": "datazone",
        "domainId": DOMAIN,
        "createdAt": WHEN,
        "updatedAt": WHEN,
        "environmentId": f"env{target}",
        "subscriptionTargetId": f"target{target}",
        "grantedEntity": {"listing": {"id": f"listing{listing}", "revision": "1"}},
        "status": "COMPLETED",
        "assets": [asset],
    }


def _listing(listing: str, topic: str) -> dict[str, Any]:
    forms = {
        "MskSourceReferenceFormType": {"cluster_arn": CLUSTER},
        "KafkaSchemaFormType": {"kafka_topic": topic},
    }
    return {
        "domainId": DOMAIN,
        "id": f"listing{listing}",
        "listingRevision": "1",
        "item": {
            "assetListing": {
                "assetId": f"asset{listing}",
                "assetType": "KafkaTopicAssetType",
                "forms": json.dumps(forms),
            }
        },
    }


def _target(target: str, project: str, role: str) -> dict[str, Any]:
    return {
        "id": f"target{target}",
        "authorizedPrincipals": [role],
        "domainId": DOMAIN,
        "projectId": project,
        "environmentId": f"env{target}",
        "name": "kafka-topic-consumers",
        "type": "KafkaTopicSubscriptionTarget",
        "createdBy": "someone",
        "createdAt": WHEN,
        "applicableAssetTypes": ["KafkaTopicAssetType"],
        "subscriptionTargetConfig": [{"formName": "KafkaTopicConsumers", "content": "{}"}],
        "provider": "kafka-lineage",
    }


def _environment(target: str, account: str) -> dict[str, Any]:
    return {
        "projectId": "prj",
        "domainId": DOMAIN,
        "createdBy": "someone",
        "name": "streaming",
        "provider": "Amazon DataZone",
        "awsAccountId": account,
        "awsAccountRegion": "eu-west-1",
    }


def _role(arn: str) -> dict[str, Any]:
    name = arn.rsplit("/", 1)[1]
    return {
        "Role": {
            "Path": "/analytics/",
            "RoleName": name,
            "RoleId": "AROAEXAMPLEEXAMPLE01",
            "Arn": arn,
            "CreateDate": WHEN,
        }
    }


def _reader_policy(*topics: str) -> str:
    return json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["kafka-cluster:Connect"], "Resource": [CLUSTER]},
                {
                    "Effect": "Allow",
                    "Action": ["kafka-cluster:DescribeTopic", "kafka-cluster:ReadData"],
                    "Resource": [f"{TOPIC_PREFIX}/{topic}" for topic in topics],
                },
                {
                    "Effect": "Allow",
                    "Action": ["kafka-cluster:AlterGroup", "kafka-cluster:DescribeGroup"],
                    "Resource": [f"{GROUP_PREFIX}/prjconsumera-*"],
                },
                {"Effect": "Allow", "Action": ["glue:GetSchemaVersion"], "Resource": ["*"]},
            ],
        }
    )


class Aws:
    SERVICES = ("cloudformation", "lambda", "sts", "datazone", "iam")

    def __init__(self) -> None:
        self.clients = {
            service: boto3.client(
                service, region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="y"
            )
            for service in self.SERVICES
        }
        self.stubs = {service: Stubber(client) for service, client in self.clients.items()}

    def answer(self, service: str, operation: str, response: dict[str, Any], expected: Any = None) -> None:
        self.stubs[service].add_response(operation, response, expected)

    def deployed(self, grants: bool = True) -> None:
        self.answer(
            "cloudformation", "describe_stacks", {"Stacks": [_stack(grants)]}, {"StackName": "KafkaLineage"}
        )

    def settings(self) -> None:
        self.deployed()
        self.answer(
            "lambda",
            "get_function_configuration",
            {"FunctionName": FUNCTION, "Environment": {"Variables": ENVIRONMENT}},
            {"FunctionName": FUNCTION},
        )
        self.answer(
            "sts", "get_caller_identity", {"Account": ACCOUNT, "Arn": f"arn:aws:iam::{ACCOUNT}:user/ops"}
        )

    def read_role(self, arn: str, inline: dict[str, str]) -> None:
        name = arn.rsplit("/", 1)[1]
        self.answer("iam", "get_role", _role(arn), {"RoleName": name})
        self.answer("iam", "list_role_policies", {"PolicyNames": list(inline)}, {"RoleName": name})
        for policy, document in inline.items():
            self.answer(
                "iam",
                "get_role_policy",
                {"RoleName": name, "PolicyName": policy, "PolicyDocument": document},
                {"RoleName": name, "PolicyName": policy},
            )
        self.answer("iam", "list_attached_role_policies", {"AttachedPolicies": []}, {"RoleName": name})

    def our_policies(self, attached: dict[str, str] | None = None) -> None:
        """This stack's managed policies as IAM lists them (ListPolicies under the stack's path), each with
        the role it is attached to (ListEntitiesForPolicy), whose ARN GetRole then gives."""
        attached = attached or {}
        listed = [{"PolicyName": arn.rsplit("/", 1)[1], "Arn": arn, "Path": NAMING.path} for arn in attached]
        self.answer(
            "iam",
            "list_policies",
            {"Policies": listed, "IsTruncated": False},
            {"Scope": "Local", "PathPrefix": NAMING.path, "OnlyAttached": True},
        )
        for arn, role in attached.items():
            name = role.rsplit("/", 1)[1]
            self.answer(
                "iam",
                "list_entities_for_policy",
                {"PolicyRoles": [{"RoleName": name, "RoleId": "AROAEXAMPLEEXAMPLE02"}]},
                {"PolicyArn": arn, "EntityFilter": "Role"},
            )
        for role in sorted({role.rsplit("/", 1)[1]: role for role in attached.values()}.values()):
            self.answer("iam", "get_role", _role(role), {"RoleName": role.rsplit("/", 1)[1]})


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


def _domain(aws: Aws) -> None:
    """Three grants: the reader's orders (GRANTED), the studio role's customers (failed at its boundary),
    a partner account's role's orders (GRANTED); the reader's policy still gives a revoked topic."""
    aws.answer(
        "datazone",
        "list_subscription_grants",
        {
            "items": [
                _grant("grant0001", "1", "a", "GRANTED"),
                _grant("grant0002", "2", "b", "GRANT_FAILED", CAUSE),
                _grant("grant0003", "1", "c", "GRANTED"),
            ]
        },
    )
    aws.answer("datazone", "get_listing", _listing("1", "dbserver1.inventory.orders"))
    aws.answer("datazone", "get_subscription_target", _target("a", "prjconsumera", READER))
    aws.answer("datazone", "get_environment", _environment("a", ACCOUNT))
    aws.answer("datazone", "get_listing", _listing("2", "dbserver1.inventory.customers"))
    aws.answer("datazone", "get_subscription_target", _target("b", "prjconsumerb", STUDIO))
    aws.answer("datazone", "get_environment", _environment("b", ACCOUNT))
    aws.answer("datazone", "get_subscription_target", _target("c", "prjpartner", PARTNER))
    aws.answer("datazone", "get_environment", _environment("c", "444455556666"))


def test_access_shows_each_roles_topics_beside_iam_and_the_failed_grants_with_their_causes(aws: Aws):
    # Given a deployed function, three grants, and the roles' policies as IAM has them
    aws.settings()
    _domain(aws)
    orders_and_revoked = _reader_policy("dbserver1.inventory.orders", "dbserver1.inventory.payments")
    aws.read_role(READER, {OURS: orders_and_revoked})
    aws.read_role(STUDIO, {})
    aws.our_policies()

    # When access is asked for, as JSON
    done = _run("access", "--stack", "KafkaLineage", "--json")

    # Then the reader reads orders; the partner's role (another account) is not read; the revoked topic its
    # policy still gives is left over; the studio role's grant failed with its cause; and it needs attention
    assert done.exit_code == PARTIAL
    view = json.loads(done.stdout)
    assert [(row["role"], row["topic"], row["iam"]) for row in view["access"]] == [
        (READER, "dbserver1.inventory.orders", "reads"),
        (PARTNER, "dbserver1.inventory.orders", "not read"),
    ]
    assert view["leftover"] == [{"role": READER, "topicArn": f"{TOPIC_PREFIX}/dbserver1.inventory.payments"}]
    [failed] = view["failed"]
    assert (failed["grantId"], failed["roles"], failed["cause"]) == ("grant0002", [STUDIO], CAUSE)
    assert view["needsAttention"] is True


def test_access_says_what_iam_would_refuse_when_the_policy_lacks_the_topic(aws: Aws):
    # Given a granted topic whose policy someone narrowed by hand (no ReadData on it any more)
    aws.settings()
    _domain(aws)
    aws.read_role(READER, {OURS: _reader_policy("dbserver1.inventory.products")})
    aws.our_policies()

    # When only the reader is asked for (the other roles are not read)
    pattern = "arn:aws:iam::*:role/analytics/orders-*"
    done = _run("access", "--stack", "KafkaLineage", "--role", pattern, "--json")

    # Then it names the first thing IAM would refuse, and the products topic its policy gives is left over
    assert done.exit_code == PARTIAL
    view = json.loads(done.stdout)
    [row] = view["access"]
    assert (
        row["iam"]
        == f"no policy allows kafka-cluster:DescribeTopic on {TOPIC_PREFIX}/dbserver1.inventory.orders"
    )
    assert [item["topicArn"] for item in view["leftover"]] == [f"{TOPIC_PREFIX}/dbserver1.inventory.products"]
    assert view["failed"] == []


def test_access_as_tables_with_everything_in_order_exits_zero(aws: Aws):
    # Given the reader's grant, its policy exactly what the function writes
    aws.settings()
    aws.answer("datazone", "list_subscription_grants", {"items": [_grant("grant0001", "1", "a", "GRANTED")]})
    aws.answer("datazone", "get_listing", _listing("1", "dbserver1.inventory.orders"))
    aws.answer("datazone", "get_subscription_target", _target("a", "prjconsumera", READER))
    aws.answer("datazone", "get_environment", _environment("a", ACCOUNT))
    aws.read_role(READER, {OURS: _reader_policy("dbserver1.inventory.orders")})
    aws.our_policies()

    # When access is shown as tables
    done = _run("access", "--stack", "KafkaLineage")

    # Then the one row says the role reads, and nothing needs attention
    assert done.exit_code == OK
    assert "reads" in done.stdout
    assert "failed grants" not in done.stdout


def test_access_needs_a_stack_deployed_with_access_set(aws: Aws):
    aws.deployed(grants=False)
    done = _run("access", "--stack", "KafkaLineage")
    assert done.exit_code == BAD_INPUT
    assert "SubscriptionGrantsFunctionName" in done.stderr


def _invoke(aws: Aws, payload: dict[str, Any], answer: Any, function_error: str | None = None) -> None:
    body = json.dumps(answer).encode()
    response: dict[str, Any] = {"StatusCode": 200, "Payload": StreamingBody(io.BytesIO(body), len(body))}
    if function_error:
        response["FunctionError"] = function_error
    expected = {
        "FunctionName": FUNCTION,
        "InvocationType": "RequestResponse",
        "Payload": json.dumps(payload).encode(),
    }
    aws.answer("lambda", "invoke", response, expected)


RESULT: dict[str, Any] = {
    "trigger": "reconcile",
    "dryRun": True,
    "granted": [],
    "revoked": [],
    "failed": [],
    "ignored": [],
    "withheld": [],
    "unchanged": 0,
    "planned": [{"grantId": "grant0004", "assetId": "asset4", "status": "GRANTED"}],
    "counts": {"granted": 0, "revoked": 0, "failed": 0, "planned": 1, "writes": 0},
}


def test_grants_dry_run_invokes_the_function_with_dry_run_and_shows_the_plan(aws: Aws):
    aws.deployed()
    _invoke(aws, {"dryRun": True}, RESULT)
    done = _run("grants", "--stack", "KafkaLineage", "--dry-run")
    assert done.exit_code == OK
    assert "grant0004" in done.stdout
    assert "dry run" in done.stdout


def test_grants_whose_run_left_failures_exits_partial_with_the_result(aws: Aws):
    # Given a run that raised after finishing (GrantsFailed carries the result)
    result = {**RESULT, "dryRun": False, "failed": [{"grantId": "grant0005", "cause": "Throttling"}]}
    result["counts"] = {**RESULT["counts"], "failed": 1}
    error = {"errorType": "GrantsFailed", "errorMessage": json.dumps(result), "stackTrace": []}
    aws.deployed()
    _invoke(aws, {}, error, "Unhandled")
    done = _run("grants", "--stack", "KafkaLineage", "--json")
    assert done.exit_code == PARTIAL
    assert json.loads(done.stdout)["failed"][0]["grantId"] == "grant0005"


LEGACY = f"arn:aws:iam::{ACCOUNT}:role/legacy/old-reader"
ETL = f"arn:aws:iam::{ACCOUNT}:role/etl/etl-prod"


def test_access_names_roles_no_longer_admitted_that_still_hold_this_stacks_policies(aws: Aws):
    # Given consumerRoles narrowed to analytics/*: a standing grant still names legacy/old-reader, which holds
    # our inline policy, and etl-prod, which no grant names any more, holds one of our managed policies
    # (two versions); the reader is admitted and in order
    aws.settings()
    aws.answer(
        "datazone",
        "list_subscription_grants",
        {"items": [_grant("grant0001", "1", "a", "GRANTED"), _grant("grant0004", "1", "d", "GRANTED")]},
    )
    aws.answer("datazone", "get_listing", _listing("1", "dbserver1.inventory.orders"))
    aws.answer("datazone", "get_subscription_target", _target("a", "prjconsumera", READER))
    aws.answer("datazone", "get_environment", _environment("a", ACCOUNT))
    aws.answer("datazone", "get_subscription_target", _target("d", "prjlegacy", LEGACY))
    aws.answer("datazone", "get_environment", _environment("d", ACCOUNT))
    aws.read_role(READER, {OURS: _reader_policy("dbserver1.inventory.orders")})
    aws.read_role(LEGACY, {OURS: _reader_policy("dbserver1.inventory.orders")})
    managed = f"arn:aws:iam::{ACCOUNT}:policy{NAMING.path}{NAMING.managed_name('etl-prod', 1)}"
    aws.our_policies({managed: ETL})
    # the function's reader of a role, for etl-prod: its managed policy of ours and that policy's versions
    aws.answer("iam", "get_role", _role(ETL), {"RoleName": "etl-prod"})
    aws.answer("iam", "list_role_policies", {"PolicyNames": []}, {"RoleName": "etl-prod"})
    attached = {"PolicyName": NAMING.managed_name("etl-prod", 1), "PolicyArn": managed}
    aws.answer(
        "iam", "list_attached_role_policies", {"AttachedPolicies": [attached]}, {"RoleName": "etl-prod"}
    )
    versions = [
        {"VersionId": "v1", "IsDefaultVersion": False, "CreateDate": WHEN},
        {"VersionId": "v2", "IsDefaultVersion": True, "CreateDate": WHEN},
    ]
    aws.answer("iam", "list_policy_versions", {"Versions": versions}, {"PolicyArn": managed})
    version = {"Document": _reader_policy("dbserver1.inventory.orders"), "VersionId": "v2"}
    aws.answer(
        "iam", "get_policy_version", {"PolicyVersion": version}, {"PolicyArn": managed, "VersionId": "v2"}
    )

    # When access is asked for, as JSON
    done = _run("access", "--stack", "KafkaLineage", "--json")

    # Then both roles are named, with the commands that remove exactly what this stack wrote, in order
    assert done.exit_code == PARTIAL, done.stderr
    view = json.loads(done.stdout)
    assert view["unadmitted"] == [
        {
            "role": ETL,
            "policies": [managed],
            "clean": [
                f"aws iam detach-role-policy --role-name etl-prod --policy-arn {managed}",
                f"aws iam delete-policy-version --policy-arn {managed} --version-id v1",
                f"aws iam delete-policy --policy-arn {managed}",
            ],
        },
        {
            "role": LEGACY,
            "policies": [OURS],
            "clean": [f"aws iam delete-role-policy --role-name old-reader --policy-name {OURS}"],
        },
    ]
    assert view["needsAttention"] is True


def test_access_as_tables_prints_the_cleaning_commands_whole(aws: Aws):
    # Given the legacy role alone, not admitted, holding our inline policy
    aws.settings()
    aws.answer("datazone", "list_subscription_grants", {"items": [_grant("grant0004", "1", "d", "GRANTED")]})
    aws.answer("datazone", "get_listing", _listing("1", "dbserver1.inventory.orders"))
    aws.answer("datazone", "get_subscription_target", _target("d", "prjlegacy", LEGACY))
    aws.answer("datazone", "get_environment", _environment("d", ACCOUNT))
    aws.read_role(LEGACY, {OURS: _reader_policy("dbserver1.inventory.orders")})
    aws.our_policies()
    # When shown as tables / Then the command is a line of its own, whole, ready to run
    done = _run("access", "--stack", "KafkaLineage")
    assert done.exit_code == PARTIAL
    assert "not admitted by consumerRoles" in done.stdout
    command = f"aws iam delete-role-policy --role-name old-reader --policy-name {OURS}"
    assert command in done.stdout.splitlines()


def test_a_payload_subscription_grants_could_not_read_is_bad_input(aws: Aws):
    # Given subscription-grants, which reports a payload it cannot read instead of raising (Lambda would
    # retry it forever): its result carries `error` and `malformed`, and it wrote nothing
    refused = "unexpected key 'bogus' (accepted: the options dryRun, resumeAfter)"
    result = {**RESULT, "dryRun": False, "planned": [], "error": refused, "malformed": [refused]}
    aws.deployed()
    _invoke(aws, {"bogus": 1}, result)
    # When grants sends it / Then the command line exits 2, as for the other functions' InvalidRequest
    done = _run("grants", "--stack", "KafkaLineage", "--event", '{"bogus": 1}', "--json")
    assert done.exit_code == BAD_INPUT
    assert json.loads(done.stdout)["malformed"] == [refused]


def test_access_says_when_the_roles_no_longer_admitted_could_not_be_looked_for(aws: Aws):
    # Given a caller that may read the roles but not list the account's policies (iam:ListPolicies)
    aws.settings()
    aws.answer("datazone", "list_subscription_grants", {"items": [_grant("grant0001", "1", "a", "GRANTED")]})
    aws.answer("datazone", "get_listing", _listing("1", "dbserver1.inventory.orders"))
    aws.answer("datazone", "get_subscription_target", _target("a", "prjconsumera", READER))
    aws.answer("datazone", "get_environment", _environment("a", ACCOUNT))
    aws.read_role(READER, {OURS: _reader_policy("dbserver1.inventory.orders")})
    aws.stubs["iam"].add_client_error("list_policies", "AccessDenied", "not authorized", 403)
    # When access is asked for
    done = _run("access", "--stack", "KafkaLineage", "--json")
    # Then the rest of the view stands, the check names the refused call, and it is no pass (exit 1)
    view = json.loads(done.stdout)
    assert [row["iam"] for row in view["access"]] == ["reads"]
    assert view["unadmitted"] == []
    assert "ListPolicies: AccessDenied" in view["unadmittedError"]
    assert done.exit_code == PARTIAL
