"""Topics as the cluster has them, through the schema-sync handler on the stand-ins (IAM mode): the topic
form on creation, no-change runs that read only listings, a partition change, the reports, a listing that
fails."""

from __future__ import annotations

import pytest

from kafka_lineage.sync.topics import TOPIC_FORM_TYPE
from local import world
from tests.integration.sync.conftest import CdcWorld
from tests.integration.sync.test_schema_sync import PER_SCHEMA_READS, WRITE_OPERATIONS

HEARTBEAT = "__debezium-heartbeat.dbserver1"
NO_TOPIC = "inventory.parts$#v2"  # Glue allows $ and #, Kafka does not: this schema can have no topic
LONGEST = "dbserver1." + "x" * 239  # Kafka's 249-character maximum
NO_CHANGE_READS = {"glue:ListSchemas", "ssm:GetParametersByPath", "datazone:GetAssetType", "kafka:ListTopics"}


def form_of(cdc: CdcWorld, name: str) -> dict[str, object] | None:
    asset = {a.name: a for a in cdc.assets()}[name]
    found: dict[str, object] | None = asset.forms.get(TOPIC_FORM_TYPE)
    return found


@pytest.fixture
def topics(cdc: CdcWorld) -> CdcWorld:
    """Given a cluster with topics, weird names included, and schemas naming some of them."""
    kafka = cdc.aws.kafka
    kafka.create_topic(
        world.CLUSTER_ARN, "orders", 6, 3, {"retention.ms": "604800000", "cleanup.policy": "delete"}
    )
    kafka.create_topic(
        world.CLUSTER_ARN, HEARTBEAT, 1, 3, {"retention.ms": "-1", "cleanup.policy": "compact,delete"}
    )
    kafka.create_topic(world.CLUSTER_ARN, LONGEST, 2, 2)
    kafka.create_topic(world.CLUSTER_ARN, "__consumer_offsets", 50, 3, {"cleanup.policy": "compact"})
    kafka.create_topic(world.CLUSTER_ARN, "unmirrored.a-b_c", 1, 1)
    for name in ("orders", HEARTBEAT, LONGEST, NO_TOPIC):
        cdc.register(name)
    return cdc


@pytest.mark.parametrize("encoding", ["properties", "json"])
def test_creation_carries_the_topic_and_a_no_change_run_only_lists(topics: CdcWorld, encoding: str) -> None:
    cdc = topics
    cdc.aws.set_readings(topic_configs_encoding=encoding)

    # When the first sync runs
    result = cdc.sync()

    # Then each asset carries its topic as the cluster has it, odd configs as Kafka means them
    assert (result["created"], result["failed"]) == (4, [])
    assert form_of(cdc, "orders") == {
        "partitions": 6,
        "replication_factor": 3,
        "retention_ms": 604800000,
        "cleanup_policy": "delete",
    }
    assert form_of(cdc, HEARTBEAT) == {
        "partitions": 1,
        "replication_factor": 3,
        "retention_ms": -1,
        "cleanup_policy": "compact,delete",
    }
    assert form_of(cdc, LONGEST) == {"partitions": 2, "replication_factor": 2}
    # And a schema whose topic the cluster does not list has no topic form, and is reported
    assert form_of(cdc, NO_TOPIC) is None
    assert result["withoutTopic"] == [{"registryName": "cdc", "topic": NO_TOPIC}]
    # And the topic no schema names is reported, Kafka's internal topic is not
    assert result["withoutSchema"] == [{"clusterArn": world.CLUSTER_ARN, "topic": "unmirrored.a-b_c"}]
    assert result["topicErrors"] == []

    # When the sync runs again with nothing changed
    cdc.reset_calls()
    again = cdc.sync()

    # Then it made one listing of the cluster's topics, no DescribeTopic, and wrote nothing
    calls = cdc.calls()
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 4)
    assert calls["kafka:ListTopics"] == 1
    assert not WRITE_OPERATIONS & set(calls), calls
    assert not PER_SCHEMA_READS & set(calls), calls
    assert set(calls) <= NO_CHANGE_READS, calls
    # And it reports the same, deleting nothing for it
    assert again["withoutTopic"] == result["withoutTopic"]
    assert again["withoutSchema"] == result["withoutSchema"]
    assert len(cdc.assets()) == 4


