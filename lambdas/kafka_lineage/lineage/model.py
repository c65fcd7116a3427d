"""Data shared by the lineage modules and their adapters: topics, tables, the per-topic emission state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# One emission is one OpenLineage run of two events: START, then COMPLETE.
EVENT_TYPES = ("START", "COMPLETE")
# Stale runs remembered per topic (events that may still exist in DataZone and must be deleted).
MAX_STALE_RUNS = 8


@dataclass(frozen=True, order=True)
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


@dataclass(frozen=True, order=True)
class TableRef:
    """A Glue Data Catalog table (names as Glue stores them: lower case)."""

    database: str
    table: str

    @property
    def name(self) -> str:
        """The OpenLineage dataset name DataZone matches to the Glue table: `{database}/{table}`."""
        return f"{self.database}/{self.table}"


@dataclass(frozen=True)
class TableColumn:
    name: str
    type: str
    comment: str = ""


@dataclass(frozen=True)
class GlueTable:
    """A table as the Glue Data Catalog returned it, with where it lives (for its ARN)."""

    ref: TableRef
    columns: tuple[TableColumn, ...]
    catalog_id: str  # the account that owns the catalog (GetTables' CatalogId)
    region: str
    partition: str = "aws"

    @property
    def namespace(self) -> str:
        """OpenLineage namespace that, joined with `ref.name`, is the table ARN DataZone matches."""
        return f"arn:{self.partition}:glue:{self.region}:{self.catalog_id}:table"

    @property
    def arn(self) -> str:
        return f"{self.namespace}/{self.ref.name}"


@dataclass(frozen=True)
class StaleRun:
    """A run whose events may exist in DataZone but are not (or no longer) the topic's current lineage.

    `event_ids` are the ids DataZone confirmed; when fewer than both events are known (a lost response),
    the rest are looked up by run id around `event_time` and `attempted_at` before anything is re-posted.
    """

    run_id: str
    event_time: str
    attempted_at: str
    event_ids: tuple[str, ...] = ()
    complete: bool = False  # every event of the run is in event_ids

    def to_entry(self) -> dict[str, Any]:
        return {
            "r": self.run_id,
            "t": self.event_time,
            "a": self.attempted_at,
            "i": list(self.event_ids),
            "c": self.complete,
        }

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> StaleRun:
        return cls(
            run_id=str(entry["r"]),
            event_time=str(entry["t"]),
            attempted_at=str(entry.get("a", entry["t"])),
            event_ids=tuple(str(i) for i in entry.get("i", ())),
            complete=bool(entry.get("c", False)),
        )


@dataclass(frozen=True)
class LineageState:
    """What was last emitted for a topic (under `{MAPPING_PATH}/lineage`, key `TopicKey.key`).

    `fingerprint` is the hash of everything the run's events carry except runId and eventTime; `run_id`,
    `event_time` and `event_ids` identify the run in DataZone (empty when no emission succeeded yet).
    `stale` lists runs to delete: superseded runs whose deletion failed, and attempts whose posts failed.
    """

    fingerprint: str = ""
    run_id: str = ""
    event_time: str = ""
    event_ids: tuple[str, ...] = ()
    table: str = ""  # `{database}/{table}` of the current edge (reports, the demo)
    stale: tuple[StaleRun, ...] = field(default=())

    @property
    def emitted(self) -> bool:
        return bool(self.run_id)

    def to_entry(self) -> dict[str, Any]:
        # Short keys: entries are packed several to a 4 KB SSM parameter.
        entry: dict[str, Any] = {}
        if self.emitted:
            entry.update(
                {
                    "f": self.fingerprint,
                    "r": self.run_id,
                    "t": self.event_time,
                    "i": list(self.event_ids),
                    "tb": self.table,
                }
            )
        if self.stale:
            entry["s"] = [run.to_entry() for run in self.stale[-MAX_STALE_RUNS:]]
        return entry

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> LineageState:
        return cls(
            fingerprint=str(entry.get("f", "")),
            run_id=str(entry.get("r", "")),
            event_time=str(entry.get("t", "")),
            event_ids=tuple(str(i) for i in entry.get("i", ())),
            table=str(entry.get("tb", "")),
            stale=tuple(StaleRun.from_entry(run) for run in entry.get("s", ())),
        )
