"""The consumer groups of a source in another account, in IAM mode: MSK publishes the lag metrics in the
cluster's account, so lineage lists them there, through the source's reader role."""

from __future__ import annotations

from local import demo_consumers, world
from tests.integration.cross_account.conftest import (
    CUSTOMERS,
    ROLE_NAME,
    SOURCE_ACCOUNT,
    Accounts,
    cluster_arn,
    source,
)


def test_a_source_accounts_groups_are_listed_through_its_role(accounts: Accounts) -> None:
    # Given a source account whose cluster a service reads, and, in the governance account, a cluster of the
    # same name read by another group (its metrics are that account's, not the source's)
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS)
    accounts.table(SOURCE_ACCOUNT, "customers", "id", "name")
    accounts.configure(source(SOURCE_ACCOUNT, "ext-4c1d9e"))
    accounts.sync()
    there = accounts.aws.client("cloudwatch", account=SOURCE_ACCOUNT)
    demo_consumers.lag(there, cluster_arn(SOURCE_ACCOUNT), "crm-service", CUSTOMERS)
    here = accounts.aws.client("cloudwatch", account=world.ACCOUNT)
    demo_consumers.lag(here, world.CLUSTER_ARN, "governance-local", CUSTOMERS)

    # When lineage runs in the governance account
    emitted = accounts.emit()

    # Then the source account's group is drawn, read through the source role, and nothing was denied
    assert accounts.aws.iam.denials == []
    readers = [
        (e["registryName"], e["consumerGroup"], e["clusterArn"])
        for e in emitted["emissions"]
        if "consumerGroup" in e
    ]
    assert readers == [(f"{SOURCE_ACCOUNT}:cdc", "crm-service", cluster_arn(SOURCE_ACCOUNT))]
    assert accounts.aws.iam.allowed[f"{ROLE_NAME} cloudwatch:ListMetrics"] == 1
    assert emitted["failed"] == []
