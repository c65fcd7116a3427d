"""Schema drift: what a new schema version changes in the fields, and what that does to the mapped tables.

Pure code, no AWS calls:
  - `diff_fields(data_format, old_definition, new_definition) -> FieldDiff` (module `diff`): every field
    change, classified, by column path;
  - `assess_impact(diff, tables, walker) -> DriftImpact` (module `impact`): each change's severity and the
    table columns it touches through column lineage, and what lies downstream of each impacted table
    through a caller-supplied `DownstreamWalker`;
  - `drift_detail(subject, impact)`: the "Schema Drift Detected" event detail (docs/schema-drift.md), and
    `drift_fingerprint(subject, impact)` to announce each drift once.
"""

from kafka_lineage.drift.diff import diff_fields
from kafka_lineage.drift.impact import (
    MAX_DETAIL_BYTES,
    AssessedChange,
    ColumnHit,
    DownstreamWalker,
    DriftImpact,
    DriftSubject,
    ImpactedTable,
    Readers,
    Severity,
    assess_impact,
    drift_detail,
    drift_fingerprint,
)
from kafka_lineage.drift.model import CHANGE_KINDS, ChangeKind, FieldChange, FieldDiff, FieldFacts
from kafka_lineage.drift.summary import MAX_SUMMARY_TABLES, DriftSummary, summarize

__all__ = [
    "CHANGE_KINDS",
    "MAX_DETAIL_BYTES",
    "MAX_SUMMARY_TABLES",
    "AssessedChange",
    "ChangeKind",
    "ColumnHit",
    "DownstreamWalker",
    "DriftImpact",
    "DriftSubject",
    "DriftSummary",
    "FieldChange",
    "FieldDiff",
    "FieldFacts",
    "ImpactedTable",
    "Readers",
    "Severity",
    "assess_impact",
    "diff_fields",
    "drift_detail",
    "drift_fingerprint",
    "summarize",
]
