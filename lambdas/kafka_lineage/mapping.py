"""The schema -> DataZone asset mapping, in SSM under `{MAPPING_PATH}/assets/` (packed: see packed_store).

One `AssetRecord` per mirrored schema, keyed by schema ARN. A record holds what a no-change run needs to
decide "nothing to do" from the registry listing alone: the listing's `UpdatedTime`, the latest version
number and a hash of the content last written to DataZone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from kafka_lineage.aws.clients import RateLimiter
from kafka_lineage.aws.packed_store import PackedStore

ASSETS = "assets"
LINEAGE = "lineage"
TABLE_MAPPINGS = "table-mappings"
DRIFT = "drift"  # the last schema drift found per topic (written by lineage, shown on the asset by sync)


def subpath(mapping_path: str, part: str) -> str:
    """The one place that knows the SSM layout under MAPPING_PATH (README: SSM layout)."""
    if part not in (ASSETS, LINEAGE, TABLE_MAPPINGS, DRIFT, "config"):
        raise ValueError(f"unknown mapping sub-path {part!r}")
    return f"{mapping_path.rstrip('/')}/{part}"


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
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class AssetMapping:
    """Load and save `AssetRecord`s; a record whose entry can't be read is skipped and reported."""

    def __init__(self, ssm: Any, mapping_path: str, write_limiter: RateLimiter | None = None) -> None:
        self.store = PackedStore(ssm, subpath(mapping_path, ASSETS), write_limiter=write_limiter)
        self.unreadable: list[str] = []

    def load(self) -> dict[str, AssetRecord]:
        records: dict[str, AssetRecord] = {}
        self.unreadable = []
        for schema_arn, entry in self.store.load().items():
            try:
                records[schema_arn] = AssetRecord.from_entry(schema_arn, entry)
            except (KeyError, TypeError, ValueError):
                self.unreadable.append(schema_arn)
        return records

    def group_of(self, schema_arn: str) -> str:
        """The packed store's hash group of a schema's entry: a run that saves each group's changes at once
        writes each parameter once (see sync.plan.order_work)."""
        return PackedStore.group_of(schema_arn, self.store.group_bits)

    def save(self, changes: Mapping[str, AssetRecord | None]) -> int:
        """Upsert or (None) remove records; returns the number of SSM writes made."""
        return self.store.save(
            {arn: (record.to_entry() if record is not None else None) for arn, record in changes.items()}
        )
