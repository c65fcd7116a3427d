"""The lineage emission's result (docs/lineage.md, docs/invocation.md): what the run reports, in one place.

Each `record_*` method puts one step's findings in the result and the logs (every item is logged; the
result keeps samples of the lists); `publish_metrics` turns the counts into the run's metrics. The methods
are locked: the applier's threads report outcomes while the run goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka_lineage.engine.checkpoints import SaveReport
from kafka_lineage.engine.run import RunResult
from kafka_lineage.lineage.apply import TopicOutcome
from kafka_lineage.lineage.drift_check import DriftRound
from kafka_lineage.lineage.glue.target import GlueReport
from kafka_lineage.lineage.model import LoadedStates
from kafka_lineage.lineage.plan import LineagePlan
from kafka_lineage.lineage.resolve import Resolution
from kafka_lineage.model import metrics as catalog
from kafka_lineage.model.report import Sample, failure_item
from kafka_lineage.observability import emit, logger

# Each per-item list of the result holds at most this many items; `counts` has every list's full length, and
# every item is in the logs. Lambda's response limit is 6 MB, whatever the number of topics.
SAMPLE_SIZE = 50


def _sample() -> Sample:
    return Sample(SAMPLE_SIZE)


@dataclass
class EmitResult(RunResult):
    """The run contract's result (engine/run.py) and the emission's own counts and samples, JSON-ready
    through `to_dict`."""

    emitted: int = 0
    unchanged: int = 0
    cleaned: int = 0
    unmapped: Sample = field(default_factory=_sample)
    invalid_mappings: Sample = field(default_factory=_sample)
    retracted: Sample = field(default_factory=_sample)
    retracting: Sample = field(default_factory=_sample)
    emissions: Sample = field(default_factory=_sample)
    ambiguous: Sample = field(default_factory=_sample)
    undetermined: Sample = field(default_factory=_sample)
    connector_errors: Sample = field(default_factory=_sample)
    inactive_paths: Sample = field(default_factory=_sample)  # channels and streams not ACTIVE (edges kept)
    delivery_errors: Sample = field(default_factory=_sample)
    consumer_errors: Sample = field(default_factory=_sample)  # consumer groups not listed (edges kept)
    kept: int = 0  # connector edges kept as they are: their connector could not be read
    drift: Sample = field(default_factory=_sample)
    drift_announced: int = 0
    drift_breaking: int = 0
    degraded: int = 0
    largest_event_bytes: int = 0
    done_through: str | None = None  # the last hash group the chain finished: the follow-up resumes after it
    lease_lost: bool = False
    state_writes: int = 0
    planned: list[dict[str, object]] | None = None
    # Other targets than DataZone (`lineageTargets`): then every action's failure names its target.
    per_target: bool = False
    targets: dict[str, GlueReport] = field(default_factory=dict)

    def fail(self, item: dict[str, str]) -> None:
        with self._lock:
            self.failed.add(item)

    @property
    def continues(self) -> bool:
        """A lost lease ends the run's work: another invocation writes the state now."""
        return self.deferred is not None or (self.incomplete and self.progressed and not self.lease_lost)

    def record_plan(
        self,
        plan: LineagePlan,
        loaded: LoadedStates,
        resolution: Resolution,
        connector_errors: Sequence[str],
        unreadable_records: Sequence[str],
    ) -> None:
        """What the plan and the reads found: counts, unmapped topics, connector issues, invalid mappings,
        failures."""
        for key in loaded.unreadable:
            logger.error("unreadable lineage state entry left untouched", extra={"key": key})
        self.unchanged = len(plan.unchanged)
        self.kept = len(plan.kept)
        if plan.kept:
            logger.warning(
                "connector edges kept as they are: their connectors could not be read",
                extra={"edges": len(plan.kept)},
            )
        for topic in plan.unmapped:
            logger.warning(
                "topic maps to no Glue table (no mapping, no sink connector, no matching tableRule): "
                "no lineage",
                extra=topic.as_dict(),
            )
            self.unmapped.add(topic.as_dict())
        for kind, issues, sample in (
            ("ambiguous", resolution.ambiguous, self.ambiguous),
            ("undetermined", resolution.undetermined, self.undetermined),
        ):
            for issue in issues:
                logger.warning(
                    f"the connectors' configuration does not decide the topic's table ({kind}): not guessed",
                    extra=issue.as_dict(),
                )
                sample.add(issue.as_dict())
        self._record_read_errors(resolution, connector_errors)
        for item in resolution.invalid_mappings:
            logger.warning("invalid explicit table mapping skipped", extra=item.as_dict())
            self.invalid_mappings.add(item.as_dict())
        for failure in plan.failed:
            logger.warning("lineage not emitted for a topic", extra=failure.as_dict())
            self.fail(failure.as_dict())
        for arn in unreadable_records:
            self.fail(failure_item("its asset mapping entry is unreadable", schemaArn=arn))

    def _record_read_errors(self, resolution: Resolution, connector_errors: Sequence[str]) -> None:
        """What the reads behind derived edges could not read (those edges are kept), and inactive paths."""
        for error in connector_errors:
            logger.error(
                "MSK Connect connectors not read: their edges are kept as they are", extra={"error": error}
            )
            self.connector_errors.add({"error": error})
            self.fail(failure_item(error, doing="reading MSK Connect connectors"))
        for path in resolution.inactive_paths:
            logger.warning("delivery path not ACTIVE: its edges are kept as configured", extra=path.as_dict())
            self.inactive_paths.add(path.as_dict())
        for error in resolution.delivery.errors:
            logger.error("delivery paths not read: their edges are kept as they are", extra={"error": error})
            self.delivery_errors.add({"error": error})
            self.fail(failure_item(error, doing="reading delivery paths"))
        for error in resolution.consumers.errors:
            logger.error(
                "consumer groups not listed: their edges are kept as they are", extra={"error": error}
            )
            self.consumer_errors.add({"error": error})
            self.fail(failure_item(error, doing="listing consumer groups"))

    def record_drift(self, drift: DriftRound) -> None:
        for finding in drift.findings:
            if finding.detail is not None or finding.changed:
                self.drift.add(finding.report())
            if finding.detail is not None and not self.dry_run:  # announced (drift_check.announce)
                self.drift_announced += 1
                self.drift_breaking += finding.summary.severity == "breaking"
        for key, error in drift.failures:
            self.fail(failure_item(error, **key.as_dict()))

    def record_planned(self, plan: LineagePlan, drift: DriftRound) -> None:
        """A dry run's answer: the actions it would take and the drift it would announce."""
        self.planned = plan.describe() + [{"action": "drift", **f.report()} for f in drift.findings]
        self.emitted = sum(1 for a in self.planned if a["action"] == "emit")

    def record(self, outcome: TopicOutcome) -> None:
        """One action's outcome (from the applier's threads)."""
        with self._lock:
            self._count(outcome)
        if outcome.error and outcome.kind != "deferred":
            failure = failure_item(outcome.error, **outcome.key.as_dict())
            if self.per_target:
                failure["target"] = "datazone"
            logger.warning("lineage action failed", extra=failure)
            self.fail(failure)

    def _count(self, outcome: TopicOutcome) -> None:
        if outcome.kind == "emitted":
            self.emitted += 1
            self.emissions.add(outcome.report)
            if outcome.report.get("degraded"):
                self.degraded += 1
            size = outcome.report.get("largestEventBytes")
            if isinstance(size, int):
                self.largest_event_bytes = max(self.largest_event_bytes, size)
        elif outcome.kind == "retracted":
            self.retracted.add(outcome.report)
        elif outcome.kind == "retracting":
            self.retracting.add(outcome.report)
        elif outcome.kind == "cleaned":
            self.cleaned += 1
            self.unchanged += 1
        elif outcome.kind == "migrated":
            self.unchanged += 1
        elif outcome.kind == "deferred":
            self.remaining += 1

    def record_target(
        self, name: str, report: GlueReport, planned: list[dict[str, object]] | None = None
    ) -> None:
        """What another target did (or, in a dry run, would do: `planned`, listed beside DataZone's)."""
        self.targets[name] = report
        if planned is not None:
            report.planned = planned
            self.planned = [*(self.planned or []), *planned]
        for item in report.failed:
            self.fail(item)
        self.state_writes += report.state_writes
        self.progressed = self.progressed or report.state_writes > 0  # saved: a follow-up resumes after it
        self.lease_lost = self.lease_lost or report.lease_lost
        if report.remaining:
            self.remaining += report.remaining
            self.incomplete = True

    def record_apply(self, report: SaveReport) -> None:
        """What the apply left: the checkpoint saver's work, and the actions the deadline left undone."""
        self.state_writes += report.writes
        self.progressed = self.progressed or report.progressed
        self.lease_lost = self.lease_lost or report.lease_lost
        if report.error is not None:
            self.fail(failure_item(report.error, doing="saving the lineage emission state failed"))
        if self.remaining:
            self.incomplete = True
            logger.warning(
                "lineage emission checkpointed before its deadline", extra={"remaining": self.remaining}
            )

    def to_dict(self) -> dict[str, Any]:
        lists = {
            "unmapped": self.unmapped,
            "invalidMappings": self.invalid_mappings,
            "failed": self.failed,
            "retracted": self.retracted,
            "retracting": self.retracting,
            "emissions": self.emissions,
            "ambiguous": self.ambiguous,
            "undetermined": self.undetermined,
            "connectorErrors": self.connector_errors,
            "inactivePaths": self.inactive_paths,
            "deliveryErrors": self.delivery_errors,
            "consumerErrors": self.consumer_errors,
            "drift": self.drift,
        }
        result: dict[str, Any] = {
            "dryRun": self.dry_run,
            "emitted": self.emitted,
            "unchanged": self.unchanged,
            **{name: sample.items for name, sample in lists.items()},
            "cleaned": self.cleaned,
            "counts": {name: sample.total for name, sample in lists.items()},
            "stateWrites": self.state_writes,
        }
        if self.kept:
            result["keptConnectorEdges"] = self.kept
        if self.incomplete:
            result["incomplete"] = True
            result["remaining"] = self.remaining
        if self.lease_lost:
            result["leaseLost"] = True
        if self.deferred is not None:
            result["deferred"] = self.deferred.reason
        if self.planned is not None:
            result["planned"] = self.planned
        for name, report in self.targets.items():
            result[name] = report.as_dict(SAMPLE_SIZE)
        return result

    def publish_metrics(self) -> None:
        """The metrics; a dry run publishes only LineageDryRuns (planned counts must not feed alarms)."""
        if self.dry_run:
            emit(catalog.LINEAGE_DRY_RUNS, 1)
            return
        if self.deferred is not None:  # nothing was read to the end nor done: the follow-up counts it
            emit(catalog.LINEAGE_BUSY, 1)
            return
        counts = {
            catalog.LINEAGE_EMITTED: self.emitted,
            catalog.LINEAGE_UNCHANGED: self.unchanged,
            catalog.LINEAGE_UNMAPPED_TOPICS: self.unmapped.total,
            catalog.LINEAGE_INVALID_MAPPINGS: self.invalid_mappings.total,
            catalog.LINEAGE_FAILED: self.failed.total,
            catalog.LINEAGE_RETRACTED: self.retracted.total,
            catalog.LINEAGE_DEFERRED: self.remaining,
            catalog.LINEAGE_DEGRADED_RUNS: self.degraded,
            catalog.LINEAGE_AMBIGUOUS_TOPICS: self.ambiguous.total,
            catalog.LINEAGE_UNDETERMINED_TOPICS: self.undetermined.total,
            catalog.SCHEMA_DRIFT_DETECTED: self.drift_announced,
            catalog.SCHEMA_DRIFT_BREAKING: self.drift_breaking,
        }
        for metric, value in counts.items():
            emit(metric, value)
        if self.connector_errors.total:
            emit(catalog.LINEAGE_CONNECTORS_UNREADABLE, self.connector_errors.total)
        if self.largest_event_bytes:
            emit(catalog.LINEAGE_LARGEST_EVENT_BYTES, self.largest_event_bytes)
