"""Two stacks in one account (here: two asset types of one domain, as a dev and a prod stack would be) grant
one role on one cluster. Each names its policies with its own token; neither reads, rewrites nor removes what
the other wrote, and a revoke in each takes away its own access only. The role's other inline policy leaves
little room, so both stacks' access goes to managed policies under the shared path `/kafka-lineage/`, which
each stack's function role may not list the versions of for the other's."""

from __future__ import annotations

import json
from typing import Any

import boto3

from kafka_lineage.access.model import Naming
from local import access_world, world
from tests.integration.access.conftest import CLUSTER, ORDERS, AccessWorld, reads
from tests.integration.access.test_grant_cross_account import (
    ACCOUNT_ROLE,
    CONSUMER_ACCOUNT,
    EXTERNAL_ID,
    OTHER_TEAM,
    consumer_account,
)

CUSTOMERS = "dbserver1.inventory.customers"
DEV_TYPE = "KafkaTopicAssetTypeDev"


def _filler(role_name: str) -> None:
    """An inline policy of the team's, about 9,500 characters: ours go to managed policies."""
    statements = [
        {"Effect": "Allow", "Action": "s3:GetObject", "Resource": f"arn:aws:s3:::bucket-{n:04d}/*"}
        for n in range(120)
    ]
    document = json.dumps({"Version": "2012-10-17", "Statement": statements}, separators=(",", ":"))
    boto3.client("iam").put_role_policy(RoleName=role_name, PolicyName="team-data", PolicyDocument=document)


def _dev_asset(backend: Any, topic: str) -> str:
    """An asset of the dev stack's type for `topic`, with the prod asset's forms, published; its id."""
    datazone = boto3.client("datazone", region_name=world.REGION)
    prod = boto3.client("datazone", region_name=world.REGION).get_asset_type(
        domainIdentifier=world.DOMAIN_ID, identifier=access_world.ASSET_TYPE
    )
    datazone.create_asset_type(
        domainIdentifier=world.DOMAIN_ID,
        name=DEV_TYPE,
        owningProjectIdentifier=world.PROJECT_ID,
        formsInput={
            name: {
                "typeIdentifier": form["typeName"],
                "typeRevision": form["typeRevision"],
                "required": False,
            }
            for name, form in prod["formsOutput"].items()
        },
    )
    [source] = [a for a in backend.assets(world.DOMAIN_ID) if a.name == topic]
    asset = datazone.get_asset(domainIdentifier=world.DOMAIN_ID, identifier=source.id)
    created = datazone.create_asset(
        domainIdentifier=world.DOMAIN_ID,
        name=topic,
        typeIdentifier=DEV_TYPE,
        owningProjectIdentifier=world.PROJECT_ID,
        formsInput=[
            {"formName": f["formName"], "typeIdentifier": f["typeName"], "content": f["content"]}
            for f in asset["formsOutput"]
        ],
    )
    datazone.create_listing_change_set(
        domainIdentifier=world.DOMAIN_ID, entityIdentifier=created["id"], entityType="ASSET", action="PUBLISH"
    )
    return str(created["id"])


def run_as(access: AccessWorld, asset_type: str | None) -> dict:
    """A reconciling run of the stack of `asset_type` (its function, under its own deployed role)."""
    if asset_type is None:
        access.monkeypatch.delenv("ASSET_TYPE_NAME", raising=False)
    else:
        access.monkeypatch.setenv("ASSET_TYPE_NAME", asset_type)
    return access.run({})


