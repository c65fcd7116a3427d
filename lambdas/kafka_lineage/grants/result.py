"""What a subscription-grants run did: per-item lists (sampled for the response, every item logged), counts,
and the metrics (GrantsFulfilled, GrantsFailed, GrantsRevoked, GrantsStuck; a dry run only GrantsDryRuns).

`failed` holds grants that ended GRANT_FAILED / REVOKE_FAILED (a cause a person can act on) and anything
that could not be done; `withheld` the roles and clusters left as they are, with why; `warnings` (only when
there are some) a Deny whose condition could not be judged, by role; `errors` the transient part of
`failed` (throttling, 5xx, a busy lease): the handler raises for those after finishing everything else, so
Lambda retries and alarms see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kafka_lineage.engine.run import RunResult
from kafka_lineage.model import metrics as catalog
from kafka_lineage.model.report import Sample
from kafka_lineage.observability import emit, logger

SAMPLE = 50


@dataclass
class GrantsResult(RunResult):
    """The run contract's result (engine/run.py) and the grants' own lists and counts."""

    trigger: str = "events"
    resume_after: str | None = None  # the last group of roles settled (a follow-up starts after it)
    granted: Sample = field(default_factory=lambda: Sample(SAMPLE))
    revoked: Sample = field(default_factory=lambda: Sample(SAMPLE))
    ignored: Sample = field(default_factory=lambda: Sample(SAMPLE))
    withheld: Sample = field(default_factory=lambda: Sample(SAMPLE))
    planned: Sample = field(default_factory=lambda: Sample(SAMPLE))
    warnings: Sample = field(default_factory=lambda: Sample(SAMPLE))
    malformed: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unchanged: int = 0
    stuck: int = 0
    writes: int = 0

    def _add(self, sample: Sample, item: dict[str, Any], message: str) -> None:
        with self._lock:
            sample.add(item)
        logger.info(message, extra={"item": item})

    def grant(self, item: dict[str, Any]) -> None:
        self._add(self.granted, item, "grant fulfilled")

    def revoke(self, item: dict[str, Any]) -> None:
        self._add(self.revoked, item, "grant revoked")

    def fail(self, item: dict[str, Any], *, transient: bool = False) -> None:
        self._add(self.failed, item, "grant failed")
        if transient:
            with self._lock:
                self.errors.append(str(item.get("cause", "")))

    def ignore(self, item: dict[str, Any]) -> None:
        self._add(self.ignored, item, "event ignored")

    def withhold(self, item: dict[str, Any]) -> None:
        self._add(self.withheld, item, "access withheld")

    def warn(self, item: dict[str, Any]) -> None:
        self._add(self.warnings, item, "access warning")

    def plan(self, item: dict[str, Any]) -> None:
        self._add(self.planned, item, "planned")

    def reject(self, reason: str) -> None:
        with self._lock:
            self.malformed.append(reason)
        logger.error("malformed event dropped", extra={"reason": reason})

    def count_unchanged(self, number: int = 1) -> None:
        with self._lock:
            self.unchanged += number

    def count_writes(self, number: int = 1) -> None:
        with self._lock:
            self.writes += number

    @property
    def raises(self) -> bool:
        """True when a transient failure should make the invocation fail (after everything else): a grant
        that ended GRANT_FAILED has its cause in DataZone, and retrying the event would not change it."""
        return bool(self.errors)

    @property
    def continues(self) -> bool:
        """A role's lease was busy (the same event again), or the deadline stopped a reconciling run after
        it settled a group (`resume_after`): one that could settle none would hand on forever."""
        return self.deferred is not None or (self.incomplete and self.resume_after is not None)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "trigger": self.trigger,
            "dryRun": self.dry_run,
            "granted": self.granted.items,
            "revoked": self.revoked.items,
            "failed": self.failed.items,
            "ignored": self.ignored.items,
            "withheld": self.withheld.items,
            "unchanged": self.unchanged,
            "counts": {
                "granted": self.granted.total,
                "revoked": self.revoked.total,
                "failed": self.failed.total,
                "ignored": self.ignored.total,
                "withheld": self.withheld.total,
                "unchanged": self.unchanged,
                "stuck": self.stuck,
                "writes": self.writes,
            },
        }
        if self.warnings.total:
            out["warnings"] = self.warnings.items
            out["counts"]["warnings"] = self.warnings.total
        if self.malformed:
            out["error"] = "; ".join(self.malformed)
            out["malformed"] = list(self.malformed)
        if self.errors:
            out["errors"] = list(self.errors)
        if self.dry_run:
            out["planned"] = self.planned.items
            out["counts"]["planned"] = self.planned.total
        if self.incomplete:
            out["incomplete"] = True
            if self.resume_after is not None:
                out["resumeAfter"] = self.resume_after
        if self.deferred is not None:
            out["deferred"] = self.deferred.reason
        return out

    def publish_metrics(self) -> None:
        """The metrics; a dry run publishes only GrantsDryRuns (planned outcomes must not feed alarms)."""
        if self.dry_run:
            emit(catalog.GRANTS_DRY_RUNS, 1)
            return
        for metric, value in (
            (catalog.GRANTS_FULFILLED, self.granted.total),
            (catalog.GRANTS_REVOKED, self.revoked.total),
            (catalog.GRANTS_FAILED, self.failed.total),
            (catalog.GRANTS_STUCK, self.stuck),
        ):
            emit(metric, value)
