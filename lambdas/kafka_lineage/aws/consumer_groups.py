"""The consumer groups that read the sources' clusters, from the consumer-lag metrics MSK publishes to
CloudWatch: one `cloudwatch:ListMetrics` listing per cluster and run, IAM alone, no network path to the
brokers.

At the DEFAULT monitoring level MSK publishes `EstimatedMaxTimeLag`, `MaxOffsetLag` and `SumOffsetLag` per
consumer group and topic (namespace `AWS/Kafka`, dimensions `Cluster Name`, `Consumer Group`, `Topic`; MSK
developer guide, "Monitor consumer lags" and the metrics table). The listing asks for one of them,
`SumOffsetLag`, filtered by the cluster's name: the three are published together for every group and topic,
so one metric names each (group, topic) pair once, and a listing without a metric name would page through
three metrics per pair (three times the calls) to learn nothing more. ListMetrics answers up to 500
metrics a page (botocore's `list_metrics` paginator follows `NextToken`), so a cluster costs one call
per 500 (group, topic) pairs.

What the listing cannot show (AWS's documented behaviour):
- ListMetrics lists only metrics with data in the past two weeks: a group that stopped reading disappears
  from the listing two weeks later, and its edge is then retracted;
- groups whose name holds a colon or a non-ASCII character have no lag metrics (MSK guide), nor does a
  group that is rebalancing or has committed no offset: such a group is not drawn while that lasts.

The dimension names the cluster by name only (the ARN's `cluster/<name>/<uuid>`). A listing that fails
makes that cluster `unread`: its groups are then unknown this run, and their edges are kept, never
retracted. A source in another account is listed through its role (`aws.sessions`), in its account, where
MSK publishes the metrics.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kafka_lineage.aws.calls import Stopped, instrument, pages_until
from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.aws.sessions import ByAccount
from kafka_lineage.config import Source
from kafka_lineage.model.combine import combined
from kafka_lineage.model.consumers import (
    CLUSTER_DIMENSION,
    GROUP_DIMENSION,
    NAMESPACE,
    TOPIC_DIMENSION,
    ConsumerReads,
    GroupRead,
)
from kafka_lineage.model.failures import AwsError, SourceRoleUnavailable, describe_failure
from kafka_lineage.observability import logger

# The lag metric listed (see above): one of the three MSK publishes together per group and topic.
LAG_METRIC = "SumOffsetLag"
# ListMetrics: "Up to 500 results are returned for any one call" (CloudWatch API reference).
PAGE_SIZE = 500
# CloudWatch's ListMetrics quota is 25 requests per second per account and Region; a run makes a few.
DEFAULT_RPS = 5.0


def cluster_name(cluster_arn: str) -> str:
    """The `Cluster Name` dimension's value: the name in the ARN's `cluster/<name>/<uuid>`."""
    return cluster_arn.split(":cluster/", 1)[-1].split("/", 1)[0]


def group_read(cluster_arn: str, metric: Any) -> GroupRead | None:
    """A listed metric as (cluster, group, topic); None when it lacks a group or a topic dimension."""
    dimensions = {str(d.get("Name")): str(d.get("Value", "")) for d in metric.get("Dimensions") or []}
    group, topic = dimensions.get(GROUP_DIMENSION, ""), dimensions.get(TOPIC_DIMENSION, "")
    if not group or not topic:
        return None
    return GroupRead(cluster_arn, group, topic)


class ConsumerGroups:
    """The consumer groups of the clusters one account holds, read through one `cloudwatch` client."""

    def __init__(self, cloudwatch: Any, limiter: RateLimiter | None = None) -> None:
        self.cloudwatch = instrument(cloudwatch, limiter or RateLimiter(DEFAULT_RPS))

    def read(self, sources: Sequence[Source], stop: Callable[[], bool] | None = None) -> ConsumerReads:
        pairs: list[GroupRead] = []
        unread: list[str] = []
        errors: list[str] = []
        calls = 0
        for cluster_arn in sorted({s.cluster_arn for s in sources if s.consumers != "off"}):
            try:
                found, pages = self._list(cluster_arn, stop)
            except (AwsError, SourceRoleUnavailable) as error:
                reason = describe_failure(error)
                logger.warning("consumer groups not listed", extra={"cluster": cluster_arn, "error": reason})
                unread.append(cluster_arn)
                errors.append(f"ListMetrics {cluster_arn}: {reason}")
                continue
            calls += pages
            if found is None:
                unread.append(cluster_arn)
                errors.append(f"ListMetrics {cluster_arn}: stopped before the listing ended")
                continue
            pairs.extend(found)
        return ConsumerReads(tuple(pairs), tuple(unread), tuple(errors), calls)

    def _list(self, cluster_arn: str, stop: Callable[[], bool] | None) -> tuple[list[GroupRead] | None, int]:
        """The cluster's (group, topic) pairs and the pages read; None when `stop` cut the listing."""
        found: list[GroupRead] = []
        pages = 0
        listing = self.cloudwatch.get_paginator("list_metrics").paginate(
            Namespace=NAMESPACE,
            MetricName=LAG_METRIC,
            Dimensions=[{"Name": CLUSTER_DIMENSION, "Value": cluster_name(cluster_arn)}],
        )
        try:
            for page in pages_until(listing, stop):
                pages += 1
                found.extend(
                    p for m in page.get("Metrics", []) if (p := group_read(cluster_arn, m)) is not None
                )
        except Stopped:
            return None, pages
        return found, pages


class SourceConsumerGroups(ByAccount[ConsumerGroups]):
    """Each source's groups read in its own account (one `ConsumerGroups` per source key of a source read
    through a role, one for the functions' own account), the answers merged."""

    def read(self, sources: Sequence[Source], stop: Callable[[], bool] | None = None) -> ConsumerReads:
        read = [s for s in sources if s.consumers != "off"]
        answers = [reader.read(members, stop) for reader, members in self.readers(read)]
        return combined(ConsumerReads, answers)
