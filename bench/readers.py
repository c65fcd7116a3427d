"""Who reads a topic (issue 28), in the benchmark: the world with the cluster's topics and its consumer
groups, and the issue's targets checked against what the runs called.

The readers world is the benchmark's registry (bench/seed.py) plus what the cluster holds beside it:
  - one topic per schema whose name Kafka accepts (`[a-zA-Z0-9._-]{1,249}`; the registry's `$`/`#` names
    and 255-character names have no topic: the sync reports them under `withoutTopic`), and a few topics
    no schema names: Kafka's `__consumer_offsets`, MSK's canary, Kafka Connect's own topics and Debezium's
    schema history (the sync reports those but the `__` ones under `withoutSchema`);
  - three consumer groups reading each of those topics, as the consumer-lag metrics MSK publishes to
    CloudWatch for them: `EstimatedMaxTimeLag`, `MaxOffsetLag` and `SumOffsetLag` per group and topic.
The other scenarios' worlds hold neither: their cluster lists no topic and CloudWatch no lag metric.

The targets, as measured (`summary`):
  - a no-change resync lists each cluster's topics at most once, a ListTopics page per 100 topics (at
    least one call per cluster), and describes none (no DescribeTopic);
  - a no-change lineage rerun lists each cluster's lag metrics at most once, a ListMetrics page per 500
    (group, topic) pairs (at least one call per cluster), and posts nothing. "Per 500 metrics" is read as
    per 500 metrics of the one name the listing asks for (one per pair): listing all three lag metrics
    would be allowed three times the pages; the stricter reading is the one checked;
  - the lineage first run with three groups a topic goes at 0.8 or more of its quota floor (the
    PostLineageEvent calls at their quota, as for every lineage first run).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from bench.seed import STEMS, Topic

# The targets.
TOPICS_PER_LIST_PAGE = 100  # a no-change sync: at most one ListTopics page per 100 topics of a cluster
METRICS_PER_LIST_PAGE = 500  # a no-change lineage run: at most one ListMetrics page per 500 metrics
CONSUMERS_EFFICIENCY = 0.8  # the lineage first run with consumer groups: quota floor / wall time
GROUPS_PER_TOPIC = 3

LIST_TOPICS = "kafka:ListTopics"
DESCRIBE_TOPIC = "kafka:DescribeTopic"
LIST_METRICS = "cloudwatch:ListMetrics"
POST_LINEAGE = "datazone:PostLineageEvent"

# Kafka's legal topic names (Topic.validate); the registry allows `$` and `#` and 255 characters.
KAFKA_TOPIC = re.compile(r"[a-zA-Z0-9._-]{1,249}")
# The lag metrics MSK publishes per consumer group and topic (DEFAULT monitoring level, namespace AWS/Kafka).
LAG_METRICS = ("EstimatedMaxTimeLag", "MaxOffsetLag", "SumOffsetLag")
# PutMetricData takes up to 1,000 metrics a request: 300 pairs of three metrics stay under it.
PAIRS_PER_PUT = 300
SEED_WORKERS = 8


@dataclass(frozen=True)
class ClusterTopic:
    name: str
    partitions: int
    configs: dict[str, str] = field(default_factory=dict)
    replication_factor: int = 3


# The topics a CDC cluster holds that no registry schema names.
WITHOUT_SCHEMA = (
    ClusterTopic("__consumer_offsets", 50, {"cleanup.policy": "compact"}),
    ClusterTopic("__amazon_msk_canary", 1, {"retention.ms": "86400000"}),
    ClusterTopic("connect-configs", 1, {"cleanup.policy": "compact"}),
    ClusterTopic("connect-offsets", 25, {"cleanup.policy": "compact"}),
    ClusterTopic("connect-status", 5, {"cleanup.policy": "compact"}),
    ClusterTopic("schema-changes.dbserver1", 1, {"retention.ms": "-1"}),
)


def kafka_name(name: str) -> bool:
    return bool(KAFKA_TOPIC.fullmatch(name)) and name not in (".", "..")


def cluster_topics(topics: Sequence[Topic]) -> list[ClusterTopic]:
    """The cluster's topics: one per schema Kafka can name (a heartbeat compacted with one partition, a
    table's topic with six and a week's retention), then the topics no schema names."""
    made = []
    for topic in topics:
        if not kafka_name(topic.name):
            continue
        if topic.name.startswith("__"):
            made.append(
                ClusterTopic(topic.name, 1, {"retention.ms": "-1", "cleanup.policy": "compact,delete"})
            )
        else:
            made.append(
                ClusterTopic(topic.name, 6, {"retention.ms": "604800000", "cleanup.policy": "delete"})
            )
    return [*made, *WITHOUT_SCHEMA]


def groups_of(topic: Topic) -> tuple[str, ...]:
    """The consumer groups reading a schema's topic: the service of its table, the analytics of its
    database, and one archiver reading every topic (names MSK publishes lag for: no colon, ASCII)."""
    stem = next((s for s in STEMS if s in topic.name), "heartbeat")
    return (f"{stem}-service", f"analytics-{topic.database or 'ops'}", "audit-archiver")[:GROUPS_PER_TOPIC]


def lag_pairs(topics: Sequence[Topic]) -> list[tuple[str, str]]:
    """(group, topic) of every group reading a schema's topic on the cluster."""
    return [(group, t.name) for t in topics if kafka_name(t.name) for group in groups_of(t)]