def test_two_stacks_grant_and_revoke_one_role_without_disturbing_each_other(access: AccessWorld):
    # Given a role with little inline room, subscribed to orders through the prod stack's asset and to
    # customers through the dev stack's asset
    role = access.role("shared-reader")
    _filler("shared-reader")
    consumer = access_world.add_consumer(
        access.aws.datazone, "prjconsumer01", [role], asset_types=(access_world.ASSET_TYPE, DEV_TYPE)
    )
    prod_subscription = access_world.subscribe(access.aws.datazone, consumer, ORDERS)
    dev_asset = _dev_asset(access.aws.datazone, CUSTOMERS)
    access.aws.datazone.settle_listings(world.DOMAIN_ID)
    dev_subscription = access.aws.datazone.subscribe(world.DOMAIN_ID, dev_asset, consumer.project_id)

    # When each stack's reconciling run goes
    run_as(access, None)
    run_as(access, DEV_TYPE)

    # Then both grants are GRANTED, the role reads both topics, and each stack's policies carry its token
    assert access.status(prod_subscription) == "GRANTED"
    assert access.status(dev_subscription) == "GRANTED"
    assert reads(role, ORDERS)
    assert reads(role, CUSTOMERS)
    prod = Naming.for_stack(world.DOMAIN_ID, access_world.ASSET_TYPE)
    dev = Naming.for_stack(world.DOMAIN_ID, DEV_TYPE)
    attached = [
        p["PolicyName"]
        for p in boto3.client("iam").list_attached_role_policies(RoleName="shared-reader")["AttachedPolicies"]
    ]
    assert any(name.startswith(f"{prod.prefix}-") for name in attached)
    assert any(name.startswith(f"{dev.prefix}-") for name in attached)
    # ... and a second run of each writes nothing (neither rewrites the other's)
    access.reset_calls()
    run_as(access, None)
    run_as(access, DEV_TYPE)
    assert access.writes() == {}

    # When the prod subscription is revoked and the prod stack runs
    access_world.revoke(prod_subscription)
    run_as(access, None)

    # Then orders is gone, customers (the dev stack's) stays, and the dev stack, running again, agrees
    assert access.status(prod_subscription) == "REVOKED"
    assert not reads(role, ORDERS)
    assert reads(role, CUSTOMERS)
    run_as(access, DEV_TYPE)
    assert access.status(dev_subscription) == "GRANTED"
    assert reads(role, CUSTOMERS)

    # When the dev subscription is revoked in turn, then nothing of either is left
    boto3.client("datazone", region_name=world.REGION).revoke_subscription(
        domainIdentifier=world.DOMAIN_ID, identifier=dev_subscription
    )
    run_as(access, DEV_TYPE)
    assert access.status(dev_subscription) == "REVOKED"
    assert not reads(role, CUSTOMERS)
    # (the only calls IAM refused: listing the versions of the other stack's managed policies, which the
    # adapter then reads by their default version; with the stack's name prefix given to the adapter, none)
    assert set(access.aws.call_counts("iam", ok=False)) <= {"iam:ListPolicyVersions"}


def test_two_stacks_keep_each_others_statements_in_one_cluster_policy(access: AccessWorld):
    # Given a cluster whose policy lets another team in, and a role in a consumer account subscribed to
    # orders through the prod stack's asset and to customers through the dev stack's
    access.configure(
        consumerAccountRole=f"arn:aws:iam::{{account}}:role/{ACCOUNT_ROLE}", externalId=EXTERNAL_ID
    )
    boto3.client("kafka").put_cluster_policy(
        ClusterArn=CLUSTER.arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [OTHER_TEAM]})
    )
    role = consumer_account(access)
    consumer = access_world.add_consumer(
        access.aws.datazone,
        "prjconsumer01",
        [role],
        account=CONSUMER_ACCOUNT,
        asset_types=(access_world.ASSET_TYPE, DEV_TYPE),
    )
    prod_subscription = access_world.subscribe(access.aws.datazone, consumer, ORDERS)
    dev_asset = _dev_asset(access.aws.datazone, CUSTOMERS)
    access.aws.datazone.settle_listings(world.DOMAIN_ID)
    dev_subscription = access.aws.datazone.subscribe(world.DOMAIN_ID, dev_asset, consumer.project_id)

    # When each stack's reconciling run goes
    run_as(access, None)
    run_as(access, DEV_TYPE)

    # Then the cluster policy holds the other team's statement and one statement of each stack, each Sid
    # carrying its stack's token, each naming the role; a run of either again writes nothing
    prod = Naming.for_stack(world.DOMAIN_ID, access_world.ASSET_TYPE)
    dev = Naming.for_stack(world.DOMAIN_ID, DEV_TYPE)
    policy = access.aws.cluster_policies.policy_of(CLUSTER.arn)
    assert policy is not None
    assert [s["Sid"] for s in policy["Statement"]] == [
        OTHER_TEAM["Sid"],
        f"KafkaLineageConsumer{prod.token}{CONSUMER_ACCOUNT}",
        f"KafkaLineageConsumer{dev.token}{CONSUMER_ACCOUNT}",
    ]
    assert reads(role, ORDERS)
    assert reads(role, CUSTOMERS)
    access.reset_calls()
    run_as(access, None)
    run_as(access, DEV_TYPE)
    assert access.writes() == {}

    # When the prod subscription is revoked and the prod stack runs
    access_world.revoke(prod_subscription)
    run_as(access, None)

    # Then only prod's statement goes; dev's and the other team's stay, and the role still reads customers
    assert access.status(prod_subscription) == "REVOKED"
    after = access.aws.cluster_policies.policy_of(CLUSTER.arn)
    assert after is not None
    assert [s["Sid"] for s in after["Statement"]] == [
        OTHER_TEAM["Sid"],
        f"KafkaLineageConsumer{dev.token}{CONSUMER_ACCOUNT}",
    ]
    assert not reads(role, ORDERS)
    assert reads(role, CUSTOMERS)

    # When the dev subscription is revoked in turn, then only the other team's statement is left
    boto3.client("datazone", region_name=world.REGION).revoke_subscription(
        domainIdentifier=world.DOMAIN_ID, identifier=dev_subscription
    )
    run_as(access, DEV_TYPE)
    assert access.status(dev_subscription) == "REVOKED"
    final = access.aws.cluster_policies.policy_of(CLUSTER.arn)
    assert final is not None
    assert final["Statement"] == [OTHER_TEAM]
