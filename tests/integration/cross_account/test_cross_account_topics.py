"""A source in another account reads its cluster's topics through its reader role, like everything else about
that source (IAM mode: the source stack's synthesized role, the governance function's own role denied)."""

from __future__ import annotations

from kafka_lineage.sync.topics import TOPIC_FORM_TYPE
from tests.integration.cross_account.conftest import (
    CUSTOMERS,
    SOURCE_ACCOUNT,
    Accounts,
    cluster_arn,
    schema_arn,
    source,
)


def test_a_source_in_another_account_reads_its_topics_through_its_role(accounts: Accounts) -> None:
    # Given a registry and a cluster with topics in the source account, its reader role trusting the functions
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-7a2b")
    cluster = cluster_arn(SOURCE_ACCOUNT)
    accounts.aws.kafka.create_topic(
        cluster, CUSTOMERS, 8, 3, {"retention.ms": "-1", "cleanup.policy": "compact"}
    )
    accounts.aws.kafka.create_topic(cluster, "__consumer_offsets", 50, 3)
    accounts.aws.kafka.create_topic(cluster, "dbserver1.inventory.orders", 4, 3)
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS)
    accounts.configure(source(SOURCE_ACCOUNT, "ext-7a2b"))

    # When schema-sync runs in the governance account
    synced = accounts.sync()

    # Then the asset carries the topic as the source account's cluster has it, read under the source role
    assert (synced["created"], synced["failed"], synced["topicErrors"]) == (1, [], []), synced
    asset = accounts.assets()[schema_arn(SOURCE_ACCOUNT, "cdc", CUSTOMERS)]
    assert asset.forms[TOPIC_FORM_TYPE] == {
        "partitions": 8,
        "replication_factor": 3,
        "retention_ms": -1,
        "cleanup_policy": "compact",
    }
    assert accounts.aws.iam.denials == []
    # And the reports name the source by its key, the topic by its cluster in the source account
    assert synced["withoutSchema"] == [{"clusterArn": cluster, "topic": "dbserver1.inventory.orders"}]
    assert synced["withoutTopic"] == []

    # When partitions are added there, the next run revises the asset, still through the role
    accounts.aws.kafka.alter_topic(cluster, CUSTOMERS, partitions=16)
    again = accounts.sync()
    assert again["updated"] == 1, again
    asset = accounts.assets()[schema_arn(SOURCE_ACCOUNT, "cdc", CUSTOMERS)]
    assert asset.forms[TOPIC_FORM_TYPE]["partitions"] == 16
    assert accounts.aws.iam.denials == []
