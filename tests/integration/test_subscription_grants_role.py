"""subscription-grants under the role the stack synthesizes from `access` (IAM mode): every call a grant and
a revoke make is one the role is granted, and IAM's own wildcards keep it to `access.consumerRoles`."""

from __future__ import annotations

import json
from dataclasses import dataclass

import boto3
import pytest

from kafka_lineage.access.model import Naming
from local import access_world, world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests.fixtures import FakeContext

TOPIC = "dbserver1.inventory.orders"
ACCESS = {"consumerRoles": [f"arn:aws:iam::{world.ACCOUNT}:role/analytics/*"]}


@dataclass
class GrantsContext(FakeContext):
    function_name: str = "subscription-grants"


@pytest.fixture
def published(local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch) -> LocalAws:
    """The local world after a first schema-sync (every inventory topic a published asset), configured with
    `access`: the deployment whose subscription-grants role the handler then runs as."""
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    world.create_registry("cdc")
    for spec in world.inventory():
        world.register("cdc", spec)
    tuning = {"datazone_rps": 500, "glue_rps": 500, "ssm_write_rps": 500}
    for key, value in world.environment([world.source_config()], tuning).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("ACCESS", json.dumps(ACCESS))
    deployed.invoke("schema-sync", {}, FakeContext())
    return local_aws


def _grant(aws: LocalAws, role_name: str, path: str) -> str:
    role = access_world.consumer_role(role_name, path=path)
    consumer = access_world.add_consumer(aws.datazone, f"prj{role_name.replace('-', '')[:10]}", [role])
    return access_world.subscribe(aws.datazone, consumer, TOPIC)


def test_a_grant_and_its_revoke_run_under_the_synthesized_role(
    published: LocalAws, deployed: DeployedFunctions
) -> None:
    handler = deployed.handler("subscription-grants")

    # Given a subscription of a role under the admitted path
    subscription = _grant(published, "orders-reader", "/analytics/team/")
    grant = access_world.grant_of(published.datazone, subscription)

    # When the reconciling run fulfils it under subscription-grants' deployed role
    result = handler({}, GrantsContext())

    # Then every call was allowed (nothing failed) and the grant is GRANTED, the role's policy written
    assert result.get("failed", []) == [], result
    assert access_world.grant_of(published.datazone, subscription).assets[0][1] == "GRANTED"
    iam = boto3.client("iam", region_name=world.REGION)
    assert iam.list_role_policies(RoleName="orders-reader")["PolicyNames"] == [
        Naming.for_stack(world.DOMAIN_ID, "KafkaTopicAssetType").inline_name
    ]

    # And the revoke, under the same role, takes it away
    access_world.revoke(subscription)
    handler({}, GrantsContext())
    assert access_world.grant_of(published.datazone, grant.subscription_id).assets[0][1] == "REVOKED"
    assert iam.list_role_policies(RoleName="orders-reader")["PolicyNames"] == []


def test_a_role_outside_consumer_roles_is_refused_and_left_untouched(
    published: LocalAws, deployed: DeployedFunctions
) -> None:
    handler = deployed.handler("subscription-grants")

    # Given a subscription of a role that access.consumerRoles does not admit (nor the role's IAM reach)
    subscription = _grant(published, "admin-reader", "/")
    # When the reconciling run meets it, then the grant fails (a refusal, not an error to retry), its cause
    # naming the setting rather than an AccessDenied on reading the role
    result = handler({}, GrantsContext())
    (failed,) = result["failed"]
    assert "does not match access.consumerRoles" in failed["cause"]
    assert "AccessDenied" not in failed["cause"]
    grant = access_world.grant_of(published.datazone, subscription)
    assert grant.assets[0][1] == "GRANT_FAILED"
    iam = boto3.client("iam", region_name=world.REGION)
    assert iam.list_role_policies(RoleName="admin-reader")["PolicyNames"] == []
    assert iam.list_attached_role_policies(RoleName="admin-reader")["AttachedPolicies"] == []
