"""A subscription to a topic asset becomes IAM access for the subscriber's role, and a revoke takes it away:
the real subscription-grants handler on the stand-ins, from DataZone's event on the bus to GRANTED."""

from __future__ import annotations

import json

import pytest

from local import access_world
from local.access_checks import may
from tests.fixtures import load_event
from tests.integration.access.conftest import (
    CLUSTER,
    CONSUMER_PROJECT,
    CUSTOMERS,
    ORDERS,
    OTHER_CLUSTER,
    OTHER_PROJECT,
    AccessWorld,
    reads,
)


def test_an_approved_subscription_gives_the_role_read_access_to_that_topic_alone(access: AccessWorld):
    # Given a consuming project whose subscription target names a customer-managed role
    role = access.role("orders-reader")
    consumer = access.consumer([role])

    # When the project subscribes to the orders topic, the owner accepts, and the event reaches the function
    subscription, grant = access.subscribe(consumer, ORDERS)
    [result] = access.deliver()

    # Then the grant is GRANTED, and the role may consume the orders topic in its project's groups
    assert access.status(subscription) == "GRANTED"
    assert result["counts"]["granted"] == 1
    assert result["granted"][0]["grantId"] == grant
    assert reads(role, ORDERS)
    assert may(role, "glue:GetSchemaVersion", "*")
    # ... and nothing else: no other topic, no writing, no other cluster, no group outside the template
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(CUSTOMERS))
    assert not may(role, "kafka-cluster:WriteData", CLUSTER.topic(ORDERS))
    assert not may(role, "kafka-cluster:Connect", OTHER_CLUSTER.arn)
    assert not may(role, "kafka-cluster:ReadData", OTHER_CLUSTER.topic(ORDERS))
    assert not may(role, "kafka-cluster:AlterGroup", CLUSTER.group("someone-else-app"))
    assert not may(role, "kafka-cluster:AlterGroup", CLUSTER.group(f"x{CONSUMER_PROJECT}-app"))
    assert not may(role, "kafka-cluster:CreateTopic", CLUSTER.topic(ORDERS))
    assert not may(role, "kafka-cluster:AlterCluster", CLUSTER.arn)


def test_one_grant_costs_at_most_twelve_datazone_and_iam_calls_from_its_event_to_granted(access: AccessWorld):
    # Given a pending grant whose event is on the bus
    role = access.role("orders-reader")
    access.subscribe(access.consumer([role]), ORDERS)
    [event] = access.requested.drain()
    access.reset_calls()

    # When the function fulfils it
    result = access.run(event)

    # Then it read the grant, its listing, target and environment, the listing of grants and the role, and
    # wrote the policy and two statuses: 11 calls (grants/run.py), at most 12
    assert result["counts"]["granted"] == 1
    calls = access.calls()
    counted = {key: n for key, n in calls.items() if key.startswith(("datazone:", "iam:"))}
    print("one grant, event to GRANTED:", sum(counted.values()), "DataZone and IAM calls", dict(counted))
    assert sum(counted.values()) <= 12
    assert calls["datazone:UpdateSubscriptionGrantStatus"] == 2  # GRANT_IN_PROGRESS, GRANTED
    assert calls["iam:PutRolePolicy"] == 1


def test_a_revoke_takes_the_access_away(access: AccessWorld):
    # Given a role granted the orders topic
    role = access.role("orders-reader")
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)
    access.deliver()
    assert reads(role, ORDERS)

    # When the owner revokes the subscription and the revoke event reaches the function
    access_world.revoke(subscription)
    [result] = access.deliver()

    # Then the grant is REVOKED and the role may no longer read the topic, nor connect
    assert access.status(subscription) == "REVOKED"
    assert result["counts"]["revoked"] == 1
    assert result["revoked"][0]["grantId"] == grant
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(ORDERS))
    assert not may(role, "kafka-cluster:Connect", CLUSTER.arn)
    assert not may(role, "glue:GetSchemaVersion", "*")


