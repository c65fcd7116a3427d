"""The consumer groups of the demo world: the consumer-lag metrics MSK would publish to CloudWatch for the
services that read the inventory topics (namespace `AWS/Kafka`, `EstimatedMaxTimeLag`, `MaxOffsetLag` and
`SumOffsetLag` per consumer group and topic, the DEFAULT monitoring level), put through CloudWatch's API
(the stand-ins locally). Lineage lists them and draws each group as a reader of its topics.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from local import world

# The metrics MSK publishes per consumer group and topic, with their dimensions (MSK developer guide).
LAG_METRICS = ("EstimatedMaxTimeLag", "MaxOffsetLag", "SumOffsetLag")
# Two services that read the inventory topics: (group, the inventory tables whose topics it reads).
READERS = (
    ("order-service", ("orders", "customers")),
    ("shipping-notifier", ("orders",)),
)


def cluster_name(cluster_arn: str) -> str:
    return cluster_arn.split(":cluster/", 1)[1].split("/", 1)[0]


def lag(
    cloudwatch: Any, cluster_arn: str, group: str, topic: str, when: datetime | None = None, lag: float = 0.0
) -> None:
    """What MSK publishes for one consumer group reading one topic: its three lag metrics, at `when`."""
    dimensions = [
        {"Name": "Cluster Name", "Value": cluster_name(cluster_arn)},
        {"Name": "Consumer Group", "Value": group},
        {"Name": "Topic", "Value": topic},
    ]
    cloudwatch.put_metric_data(
        Namespace="AWS/Kafka",
        MetricData=[
            {
                "MetricName": name,
                "Dimensions": dimensions,
                "Value": lag,
                **({"Timestamp": when} if when else {}),
            }
            for name in LAG_METRICS
        ],
    )


def create(cloudwatch: Any, cluster_arn: str = world.CLUSTER_ARN) -> list[tuple[str, str]]:
    """The demo's readers' lag metrics; the (group, topic) pairs put."""
    pairs = [(group, f"dbserver1.inventory.{table}") for group, tables in READERS for table in tables]
    for group, topic in pairs:
        lag(cloudwatch, cluster_arn, group, topic)
    return pairs