@dataclass(frozen=True)
class ReadersWorld:
    """What the readers world holds, per cluster: its topics and its (group, topic) lag pairs."""

    topics: Mapping[str, int]
    pairs: Mapping[str, int]
    schemas_without_topic: int = 0

    @property
    def list_topics_allowed(self) -> int:
        return sum(max(1, math.ceil(n / TOPICS_PER_LIST_PAGE)) for n in self.topics.values())

    @property
    def list_metrics_allowed(self) -> int:
        return sum(max(1, math.ceil(n / METRICS_PER_LIST_PAGE)) for n in self.pairs.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            "topics": dict(self.topics),
            "lag_pairs": dict(self.pairs),
            "schemas_without_topic": self.schemas_without_topic,
            "list_topics_allowed": self.list_topics_allowed,
            "list_metrics_allowed": self.list_metrics_allowed,
        }


# -- seeding (through the stand-ins' test hooks and boto3) ---------------------------------------------------


def cluster_name(cluster_arn: str) -> str:
    return cluster_arn.split(":cluster/", 1)[1].split("/", 1)[0]


def put_lag(cloudwatch: Any, cluster_arn: str, pairs: Sequence[tuple[str, str]]) -> int:
    """MSK's three lag metrics for each (group, topic), PAIRS_PER_PUT pairs a PutMetricData; the requests."""
    requests = 0
    for start in range(0, len(pairs), PAIRS_PER_PUT):
        data = [
            {
                "MetricName": metric,
                "Dimensions": [
                    {"Name": "Cluster Name", "Value": cluster_name(cluster_arn)},
                    {"Name": "Consumer Group", "Value": group},
                    {"Name": "Topic", "Value": topic},
                ],
                "Value": 0.0,
            }
            for group, topic in pairs[start : start + PAIRS_PER_PUT]
            for metric in LAG_METRICS
        ]
        cloudwatch.put_metric_data(Namespace="AWS/Kafka", MetricData=data)
        requests += 1
    return requests


def _each(work: Callable[[Any], Any], items: Iterable[Any]) -> None:
    with ThreadPoolExecutor(max_workers=SEED_WORKERS) as pool:
        for _ in pool.map(work, items):
            pass


def seed(kafka: Any, cloudwatch: Any, cluster_arn: str, topics: Sequence[Topic]) -> ReadersWorld:
    """Create the cluster's topics (`kafka`: the stand-ins' `create_topic` hook, on a registered cluster)
    and put the lag metrics of their consumer groups (`cloudwatch`: a boto3 client)."""
    made = cluster_topics(topics)
    _each(
        lambda t: kafka.create_topic(cluster_arn, t.name, t.partitions, t.replication_factor, t.configs), made
    )
    pairs = lag_pairs(topics)
    put_lag(cloudwatch, cluster_arn, pairs)
    without = sum(1 for t in topics if not kafka_name(t.name))
    return ReadersWorld({cluster_arn: len(made)}, {cluster_arn: len(pairs)}, without)


# -- the targets, as measured ----------------------------------------------------------------------------


class Measured(Protocol):
    """What the checks read of a `report.Measurement` (imported by report.py: no cycle)."""

    calls: dict[str, int]
    result: dict[str, Any]
    wall_seconds: float

    def documented_floor_seconds(self) -> float: ...


def topic_reads(run: Measured, world: ReadersWorld) -> dict[str, Any]:
    """A no-change resync's topic reads against the target."""
    listed, described = run.calls.get(LIST_TOPICS, 0), run.calls.get(DESCRIBE_TOPIC, 0)
    return {
        "list_topics": listed,
        "list_topics_allowed": world.list_topics_allowed,
        "describe_topic": described,
        "topics": sum(world.topics.values()),
        "clusters": len(world.topics),
        "target_met": listed <= world.list_topics_allowed and described == 0,
    }


