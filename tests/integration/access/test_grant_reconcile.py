"""The reconciling run (`{}`, the schedule): access changed by hand comes back from the grants that stand,
and many grants to one role stay within IAM's limits (the stand-ins enforce them)."""

from __future__ import annotations

import boto3

from local import world
from local.access_checks import may
from tests.integration.access.conftest import CLUSTER, ORDERS, AccessWorld, reads
from tests.integration.sync.conftest import AVRO_VALUE

MANY = 120


def test_a_policy_deleted_by_hand_is_restored_by_the_reconciling_run(access: AccessWorld):
    # Given a role granted the orders topic, whose policy someone then deletes by hand
    role = access.role("orders-reader")
    access.subscribe(access.consumer([role]), ORDERS)
    access.deliver()
    iam = boto3.client("iam")
    [policy] = iam.list_role_policies(RoleName="orders-reader")["PolicyNames"]
    iam.delete_role_policy(RoleName="orders-reader", PolicyName=policy)
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(ORDERS))

    # When the reconciling run goes
    result = access.run({})

    # Then the policy is back, the grant untouched (already GRANTED), and a second run writes nothing
    assert iam.list_role_policies(RoleName="orders-reader")["PolicyNames"] == [policy]
    assert reads(role, ORDERS)
    assert result["counts"]["writes"] == 1
    access.reset_calls()
    again = access.run({})
    assert access.writes() == {}
    assert again["counts"]["writes"] == 0


def test_a_hundred_and_twenty_grants_to_one_role_stay_within_iams_limits(access: AccessWorld):
    # Given 120 more topic assets, and one role subscribed to each of them
    topics = [f"dbserver1.inventory.table_{n:03d}" for n in range(MANY)]
    for topic in topics:
        world.register("cdc", world.SchemaSpec(topic, "AVRO", AVRO_VALUE))
    from tests.fixtures import FakeContext

    access.deployed.invoke("schema-sync", {}, FakeContext())
    role = access.role("everything-reader")
    consumer = access.consumer([role])
    subscriptions = [access.subscribe(consumer, topic)[0] for topic in topics]
    access.requested.drain()
    access.reset_calls()

    # When the reconciling run fulfils them
    result = access.run({})

    # Then every grant is GRANTED, no IAM write met a limit, and the role reads each topic
    assert result["counts"]["granted"] == MANY
    assert {access.status(s) for s in subscriptions} == {"GRANTED"}
    refused = access.aws.call_counts("iam", ok=False)
    assert refused == {}
    assert reads(role, topics[0])
    assert reads(role, topics[-1])
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(ORDERS))
    iam = boto3.client("iam")
    attached = iam.list_attached_role_policies(RoleName="everything-reader")["AttachedPolicies"]
    assert 1 <= len(attached) <= 10
    print("120 grants to one role:", dict(access.writes()), f"{len(attached)} managed policies attached")
