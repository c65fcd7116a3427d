"""A status never says more than IAM does, on the stand-ins (moto's IAM, the function under its synthesized
role): a revoke whose role cannot be read or is no longer admitted ends REVOKE_FAILED while the role can
still read, and the reconciling run finishes it once it can; access whose grant or subscription target is
gone is found from this stack's policies and removed; consumer-group values that could overlap are refused;
throttling that outlasts the retries leaves the grant for the reconciling run."""

from __future__ import annotations

import boto3
import pytest

from local import access_world, world
from subscription_grants.handler import GrantsFailed
from tests.integration.access.conftest import CUSTOMERS, ORDERS, OTHER_PROJECT, AccessWorld, reads
from tests.integration.access.test_grant_cross_account import ACCOUNT_ROLE, EXTERNAL_ID, consumer_account

# The call layer's attempts for one call (botocore standard mode, max_attempts 8: 9 in all).
ATTEMPTS = 9


def _domain(access: AccessWorld):  # the stand-in's state, to delete what DataZone's API here cannot
    return access.aws.datazone._store.domain(world.DOMAIN_ID)


def test_a_revoke_of_a_role_no_longer_admitted_is_revoke_failed_while_the_role_can_read(access: AccessWorld):
    # Given a role granted the orders topic
    role = access.role("orders-reader")
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)
    access.deliver()
    assert reads(role, ORDERS)
    # ... and consumerRoles narrowed so that it no longer admits the role (the stack redeployed with it)
    access.configure(consumerRoles=["arn:aws:iam::*:role/analytics/other-*"])

    # When the owner revokes the subscription and the event reaches the function
    access_world.revoke(subscription)
    [result] = access.deliver()

    # Then the revoke is REVOKE_FAILED, its cause naming the setting, and the role can in truth still read
    assert access.status(subscription) == "REVOKE_FAILED"
    assert "access.consumerRoles" in access.failure(grant)
    assert result["counts"]["revoked"] == 0
    assert reads(role, ORDERS)

    # When the role is admitted again and the reconciling run goes
    access.configure()
    again = access.run({})

    # Then the access is gone and only now the revoke is REVOKED
    assert access.status(subscription) == "REVOKED"
    assert again["counts"]["revoked"] == 1
    assert not reads(role, ORDERS)


def test_a_revoke_whose_consumer_account_role_cannot_be_assumed_is_revoke_failed_then_retried(
    access: AccessWorld,
):
    # Given a role in a consumer account granted the orders topic through that account's role
    access.configure(
        consumerAccountRole=f"arn:aws:iam::{{account}}:role/{ACCOUNT_ROLE}", externalId=EXTERNAL_ID
    )
    role = consumer_account(access)
    subscription, grant = access.subscribe(
        access.consumer([role], account=access_world_consumer_account()), ORDERS
    )
    access.deliver()
    assert access.status(subscription) == "GRANTED"
    assert reads(role, ORDERS)
    # ... and then a consumerAccountRole that cannot be assumed (a role that does not exist there)
    access.configure(consumerAccountRole="arn:aws:iam::{account}:role/Missing", externalId=EXTERNAL_ID)

    # When the subscription is revoked
    access_world.revoke(subscription)
    access.deliver()

    # Then the revoke fails with a cause naming the role that cannot be assumed; the role can still read
    assert access.status(subscription) == "REVOKE_FAILED"
    assert "cannot assume role arn:aws:iam::444455556666:role/Missing" in access.failure(grant)
    assert reads(role, ORDERS)

    # When the role can be assumed again, the reconciling run takes the access away and says REVOKED
    access.configure(
        consumerAccountRole=f"arn:aws:iam::{{account}}:role/{ACCOUNT_ROLE}", externalId=EXTERNAL_ID
    )
    access.run({})
    assert access.status(subscription) == "REVOKED"
    assert not reads(role, ORDERS)


def access_world_consumer_account() -> str:
    from tests.integration.access.test_grant_cross_account import CONSUMER_ACCOUNT

    return CONSUMER_ACCOUNT


def test_access_whose_subscription_target_was_deleted_is_removed_by_the_reconciling_run(access: AccessWorld):
    # Given a role granted the orders topic, whose subscription target is then deleted
    role = access.role("orders-reader")
    consumer = access.consumer([role])
    subscription, _ = access.subscribe(consumer, ORDERS)
    access.deliver()
    assert reads(role, ORDERS)
    del _domain(access).subscription_targets[consumer.target_id]

    # When the reconciling run goes
    result = access.run({})

    # Then the role, found from this stack's policy, loses the access no standing grant gives
    assert not reads(role, ORDERS)
    assert boto3.client("iam").list_role_policies(RoleName="orders-reader")["PolicyNames"] == []
    assert result["counts"]["writes"] >= 1
    assert access.status(subscription) == "GRANTED"  # DataZone's to change: the target is gone


