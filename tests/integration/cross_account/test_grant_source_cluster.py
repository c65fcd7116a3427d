"""Clusters in source accounts (contract §9): a topic whose cluster is in a source account, granted to a role
in the governance account, in the source account itself, and in a third account, then revoked.

Every account's stack as synthesized, in IAM mode: subscription-grants runs in the governance account under
its role; it writes the cluster policy through the source stack's role (`grantAccess`), and a consumer's
IAM in another account through that account's KafkaLineageConsumer role; each call is authorised against
the role it runs under, each AssumeRole against the role's trust. What a consumer may then read is asked of
the stand-ins' IAM evaluator: its identity policy, and for a role of another account than the cluster's,
the cluster's policy too (local.cluster_access).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.grants.settings import GrantSettings
from kafka_lineage.model.failures import SourceRoleUnavailable
from local import access_world, world
from local.access_world import Consumer
from local.cluster_access import reads_across
from local.standins import LocalAws
from local.synth import consumer_account_roles, deployment_roles, source_account_roles
from stacks.grants import CLUSTER_POLICY_ACTIONS
from subscription_grants.wiring import build
from tests.fixtures import FakeContext, VirtualClock
from tests.integration.cross_account.conftest import (
    ROLE_NAME,
    SOURCE_ACCOUNT,
    Accounts,
    cluster_arn,
    role_arn,
    source,
)

THIRD_ACCOUNT = "777788889999"
ORDERS = "dbserver1.inventory.orders"
SOURCE_ID = "ext-4c1d9e"  # the source role's external id
CONSUMER_ID = "kafka-lineage-consumers-7f3c"  # access.externalId: the consumer-account roles'
ACCOUNT_ROLE = "KafkaLineageConsumer"
FUNCTION = "subscription-grants"
CLUSTER = cluster_arn(SOURCE_ACCOUNT)
SOURCE_ROLE = role_arn(SOURCE_ACCOUNT)
ACCESS = {
    "consumerRoles": ["arn:aws:iam::*:role/analytics/*"],
    "consumerGroups": ["{projectId}-*"],
    "consumerAccountRole": f"arn:aws:iam::{{account}}:role/{ACCOUNT_ROLE}",
    "externalId": CONSUMER_ID,
}


def grants_context() -> FakeContext:
    return FakeContext(
        function_name=FUNCTION,
        aws_request_id="7a2b3c4d-0000-4000-8000-00000000a5c1",
        invoked_function_arn=f"arn:aws:lambda:{world.REGION}:{world.ACCOUNT}:function:{FUNCTION}",
    )


@dataclass
class Granting:
    """The source account's cluster and topic, published by schema-sync; each account's stack deployed."""

    accounts: Accounts
    requested: world.BusCatcher
    revoking: world.BusCatcher
    consumers: dict[str, str] = field(default_factory=dict)  # role ARN -> project

    @property
    def aws(self) -> Any:
        return self.accounts.aws

    def deploy(self, *, grant_access: bool = True) -> None:
        """The source stack (with or without grantAccess, trusting the three function roles) and a
        KafkaLineageConsumer stack in the source and the third account, each trusting subscription-grants
        as deployed for the current configuration."""
        deployment = world.deployment_for(self.aws, FUNCTION, {})
        roles = deployment_roles(deployment, self.aws.region, self.aws.account)
        trusted = [roles[name].arn for name in ("schema-sync", "lineage-emission", FUNCTION)]
        context: dict[str, Any] = {
            "trustedRoleArns": trusted,
            "externalId": SOURCE_ID,
            "registries": ["cdc"],
            "databases": ["lakehouse"],
            "roleName": ROLE_NAME,
        }
        if grant_access:
            context.update(grantAccess=True, clusters=[CLUSTER])
        text = json.dumps(context, sort_keys=True)
        self.aws.iam.add_assumable(source_account_roles(deployment, text, self.aws.region, SOURCE_ACCOUNT))
        for account in (SOURCE_ACCOUNT, THIRD_ACCOUNT):
            consumer = {
                "trustedRoleArn": roles[FUNCTION].arn,
                "externalId": CONSUMER_ID,
                "consumerRoles": [f"arn:aws:iam::{account}:role/analytics/*"],
                "roleName": ACCOUNT_ROLE,
            }
            text = json.dumps(consumer, sort_keys=True)
            self.aws.iam.add_assumable(consumer_account_roles(deployment, text, self.aws.region, account))

    def consumer(self, account: str, name: str) -> tuple[str, Consumer]:
        """A role under /analytics/ in `account`, and a project whose environment there names it."""
        iam = None if account == world.ACCOUNT else self.aws.client("iam", account=account)
        role = access_world.consumer_role(name, path="/analytics/", iam=iam)
        project = f"prj{name.replace('-', '')[:10]}"
        self.consumers[role] = project
        return role, access_world.add_consumer(self.aws.datazone, project, [role], account=account)

    def subscribe(self, consumer: Consumer) -> tuple[str, str]:
        subscription = access_world.subscribe(self.aws.datazone, consumer, ORDERS)
        return subscription, access_world.grant_of(self.aws.datazone, subscription).id

    def deliver(self) -> list[dict[str, Any]]:
        results = []
        for event in self.requested.drain() + self.revoking.drain():
            result = self.accounts.deployed.invoke(FUNCTION, event, grants_context())
            assert "continued" not in result
            results.append(result)
        return results

    def status(self, subscription: str) -> str:
        [(_, status)] = access_world.grant_of(self.aws.datazone, subscription).assets
        return str(status)

    def failure(self, grant_id: str) -> str:
        read = self.aws.client("datazone").get_subscription_grant(
            domainIdentifier=world.DOMAIN_ID, identifier=grant_id
        )
        return str(read["assets"][0].get("failureCause", {}).get("message", ""))

    def reads(self, role: str) -> bool:
        return reads_across(self.aws, role, ORDERS, f"{self.consumers[role]}-app", CLUSTER)

    def cluster_policy(self) -> dict[str, Any] | None:
        return self.aws.cluster_policies.policy_of(CLUSTER)

    def used(self) -> Counter[str]:
        """The calls IAM mode allowed, as "<role> <action>" (an assumed role by its name)."""
        return Counter(self.aws.iam.allowed)

    def kafka_calls(self) -> dict[str, int]:
        return {key: n for key, n in self.used().items() if " kafka:" in key}


@pytest.fixture
def granting(accounts: Accounts, monkeypatch: pytest.MonkeyPatch) -> Granting:
    # Given the source account's registry and cluster with the orders topic, read through its role
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id=SOURCE_ID)
    accounts.schema(SOURCE_ACCOUNT, ORDERS)
    monkeypatch.setenv("ACCESS", json.dumps(ACCESS))
    accounts.configure(source(SOURCE_ACCOUNT, SOURCE_ID))
    created = Granting(
        accounts,
        world.BusCatcher("aws.datazone", "Subscription Grant Requested"),
        world.BusCatcher("aws.datazone", "Subscription Grant Revoke Requested"),
    )
    created.deploy()
    # ... published by schema-sync (through the source role)
    synced = accounts.sync()
    assert synced["created"] == 1, synced
    # DataZone's subscription calls are paced at 3 TPS: on a virtual clock the pacing costs no real time.
    VirtualClock.install(monkeypatch)
    accounts.aws.iam.allowed.clear()
    return created


def _policy_names(aws: Any, account: str, role: str) -> list[str]:
    iam = aws.client("iam", account=account)
    name = role.rsplit("/", 1)[-1]
    inline = iam.list_role_policies(RoleName=name)["PolicyNames"]
    attached = [p["PolicyName"] for p in iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]]
    return list(inline) + attached


def _statements_naming(policy: dict[str, Any] | None, account: str) -> list[dict[str, Any]]:
    return [s for s in (policy or {}).get("Statement", []) if account in json.dumps(s.get("Principal"))]


def test_a_role_in_the_governance_account_is_granted_through_the_source_role(granting: Granting):
    # Given a consumer role in the governance account, subscribed to the source account's topic
    role, consumer = granting.consumer(world.ACCOUNT, "gov-reader")
    subscription, _ = granting.subscribe(consumer)

    # When the grant event reaches subscription-grants
    granting.deliver()

    # Then it is GRANTED: the role's policy is written in its account, the source cluster's policy names
    # its account, and the role may read the topic, and only that topic
    assert granting.status(subscription) == "GRANTED"
    assert _policy_names(granting.aws, world.ACCOUNT, role)
    assert _statements_naming(granting.cluster_policy(), world.ACCOUNT)
    assert granting.reads(role)
    assert not reads_across(granting.aws, role, "dbserver1.inventory.customers", "prjgovreader-app", CLUSTER)
    # ... every call allowed by the role it ran under: MSK's through the source role alone
    assert granting.aws.iam.denials == []
    assert set(granting.kafka_calls()) == {
        f"{ROLE_NAME} kafka:DescribeClusterV2",
        f"{ROLE_NAME} kafka:GetClusterPolicy",
        f"{ROLE_NAME} kafka:PutClusterPolicy",
    }
    assert granting.used()[f"{FUNCTION} iam:PutRolePolicy"] >= 1  # its own account: no role assumed

    # When the subscription is revoked
    access_world.revoke(subscription)
    granting.deliver()

    # Then it is REVOKED, and the role can read it no more: neither its policy nor the cluster's says so
    assert granting.status(subscription) == "REVOKED"
    assert not _statements_naming(granting.cluster_policy(), world.ACCOUNT)
    assert not granting.reads(role)
    assert granting.aws.iam.denials == []


def test_a_role_in_the_clusters_own_account_needs_no_cluster_policy(granting: Granting):
    # Given a consumer role in the source account itself
    role, consumer = granting.consumer(SOURCE_ACCOUNT, "src-reader")
    subscription, _ = granting.subscribe(consumer)

    # When the grant event reaches subscription-grants
    granting.deliver()

    # Then it is GRANTED through the source account's KafkaLineageConsumer role, and MSK is not asked at
    # all: a role in the cluster's account needs its identity policy only
    assert granting.status(subscription) == "GRANTED"
    assert _policy_names(granting.aws, SOURCE_ACCOUNT, role)
    assert granting.reads(role)
    assert granting.cluster_policy() is None
    assert granting.kafka_calls() == {}
    assert granting.used()[f"{ACCOUNT_ROLE} iam:PutRolePolicy"] >= 1
    assert granting.used()[f"{FUNCTION} sts:AssumeRole"] == 1
    assert granting.aws.iam.denials == []

    # When the subscription is revoked, then the role's policy goes, and the cluster is left alone
    access_world.revoke(subscription)
    granting.deliver()
    assert granting.status(subscription) == "REVOKED"
    assert _policy_names(granting.aws, SOURCE_ACCOUNT, role) == []
    assert not granting.reads(role)
    assert granting.cluster_policy() is None
    assert granting.kafka_calls() == {}
    assert granting.aws.iam.denials == []


def test_a_role_in_a_third_account_is_granted_in_its_account_and_on_the_source_cluster(granting: Granting):
    # Given a consumer role in a third account (neither the governance nor the source account)
    role, consumer = granting.consumer(THIRD_ACCOUNT, "third-reader")
    subscription, _ = granting.subscribe(consumer)

    # When the grant event reaches subscription-grants
    granting.deliver()

    # Then it is GRANTED: its IAM written through the third account's role, the source cluster's policy
    # through the source role, and the role may read the topic across both accounts
    assert granting.status(subscription) == "GRANTED"
    assert _policy_names(granting.aws, THIRD_ACCOUNT, role)
    assert _statements_naming(granting.cluster_policy(), THIRD_ACCOUNT)
    assert not _statements_naming(granting.cluster_policy(), world.ACCOUNT)
    assert granting.reads(role)
    assert granting.used()[f"{ACCOUNT_ROLE} iam:PutRolePolicy"] >= 1
    assert granting.used()[f"{ROLE_NAME} kafka:PutClusterPolicy"] == 1
    assert granting.aws.iam.denials == []

    # When the subscription is revoked
    access_world.revoke(subscription)
    granting.deliver()

    # Then it is REVOKED: the role's policy and the cluster's statement for its account are gone
    assert granting.status(subscription) == "REVOKED"
    assert _policy_names(granting.aws, THIRD_ACCOUNT, role) == []
    assert not _statements_naming(granting.cluster_policy(), THIRD_ACCOUNT)
    assert not granting.reads(role)
    assert granting.aws.iam.denials == []


def test_the_source_role_is_used_for_exactly_what_grant_access_allows(granting: Granting):
    # Given a grant and its revoke to a role of another account than the cluster's
    _, consumer = granting.consumer(world.ACCOUNT, "gov-reader")
    subscription, _ = granting.subscribe(consumer)
    granting.deliver()
    access_world.revoke(subscription)
    granting.deliver()
    assert granting.status(subscription) == "REVOKED"

    # Then the MSK actions the source role was asked for are the ones grantAccess gives it: no more (each
    # was allowed), and no fewer (an action granted but never called would be a wider grant than needed)
    used = {key.split(" ", 1)[1] for key in granting.kafka_calls() if key.startswith(f"{ROLE_NAME} ")}
    assert used == set(CLUSTER_POLICY_ACTIONS)
    assert granting.aws.iam.denials == []


def test_without_grant_access_the_grant_fails_with_the_source_roles_refusal(granting: Granting):
    # Given the source stack deployed without grantAccess (its role only reads)
    granting.aws.iam.reset()
    granting.deploy(grant_access=False)
    role, consumer = granting.consumer(world.ACCOUNT, "gov-reader")
    subscription, grant = granting.subscribe(consumer)

    # When the grant event reaches subscription-grants
    granting.deliver()

    # Then it fails with a cause naming the refused MSK call on the source cluster, nothing is written
    # there, and the role cannot read the topic
    assert granting.status(subscription) == "GRANT_FAILED"
    cause = granting.failure(grant)
    assert "AccessDenied" in cause, cause
    # ... the session is the source role's, in its own account, as STS issues it
    assert f"arn:aws:sts::{SOURCE_ACCOUNT}:assumed-role/{ROLE_NAME}/" in cause, cause
    assert "kafka:DescribeClusterV2" in cause, cause
    # ... and what to turn on
    assert "grantAccess: true" in cause, cause
    assert "SubscriptionGrantsRoleArn" in cause, cause
    assert granting.cluster_policy() is None
    assert _policy_names(granting.aws, world.ACCOUNT, role) == []
    assert not granting.reads(role)


def test_a_cluster_no_source_reaches_is_not_tried_through_another_role(
    local_aws: LocalAws, monkeypatch: pytest.MonkeyPatch
):
    # Given consumerAccountRole set, and no SOURCES entry with a role in the cluster's account (its source
    # was removed, say, while grants on its topics stand)
    environ = {**world.environment([world.source_config()]), "ACCESS": json.dumps(ACCESS)}
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    local_aws.calls.clear()
    context = cast(LambdaContext, grants_context())
    ports = build(GrantSettings.from_environment(environ), context, environ)

    # When the function asks for the cluster's type, then no role is assumed for it (the consumer account's
    # role has no MSK action), and the refusal names the setting that would reach it
    with pytest.raises(SourceRoleUnavailable, match="no SOURCES entry with roleArn reaches a cluster there"):
        ports.clusters.serverless(CLUSTER)
    assert not [call for call in local_aws.calls if call.key == "sts:AssumeRole"]
    # ... while a cluster of the function's own account is its own role's
    assert ports.clusters.serverless(world.CLUSTER_ARN) is False
