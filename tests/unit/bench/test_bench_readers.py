"""The readers world of issue 28 (the cluster's topics, three consumer groups a topic) and its targets: a
no-change resync's ListTopics and DescribeTopic, a no-change lineage rerun's ListMetrics and posts, and the
lineage first run's efficiency with consumer groups."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config

from bench import readers, report, seed
from bench.readers import ReadersWorld
from bench.report import PROJECT, Measurement
from kafka_lineage.aws.consumer_groups import ConsumerGroups
from kafka_lineage.aws.topics import ClusterTopics
from kafka_lineage.config import Source
from local import world
from local.standins import LocalAws

CLUSTER = world.CLUSTER_ARN
OTHER = "arn:aws:kafka:eu-west-1:123456789012:cluster/other/0000-1111"
LONG = f"{seed.SERVER}.archive.00149." + "x" * (seed.NAME_MAX - len(f"{seed.SERVER}.archive.00149."))
TOPICS = [
    seed.Topic("dbserver1.shop01.orders_00001", "AVRO", 8, "shop01"),
    seed.Topic("dbserver1.shop02.stock_00002", "JSON", 6, "shop02"),
    seed.Topic("__debezium-heartbeat.dbserver1-00049", "AVRO", 5, ""),
    seed.Topic("legacy$billing#00099.v1", "AVRO", 5, ""),
    seed.Topic(LONG, "PROTOBUF", 5, ""),
    seed.Topic("-_items.#00199$", "AVRO", 5, ""),
]


def run(scenario: str, calls: dict[str, int], wall: float = 1.0, **extra: Any) -> Measurement:
    return Measurement(scenario, PROJECT, 100, wall, calls, ok_calls=dict(calls), **extra)


def test_the_cluster_holds_a_topic_per_schema_kafka_can_name_and_the_topics_no_schema_names() -> None:
    made = {topic.name: topic for topic in readers.cluster_topics(TOPICS)}

    # The table topics and the heartbeat; `$`, `#` and 255 characters are not Kafka topic names
    assert {"dbserver1.shop01.orders_00001", "dbserver1.shop02.stock_00002"} <= set(made)
    assert "__debezium-heartbeat.dbserver1-00049" in made
    assert not {"legacy$billing#00099.v1", LONG, "-_items.#00199$"} & set(made)
    assert made["__debezium-heartbeat.dbserver1-00049"].configs["cleanup.policy"] == "compact,delete"
    assert made["dbserver1.shop01.orders_00001"].partitions == 6
    # Kafka's own offsets topic and the others no schema names
    assert {"__consumer_offsets", "connect-offsets", "schema-changes.dbserver1"} <= set(made)
    assert len(made) == 3 + len(readers.WITHOUT_SCHEMA)


def test_three_groups_read_each_topic_under_names_msk_publishes_lag_for() -> None:
    pairs = readers.lag_pairs(TOPICS)

    assert len(pairs) == 3 * 3  # three groups for each of the three topics on the cluster
    assert set(readers.groups_of(TOPICS[0])) == {"orders-service", "analytics-shop01", "audit-archiver"}
    for group, _ in pairs:
        assert ":" not in group
        assert group.isascii()
    assert {topic for _, topic in pairs} == {t.name for t in TOPICS[:3]}


@pytest.mark.parametrize(
    ("topics", "pairs", "list_topics", "list_metrics"),
    [
        ({CLUSTER: 100}, {CLUSTER: 500}, 1, 1),
        ({CLUSTER: 101}, {CLUSTER: 501}, 2, 2),
        ({CLUSTER: 1006}, {CLUSTER: 2970}, 11, 6),
        ({CLUSTER: 0}, {CLUSTER: 0}, 1, 1),  # an empty cluster still costs its one call
        ({CLUSTER: 150, OTHER: 20}, {CLUSTER: 450, OTHER: 60}, 3, 2),  # each cluster its own pages
    ],
)
def test_the_allowed_pages_are_one_per_100_topics_and_per_500_lag_pairs_of_each_cluster(
    topics: dict[str, int], pairs: dict[str, int], list_topics: int, list_metrics: int
) -> None:
    found = ReadersWorld(topics, pairs)

    assert found.list_topics_allowed == list_topics
    assert found.list_metrics_allowed == list_metrics


WORLD = ReadersWorld({CLUSTER: 105}, {CLUSTER: 297}, 1)


@pytest.mark.parametrize(
    ("calls", "met"),
    [
        ({"kafka:ListTopics": 2, "glue:ListSchemas": 1}, True),
        ({"kafka:ListTopics": 3}, False),  # a page too many: listed twice, or at smaller pages
        ({"kafka:ListTopics": 2, "kafka:DescribeTopic": 1}, False),  # a no-change run describes nothing
    ],
)
def test_a_no_change_resync_lists_each_clusters_topics_once_and_describes_none(
    calls: dict[str, int], met: bool
) -> None:
    facts = report.summary([run("resync_no_change", calls)], readers=WORLD)

    reads = facts["no_change_topic_reads"]
    assert reads["list_topics"] == calls["kafka:ListTopics"]
    assert reads["list_topics_allowed"] == 2
    assert reads["describe_topic"] == calls.get("kafka:DescribeTopic", 0)
    assert reads["target_met"] is met


@pytest.mark.parametrize(
    ("calls", "met"),
    [
        ({"cloudwatch:ListMetrics": 1, "ssm:GetParametersByPath": 31}, True),
        ({"cloudwatch:ListMetrics": 2}, False),  # 297 pairs fit one page of 500
        (
            {"cloudwatch:ListMetrics": 1, "datazone:PostLineageEvent": 2},
            False,
        ),  # a no-change run posts nothing
    ],
)
def test_a_no_change_lineage_rerun_lists_each_clusters_lag_metrics_once_and_posts_nothing(
    calls: dict[str, int], met: bool
) -> None:
    facts = report.summary([run("lineage_no_change", calls)], readers=WORLD)

    reads = facts["lineage_no_change_consumer_reads"]
    assert reads["list_metrics"] == calls["cloudwatch:ListMetrics"]
    assert reads["list_metrics_allowed"] == 1
    assert reads["post_lineage_event"] == calls.get("datazone:PostLineageEvent", 0)
    assert reads["target_met"] is met


@pytest.mark.parametrize(
    ("wall", "result", "met"),
    [
        (50.0, {"emitted": 395}, True),  # 1,000 posts at 20 a second: 50 s, efficiency 1.0
        (62.5, {"emitted": 395}, True),  # 0.8 exactly
        (63.0, {"emitted": 395}, False),
        (50.0, {"emitted": 200, "incomplete": True}, False),  # a run that did not finish misses it
    ],
)
def test_the_lineage_first_run_with_consumer_groups_goes_at_0_8_of_its_quota_floor(
    wall: float, result: dict[str, Any], met: bool
) -> None:
    calls = {"datazone:PostLineageEvent": 1000, "cloudwatch:ListMetrics": 1}

    facts = report.summary([run("lineage_first_consumers", calls, wall, result=result)], readers=WORLD)

    first = facts["lineage_first_consumers"]
    assert first["floor_seconds"] == 50.0
    assert first["efficiency"] == pytest.approx(50.0 / wall, abs=1e-3)
    assert first["target_met"] is met
    # It counts among the paced runs too
    assert facts["pacing_efficiency"]["lineage_first_consumers"] == pytest.approx(50.0 / wall, abs=1e-3)


def test_the_targets_are_printed_with_their_counts_and_whether_they_were_met() -> None:
    runs = [
        run("resync_no_change", {"kafka:ListTopics": 2}),
        run("lineage_no_change", {"cloudwatch:ListMetrics": 1, "datazone:PostLineageEvent": 4}),
    ]

    lines = report.summary_lines(report.summary(runs, readers=WORLD))

    shown = "\n".join(lines)
    assert "readers world: 105 topics on 1 cluster(s) (1 schemas Kafka cannot name), 297" in shown
    assert "2 ListTopics (at most 2: one a 100 of 105 topics), 0 DescribeTopic (none) (target met)" in shown
    assert (
        "1 ListMetrics (at most 1: one a 500 of 297 lag pairs), 4 PostLineageEvent (none) (target NOT met)"
        in (shown)
    )


def test_without_the_readers_world_nothing_of_issue_28_is_claimed() -> None:
    facts = report.summary([run("resync_no_change", {"kafka:ListTopics": 9})])

    assert "no_change_topic_reads" not in facts
    assert not [line for line in report.summary_lines(facts) if "ListTopics" in line]


class RecordingCloudWatch:
    def __init__(self) -> None:
        self.requests: list[list[dict[str, Any]]] = []

    def put_metric_data(self, Namespace: str, MetricData: list[dict[str, Any]]) -> None:
        assert Namespace == "AWS/Kafka"
        self.requests.append(MetricData)


def test_lag_metrics_are_put_as_msk_publishes_them_within_putmetricdatas_limit() -> None:
    cloudwatch = RecordingCloudWatch()
    pairs = [(f"group-{i}", f"topic.{i}") for i in range(readers.PAIRS_PER_PUT + 1)]

    requests = readers.put_lag(cloudwatch, CLUSTER, pairs)

    assert requests == 2 == len(cloudwatch.requests)
    assert max(len(request) for request in cloudwatch.requests) <= 1000
    first = cloudwatch.requests[0][:3]
    assert [datum["MetricName"] for datum in first] == list(readers.LAG_METRICS)
    assert first[0]["Dimensions"] == [
        {"Name": "Cluster Name", "Value": "cdc"},
        {"Name": "Consumer Group", "Value": "group-0"},
        {"Name": "Topic", "Value": "topic.0"},
    ]


@pytest.fixture(scope="module")
def server() -> Iterator[LocalAws]:
    aws = LocalAws().serve()
    yield aws
    aws.shutdown()


@pytest.fixture
def aws(server: LocalAws) -> Iterator[LocalAws]:
    server.reset()
    server.activate()
    try:
        server.kafka.set_brokers(CLUSTER, sasl_iam=world.BROKERS_IAM)
        yield server
    finally:
        server.deactivate()


def test_the_project_reads_back_every_seeded_topic_and_group_at_the_pages_the_targets_allow(
    aws: LocalAws,
) -> None:
    # Given the readers world of the seeded topics, in the stand-ins
    topics = seed.topics(120)
    cloudwatch = boto3.client("cloudwatch", config=Config(disable_request_compression=True))
    made = readers.seed(aws.kafka, cloudwatch, CLUSTER, topics)
    source = Source.model_validate({"registryName": "cdc", "clusterArn": CLUSTER})
    aws.calls.clear()

    # When the project's adapters list the cluster's topics and its consumer groups
    listed = ClusterTopics(lambda _: boto3.client("kafka")).list_topics(source)
    groups = ConsumerGroups(boto3.client("cloudwatch")).read([source])

    # Then they find all of them, within the pages the targets allow
    assert len(listed) == made.topics[CLUSTER] == len(readers.cluster_topics(topics))
    assert {"__consumer_offsets", topics[0].name} <= {row.topic for row in listed}
    assert (
        len(groups.pairs) == made.pairs[CLUSTER] == 3 * sum(1 for t in topics if readers.kafka_name(t.name))
    )
    assert not groups.unread
    counts = aws.call_counts()
    assert counts["kafka:ListTopics"] == made.list_topics_allowed == 2
    assert counts["cloudwatch:ListMetrics"] == made.list_metrics_allowed == 1
    assert made.schemas_without_topic == sum(1 for t in topics if not readers.kafka_name(t.name)) > 0
