"""MSK's topic APIs on the stand-in (moto has none): ListTopics and DescribeTopic through boto3, topics made
as Kafka makes them (its name rules), Configs base64-encoded under either reading of AWS's silence."""

from __future__ import annotations

import base64
import json

import boto3
import pytest
from botocore.exceptions import ClientError

from local.standins import LocalAws

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
OTHER_ACCOUNT_CLUSTER = (
    "arn:aws:kafka:eu-west-1:444455556666:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
)
IAM = "b-1.cdc.abc123.c2.kafka.eu-west-1.amazonaws.com:9098"
LONGEST = "a" * 249


@pytest.fixture
def cluster(local_aws: LocalAws) -> LocalAws:
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam=IAM)
    return local_aws


@pytest.mark.parametrize(
    "name", ["__consumer_offsets", "__debezium-heartbeat.dbserver1", "a-b_c.D9", LONGEST], ids=len
)
def test_kafkas_legal_names_make_topics(cluster: LocalAws, name: str) -> None:
    arn = cluster.kafka.create_topic(CLUSTER_ARN, name, 3, 2)
    assert arn == CLUSTER_ARN.replace(":cluster/", ":topic/") + f"/{name}"


@pytest.mark.parametrize("name", ["inventory.parts$#v2", "a b", "a" * 250, "", ".", "..", "ümlaut"])
def test_names_kafka_refuses_are_refused(cluster: LocalAws, name: str) -> None:
    with pytest.raises(ValueError, match="not a legal Kafka topic name"):
        cluster.kafka.create_topic(CLUSTER_ARN, name)


def test_list_topics_pages_in_name_order_and_filters_by_prefix(cluster: LocalAws) -> None:
    # Given 25 topics
    for n in range(25):
        cluster.kafka.create_topic(CLUSTER_ARN, f"t{n:02}", n + 1, 3)
    kafka = boto3.client("kafka")

    # When boto3's paginator lists them 10 a page
    pages = list(
        kafka.get_paginator("list_topics").paginate(ClusterArn=CLUSTER_ARN, PaginationConfig={"PageSize": 10})
    )

    # Then three pages hold every topic once, with its partitions and replication factor
    assert [len(page["Topics"]) for page in pages] == [10, 10, 5]
    rows = [row for page in pages for row in page["Topics"]]
    assert [row["TopicName"] for row in rows] == [f"t{n:02}" for n in range(25)]
    assert rows[4]["PartitionCount"] == 5
    assert rows[4]["ReplicationFactor"] == 3
    # And TopicNameFilter keeps the names starting with it
    filtered = kafka.list_topics(ClusterArn=CLUSTER_ARN, TopicNameFilter="t1")["Topics"]
    assert [row["TopicName"] for row in filtered] == [f"t1{n}" for n in range(10)]
    # And MaxResults stays within the model's 1-100
    with pytest.raises(ClientError):
        kafka.list_topics(ClusterArn=CLUSTER_ARN, MaxResults=101)


@pytest.mark.parametrize("encoding", ["properties", "json"])
def test_describe_topic_answers_its_configs_base64_encoded(cluster: LocalAws, encoding: str) -> None:
    cluster.set_readings(topic_configs_encoding=encoding)
    cluster.kafka.create_topic(
        CLUSTER_ARN, LONGEST, 6, 3, {"retention.ms": "-1", "cleanup.policy": "compact,delete"}
    )

    answer = boto3.client("kafka").describe_topic(ClusterArn=CLUSTER_ARN, TopicName=LONGEST)

    assert (answer["PartitionCount"], answer["ReplicationFactor"], answer["Status"]) == (6, 3, "ACTIVE")
    text = base64.b64decode(answer["Configs"]).decode()
    if encoding == "json":
        assert json.loads(text) == {"retention.ms": "-1", "cleanup.policy": "compact,delete"}
    else:
        assert text == "cleanup.policy=compact,delete\nretention.ms=-1\n"


def test_a_topic_or_cluster_not_there_is_not_found(cluster: LocalAws) -> None:
    kafka = boto3.client("kafka")
    for call in (
        lambda: kafka.describe_topic(ClusterArn=CLUSTER_ARN, TopicName="missing"),
        lambda: kafka.list_topics(ClusterArn=CLUSTER_ARN.replace("cdc/", "gone/")),
        # a cluster is found only in its own account
        lambda: kafka.list_topics(ClusterArn=OTHER_ACCOUNT_CLUSTER),
    ):
        with pytest.raises(ClientError) as raised:
            call()
        assert raised.value.response["Error"]["Code"] == "NotFoundException"


def test_partitions_only_grow_and_configs_change(cluster: LocalAws) -> None:
    cluster.kafka.create_topic(CLUSTER_ARN, "orders", 3, 3)
    with pytest.raises(ValueError, match="only adds"):
        cluster.kafka.alter_topic(CLUSTER_ARN, "orders", partitions=2)
    cluster.kafka.alter_topic(CLUSTER_ARN, "orders", partitions=6, configs={"retention.ms": "1000"})
    answer = boto3.client("kafka").describe_topic(ClusterArn=CLUSTER_ARN, TopicName="orders")
    assert answer["PartitionCount"] == 6
    assert base64.b64decode(answer["Configs"]).decode() == "retention.ms=1000\n"
