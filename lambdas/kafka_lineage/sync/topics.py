"""Topics as the cluster has them: what schema-sync reads of MSK's topics, and what it decides from them.

A topic asset describes a schema (the Glue schema named like the topic); its `KafkaTopicPropertiesFormType`
form shows the topic itself:
- `partitions` and `replication_factor` follow the cluster on every run: each run reads ListTopics once per
  cluster (`TopicListings`, a call per 100 topics), and a record whose topic the listing shows otherwise is
  a candidate (`listing_moved`), so the asset is revised exactly when they changed;
- `retention_ms` and `cleanup_policy` come from DescribeTopic, read only when the asset is created, by every
  `verify` run and when the listing moved (`current_properties`); otherwise the record's last known ones;
- nothing here deletes anything: a schema whose topic the cluster does not list is reported under
  `withoutTopic`, a topic no mirrored schema names under `withoutSchema` (Kafka's internal `__` topics left
  out), and a cluster whose listing fails under `topicErrors`: the run goes on, the assets keep the
  properties last known, and it does not raise for it.

Records written before topics were read (`topic_tracked` false) are left to the next `verify` run, which
moves each asset onto the asset type revision with the topic form exactly once (as the drift form came):
the hourly run stays as cheap as it was.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from kafka_lineage.config import Source
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.cluster_topics import (
    ListedTopic,
    TopicConfigs,
    TopicProperties,
    is_internal,
)
from kafka_lineage.model.failures import describe_failure
from kafka_lineage.model.registry import ListedSchema
from kafka_lineage.observability import logger
from kafka_lineage.sync.ports import ClusterTopics

TOPIC_FORM_TYPE = "KafkaTopicPropertiesFormType"
LISTING_MOVED = "topic listing changed"

Listing = Mapping[str, ListedTopic]  # a cluster's topics by name


@dataclass(frozen=True)
class TopicSeen:
    """What a run knows of a candidate's topic: its properties (None: unknown), and whether topics were
    read at all (`tracked`; else the record keeps what it had)."""

    properties: TopicProperties | None = None
    tracked: bool = False


@dataclass(frozen=True)
class _Read:
    topics: Listing | None
    error: str | None = None


class TopicListings:
    """Each cluster's ListTopics, read at most once per run, when first needed (thread-safe: the inspecting
    workers ask too). A failed listing is kept as failed for the run: it is not asked again."""

    def __init__(self, reader: ClusterTopics | None) -> None:
        self._reader = reader
        self._read: dict[str, _Read] = {}
        self._lock = threading.Lock()

    @property
    def enabled(self) -> bool:
        return self._reader is not None

    def of(self, source: Source) -> Listing | None:
        """The source's cluster's topics; None when they cannot be read (or topics are not read at all)."""
        if self._reader is None:
            return None
        with self._lock:
            found = self._read.get(source.cluster_arn)
            if found is None:
                found = self._list(self._reader, source)
                self._read[source.cluster_arn] = found
        return found.topics

    @staticmethod
    def _list(reader: ClusterTopics, source: Source) -> _Read:
        try:
            return _Read({row.topic: row for row in reader.list_topics(source)})
        except Exception as error:  # a cluster gone, access denied: reported, never a reason to change
            why = describe_failure(error)
            logger.warning(
                "cluster topics not listed; assets keep their topic properties",
                extra={"clusterArn": source.cluster_arn, "error": why},
            )
            return _Read(None, f"ListTopics: {why}")

    def describe(self, source: Source, topic: str) -> TopicConfigs:
        if self._reader is None:
            return TopicConfigs()
        return self._reader.describe_topic(source, topic)

    def errors(self) -> list[dict[str, str]]:
        """`topicErrors`: each cluster whose listing failed this run."""
        with self._lock:
            return [
                {"clusterArn": arn, "error": read.error}
                for arn, read in sorted(self._read.items())
                if read.error is not None
            ]


def listing_moved(record: AssetRecord | None, listing: Listing | None) -> bool:
    """Whether the listing shows the record's topic otherwise than the record does: a partition count or a
    replication factor that changed, or a topic that appeared since. A failed listing, a topic no longer
    listed (reported, the properties kept) and a record from before topics were read (verify's) never do."""
    if record is None or listing is None or not record.topic_tracked:
        return False
    listed = listing.get(record.schema_name)
    if listed is None:
        return False
    return record.topic_properties is None or not record.topic_properties.listed_as(listed)


def current_properties(
    record: AssetRecord | None,
    listing: Listing | None,
    topic: str,
    verify: bool,
    describe: Callable[[], TopicConfigs],
) -> tuple[TopicProperties | None, str | None]:
    """The topic's properties for the asset, and a warning when DescribeTopic failed.

    Partitions and replication factor are the listing's; the configs are DescribeTopic's when the asset is
    created, on `verify`, for a record from before topics were read, and when the listing moved; else the
    record's. A failed listing, or a topic the cluster does not list, keeps the record's properties."""
    last = record.topic_properties if record is not None else None
    listed = listing.get(topic) if listing is not None else None
    if listed is None:
        return last, None
    fresh = verify or record is None or not record.topic_tracked or last is None or not last.listed_as(listed)
    if not fresh and last is not None:
        return TopicProperties.of(listed, last.configs), None
    try:
        configs = describe()
    except Exception as error:  # the listing's part still shows; the configs wait for the next read
        kept = last.configs if last is not None else TopicConfigs()
        why = f"DescribeTopic failed, topic configs kept as last known: {describe_failure(error)}"
        return TopicProperties.of(listed, kept), why
    return TopicProperties.of(listed, configs), None


def marker(properties: TopicProperties | None) -> str:
    """What the source fingerprint carries of the topic ("" when unknown: a record from before topics were
    read keeps its fingerprint, so only verify rebuilds it)."""
    if properties is None:
        return ""
    return repr(properties.to_entry())


def without_topic(source: Source, listed: Iterable[ListedSchema], listing: Listing) -> list[dict[str, str]]:
    """`withoutTopic`: the source's mirrored schemas whose topic the cluster does not list."""
    return [
        {"registryName": source.key, "topic": schema.schema_name}
        for schema in listed
        if schema.status != "DELETING"
        and source.mirrors(schema.schema_name)
        and schema.schema_name not in listing
    ]


def without_schema(cluster_arn: str, listing: Listing, named: set[str]) -> list[dict[str, str]]:
    """`withoutSchema`: the cluster's topics that no mirrored schema names, Kafka's internal ones left out."""
    return [
        {"clusterArn": cluster_arn, "topic": topic}
        for topic in sorted(listing)
        if topic not in named and not is_internal(topic)
    ]
