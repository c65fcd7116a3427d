"""The last drift found for a topic, as the catalog shows it: kept by lineage, shown on the topic's asset.

The lineage function finds drift (it knows the mapped tables and their column lineage); schema-sync owns
the DataZone asset. They meet in SSM: lineage saves one `DriftSummary` per topic in the packed store under
`{MAPPING_PATH}/drift` (key `"<registryName>/<topic>"`, as lineage state keys), and schema-sync puts the
summary of a topic's current schema version into the asset's drift form. `fingerprint` is the drift's
(see `drift_fingerprint`): it is what makes each drift announced once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.drift.impact import DriftImpact, DriftSubject, Readers, Severity
from kafka_lineage.model.state_layout import read_entries

# Tables named in a summary: the form shows the first few; the event has them all. So are consumer groups
# and subscribing projects.
MAX_SUMMARY_TABLES = 20
MAX_SUMMARY_READERS = 20


@dataclass(frozen=True)
class DriftSummary:
    from_version: int
    to_version: int
    severity: Severity
    impacted_tables: tuple[str, ...]  # "<db>/<table>", at most MAX_SUMMARY_TABLES
    impacted_table_count: int
    changed_fields: int
    fingerprint: str
    detected_at: str  # ISO 8601, UTC
    # Who to call: the consumer groups that read the topic and the projects subscribed to its asset (at most
    # MAX_SUMMARY_READERS each), and how many there were.
    consumer_groups: tuple[str, ...] = ()
    consumer_count: int = 0
    subscriber_projects: tuple[str, ...] = ()
    subscriber_count: int = 0

    def to_entry(self) -> dict[str, Any]:
        # Short keys: entries are packed several to a 4 KB parameter. Readers only when there are some, so a
        # summary saved before them reads back (and fingerprints) as it was.
        entry: dict[str, Any] = {
            "f": self.from_version,
            "t": self.to_version,
            "s": self.severity,
            "tb": list(self.impacted_tables),
            "n": self.impacted_table_count,
            "c": self.changed_fields,
            "p": self.fingerprint,
            "at": self.detected_at,
        }
        if self.consumer_count:
            entry |= {"cg": list(self.consumer_groups), "cn": self.consumer_count}
        if self.subscriber_count:
            entry |= {"sp": list(self.subscriber_projects), "sn": self.subscriber_count}
        return entry

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> DriftSummary:
        severity = str(entry["s"])
        if severity not in ("breaking", "warning", "info"):
            raise ValueError(f"unknown drift severity {severity!r}")
        return cls(
            from_version=int(entry["f"]),
            to_version=int(entry["t"]),
            severity=severity,  # type: ignore[arg-type]  # checked above
            impacted_tables=tuple(str(table) for table in entry.get("tb", ())),
            impacted_table_count=int(entry.get("n", 0)),
            changed_fields=int(entry.get("c", 0)),
            fingerprint=str(entry["p"]),
            detected_at=str(entry["at"]),
            consumer_groups=tuple(str(group) for group in entry.get("cg", ())),
            consumer_count=int(entry.get("cn", 0)),
            subscriber_projects=tuple(str(project) for project in entry.get("sp", ())),
            subscriber_count=int(entry.get("sn", 0)),
        )


def summarize(
    subject: DriftSubject,
    impact: DriftImpact,
    fingerprint: str,
    detected_at: str,
    readers: Readers | None = None,
) -> DriftSummary:
    tables = tuple(table.table for table in impact.impacted)
    readers = readers or Readers()
    groups = tuple(dict.fromkeys(group for group, _ in readers.consumers))
    projects = tuple(dict.fromkeys(project for project, _ in readers.subscribers))
    return DriftSummary(
        from_version=subject.from_version,
        to_version=subject.to_version,
        severity=impact.severity or "info",
        impacted_tables=tables[:MAX_SUMMARY_TABLES],
        impacted_table_count=len(tables),
        changed_fields=len(impact.changes),
        fingerprint=fingerprint,
        detected_at=detected_at,
        consumer_groups=groups[:MAX_SUMMARY_READERS],
        consumer_count=len(groups),
        subscriber_projects=projects[:MAX_SUMMARY_READERS],
        subscriber_count=len(projects),
    )


def load_summaries(entries: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, DriftSummary], list[str]]:
    """The drift store's entries by topic key, read by lineage (which checks the unreadable ones again) and by
    schema-sync (which reports them); the unreadable ones are listed."""
    return read_entries(entries, lambda _key, entry: DriftSummary.from_entry(entry))
