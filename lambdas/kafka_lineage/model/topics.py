"""A mirrored Kafka topic, named by its registry and schema: the key lineage state and edges hang on."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True, slots=True)
class TopicKey:
    """A mirrored topic: the schema `topic` in registry `registry_name`. `key` names its lineage state."""

    registry_name: str
    topic: str

    @property
    def key(self) -> str:
        return f"{self.registry_name}/{self.topic}"

    def as_dict(self) -> dict[str, str]:
        return {"registryName": self.registry_name, "topic": self.topic}

    @classmethod
    def from_key(cls, key: str) -> TopicKey:
        # Registry names cannot contain '/', so the first '/' separates registry from topic.
        registry, _, topic = key.partition("/")
        return cls(registry, topic)