def test_a_revoke_whose_subscription_target_was_deleted_is_never_said_revoked(access: AccessWorld):
    # Given a granted role, a revoke asked, and the subscription target deleted before it is handled
    role = access.role("orders-reader")
    consumer = access.consumer([role])
    subscription, grant = access.subscribe(consumer, ORDERS)
    access.deliver()
    access_world.revoke(subscription)
    access.revoking.drain()
    del _domain(access).subscription_targets[consumer.target_id]

    # When the reconciling run goes
    access.run({})

    # Then the role's access is removed (found from the policy), and the revoke, whose roles the grant can no
    # longer name, is REVOKE_FAILED with why rather than REVOKED
    assert not reads(role, ORDERS)
    assert access.status(subscription) == "REVOKE_FAILED"
    assert "cannot tell which roles" in access.failure(grant)


def test_access_whose_grant_record_was_deleted_is_removed_by_the_reconciling_run(access: AccessWorld):
    # Given a role granted orders by its one grant, and another role granted customers; the first grant is
    # then deleted from DataZone, so that no grant names its role any more
    role = access.role("orders-reader")
    other = access.role("customers-reader")
    _, orders = access.subscribe(access.consumer([role]), ORDERS)
    customers, _ = access.subscribe(access.consumer([other], project=OTHER_PROJECT), CUSTOMERS)
    access.deliver()
    assert reads(role, ORDERS)
    del _domain(access).subscription_grants[orders]

    # When the reconciling run goes
    access.run({})

    # Then the role, found from this stack's policy, loses the access; the other grant stays
    assert not reads(role, ORDERS)
    assert reads(other, CUSTOMERS, group=f"{OTHER_PROJECT}-app")
    assert access.status(customers) == "GRANTED"
    # ... and a second run writes nothing more
    access.reset_calls()
    access.run({})
    assert access.writes() == {}


def test_a_role_no_longer_admitted_holding_our_policies_is_reported_with_how_to_clean_it(access: AccessWorld):
    # Given a role granted a topic, and consumerRoles then narrowed past it
    role = access.role("orders-reader")
    access.subscribe(access.consumer([role]), ORDERS)
    access.deliver()
    access.configure(consumerRoles=["arn:aws:iam::*:role/analytics/other-*"])

    # When the reconciling run goes
    result = access.run({})

    # Then the role is reported as left behind, with the commands that clean it; nothing was written to it
    [left] = [item for item in result["withheld"] if item["resource"] == role and "clean" in item]
    assert "access.consumerRoles" in left["cause"]
    assert any("aws iam delete-role-policy --role-name orders-reader" in c for c in left["clean"])
    assert reads(role, ORDERS)


def test_a_grant_whose_role_name_holds_the_separator_of_its_placeholder_is_refused(access: AccessWorld):
    # Given the template {roleName}-* and a role etl-prod, whose groups etl-* (another role's) would cover
    access.configure(consumerGroups=["{roleName}-*"])
    role = access.role("etl-prod")
    subscription, grant = access.subscribe(access.consumer([role]), ORDERS)

    # When the grant event reaches the function
    access.deliver()

    # Then it fails, saying why, and nothing is written for the role
    assert access.status(subscription) == "GRANT_FAILED"
    cause = access.failure(grant)
    assert "'etl-prod' contains '-'" in cause
    assert "access.consumerGroups" in cause
    assert not reads(role, ORDERS, group="etl-prod-app")


@pytest.mark.parametrize(
    ("service", "operation"),
    [
        ("datazone", "GetSubscriptionGrant"),
        ("iam", "GetRole"),
        ("sts", "AssumeRole"),
        ("kafka", "GetClusterPolicy"),
    ],
)
def test_throttling_on_each_services_first_call_never_fails_the_grant(
    access: AccessWorld, service: str, operation: str
):
    # Given a grant to a role in a consumer account (so STS and the cluster policy take part)
    access.configure(
        consumerAccountRole=f"arn:aws:iam::{{account}}:role/{ACCOUNT_ROLE}", externalId=EXTERNAL_ID
    )
    role = consumer_account(access)
    subscription, _ = access.subscribe(
        access.consumer([role], account=access_world_consumer_account()), ORDERS
    )
    [event] = access.requested.drain()
    # ... and the service throttling every attempt of the function's first call of it
    access.aws.faults.add(service, operation, kind="throttle", times=ATTEMPTS)

    # When the event reaches the function: the throttling outlasts the call layer's retries
    with pytest.raises(GrantsFailed) as raised:
        access.run(event)

    # Then the grant is not failed: it is left for the reconciling run, and reported as transient
    assert access.status(subscription) in ("GRANT_PENDING", "GRANT_IN_PROGRESS")
    assert '"errors"' in str(raised.value)
    # And the reconciling run, the throttling gone, grants it
    access.run({})
    assert access.status(subscription) == "GRANTED"
    assert reads(role, ORDERS)