def consumer_reads(run: Measured, world: ReadersWorld) -> dict[str, Any]:
    """A no-change lineage rerun's lag-metric listing and posts against the target."""
    listed, posts = run.calls.get(LIST_METRICS, 0), run.calls.get(POST_LINEAGE, 0)
    return {
        "list_metrics": listed,
        "list_metrics_allowed": world.list_metrics_allowed,
        "post_lineage_event": posts,
        "lag_pairs": sum(world.pairs.values()),
        "clusters": len(world.pairs),
        "target_met": listed <= world.list_metrics_allowed and posts == 0,
    }


def first_run(run: Measured, world: ReadersWorld) -> dict[str, Any]:
    """The lineage first run with consumer groups: its efficiency against the quota floor."""
    floor = float(run.documented_floor_seconds())
    efficiency = floor / run.wall_seconds if floor > 0 and run.wall_seconds > 0 else None
    complete = not run.result.get("incomplete") and not run.result.get("error")
    return {
        "wall_seconds": round(run.wall_seconds, 2),
        "floor_seconds": round(floor, 2),
        "efficiency": None if efficiency is None else round(efficiency, 3),
        "post_lineage_event": run.calls.get(POST_LINEAGE, 0),
        "list_metrics": run.calls.get(LIST_METRICS, 0),
        "lag_pairs": sum(world.pairs.values()),
        "target_met": complete and efficiency is not None and efficiency >= CONSUMERS_EFFICIENCY,
    }


CHECKS: tuple[tuple[str, str, Callable[[Measured, ReadersWorld], dict[str, Any]]], ...] = (
    ("resync_no_change", "no_change_topic_reads", topic_reads),
    ("lineage_no_change", "lineage_no_change_consumer_reads", consumer_reads),
    ("lineage_first_consumers", "lineage_first_consumers", first_run),
)


def summary(project_runs: Mapping[str, Measured], world: ReadersWorld | None) -> dict[str, Any]:
    """The issue's targets for the project runs measured (`project_runs`: scenario -> Measurement) on the
    readers world; nothing without that world."""
    if world is None:
        return {}
    out: dict[str, Any] = {"readers_world": world.as_dict()}
    for scenario, key, check in CHECKS:
        run = project_runs.get(scenario)
        if run is not None:
            out[key] = check(run, world)
    return out


def summary_lines(facts: Mapping[str, Any]) -> list[str]:
    def met(found: Mapping[str, Any]) -> str:
        return " (target met)" if found["target_met"] else " (target NOT met)"

    lines = []
    world = facts.get("readers_world")
    if world:
        topics = sum(world["topics"].values())
        lines.append(
            f"readers world: {topics} topics on {len(world['topics'])} cluster(s) "
            f"({world['schemas_without_topic']} schemas Kafka cannot name), "
            f"{sum(world['lag_pairs'].values())} (group, topic) lag pairs"
        )
    reads = facts.get("no_change_topic_reads")
    if reads:
        lines.append(
            f"no-change resync topic reads: {reads['list_topics']} ListTopics (at most "
            f"{reads['list_topics_allowed']}: one a {TOPICS_PER_LIST_PAGE} of {reads['topics']} topics), "
            f"{reads['describe_topic']} DescribeTopic (none){met(reads)}"
        )
    consumers = facts.get("lineage_no_change_consumer_reads")
    if consumers:
        lines.append(
            f"lineage no-change rerun consumer reads: {consumers['list_metrics']} ListMetrics (at most "
            f"{consumers['list_metrics_allowed']}: one a {METRICS_PER_LIST_PAGE} of {consumers['lag_pairs']} "
            f"lag pairs), {consumers['post_lineage_event']} PostLineageEvent (none){met(consumers)}"
        )
    first = facts.get("lineage_first_consumers")
    if first:
        shown = "-" if first["efficiency"] is None else f"{first['efficiency']:.2f}"
        lines.append(
            f"lineage first run, {GROUPS_PER_TOPIC} groups a topic: efficiency {shown} "
            f"(quota floor {first['floor_seconds']} s / wall {first['wall_seconds']} s, "
            f">= {CONSUMERS_EFFICIENCY:g}), {first['post_lineage_event']} PostLineageEvent, "
            f"{first['list_metrics']} ListMetrics{met(first)}"
        )
    return lines