def test_a_no_change_run_lists_topics_a_page_per_100(cdc: CdcWorld) -> None:
    # Given a cluster of 250 topics and one mirrored schema
    for n in range(250):
        cdc.aws.kafka.create_topic(world.CLUSTER_ARN, f"t{n:03}.x-y_z", 1, 3)
    cdc.register("t000.x-y_z")
    first = cdc.sync()
    assert first["withoutSchemaTotal"] == 249

    # When nothing changed, then three ListTopics pages and nothing else of MSK
    cdc.reset_calls()
    cdc.sync()
    kafka = cdc.aws.call_counts("kafka")
    assert kafka == {"kafka:ListTopics": 3}, kafka


def test_a_partition_change_revises_the_asset_once_and_reads_its_configs(topics: CdcWorld) -> None:
    cdc = topics
    cdc.sync()
    cdc.events.drain()
    # Given partitions added to a topic, and its retention changed
    cdc.aws.kafka.alter_topic(
        world.CLUSTER_ARN, "orders", partitions=12, configs={"retention.ms": "86400000"}
    )

    # When the hourly sync runs
    cdc.reset_calls()
    result = cdc.sync()

    # Then that asset alone is revised, its configs read again with the listing's move
    assert (result["updated"], result["unchanged"], result["failed"]) == (1, 3, []), result
    assert cdc.calls()["kafka:DescribeTopic"] == 1
    assert form_of(cdc, "orders") == {
        "partitions": 12,
        "replication_factor": 3,
        "retention_ms": 86400000,
        "cleanup_policy": "delete",
    }
    assert [(e["topic"], e["change"]) for e in cdc.events.drain()] == [("orders", "revised")]
    # And the next run writes nothing
    cdc.reset_calls()
    assert cdc.sync()["updated"] == 0
    assert not WRITE_OPERATIONS & set(cdc.calls())


def test_a_config_change_alone_waits_for_verify(topics: CdcWorld) -> None:
    cdc = topics
    cdc.sync()
    # Given a retention change, which no listing shows
    cdc.aws.kafka.alter_topic(world.CLUSTER_ARN, HEARTBEAT, configs={"retention.ms": "3600000"})

    # Then the hourly run does not see it, and verify does, describing every listed topic
    assert cdc.sync()["updated"] == 0
    cdc.reset_calls()
    result = cdc.sync({"verify": True})
    assert result["updated"] == 1
    assert cdc.calls()["kafka:DescribeTopic"] == 3  # the three mirrored topics the cluster lists
    form = form_of(cdc, HEARTBEAT)
    assert form is not None
    assert form["retention_ms"] == 3600000


def test_a_listing_that_fails_is_reported_and_changes_nothing(topics: CdcWorld) -> None:
    cdc = topics
    cdc.sync()
    before = {a.name: (a.id, a.revision, a.forms.get(TOPIC_FORM_TYPE)) for a in cdc.assets()}
    # Given the role may no longer list the cluster's topics, and a partition count that moved meanwhile
    cdc.aws.iam.revoke("schema-sync", "kafka:ListTopics")
    cdc.aws.kafka.alter_topic(world.CLUSTER_ARN, "orders", partitions=24)

    # When the sync runs, verify included: it does not raise, and fails or deletes nothing
    for event in ({}, {"verify": True}):
        result = cdc.sync(event)
        assert (result["failed"], result["deleted"], result["updated"]) == ([], 0, 0), result
        [error] = result["topicErrors"]
        assert error["clusterArn"] == world.CLUSTER_ARN
        assert "kafka:ListTopics" in error["error"]
        # nothing is reported from a listing the run does not have
        assert (result["withoutTopic"], result["withoutSchema"]) == ([], [])

    # Then every asset keeps the properties last known
    after = {a.name: (a.id, a.revision, a.forms.get(TOPIC_FORM_TYPE)) for a in cdc.assets()}
    assert after == before


def test_a_new_schema_while_the_listing_fails_gets_its_topic_form_once_the_listing_works(
    topics: CdcWorld,
) -> None:
    cdc = topics
    cdc.sync()
    cdc.aws.iam.revoke("schema-sync", "kafka:ListTopics")
    cdc.aws.kafka.create_topic(world.CLUSTER_ARN, "fresh", 3, 3, {"cleanup.policy": "compact"})
    cdc.register("fresh")
    assert cdc.sync()["created"] == 1
    assert form_of(cdc, "fresh") is None

    # When the listing works again, the hourly run sees the topic appear
    cdc.aws.iam.revoked.clear()
    result = cdc.sync()
    assert result["updated"] == 1
    assert form_of(cdc, "fresh") == {"partitions": 3, "replication_factor": 3, "cleanup_policy": "compact"}