def test_revoking_one_of_two_grants_to_a_role_keeps_the_other(access: AccessWorld):
    # Given one role granted two topics
    role = access.role("orders-reader")
    consumer = access.consumer([role])
    orders, _ = access.subscribe(consumer, ORDERS)
    customers, _ = access.subscribe(consumer, CUSTOMERS)
    # (the first event settles the role: both its pending grants; the second finds nothing left to do)
    assert [r["counts"]["granted"] for r in access.deliver()] == [2, 0]
    assert reads(role, ORDERS)
    assert reads(role, CUSTOMERS)

    # When the orders subscription is revoked
    access_world.revoke(orders)
    access.deliver()

    # Then orders is gone and customers stays, with the cluster and the groups it needs
    assert (access.status(orders), access.status(customers)) == ("REVOKED", "GRANTED")
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(ORDERS))
    assert reads(role, CUSTOMERS)


def test_access_two_projects_give_one_role_stays_until_both_are_revoked(access: AccessWorld):
    # Given two projects whose targets both name one role, each subscribed to the orders topic
    role = access.role("shared-reader")
    first, _ = access.subscribe(access.consumer([role]), ORDERS)
    second, _ = access.subscribe(access.consumer([role], project=OTHER_PROJECT), ORDERS)
    access.deliver()
    assert reads(role, ORDERS)
    assert reads(role, ORDERS, group=f"{OTHER_PROJECT}-app")

    # When the first project's subscription is revoked
    access_world.revoke(first)
    access.deliver()

    # Then the topic stays readable through the second project's groups; the first project's groups go
    assert (access.status(first), access.status(second)) == ("REVOKED", "GRANTED")
    assert reads(role, ORDERS, group=f"{OTHER_PROJECT}-app")
    assert not may(role, "kafka-cluster:AlterGroup", CLUSTER.group(f"{CONSUMER_PROJECT}-app"))

    # When the second is revoked too, then nothing is left
    access_world.revoke(second)
    access.deliver()
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(ORDERS))
    assert not may(role, "kafka-cluster:Connect", CLUSTER.arn)


@pytest.mark.parametrize("repeat_accepted", [True, False], ids=["repeat-accepted", "repeat-refused"])
def test_a_redelivered_event_writes_nothing(access: AccessWorld, repeat_accepted: bool):
    # Given a grant fulfilled from its event, under either reading of a repeated status report
    access.aws.set_readings(grant_status_repeat_accepted=repeat_accepted)
    role = access.role("orders-reader")
    access.subscribe(access.consumer([role]), ORDERS)
    [event] = access.requested.drain()
    access.run(event)
    access.reset_calls()

    # When EventBridge delivers the same event again
    result = access.run(event)

    # Then nothing is written: no IAM write, no status update, no lease
    assert access.writes() == {}
    assert access.calls()["ssm:PutParameter"] == 0
    assert result["counts"]["granted"] == 0
    assert result["failed"] == []


def test_another_domains_event_is_ignored_and_reported(access: AccessWorld):
    # Given a grant event of another domain (the fixture)
    event = load_event("access/subscription_grant_other_domain")
    access.reset_calls()

    # When it reaches the function
    result = access.run(event)

    # Then it is ignored, naming the domain, and nothing is read or written
    [ignored] = result["ignored"]
    assert event["detail"]["metadata"]["domain"] in ignored["reason"]
    assert sum(access.calls().values()) == 0


def test_a_dry_run_plans_the_pending_grant_and_writes_nothing(access: AccessWorld):
    # Given a pending grant
    role = access.role("orders-reader")
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)
    access.reset_calls()

    # When a dry reconciling run goes
    result = access.run({"dryRun": True})

    # Then it reports what it would do, and writes nothing
    assert result["dryRun"] is True
    assert {"grantId": grant, "status": "GRANTED"}.items() <= result["planned"][0].items()
    assert any(item.get("role") == role for item in result["planned"])
    assert access.writes() == {}
    assert access.calls()["ssm:PutParameter"] == 0
    assert access.status(subscription) == "GRANT_PENDING"
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(ORDERS))
    json.dumps(result)  # the result is JSON, as Lambda returns it
