"""Consumer groups -> consumer edges (pure): which pairs are drawn, which are folded into a connector's
path, what the `consumers` setting leaves out, and a cluster that could not be listed."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from kafka_lineage.aws.consumer_groups import cluster_name, group_read
from kafka_lineage.config import Source
from kafka_lineage.consumers import connector_groups, derive, job_namespace
from kafka_lineage.model.connectors import ConnectorConfig, ConnectorNote, Derivation, SinkEdge
from kafka_lineage.model.consumers import ConsumerEdge, ConsumerReads, FoldedGroup, GroupRead
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

CLUSTER = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
OTHER = "arn:aws:kafka:eu-west-1:123456789012:cluster/other/11111111-2222-3333-4444-555555555555-1"
ORDERS = "dbserver1.inventory.orders"
KEY = TopicKey("cdc", ORDERS)
ICEBERG = "io.tabular.iceberg.connect.IcebergSinkConnector"


def source(**extra: Any) -> Source:
    return Source.model_validate({"registryName": "cdc", "clusterArn": CLUSTER, **extra})


def reads(*pairs: tuple[str, str], cluster: str = CLUSTER, **extra: Any) -> ConsumerReads:
    return ConsumerReads(tuple(GroupRead(cluster, group, topic) for group, topic in pairs), **extra)


def connector(name: str, **config: str) -> ConnectorConfig:
    return ConnectorConfig(
        name=name,
        arn=f"arn:aws:kafkaconnect:eu-west-1:123456789012:connector/{name}/abc",
        cluster_name="cdc",
        bootstrap_servers=("b-1.cdc:9098",),
        state="RUNNING",
        connector_class=ICEBERG,
        config={"connector.class": ICEBERG, **config},
        cluster_arn=CLUSTER,
    )


def sink(name: str, key: TopicKey = KEY) -> SinkEdge:
    return SinkEdge(key, TableRef("lakehouse", "orders"), name, f"arn:{name}", "kafka-connect://cdc", name)


def test_each_group_of_a_mirrored_topic_is_one_edge_and_other_topics_and_clusters_are_not() -> None:
    # Given the lag metrics name two groups on the orders topic, one on an unmirrored topic, and a group
    # of another cluster on a topic of the same name
    found = reads(("order-service", ORDERS), ("shipping", ORDERS), ("order-service", "not.mirrored"))
    other = reads(("elsewhere", ORDERS), cluster=OTHER)
    both = ConsumerReads(found.pairs + other.pairs)
    # When derived for the mirrored topics
    derived = derive(both, [KEY], [source()])
    # Then each group of the mirrored topic on the source's cluster is an edge
    assert derived.edges == (
        ConsumerEdge(KEY, "order-service", CLUSTER),
        ConsumerEdge(KEY, "shipping", CLUSTER),
    )
    assert derived.edges[0].origin == "consumer:order-service"
    assert derived.readers_of(KEY) == (("order-service", CLUSTER), ("shipping", CLUSTER))
    assert (derived.folded, derived.unknown) == ((), frozenset())


def test_a_sink_connectors_groups_are_folded_into_its_path_only_where_it_draws_the_topic() -> None:
    # Given two connectors: one consuming as connect-<name>, one overriding its group id; and a third
    # connector with no edge or note on the topic
    connectors = [
        connector("lakehouse-sink"),
        connector("archive-sink", **{"consumer.override.group.id": " archive-writer "}),
        connector("s3-sink"),
    ]
    drawn = connector_groups(
        connectors,
        Derivation(
            sinks=(sink("lakehouse-sink"),),
            notes=(ConnectorNote("ambiguous", "archive-sink", "routed", KEY),),
        ),
    )
    found = reads(
        ("connect-lakehouse-sink", ORDERS),
        ("archive-writer", ORDERS),
        ("connect-archive-sink", ORDERS),  # the default name of a connector that overrides it: also its own
        ("connect-s3-sink", ORDERS),
    )
    # When derived
    derived = derive(found, [KEY], [source()], drawn)
    # Then the groups of connectors that draw (or report) the topic are folded, the third is a reader
    assert derived.edges == (ConsumerEdge(KEY, "connect-s3-sink", CLUSTER),)
    assert derived.folded == (
        FoldedGroup(KEY, "archive-writer", "connector:archive-sink", CLUSTER),
        FoldedGroup(KEY, "connect-archive-sink", "connector:archive-sink", CLUSTER),
        FoldedGroup(KEY, "connect-lakehouse-sink", "connector:lakehouse-sink", CLUSTER),
    )
    # And folded groups still read the topic: drift names them
    assert ("connect-lakehouse-sink", CLUSTER) in derived.readers_of(KEY)


def test_a_deleting_connector_folds_nothing_and_a_delivery_paths_edges_fold_nothing() -> None:
    deleting = connector("lakehouse-sink")
    deleting = ConnectorConfig(**{**deleting.__dict__, "state": "DELETING"})
    firehose = SinkEdge(
        KEY, TableRef("lake", "orders"), "raw", "arn:s", "firehose://x", "raw", via="firehose:raw"
    )
    drawn = connector_groups([deleting], Derivation(sinks=(sink("lakehouse-sink"), firehose)))
    assert drawn == {}


@pytest.mark.parametrize(
    ("setting", "drawn"),
    [
        ({}, ["billing", "firehose-orders", "order-service"]),
        ({"consumers": {"include": ["order-*", "billing"]}}, ["billing", "order-service"]),
        ({"consumers": {"exclude": ["firehose-*"]}}, ["billing", "order-service"]),
        ({"consumers": {"include": ["order-*"], "exclude": ["order-service"]}}, []),
        ({"consumers": "off"}, []),
    ],
)
def test_the_consumers_setting_filters_groups_by_name(setting: dict[str, Any], drawn: list[str]) -> None:
    found = reads(("order-service", ORDERS), ("billing", ORDERS), ("firehose-orders", ORDERS))
    derived = derive(found, [KEY], [source(**setting)])
    assert [edge.group for edge in derived.edges] == drawn


def test_the_setting_refuses_what_is_not_off_or_a_filter() -> None:
    for bad in ("on", ["order-service"], {"include": [""]}, {"include": [" padded"]}, {"only": ["x"]}):
        with pytest.raises(ValidationError, match="consumers"):
            source(consumers=bad)
    assert source(consumers={"include": ["g" * 1024]}).reads_group("g" * 1024)


def test_a_cluster_that_could_not_be_listed_leaves_its_sources_groups_unknown() -> None:
    failed = reads(unread=(CLUSTER,), errors=("ListMetrics x: InternalFailure",))
    derived = derive(failed, [KEY], [source(), source(registryName="other", consumers="off")])
    assert derived.edges == ()
    assert derived.keeps(KEY)
    assert not derived.keeps(TopicKey("other", ORDERS))
    assert derived.errors == ("ListMetrics x: InternalFailure",)


@pytest.mark.parametrize(
    "group",
    ["svc$prod#1.orders-v_2", "a@b|c>d<e/f", "g" * 1024, "__consumer_offsets-reader", "Ünïcode"],
)
def test_weird_group_names_are_kept_verbatim(group: str) -> None:
    # (MSK publishes no lag metrics for a group with ':' or non-ASCII characters; were one listed, it is
    # still drawn as named)
    derived = derive(reads((group, ORDERS)), [KEY], [source()])
    assert derived.edges == (ConsumerEdge(KEY, group, CLUSTER),)


def test_weird_topic_names_and_a_source_read_through_a_role() -> None:
    role = "arn:aws:iam::123456789012:role/reader"
    heartbeat, long = "__debezium-heartbeat.dbserver1", "t" * 255
    keyed = source(roleArn=role, externalId="shared-secret-1")
    keys = [TopicKey(keyed.key, heartbeat), TopicKey(keyed.key, long)]
    derived = derive(reads(("svc", heartbeat), ("svc", long)), keys, [keyed])
    assert [edge.key for edge in derived.edges] == sorted(keys)
    assert keyed.key.startswith("123456789012:")


def test_what_a_listed_metric_says() -> None:
    # Given a SumOffsetLag metric as ListMetrics lists it, and one lacking a dimension
    metric = {
        "Namespace": "AWS/Kafka",
        "MetricName": "SumOffsetLag",
        "Dimensions": [
            {"Name": "Cluster Name", "Value": "cdc"},
            {"Name": "Consumer Group", "Value": "order-service"},
            {"Name": "Topic", "Value": ORDERS},
        ],
    }
    assert group_read(CLUSTER, metric) == GroupRead(CLUSTER, "order-service", ORDERS)
    assert group_read(CLUSTER, {**metric, "Dimensions": metric["Dimensions"][:2]}) is None
    assert cluster_name(CLUSTER) == "cdc"
    assert job_namespace(CLUSTER) == "kafka-consumer://cdc"
