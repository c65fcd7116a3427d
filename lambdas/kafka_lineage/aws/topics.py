"""Amazon MSK's topic APIs (IAM only, no network path to the brokers): kafka ListTopics and DescribeTopic.

- ListTopics (botocore 1.44.5 has its paginator: `NextToken`, `MaxResults` 1-100) is read once per cluster
  per run, at the largest page: one call per 100 topics.
- DescribeTopic answers `Configs`, base64 of the topic's configs (model/cluster_topics.py reads them).
- A source with a `roleArn` is read under its role (aws.sessions), in its account.
- MSK publishes no request rate for these reads: each account's calls go through a fixed limiter of
  `TOPIC_RPS` (our reading: 20, the rate AWS documents for the DataZone writes a first sync makes beside
  them, so describing each created topic never sets a first sync's pace; a throttled call is retried with
  backoff by the one call layer, aws.calls).
- The API reference says the answers reflect data that updates about every minute: a topic created or
  changed just now may show up on a later run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.config import Source
from kafka_lineage.model.cluster_topics import ListedTopic, TopicConfigs, parse_configs

if TYPE_CHECKING:
    from mypy_boto3_kafka import KafkaClient

TOPIC_RPS = 20.0
PAGE_SIZE = 100  # ListTopics' MaxResults maximum (botocore kafka model: 1-100)
OPERATIONS = ("ListTopics", "DescribeTopic")


def listed_topic(row: dict[str, Any]) -> ListedTopic:
    return ListedTopic(
        topic=str(row.get("TopicName", "")),
        partitions=int(row.get("PartitionCount") or 0),
        replication_factor=int(row.get("ReplicationFactor") or 0),
    )


class ClusterTopics:
    """The topics of the sources' clusters, each read in its source's account."""

    def __init__(
        self,
        kafka_of: Callable[[Source], Any],
        rps: float = TOPIC_RPS,
        limiter_of: Callable[[str], RateLimiter] | None = None,
    ) -> None:
        """`limiter_of(account)`: the wiring's limiter of each account's topic reads (the same one for every
        run, as the account's client is paced once); by default, one of `rps` per account, made here."""
        self._kafka_of = kafka_of
        self._rps = rps
        self._limiter_of = limiter_of
        self._limiters: dict[str, RateLimiter] = {}
        self._lock = threading.Lock()

    def _client(self, source: Source) -> KafkaClient:
        account = source.account  # the cluster's: a source's role is in the cluster's account
        with self._lock:
            limiter = self._limiters.get(account)
            if limiter is None:
                made = self._limiter_of(account) if self._limiter_of else RateLimiter(self._rps)
                limiter = self._limiters[account] = made
        kafka: KafkaClient = instrument(self._kafka_of(source), limiter, OPERATIONS)
        return kafka

    def list_topics(self, source: Source) -> list[ListedTopic]:
        """Every topic of the source's cluster (Kafka's internal ones included); raises the call layer's
        typed failures (NotFound for a cluster gone, AccessDenied)."""
        paginator = self._client(source).get_paginator("list_topics")
        pages = paginator.paginate(ClusterArn=source.cluster_arn, PaginationConfig={"PageSize": PAGE_SIZE})
        return [listed_topic(dict(row)) for page in pages for row in page.get("Topics", [])]

    def describe_topic(self, source: Source, topic: str) -> TopicConfigs:
        answer = self._client(source).describe_topic(ClusterArn=source.cluster_arn, TopicName=topic)
        return parse_configs(answer.get("Configs"))
