"""What Amazon MSK says of a cluster's topics (kafka ListTopics, DescribeTopic), and the topic properties a
topic asset shows (`KafkaTopicPropertiesFormType`).

DescribeTopic's `Configs` is "Topic configurations encoded as a Base64 string" (botocore's kafka model); the
MSK developer guide ("Describe a topic") shows the decoded text as `key=value` lines, like a Java properties
file. AWS says no more, so `parse_configs` reads it pessimistically: lines of `key=value` (spaces around `=`
and `:` as separator allowed, as Java properties allow them), blank lines and `#`/`!` comments skipped, and,
should the text be a JSON object instead, its members; anything else reads as no configs at all (the
properties are then left out, never guessed).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

RETENTION_MS = "retention.ms"
CLEANUP_POLICY = "cleanup.policy"
INFINITE_RETENTION = -1  # Kafka's retention.ms -1: no time limit
INTERNAL_PREFIX = "__"  # Kafka's internal topics (__consumer_offsets, __transaction_state) and heartbeats


@dataclass(frozen=True)
class ListedTopic:
    """One row of ListTopics."""

    topic: str
    partitions: int
    replication_factor: int


@dataclass(frozen=True)
class TopicConfigs:
    """What DescribeTopic's configs say of a topic's retention and cleanup. None: not set in the configs
    DescribeTopic returned (or unreadable)."""

    retention_ms: int | None = None
    cleanup_policy: str | None = None


@dataclass(frozen=True)
class TopicProperties:
    """What a topic asset's `KafkaTopicPropertiesFormType` shows: the listing's partitions and replication
    factor, and the configs DescribeTopic last returned."""

    partitions: int
    replication_factor: int
    retention_ms: int | None = None
    cleanup_policy: str | None = None

    @classmethod
    def of(cls, listed: ListedTopic, configs: TopicConfigs) -> TopicProperties:
        return cls(listed.partitions, listed.replication_factor, configs.retention_ms, configs.cleanup_policy)

    @property
    def configs(self) -> TopicConfigs:
        return TopicConfigs(self.retention_ms, self.cleanup_policy)

    def listed_as(self, listed: ListedTopic) -> bool:
        """Whether the listing still says what these properties say (partitions, replication factor)."""
        return (self.partitions, self.replication_factor) == (listed.partitions, listed.replication_factor)

    def form(self) -> dict[str, Any]:
        """The form's content: members DescribeTopic did not give are left out (the form's are optional)."""
        content: dict[str, Any] = {
            "partitions": self.partitions,
            "replication_factor": self.replication_factor,
        }
        if self.retention_ms is not None:
            content["retention_ms"] = self.retention_ms
        if self.cleanup_policy is not None:
            content["cleanup_policy"] = self.cleanup_policy
        return content

    def to_entry(self) -> list[Any]:
        """Short, for the packed asset records."""
        return [self.partitions, self.replication_factor, self.retention_ms, self.cleanup_policy]

    @classmethod
    def from_entry(cls, entry: Any) -> TopicProperties | None:
        if not isinstance(entry, list) or len(entry) != 4:
            return None
        partitions, replication, retention, cleanup = entry
        return cls(
            int(partitions),
            int(replication),
            None if retention is None else int(retention),
            None if cleanup is None else str(cleanup),
        )


def is_internal(topic: str) -> bool:
    return topic.startswith(INTERNAL_PREFIX)


def decode_configs(encoded: str | None) -> dict[str, str]:
    """DescribeTopic's `Configs` -> {key: value}; {} when absent or unreadable."""
    if not encoded:
        return {}
    try:
        text = base64.b64decode(encoded, validate=False).decode("utf-8")
    except (binascii.Error, ValueError):
        return {}
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            loaded = json.loads(stripped)
        except ValueError:
            return {}
        return {str(k): str(v) for k, v in loaded.items()} if isinstance(loaded, Mapping) else {}
    found: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#!":
            continue
        cut = min((i for i in (line.find("="), line.find(":")) if i > 0), default=-1)
        if cut < 0:
            continue
        found[line[:cut].strip()] = line[cut + 1 :].strip()
    return found


def parse_configs(encoded: str | None) -> TopicConfigs:
    """The retention and cleanup policy in DescribeTopic's `Configs`.

    retention.ms `-1` is kept as -1 (infinite, Kafka's meaning); a value that is not an integer is left out.
    cleanup.policy is Kafka's list (`delete`, `compact`, `compact,delete`): kept as given, spaces removed.
    """
    configs = decode_configs(encoded)
    retention: int | None = None
    raw_retention = configs.get(RETENTION_MS)
    if raw_retention is not None:
        try:
            retention = int(raw_retention)
        except ValueError:
            retention = None
    cleanup = configs.get(CLEANUP_POLICY)
    if cleanup is not None:
        cleanup = ",".join(part.strip() for part in cleanup.split(",") if part.strip()) or None
    return TopicConfigs(retention, cleanup)
