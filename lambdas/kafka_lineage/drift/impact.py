"""What a field diff does to the tables a topic feeds, and the "Schema Drift Detected" event detail.

Column lineage is the lineage side's own rule (`kafka_lineage.model.tables.match_columns` over the row
fields `kafka_lineage.schemas.row_fields` finds: Debezium's `after` unwrapped, names matched exactly, then
case-insensitively), applied to each mapped table with the old version's fields and with the new one's. A
change touches a table column when the field feeding the column is the changed field, lies inside it (a
removed `after` removes every row field) or contains it (a retyped `after.address.city` retypes the record
column `address`). The old version's lineage answers for the field's old path, the new version's for its new
path.

Severity of a change that touches a column: `breaking` for removed, type_changed and renamed (the sink
matches columns by name: a renamed field no longer feeds its column), `warning` for nullability_changed and
default_changed, `info` for added; a change that touches no column is `info`, except that a removed,
renamed (its old name is gone) or retyped field of a topic that consumer groups read is a `warning`: it may
break them, and such a drift is announced even when it feeds no table column (`DriftImpact.announced`).
The drift's severity is its worst change's.

What lies downstream of each impacted table comes from a caller-supplied `DownstreamWalker` (DataZone's
lineage graph, in the function); a walker that fails for one table leaves that table's `downstream` empty
and says so in `warnings`, the other tables are still walked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from kafka_lineage.drift.model import FieldChange, FieldDiff
from kafka_lineage.drift.tree import FieldTree
from kafka_lineage.model.digest import fingerprint
from kafka_lineage.model.downstream import DownstreamNode
from kafka_lineage.model.tables import ColumnMatch, GlueTable, match_columns
from kafka_lineage.schemas import row_fields

Severity = Literal["breaking", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("breaking", "warning", "info")  # worst first
# PutEvents: an entry (Source, DetailType, Detail, Resources, 14 bytes for Time) must stay under 256 KB.
# The detail keeps 1 KB for the rest: a source name, the detail-type and a schema ARN (at most ~600 bytes).
MAX_DETAIL_BYTES = 262_144 - 1_024

_BREAKING = frozenset({"removed", "type_changed", "renamed"})
_WARNING = frozenset({"nullability_changed", "default_changed"})
# What breaks a consumer that reads the field by name: it is gone (removed, or renamed away) or retyped.
_BREAKS_READERS = _BREAKING


@dataclass(frozen=True)
class Readers:
    """Who reads the topic, to call when it drifts: its consumer groups `(group, cluster ARN)` (MSK's
    consumer-lag metrics) and the approved subscriptions to its asset `(project id, subscription id)`."""

    consumers: tuple[tuple[str, str], ...] = ()
    subscribers: tuple[tuple[str, str], ...] = ()

    def as_detail(self) -> dict[str, list[dict[str, str]]]:
        return {
            "consumers": [{"group": group, "clusterArn": arn} for group, arn in self.consumers],
            "subscribers": [
                {"projectId": project, "subscriptionId": subscription}
                for project, subscription in self.subscribers
            ],
        }


class DownstreamWalker(Protocol):
    """What lies downstream of a Glue table, given its ARN (its DataZone lineage node's sourceIdentifier)."""

    def __call__(self, table_arn: str) -> Sequence[DownstreamNode]: ...


@dataclass(frozen=True)
class ColumnHit:
    table: str  # "<db>/<table>"
    column: str


@dataclass(frozen=True)
class AssessedChange:
    change: FieldChange
    severity: Severity
    columns: tuple[ColumnHit, ...]  # the table columns it touches, by table then table order


@dataclass(frozen=True)
class ImpactedTable:
    table: str  # "<db>/<table>"
    table_arn: str
    columns: tuple[str, ...]  # in the table's column order
    downstream: tuple[DownstreamNode, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "tableArn": self.table_arn,
            "columns": list(self.columns),
            "downstream": [node.as_dict() for node in self.downstream],
        }


@dataclass(frozen=True)
class DriftImpact:
    diff: FieldDiff
    changes: tuple[AssessedChange, ...]
    impacted: tuple[ImpactedTable, ...]
    warnings: tuple[str, ...] = ()
    read: bool = False  # consumer groups read the topic

    @property
    def breaks_readers(self) -> bool:
        """Consumer groups read the topic and a change removes or retypes a field they may read."""
        return self.read and any(a.change.change in _BREAKS_READERS for a in self.changes)

    @property
    def announced(self) -> bool:
        """Worth announcing: a change touches a table column, or breaks the topic's consumer groups."""
        return self.feeds_columns or self.breaks_readers

    @property
    def severity(self) -> Severity | None:
        """The worst change's severity; None when nothing changed."""
        found = {assessed.severity for assessed in self.changes}
        return next((severity for severity in SEVERITIES if severity in found), None)

    @property
    def feeds_columns(self) -> bool:
        """Some change touches a table column: the drift is worth announcing."""
        return bool(self.impacted)

    @property
    def complete(self) -> bool:
        return self.diff.complete and not self.warnings


@dataclass(frozen=True)
class DriftSubject:
    """Which schema versions the drift is between."""

    registry_name: str
    topic: str
    schema_arn: str
    from_version: int
    to_version: int


def assess_impact(
    diff: FieldDiff,
    tables: Sequence[GlueTable],
    walker: DownstreamWalker | None = None,
    *,
    read: bool = False,
) -> DriftImpact:
    """Each change's severity and touched columns over the mapped `tables`, and the impacted tables. `read`:
    consumer groups read the topic, so a removed, renamed or retyped field that feeds no column is a
    `warning` (it may break them) rather than `info`."""
    # Several edges (a rule and a connector, two connectors) may name one table: assess it once.
    unique: dict[str, GlueTable] = {}
    for table in tables:
        unique.setdefault(table.arn, table)
    tables = list(unique.values())
    old_tree, new_tree = FieldTree(diff.old.columns), FieldTree(diff.new.columns)
    old_rows, new_rows = row_fields(diff.old.columns), row_fields(diff.new.columns)
    feeds = [
        (
            table,
            _Feeds(old_tree, match_columns(old_rows, table)),
            _Feeds(new_tree, match_columns(new_rows, table)),
        )
        for table in tables
    ]
    positions = {table.arn: {c.name: i for i, c in enumerate(table.columns)} for table in tables}
    assessed: list[AssessedChange] = []
    touched: dict[str, set[str]] = {}
    for change in diff.changes:
        hits: list[ColumnHit] = []
        for table, old_feeds, new_feeds in feeds:
            names = old_feeds.touched(change.old_path) | new_feeds.touched(change.new_path)
            if not names:
                continue
            hits.extend(
                ColumnHit(table.ref.name, name)
                for name in sorted(names, key=positions[table.arn].__getitem__)
            )
            touched.setdefault(table.arn, set()).update(names)
        assessed.append(AssessedChange(change, _severity(change, bool(hits), read), tuple(hits)))
    impacted: list[ImpactedTable] = []
    warnings: list[str] = []
    for table in tables:
        if table.arn not in touched:
            continue
        downstream: tuple[DownstreamNode, ...] = ()
        if walker is not None:
            try:
                downstream = tuple(walker(table.arn))
            except Exception as exc:  # one table's graph failing must not hide the others' impact
                warnings.append(
                    f"downstream of {table.ref.name} could not be read: {type(exc).__name__}: {exc}"
                )
        columns = tuple(sorted(touched[table.arn], key=positions[table.arn].__getitem__))
        impacted.append(ImpactedTable(table.ref.name, table.arn, columns, downstream))
    return DriftImpact(diff, tuple(assessed), tuple(impacted), tuple(warnings), read)


class _Feeds:
    """One version's column lineage into one table, indexed by field and by the records around fields."""

    def __init__(self, tree: FieldTree, matches: Sequence[ColumnMatch]) -> None:
        self._tree = tree
        self._exact: dict[str, set[str]] = {}
        self._inside: dict[str, set[str]] = {}  # record path -> columns fed by fields within it
        for match in matches:
            self._exact.setdefault(match.field, set()).add(match.column)
            for ancestor in tree.ancestors(match.field):
                self._inside.setdefault(ancestor, set()).add(match.column)

    def touched(self, path: str | None) -> set[str]:
        """Columns fed by the field at `path`, by a field within it, or by a record containing it."""
        if path is None:
            return set()
        found = set(self._exact.get(path, ())) | self._inside.get(path, set())
        for ancestor in self._tree.ancestors(path):
            found |= self._exact.get(ancestor, set())
        return found


def _severity(change: FieldChange, touches_column: bool, read: bool = False) -> Severity:
    if touches_column and change.change in _BREAKING:
        return "breaking"
    if touches_column and change.change in _WARNING:
        return "warning"
    if read and change.change in _BREAKS_READERS:
        return "warning"
    return "info"


# -- the event --------------------------------------------------------------------------------------------


def drift_detail(
    subject: DriftSubject,
    impact: DriftImpact,
    max_bytes: int = MAX_DETAIL_BYTES,
    readers: Readers | None = None,
) -> dict[str, Any]:
    """A "Schema Drift Detected" event `detail` (docs/schema-drift.md), within `max_bytes` of UTF-8 JSON.

    Changes are listed worst first (schema order within a severity). When the detail would be too large,
    the fewest changes are left out, least severe first, then downstream nodes, then impacted columns, and
    `truncated` counts what was left out: the event still arrives and says it is partial. `consumers` and
    `subscribers` (who to call, `readers`) are cut last, subscribers first. The size is that
    of compact JSON (`separators=(",", ":")`, `ensure_ascii=False`): put the detail serialised that way.
    """
    ordered = sorted(impact.changes, key=lambda assessed: SEVERITIES.index(assessed.severity))
    changes = [assessed.change.as_dict() for assessed in ordered]
    tables = [table.as_dict() for table in impact.impacted]
    detail: dict[str, Any] = {
        "registryName": subject.registry_name,
        "topic": subject.topic,
        "schemaArn": subject.schema_arn,
        "fromVersion": subject.from_version,
        "toVersion": subject.to_version,
        "severity": impact.severity or "info",
        "changes": changes,
        "impacted": tables,
        **(readers or Readers()).as_detail(),
    }
    if _size(detail) <= max_bytes:
        return detail
    # Who to call is cut last, and counted only when there is someone to cut.
    named = [(key, [detail[key]]) for key in ("subscribers", "consumers") if detail[key]]
    omitted = {"changes": 0, "downstream": 0, "columns": 0, **{key: 0 for key, _ in named}}
    detail["truncated"] = omitted
    for key, lists in (
        ("changes", [changes]),
        ("downstream", [table["downstream"] for table in tables]),
        ("columns", [table["columns"] for table in tables]),
        *named,
    ):
        for items in reversed(lists):
            omitted[key] += _cut(detail, items, max_bytes)
            if _size(detail) <= max_bytes:
                return detail
    raise ValueError(f"the drift detail needs more than {max_bytes} bytes even with every list emptied")


def _cut(detail: dict[str, Any], items: list[Any], max_bytes: int) -> int:
    """Drop the fewest trailing `items` that bring `detail` within `max_bytes`; how many were dropped."""
    whole = list(items)
    low, high = 0, len(whole)  # keep `high` items fits? find the largest count that fits
    while low < high:
        middle = (low + high + 1) // 2
        items[:] = whole[:middle]
        if _size(detail) <= max_bytes:
            low = middle
        else:
            high = middle - 1
    items[:] = whole[:low]
    return len(whole) - low


def _size(detail: Mapping[str, Any]) -> int:
    return len(json.dumps(detail, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))


def drift_fingerprint(subject: DriftSubject, impact: DriftImpact) -> str:
    """Identifies one drift announcement: the same versions with the same changes and touched columns.

    Downstream nodes are left out: the lineage graph moves on its own, the drift does not. A caller stores
    this to announce each drift once.
    """
    described = {
        "subject": [
            subject.registry_name,
            subject.topic,
            subject.schema_arn,
            subject.from_version,
            subject.to_version,
        ],
        "changes": [
            [a.change.field, a.change.change, a.change.before, a.change.after] for a in impact.changes
        ],
        "impacted": [[t.table_arn, list(t.columns)] for t in impact.impacted],
    }
    return fingerprint(described)
