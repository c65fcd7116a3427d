"""Schema -> DataZone asset records: what schema-sync wrote for each mirrored schema (docs/concepts.md).

One `AssetRecord` per mirrored schema, keyed by schema ARN, kept under `{MAPPING_PATH}/assets/` (the store
is `kafka_lineage.aws.asset_records`). A record holds what a no-change run needs to decide "nothing to do"
from the registry listing alone: the listing's `UpdatedTime`, the latest version number and a hash of the
content last written to DataZone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from kafka_lineage.model.cluster_topics import TopicProperties


@dataclass(frozen=True)
class AssetRecord:
    registry_name: str
    schema_name: str  # the Kafka topic
    schema_arn: str
    asset_id: str
    latest_version: int
    data_format: str
    namespace: str  # OpenLineage namespace of the topic: sourceIdentifier = f"{namespace}/{schema_name}"
    updated_time: str  # ListSchemas' UpdatedTime when last mirrored (ISO 8601)
    created_time: str  # ListSchemas' CreatedTime: tells a re-created schema of the same ARN apart
    content_hash: str  # hash of the asset content last written (name, description, forms)
    schema_version_id: str = ""
    asset_revision: str = ""  # the DataZone revision last written: makes revision tokens unique
    source_fingerprint: str = ""  # hash of what GetSchema + ListSchemaVersions said (verify compares it)
    previous_version: int = 0  # the version mirrored before `latest_version` (0: none): drift is between them
    # The asset exists but its last publish was refused (a domain rule): the next run publishes it, creating
    # nothing again.
    unpublished: bool = False
    # The schema is gone but the asset's deletion is held: its listing had this many approved subscriptions
    # when last looked at (0: not held). The asset shows the schema deleted; a later run deletes it.
    held: int = 0
    # The topic as the cluster had it when last mirrored (None: not listed then, or its listing failed).
    # `topic_tracked`: the record was written by a run that reads topics; an older record's topic is
    # unknown, and the next verify run fills it in (as it moves the asset onto the type revision that
    # carries the topic form), while the hourly run leaves it.
    topic_properties: TopicProperties | None = None
    topic_tracked: bool = False

    @property
    def topic(self) -> str:
        return self.schema_name

    def to_entry(self) -> dict[str, Any]:
        # Short keys: entries are packed several to a 4 KB parameter.
        return {
            "r": self.registry_name,
            "s": self.schema_name,
            "a": self.asset_id,
            "v": self.latest_version,
            "f": self.data_format,
            "n": self.namespace,
            "u": self.updated_time,
            "c": self.created_time,
            "h": self.content_hash,
            "i": self.schema_version_id,
            "ar": self.asset_revision,
            "sf": self.source_fingerprint,
            **({"pv": self.previous_version} if self.previous_version else {}),
            **({"np": 1} if self.unpublished else {}),
            **({"hd": self.held} if self.held else {}),
            **(
                {"t": self.topic_properties.to_entry() if self.topic_properties else 0}
                if self.topic_tracked
                else {}
            ),
        }

    @classmethod
    def from_entry(cls, schema_arn: str, entry: Mapping[str, Any]) -> AssetRecord:
        return cls(
            registry_name=str(entry["r"]),
            schema_name=str(entry["s"]),
            schema_arn=schema_arn,
            asset_id=str(entry["a"]),
            latest_version=int(entry["v"]),
            data_format=str(entry["f"]),
            namespace=str(entry["n"]),
            updated_time=str(entry["u"]),
            created_time=str(entry["c"]),
            content_hash=str(entry["h"]),
            schema_version_id=str(entry.get("i", "")),
            asset_revision=str(entry.get("ar", "")),
            source_fingerprint=str(entry.get("sf", "")),
            previous_version=int(entry.get("pv", 0)),
            unpublished=bool(entry.get("np", 0)),
            held=int(entry.get("hd", 0)),
            topic_properties=TopicProperties.from_entry(entry.get("t")),
            topic_tracked="t" in entry,
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
