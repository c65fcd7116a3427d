"""The IAM roles adapter on moto, in the function's account and in a consumer account."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from moto import mock_aws

from kafka_lineage.access.decide import decide
from kafka_lineage.access.model import Grant, GrantStatus, Naming
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.aws.calls import calls_of, instrument
from kafka_lineage.aws.iam_roles import IamRoles
from kafka_lineage.aws.subscription_grants import SubscriptionGrants
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.grants.convert import calls, role_state
from kafka_lineage.grants.settings import DEADLINE_MARGIN_SECONDS
from kafka_lineage.model.iam import IamCall
from tests.unit.grants.adapter_builders import DOMAIN, MOTO_ACCOUNT, WHEN, grant_item

# --- IAM on moto ---------------------------------------------------------------------------------------


@pytest.fixture
def iam() -> Iterator[Any]:
    with mock_aws():
        yield instrument(boto3.client("iam", region_name="us-east-1"))


TRUST = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)
BOUNDARY = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}


def role(iam: Any, name: str = "analytics-consumer", path: str = "/", boundary: bool = False) -> str:
    extra: dict[str, Any] = {}
    if boundary:
        created = iam.create_policy(PolicyName="ConsumerBoundary", PolicyDocument=json.dumps(BOUNDARY))
        extra["PermissionsBoundary"] = created["Policy"]["Arn"]
    return str(
        iam.create_role(RoleName=name, Path=path, AssumeRolePolicyDocument=TRUST, **extra)["Role"]["Arn"]
    )


def grants_for(role_arn: str, count: int) -> list[Grant]:
    cluster = f"arn:aws:kafka:eu-west-1:{MOTO_ACCOUNT}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
    return [
        Grant(
            f"grant{n:04d}",
            f"listing{n:04d}",
            f"asset{n:04d}",
            cluster,
            f"dbserver1.inventory.table_{n:04d}",
            "prj_sales01",
            "env_sales01",
            MOTO_ACCOUNT,
            "eu-west-1",
            (role_arn,),
            GrantStatus.GRANT_PENDING,
        )
        for n in range(1, count + 1)
    ]


def test_a_role_is_read_with_its_policies_and_boundary(iam: Any) -> None:
    arn = role(iam, boundary=True)
    iam.put_role_policy(
        RoleName="analytics-consumer", PolicyName="Other", PolicyDocument=json.dumps(BOUNDARY)
    )
    other = iam.create_policy(PolicyName="ReadS3", PolicyDocument=json.dumps(BOUNDARY))["Policy"]["Arn"]
    iam.attach_role_policy(RoleName="analytics-consumer", PolicyArn=other)
    record = IamRoles(lambda account: iam, "/kafka-lineage/").read(arn)
    assert record is not None
    assert record.inline == {"Other": BOUNDARY}
    assert [(p.arn, p.path, p.document) for p in record.managed] == [(other, "/", BOUNDARY)]
    assert record.boundary_arn
    assert record.boundary == BOUNDARY


def test_a_missing_role_and_a_role_at_another_path_are_not_found(iam: Any) -> None:
    role(iam, path="/teams/")
    roles = IamRoles(lambda account: iam, "/kafka-lineage/")
    assert roles.read(f"arn:aws:iam::{MOTO_ACCOUNT}:role/nobody") is None
    assert (
        roles.read(f"arn:aws:iam::{MOTO_ACCOUNT}:role/analytics-consumer") is None
    )  # it lives under /teams/
    assert roles.read(f"arn:aws:iam::{MOTO_ACCOUNT}:role/teams/analytics-consumer") is not None


@pytest.mark.parametrize("count", [1, 120])
def test_an_applied_plan_plans_nothing_more(iam: Any, count: int) -> None:
    # Given a role and `count` grants of distinct topics (120: the inline policy and managed ones)
    arn = role(iam)
    roles = IamRoles(lambda account: iam, Naming().path)
    settings = AccessSettings.parse({"consumerRoles": [f"arn:aws:iam::{MOTO_ACCOUNT}:role/*"]})
    grants = grants_for(arn, count)

    def plan() -> Any:
        record = roles.read(arn)
        assert record is not None
        return decide(grants, {arn: role_state(record)}, settings, Naming()).plans[0]

    # When its plan is applied through the adapter
    first = plan()
    roles.apply(arn, calls(first))
    # Then the role holds it: planning again gives nothing to write
    assert not first.empty
    assert plan().empty
    if count == 120:
        attached = iam.list_attached_role_policies(RoleName="analytics-consumer")["AttachedPolicies"]
        assert attached
        assert all(
            p["PolicyArn"].startswith(f"arn:aws:iam::{MOTO_ACCOUNT}:policy/kafka-lineage/") for p in attached
        )


def test_writes_are_idempotent_deletes_of_what_is_gone_and_creates_of_what_exists(iam: Any) -> None:
    arn = role(iam)
    roles = IamRoles(lambda account: iam, "/kafka-lineage/")
    policy_arn = f"arn:aws:iam::{MOTO_ACCOUNT}:policy/kafka-lineage/KafkaLineageAccess-analytics-consumer-1"
    create = IamCall(
        "CreatePolicy",
        {
            "PolicyName": "KafkaLineageAccess-analytics-consumer-1",
            "Path": "/kafka-lineage/",
            "PolicyDocument": json.dumps(BOUNDARY),
            "PolicyArn": policy_arn,
        },
    )
    roles.apply(arn, [create])
    # A create met again with another document adopts the policy and makes that document its default
    other: dict[str, Any] = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "glue:GetSchemaVersion", "Resource": "*"}],
    }
    roles.apply(arn, [IamCall("CreatePolicy", {**create.params, "PolicyDocument": json.dumps(other)})])
    default = iam.get_policy(PolicyArn=policy_arn)["Policy"]["DefaultVersionId"]
    assert (
        iam.get_policy_version(PolicyArn=policy_arn, VersionId=default)["PolicyVersion"]["Document"] == other
    )
    # Five versions taken: a new version makes room by deleting the oldest non-default one
    for n in range(4):
        document = {**other, "Statement": [{**other["Statement"][0], "Sid": f"S{n}"}]}
        roles.apply(
            arn,
            [
                IamCall(
                    "CreatePolicyVersion",
                    {"PolicyArn": policy_arn, "PolicyDocument": json.dumps(document), "SetAsDefault": True},
                )
            ],
        )
    assert len(iam.list_policy_versions(PolicyArn=policy_arn)["Versions"]) == 5
    # Deleting and detaching what is gone succeeds
    roles.apply(
        arn,
        [
            IamCall(
                "DeleteRolePolicy", {"RoleName": "analytics-consumer", "PolicyName": "KafkaLineageAccess"}
            ),
            IamCall("DetachRolePolicy", {"RoleName": "analytics-consumer", "PolicyArn": policy_arn}),
            IamCall("DeletePolicy", {"PolicyArn": policy_arn}),
            IamCall("DeletePolicy", {"PolicyArn": policy_arn}),
        ],
    )
    assert not any(p["Arn"] == policy_arn for p in iam.list_policies(Scope="Local")["Policies"])


def test_a_role_in_another_account_is_read_and_written_with_that_accounts_client(iam: Any) -> None:
    asked: list[str] = []

    def iam_for(account: str) -> Any:
        asked.append(account)
        return iam

    role(iam)
    IamRoles(iam_for, "/kafka-lineage/").read(f"arn:aws:iam::{MOTO_ACCOUNT}:role/analytics-consumer")
    assert asked == [MOTO_ACCOUNT]


# --- Other accounts ------------------------------------------------------------------------------------


def test_iam_in_a_consumer_account_is_reached_through_its_role_and_external_id() -> None:
    from kafka_lineage.aws.accounts import AccountClients
    from kafka_lineage.aws.clients import Clients
    from kafka_lineage.model.failures import SourceRoleUnavailable

    consumer = "444455556666"
    with mock_aws():
        # Given the consumer account's role for the function (moto keeps each account's IAM apart)
        template = AccessSettings.parse(
            {
                "consumerAccountRole": "arn:aws:iam::{account}:role/KafkaLineageConsumer",
                "externalId": "lineage-x1",
            }
        )
        asked: list[str] = []

        def role_of(account: str) -> tuple[str, str | None] | None:
            asked.append(account)
            named = template.account_role(account)
            return None if named is None or account == "999999999999" else (named, template.external_id)

        clients = AccountClients(
            MOTO_ACCOUNT,
            role_of,
            "kafka-lineage-subscription-grants",
            "access.consumerAccountRole is not set",
            Clients(),
        )
        there = clients.client(consumer, "iam")
        there.create_role(RoleName="payments-reader", AssumeRolePolicyDocument=TRUST)
        # When the adapter reads the role by its ARN in that account
        arn = f"arn:aws:iam::{consumer}:role/payments-reader"
        record = IamRoles(lambda account: clients.client(account, "iam"), "/kafka-lineage/").read(arn)
        # Then it is found there (and not in the function's own account)
        assert record is not None
        assert record.role_arn == arn
        assert boto3.client("iam").list_roles()["Roles"] == []
        assert asked == [consumer]
        # And an account no role is named for fails with the setting named
        with pytest.raises(SourceRoleUnavailable, match=r"access\.consumerAccountRole"):
            clients.client("999999999999", "iam").get_role(RoleName="x")


# --- One grant, event to GRANTED, through the real adapters ------------------------------------------


def test_one_grant_event_to_granted_with_real_adapters_takes_at_most_12_calls(iam: Any) -> None:
    # Given a pending grant (DataZone answers in the order the run asks) and a role in moto's IAM
    from kafka_lineage.grants.ports import GrantPorts
    from kafka_lineage.grants.requests import parse_request
    from kafka_lineage.grants.run import GrantRun
    from kafka_lineage.grants.settings import GrantSettings
    from tests.unit.grants.fakes import FakeClusters, FakeLeases
    from tests.unit.grants.test_grants_run import event

    arn = role(iam)
    cluster_arn = f"arn:aws:kafka:eu-west-1:{MOTO_ACCOUNT}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
    forms = json.dumps(
        {
            "MskSourceReferenceFormType": {"cluster_arn": cluster_arn},
            "KafkaSchemaFormType": {"kafka_topic": "dbserver1.inventory.customers"},
        }
    )
    # (the Stubber answers at `before-call.*.*`, ahead of the call layer's counting hook: count there first)
    client = instrument(boto3.client("datazone", region_name="eu-west-1"))
    datazone_calls: Counter[str] = Counter()
    client.meta.events.register_first(
        "before-call.*.*", lambda model, **_: datazone_calls.update([model.name]), unique_id="test-count"
    )
    pending, granted = grant_item("grant0001"), grant_item("grant0001", "GRANTED")
    with Stubber(client) as stub:
        stub.add_response("get_subscription_grant", pending)
        asset = {"assetId": "asset0001", "assetType": "KafkaTopicAssetType", "forms": forms}
        stub.add_response(
            "get_listing",
            {
                "domainId": DOMAIN,
                "id": "listing0001",
                "listingRevision": "3",
                "item": {"assetListing": asset},
            },
        )
        stub.add_response(
            "get_subscription_target",
            {
                "id": "target01",
                "authorizedPrincipals": [arn],
                "domainId": DOMAIN,
                "projectId": "prj_sales01",
                "environmentId": "env_sales01",
                "name": "kafka",
                "type": "t",
                "createdBy": "user",
                "createdAt": WHEN,
                "applicableAssetTypes": ["KafkaTopicAssetType"],
                "subscriptionTargetConfig": [],
                "provider": "p",
            },
        )
        stub.add_response(
            "get_environment",
            {
                "projectId": "prj_sales01",
                "domainId": DOMAIN,
                "createdBy": "u",
                "name": "sales",
                "provider": "p",
                "awsAccountId": MOTO_ACCOUNT,
                "awsAccountRegion": "eu-west-1",
            },
        )
        stub.add_response("list_subscription_grants", {"items": [pending]})
        stub.add_response(
            "update_subscription_grant_status",
            pending,
            {
                "domainIdentifier": DOMAIN,
                "identifier": "grant0001",
                "assetIdentifier": "asset0001",
                "status": "GRANT_IN_PROGRESS",
            },
        )
        stub.add_response(
            "update_subscription_grant_status",
            granted,
            {
                "domainIdentifier": DOMAIN,
                "identifier": "grant0001",
                "assetIdentifier": "asset0001",
                "status": "GRANTED",
            },
        )
        datazone = client
        ports = GrantPorts(
            SubscriptionGrants(datazone, DOMAIN),
            IamRoles(lambda _: iam, "/kafka-lineage/"),
            FakeClusters(),
            FakeLeases(),
        )
        access = AccessSettings.parse({"consumerRoles": [f"arn:aws:iam::{MOTO_ACCOUNT}:role/*"]})
        settings = GrantSettings(domain_id=DOMAIN, mapping_path="/kafka-lineage", access=access)
        before = calls_of(iam).counts()
        # When the event is handled
        result = GrantRun(settings, ports).execute(
            parse_request(event("subscription_grant_requested.json")),
            Deadline(lambda: 900.0, DEADLINE_MARGIN_SECONDS),
        )
        stub.assert_no_pending_responses()
    # Then it is GRANTED, the role holds the topic, and the calls are counted
    assert result.granted.total == 1
    iam_calls = {
        op: n - before.get(op, 0) for op, n in calls_of(iam).counts().items() if n - before.get(op, 0)
    }
    figure = {**datazone_calls, **iam_calls}
    total = sum(figure.values())
    print(f"\none grant, event to GRANTED, real adapters: {total} calls: {dict(sorted(figure.items()))}")
    assert sum(figure.values()) <= 12
    document = iam.get_role_policy(RoleName="analytics-consumer", PolicyName="KafkaLineageAccess")[
        "PolicyDocument"
    ]
    assert any("dbserver1.inventory.customers" in r for s in document["Statement"] for r in s["Resource"])
