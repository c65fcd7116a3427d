"""schema-sync's result: what a run did, counted and sampled, written only through its locked methods (the
pipeline's threads share it), and the metrics it stands for (docs/invocation.md)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kafka_lineage.engine.order import Position
from kafka_lineage.engine.pipeline import Progress
from kafka_lineage.engine.run import RunResult
from kafka_lineage.model import metrics as catalog
from kafka_lineage.model.report import Sample, failure_item
from kafka_lineage.observability import emit, logger
from kafka_lineage.sync import plan
from kafka_lineage.sync.governed import HeldDeletion, RefusedPublish

SAMPLE = 100  # entries of each per-item list the result carries; the logs carry every one


def _sample() -> Sample:
    return Sample(SAMPLE)


@dataclass
class SyncResult(RunResult):
    """The run contract's result (engine/run.py) and schema-sync's own counts."""

    failed: Sample = field(default_factory=_sample)
    resume_after: Position | None = None  # the last item a follow-up need not look at again
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    adopted: int = 0
    published: int = 0  # assets created earlier whose publish a rule had refused, published now
    publishes_refused: int = 0
    # Deletions held while subscribers keep the listing: not failures, the run does not raise for them.
    held: Sample = field(default_factory=_sample)
    skipped: Sample = field(default_factory=_sample)
    planned: Sample = field(default_factory=_sample)
    warnings: Sample = field(default_factory=_sample)
    # Topics as the cluster has them (sync/topics.py): reported, never a reason to delete or to raise.
    without_topic: Sample = field(default_factory=_sample)
    without_schema: Sample = field(default_factory=_sample)
    topic_errors: Sample = field(default_factory=_sample)
    mapping_writes: int = 0
    events_failed: int = 0
    chunks: int = 0
    # The data products' entries (kafka_lineage.sync.products); None: no `dataProducts` configured.
    data_products: list[dict[str, object]] | None = None

    # ------------------------------------------------------------------------------- what the run reports
    def fail(self, error: BaseException | str, *, doing: str = "", **where: str) -> None:
        """One item failed (the others go on): in the result, and in the logs."""
        item = failure_item(error, doing=doing, **where)
        with self._lock:
            self.failed.add(item)
        logger.error("schema-sync item failed", extra=item)

    def warn(self, warning: str, **where: str) -> None:
        """Something done, but not quite as asked (`where`: `schemaArn` or `driftKey`)."""
        item = {**where, "warning": warning}
        with self._lock:
            self.warnings.add(item)
        logger.warning("schema-sync warning", extra=item)

    def skip(self, items: Iterable[dict[str, Any]]) -> None:
        with self._lock:
            self.skipped.extend(items)

    def report_without_topic(self, items: Iterable[dict[str, str]]) -> None:
        """Schemas whose topic the cluster does not list (`{registryName, topic}`)."""
        found = list(items)
        with self._lock:
            self.without_topic.extend(found)
        if found:  # one line a source each run: a cluster may have thousands
            logger.info("schemas without topic on their cluster", extra={"withoutTopic": found})

    def report_without_schema(self, items: Iterable[dict[str, str]]) -> None:
        """Topics that no mirrored schema names (`{clusterArn, topic}`)."""
        found = list(items)
        with self._lock:
            self.without_schema.extend(found)
        if found:
            logger.info("topics without a mirrored schema", extra={"withoutSchema": found})

    def record_topic_errors(self, items: Iterable[dict[str, str]]) -> None:
        """Clusters whose topics could not be listed (`{clusterArn, error}`): their assets keep the topic
        properties last known; not a failure."""
        with self._lock:
            self.topic_errors.extend(items)

    def hold(self, held: plan.SyncPlan) -> None:
        """The deletions the fail-safe held back fail, each with its group's reason."""
        for group in held.held_back:
            for item in group.items:
                self.fail(group.reason(), schemaArn=item.schema_arn, registryName=group.group)

    def count(self, action: plan.Action, adopted: bool) -> None:
        """An action done (or, in a dry run, planned)."""
        with self._lock:
            if adopted:
                self.adopted += 1
            if isinstance(action, plan.Create):
                self.created += 1
            elif isinstance(action, plan.Revise):
                self.updated += 1
            elif isinstance(action, plan.Delete):
                self.deleted += 1
            elif isinstance(action, plan.Publish):
                self.published += 1
            else:
                self.unchanged += 1

    def record_held(self, held: HeldDeletion) -> None:
        """A deletion held for subscriptions: listed, counted, logged; no failure (the run does not raise)."""
        item = held.describe()
        with self._lock:
            self.held.add(item)
        logger.info("schema-sync deletion held: the listing has subscriptions", extra=item)

    def record_refused(self, refused: RefusedPublish) -> None:
        """A publish a domain rule refused: a failure naming the rule (the asset stays, unpublished)."""
        item = refused.describe()
        with self._lock:
            self.failed.add(item)
            self.publishes_refused += 1
        logger.error("schema-sync publish refused by a domain rule", extra=item)

    def count_unchanged(self, items: int) -> None:
        with self._lock:
            self.unchanged += items

    def record_plan(self, chunk_plan: plan.SyncPlan) -> None:
        """A dry run's chunk: every action counted as if done, and listed."""
        for action in chunk_plan.actions:
            self.count(action, adopted=False)
        with self._lock:
            self.planned.extend(chunk_plan.describe())

    def record_chunk(self, writes: int, saved: bool) -> None:
        """A chunk finished: `saved`, its asset records were written (`writes` SSM writes)."""
        with self._lock:
            self.chunks += 1
            if saved:
                self.mapping_writes += writes
                self.progressed = True

    def record_products(self, entries: Iterable[dict[str, object]]) -> None:
        """The data products' entries `{name, dataProductId, items, change}` (planned, in a dry run)."""
        with self._lock:
            self.data_products = [*(self.data_products or []), *entries]

    def record_product_writes(self, writes: int) -> None:
        with self._lock:
            self.mapping_writes += writes

    def record_rejected_events(self, rejected: int) -> None:
        with self._lock:
            self.events_failed += rejected

    def record_progress(self, progress: Progress) -> None:
        """Where the run stopped: what is left, and where a follow-up resumes."""
        with self._lock:
            self.incomplete = self.incomplete or progress.incomplete
            self.remaining += progress.remaining
            self.resume_after = progress.resume_after

    # ------------------------------------------------------------------------------- what it stands for
    def publish_metrics(self) -> None:
        """The run's metrics; a dry run publishes none (planned outcomes must not feed alarms)."""
        if self.dry_run:
            return
        for metric, value in (
            (catalog.SCHEMAS_CREATED, self.created),
            (catalog.SCHEMAS_UPDATED, self.updated),
            (catalog.SCHEMAS_DELETED, self.deleted),
            (catalog.SCHEMAS_UNCHANGED, self.unchanged),
            (catalog.SCHEMAS_FAILED, self.failed.total),
            (catalog.ASSETS_ADOPTED, self.adopted),
            (catalog.ASSETS_PUBLISHED, self.published),
            (catalog.PUBLISHES_REFUSED, self.publishes_refused),
            (catalog.DELETIONS_HELD, self.held.total),
            (catalog.EVENTS_FAILED, self.events_failed),
            (catalog.SCHEMAS_WITHOUT_TOPIC, self.without_topic.total),
            (catalog.TOPICS_WITHOUT_SCHEMA, self.without_schema.total),
            (catalog.TOPIC_LISTINGS_FAILED, self.topic_errors.total),
        ):
            emit(metric, value)
        if self.data_products is not None:
            changes = [str(entry["change"]) for entry in self.data_products]
            for metric, change in (
                (catalog.DATA_PRODUCTS_CREATED, "created"),
                (catalog.DATA_PRODUCTS_REVISED, "revised"),
                (catalog.DATA_PRODUCTS_DELETED, "deleted"),
                (catalog.DATA_PRODUCTS_HELD, "held"),
                (catalog.DATA_PRODUCTS_UNCHANGED, "unchanged"),
            ):
                emit(metric, changes.count(change))

    def to_dict(self) -> dict[str, Any]:
        """Counts, and the first SAMPLE entries of each list with its total: far below Lambda's 6 MB
        response limit at any registry size (every entry is in the logs)."""
        result: dict[str, Any] = {
            "dryRun": self.dry_run,
            "trigger": self.trigger,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "adopted": self.adopted,
            "published": self.published,
            "held": self.held.items,
            "heldTotal": self.held.total,
            "failed": self.failed.items,
            "failedTotal": self.failed.total,
            "skipped": self.skipped.items,
            "skippedTotal": self.skipped.total,
            "warnings": self.warnings.items,
            "warningsTotal": self.warnings.total,
            "withoutTopic": self.without_topic.items,
            "withoutTopicTotal": self.without_topic.total,
            "withoutSchema": self.without_schema.items,
            "withoutSchemaTotal": self.without_schema.total,
            "topicErrors": self.topic_errors.items,
            "topicErrorsTotal": self.topic_errors.total,
            "mappingWrites": self.mapping_writes,
            "eventsFailed": self.events_failed,
            "chunks": self.chunks,
        }
        if self.data_products is not None:
            result["dataProducts"] = self.data_products
        if self.dry_run:
            result["planned"] = self.planned.items
            result["plannedTotal"] = self.planned.total
        if self.incomplete:
            result["incomplete"] = True
            result["remaining"] = self.remaining
        if self.deferred is not None:
            result["deferred"] = self.deferred.reason
        return result
