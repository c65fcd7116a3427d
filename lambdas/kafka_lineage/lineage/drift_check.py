"""Schema drift in the lineage run: which topics moved to a new schema version, and what that breaks.

A topic has drift to check when its asset record names the version it mirrored before the current one
(`AssetRecord.previous_version`, set by schema-sync when the latest version moves) and the drift store
(`{MAPPING_PATH}/drift`, one `DriftSummary` per topic) has not recorded that pair of versions yet. Checking
costs two GetSchemaVersion calls (the old and the new definition), the pure diff and impact of
`kafka_lineage.drift`, and the DataZone walk downstream of each impacted table.

Announced once: a drift whose changes feed a table column, or that removes, renames or retypes a field of
a topic consumer groups read (severity `warning` at least), is put on the default bus as "Schema Drift
Detected" (detail: `drift.drift_detail`, naming who to call: the topic's consumer groups and the projects
with an approved subscription to its asset), then its summary is saved. The summary of every checked pair is
saved, impact or none, so a pair is checked once; a pair whose fingerprint is already recorded is never
announced again. A crash between the put and the save announces that drift once more on the next run: the
event is delivered at least once (EventBridge has no de-duplication to lean on), and consumers can
de-duplicate on `schemaArn` + `fromVersion` + `toVersion`. A check that fails (a version unreadable, the
put refused) saves nothing for the topic: the next run checks it again.

The new version's lineage run carries the same changes in a run facet (`schemaDrift`, see `drift_facet`).
Impact is about Glue table columns only: an S3 location a channel or stream writes the topic to has no
columns lineage knows, so it is impacted by nothing, and its run carries no drift facet.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from kafka_lineage.drift import (
    DownstreamWalker,
    DriftImpact,
    DriftSubject,
    DriftSummary,
    FieldDiff,
    Readers,
    assess_impact,
    diff_fields,
    drift_detail,
    drift_fingerprint,
    summarize,
)
from kafka_lineage.lineage.content import RunContent
from kafka_lineage.lineage.plan import Action, Emit, LineagePlan
from kafka_lineage.lineage.ports import Announcer, VersionReader
from kafka_lineage.lineage.run_identity import format_time
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.failures import describe_failure
from kafka_lineage.model.tables import GlueTable, TableRef
from kafka_lineage.model.topics import TopicKey
from kafka_lineage.observability import logger

# The run facet lists at most this many changes (worst first); `truncated` counts the rest. The facet rides
# in every event of the run, which DataZone caps at 300,000 bytes.
MAX_FACET_CHANGES = 100


@dataclass(frozen=True)
class DriftFinding:
    """One checked pair of versions: the summary to save, and the event detail if it was announced."""

    key: TopicKey
    subject: DriftSubject
    impact: DriftImpact
    summary: DriftSummary
    detail: dict[str, Any] | None  # to announce (in a dry run: would be)
    changed: bool = True  # the summary differs from the saved one

    def logged(self) -> dict[str, Any]:
        """What the log line of an announcement adds to the topic."""
        return {
            "severity": self.summary.severity,
            "tables": self.summary.impacted_tables,
            "consumers": self.summary.consumer_groups,
        }

    def report(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            **self.key.as_dict(),
            "fromVersion": self.subject.from_version,
            "toVersion": self.subject.to_version,
            "severity": self.summary.severity,
            "changes": len(self.impact.changes),
            "impactedTables": [table.table for table in self.impact.impacted],
            "announced": self.detail is not None,
        }
        if self.impact.warnings or self.impact.diff.warnings:
            found["warnings"] = [*self.impact.diff.warnings, *self.impact.warnings]
        return found


@dataclass
class DriftRound:
    findings: list[DriftFinding] = field(default_factory=list)
    failures: list[tuple[TopicKey, str]] = field(default_factory=list)
    deferred: int = 0

    def summaries(self) -> dict[str, dict[str, Any] | None]:
        """The drift store's changes: the summary of each pair checked for the first time."""
        return {f.key.key: f.summary.to_entry() for f in self.findings if f.changed}

    def facets(self) -> dict[TopicKey, dict[str, Any]]:
        return {finding.key: drift_facet(finding) for finding in self.findings if finding.impact.changes}


def pending(
    keys: Iterable[TopicKey],
    records: Mapping[TopicKey, AssetRecord],
    summaries: Mapping[str, DriftSummary],
) -> list[TopicKey]:
    """The topics among `keys` with a pair of versions not checked yet."""
    found = []
    for key in keys:
        record = records.get(key)
        if record is None or not record.previous_version or record.previous_version == record.latest_version:
            continue
        known = summaries.get(key.key)
        if known is None or (known.from_version, known.to_version) != (
            record.previous_version,
            record.latest_version,
        ):
            found.append(key)
    return found


class DriftCheck:
    """Check pairs of versions: what drifted, what it impacts, and the event to announce (the run announces
    it when it applies: a check writes nothing, so a dry run's is the same as a real run's)."""

    def __init__(
        self,
        versions: VersionReader,
        walker: DownstreamWalker | None,
        summaries: Mapping[str, DriftSummary],
        *,
        concurrency: int = 4,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.versions, self.walker = versions, walker
        self.summaries = summaries
        self.concurrency = max(1, concurrency)
        self.clock = clock

    def run(
        self,
        keys: Sequence[TopicKey],
        records: Mapping[TopicKey, AssetRecord],
        tables_of: Callable[[TopicKey], Sequence[GlueTable]],
        stop: Callable[[], bool] = lambda: False,
        readers_of: Callable[[TopicKey, AssetRecord], Readers] | None = None,
    ) -> DriftRound:
        """Check each topic (several at a time); once `stop()` says so, the rest wait for the next run.
        `readers_of` names who reads a topic (its consumer groups, its asset's subscribers)."""
        result = DriftRound()

        def one(key: TopicKey) -> DriftFinding | str | None:
            if stop():
                return None
            try:
                record = records[key]
                readers = readers_of(key, record) if readers_of is not None else Readers()
                return self._check(key, record, tables_of(key), readers)
            except Exception as error:  # one topic's failure never stops the others
                logger.exception("schema drift check failed", extra={"topic": key.key})
                return f"schema drift check failed: {describe_failure(error)}"

        with ThreadPoolExecutor(max_workers=min(self.concurrency, max(1, len(keys)))) as pool:
            for key, outcome in zip(keys, pool.map(one, keys), strict=True):
                if outcome is None:
                    result.deferred += 1
                elif isinstance(outcome, str):
                    result.failures.append((key, outcome))
                else:
                    result.findings.append(outcome)
        return result

    def _check(
        self, key: TopicKey, record: AssetRecord, tables: Sequence[GlueTable], readers: Readers
    ) -> DriftFinding:
        old = self.versions.read(record.schema_arn, record.previous_version)
        new = self.versions.read(record.schema_arn, record.latest_version)
        data_format = new.data_format or record.data_format
        diff: FieldDiff = diff_fields(data_format, old.definition, new.definition)
        impact = assess_impact(diff, tables, self.walker, read=bool(readers.consumers))
        subject = DriftSubject(
            key.registry_name, key.topic, record.schema_arn, record.previous_version, record.latest_version
        )
        fingerprint = drift_fingerprint(subject, impact)
        summary = summarize(subject, impact, fingerprint, format_time(self.clock()), readers)
        known = self.summaries.get(key.key)
        detail = None
        if impact.announced and (known is None or known.fingerprint != fingerprint):
            detail = drift_detail(subject, impact, readers=readers)
        if known is not None and (known.fingerprint, known.from_version, known.to_version) == (
            fingerprint,
            subject.from_version,
            subject.to_version,
        ):
            summary = known  # checked before (a re-emitted run): the saved summary stays as it is
        return DriftFinding(key, subject, impact, summary, detail, changed=summary is not known)


def announce(drift: DriftRound, announcer: Announcer | None) -> DriftRound:
    """The apply step's half of drift: each finding's event goes out (once: a finding carries one only
    when its pair was not announced before). A refused announcement fails its topic, and its summary is
    not saved, so the next run announces it again; the others go on. Without an announcer, nothing goes
    out and every summary is saved."""
    if announcer is None:
        return drift
    announced = DriftRound(deferred=drift.deferred, failures=list(drift.failures))
    for finding in drift.findings:
        if finding.detail is not None:
            try:
                announcer.announce(finding.detail)
            except Exception as error:  # one topic's failure never stops the others
                logger.exception("schema drift not announced", extra={"topic": finding.key.key})
                announced.failures.append(
                    (finding.key, f"schema drift not announced: {describe_failure(error)}")
                )
                continue
            logger.warning("schema drift announced", extra={**finding.key.as_dict(), **finding.logged()})
        announced.findings.append(finding)
    return announced


def drift_facet(finding: DriftFinding) -> dict[str, Any]:
    """The `schemaDrift` run facet's fields: the versions, the severity, and the changes (worst first)."""
    ordered = sorted(
        finding.impact.changes, key=lambda assessed: ("breaking", "warning", "info").index(assessed.severity)
    )
    changes = [{**assessed.change.as_dict(), "severity": assessed.severity} for assessed in ordered]
    facet: dict[str, Any] = {
        "schemaArn": finding.subject.schema_arn,
        "fromVersion": finding.subject.from_version,
        "toVersion": finding.subject.to_version,
        "severity": finding.summary.severity,
        "changes": changes[:MAX_FACET_CHANGES],
        "impactedTables": [table.table for table in finding.impact.impacted],
    }
    if len(changes) > MAX_FACET_CHANGES:
        facet["truncated"] = len(changes) - MAX_FACET_CHANGES
    return facet


def tables_fed(refs: Iterable[TableRef], tables: Mapping[TableRef, GlueTable | None]) -> list[GlueTable]:
    """The Glue tables (as read) a topic feeds through its edges; a table not read is left out."""
    found = [tables.get(ref) for ref in dict.fromkeys(refs)]
    return [table for table in found if table is not None]


def drift_keys(
    plan: LineagePlan, records: Mapping[TopicKey, AssetRecord], summaries: Mapping[str, DriftSummary]
) -> list[TopicKey]:
    """Topics whose drift to check: a pair of versions not checked yet, and every run about to be posted
    for a version that has a previous one (the run carries the drift facet, so its body is the same
    whichever run posts it)."""
    # Drift is per topic (a pair of versions), over every table the topic feeds: edge keys name their topic.
    mapped = {e.topic for e in plan.unchanged} | {a.key.topic for a in plan.actions if isinstance(a, Emit)}
    keys = set(pending(sorted(mapped), records, summaries))
    for action in plan.actions:
        if (
            isinstance(action, Emit)
            and action.reason not in ("cleanup", "migrate")
            and isinstance(action.content, RunContent)
            and action.content.previous_version
        ):
            keys.add(action.key.topic)
    return sorted(keys)


def with_drift(action: Action, facets: Mapping[TopicKey, dict[str, Any]]) -> Action:
    """Each sink edge's run of the topic's new version carries the topic's drift (first hops and S3
    locations do not: the drift is about the table columns the topic feeds)."""
    topic = action.key.topic
    if isinstance(action, Emit) and isinstance(action.content, RunContent) and topic in facets:
        return replace(action, content=replace(action.content, drift=facets[topic]))
    return action
