"""schema-sync, end to end: read through the adapters, plan in pure code, apply, record, announce.

Shape of a run (one deadline covers all of it):
1. Setup: the asset type, the asset records, the registry listings (and, for `verify`, the assets of the
   type).
   `plan.triage_*` then says which schemas need a look and which assets are gone; the fail-safe screens the
   inferred deletions (kafka_lineage.failsafe).
2. The work (candidates and deletions) is ordered by the asset records' hash group and cut into chunks on
   group boundaries, so each SSM parameter of the asset records is saved once per run.
3. A three-stage pipeline: the Glue reads of chunk k+1 run while the DataZone writes of chunk k and the
   asset records' save (then the "Topic Asset Changed" events) of chunk k-1 do. Each service has its own rate
   limiter, so the stages pace independently and the run goes at the pace of its slowest service.
4. A chunk is started only when the pacing rates (and the speeds measured so far) say its read, its writes
   and its save all end at least `deadline_margin_seconds` before the deadline; a run that stops says
   `incomplete` and where to resume, so the follow-up redoes no finished read or write. Every chunk that is
   read is applied and saved; read-ahead is one chunk.

Every write is idempotent by construction, so any run may be retried, crash, or overlap another:
- CreateAsset carries a clientToken derived from the schema ARN, its CreatedTime and the content's hash (a
  retry with other content is another request: a conflict, then an adoption, never a replay of the first);
  a conflict on the external identifier (the asset exists but the asset records lost it) adopts that asset;
- revisions and listings carry tokens derived from the asset id and the revision they start from;
- a delete of something already gone is a success;
- the asset records are written after each chunk, and only then are the chunk's events put.
"""

from __future__ import annotations

import hashlib
import json
import math
import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from kafka_lineage import failsafe
from kafka_lineage.config import Settings, Source, Tuning
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.model import clock
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetType, CatalogAsset
from kafka_lineage.model.failures import (
    AssetConflict,
    AssetGone,
    LeaseBusy,
    LeaseLost,
    RegistryNotFound,
    SchemaNotFound,
)
from kafka_lineage.model.registry import ListedSchema
from kafka_lineage.model.report import Sample, failure_item
from kafka_lineage.model.state_layout import MAX_VALUE_BYTES
from kafka_lineage.observability import logger, metrics, tracer
from kafka_lineage.schemas import parse_definition
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import desired_asset, has_drift_form, shown_drift, source_fingerprint
from kafka_lineage.sync.drift import DriftSummaries, drift_key, marker, summary_of
from kafka_lineage.sync.ports import AssetCatalog, AssetRecords, SchemaRegistry, StateLease, TopicAnnouncer
from kafka_lineage.sync.requests import SchemaRef, SyncRequest

CHUNK_ITEMS = 24  # items per chunk (whole hash groups, so a bigger group makes a bigger chunk)
SAMPLE = 100  # entries of each per-item list the result carries; the logs carry every one
# Pacing estimates: calls per item at the configured rates.
GLUE_CALLS_PER_READ = 3  # GetSchema, ListSchemaVersions, GetSchemaVersion
DATAZONE_CALLS_PER_WRITE = 2  # CreateAsset / CreateAssetRevision / DeleteAsset + the listing change
ENTRY_BYTES = 480  # a packed asset record entry, rounded up
SAFETY = 1.25  # estimates are multiplied by this, plus STAGE_SECONDS per stage
STAGE_SECONDS = 0.1
# lineage-emission puts "Schema Drift Detected", then saves the summary: a run started by that event waits
# up to this long (pauses doubling from 0.5 s, within the deadline) for the summary to be readable.
DRIFT_WAIT_SECONDS = 8.0


def client_token(*parts: Any) -> str:
    """A deterministic idempotency token: the same write, retried by anyone, is the same request."""
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()


@dataclass
class SyncAdapters:
    """The ports one run uses (the handler's package builds them: `schema_sync.wiring`)."""

    registry: SchemaRegistry
    catalog: AssetCatalog
    asset_records: AssetRecords
    events: TopicAnnouncer
    namespace_of: Callable[[Source], str]  # the topic namespace of a source (its `namespace` or the brokers)
    lease: StateLease | None = None
    lease_wait_seconds: float = 20.0  # then the run stops and says `deferred: busy` (the handler hands on)
    # The drift summaries lineage-emission keeps; read once per run that builds asset content.
    drift: DriftSummaries | None = None


class DriftUnavailable(Exception):
    """The drift summaries could not be read: a schema whose content must be built waits for the next run
    (building it without them would drop a drift form the asset shows, then put it back)."""


@dataclass
class SyncResult:
    dry_run: bool
    trigger: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    adopted: int = 0
    failed: Sample = field(default_factory=lambda: Sample(SAMPLE))
    skipped: Sample = field(default_factory=lambda: Sample(SAMPLE))
    planned: Sample = field(default_factory=lambda: Sample(SAMPLE))
    warnings: Sample = field(default_factory=lambda: Sample(SAMPLE))
    mapping_writes: int = 0
    events_failed: int = 0
    chunks: int = 0
    incomplete: bool = False
    remaining: int = 0
    progressed: bool = False  # at least one chunk was saved (a follow-up invocation would not loop)
    busy: bool = False  # another invocation held the state lease: nothing was written
    resume_after: plan.Position | None = None  # the last item a follow-up need not look at again

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
            "failed": self.failed.items,
            "failedTotal": self.failed.total,
            "skipped": self.skipped.items,
            "skippedTotal": self.skipped.total,
            "warnings": self.warnings.items,
            "warningsTotal": self.warnings.total,
            "mappingWrites": self.mapping_writes,
            "eventsFailed": self.events_failed,
            "chunks": self.chunks,
        }
        if self.dry_run:
            result["planned"] = self.planned.items
            result["plannedTotal"] = self.planned.total
        if self.incomplete:
            result["incomplete"] = True
            result["remaining"] = self.remaining
        if self.busy:
            result["deferred"] = "busy"
        return result


class _Namespaces:
    """Resolve each source's namespace at most once per run, and only when some schema needs it."""

    def __init__(self, resolve: Callable[[Source], str]) -> None:
        self._resolve = resolve
        self._known: dict[str, str | Exception] = {}
        self._lock = threading.Lock()

    def __call__(self, source: Source) -> str:
        with self._lock:
            if source.key not in self._known:
                try:
                    self._known[source.key] = self._resolve(source)
                except Exception as error:  # a failure to resolve fails that source's schemas, not the run
                    self._known[source.key] = error
            known = self._known[source.key]
        if isinstance(known, Exception):
            raise known
        return known


class _Pace:
    """How long a chunk's stages take: the larger of what the configured rates allow and what the call
    latency allows (calls in a row per item, items spread over the workers); once a stage has run, the speed
    it measured replaces the guess. Estimates are on the safe side (SAFETY, STAGE_SECONDS)."""

    def __init__(self, tuning: Tuning, latency: float, cold: float = 0.0) -> None:
        self.read_unit = GLUE_CALLS_PER_READ / tuning.glue_rps
        self.write_unit = DATAZONE_CALLS_PER_WRITE / tuning.datazone_rps
        self.save_unit = 1 / tuning.ssm_write_rps
        self.workers = tuning.max_concurrency
        self.latency = latency  # one call's round trip, as the run's first calls took
        self.cold = cold  # a client's first call of a kind (writes, the lease, events): until a save ran
        self.measured: dict[str, float] = {}
        self.writes_per_candidate = 1.0  # the share of inspected schemas that needed a DataZone write
        self._lock = threading.Lock()

    def observe(self, stage: str, units: float, seconds: float) -> None:
        if units <= 0:
            return
        with self._lock:
            per_unit = seconds / units
            known = self.measured.get(stage)
            self.measured[stage] = per_unit if known is None else (known + per_unit) / 2

    def observe_writes(self, candidates: int, writes: int) -> None:
        if candidates:
            with self._lock:
                self.writes_per_candidate = (self.writes_per_candidate + writes / candidates) / 2

    def _seconds(self, stage: str, rate_unit: float, in_a_row: int, units: float, parallel: bool) -> float:
        if units <= 0:
            return STAGE_SECONDS
        rounds = math.ceil(units / self.workers) if parallel else units
        guess = max(units * rate_unit, rounds * in_a_row * self.latency)
        known = self.measured.get(stage)
        return SAFETY * (guess if known is None else max(units * rate_unit, units * known)) + STAGE_SECONDS

    def estimate(self, chunk: Sequence[tuple[plan.Position, plan.Work]]) -> tuple[float, float, float]:
        """(read, apply, save) seconds for `chunk`."""
        candidates = sum(1 for _, item in chunk if isinstance(item, plan.Candidate))
        writes = (len(chunk) - candidates) + candidates * self.writes_per_candidate
        groups = len({position.group for position, _ in chunk})
        parameters = groups + (len(chunk) * ENTRY_BYTES) // MAX_VALUE_BYTES
        return (
            self._seconds("read", self.read_unit, GLUE_CALLS_PER_READ, candidates, parallel=True),
            self._seconds("apply", self.write_unit, DATAZONE_CALLS_PER_WRITE, writes, parallel=True),
            # the writes of a save go one after the other, then the chunk's events
            self._seconds("save", self.save_unit, 1, parameters, parallel=False)
            + self.latency
            + (SAFETY * self.cold if "save" not in self.measured else 0.0),
        )

    def lease_seconds(self) -> float:
        """Taking the lease and reading the asset records again: a few calls in a row."""
        return SAFETY * 4 * self.latency + STAGE_SECONDS


@dataclass
class _ReadChunk:
    """A chunk after its reads: the plan for it, and whether every item was looked at."""

    number: int
    last: plan.Position
    items: int
    chunk_plan: plan.SyncPlan
    candidates: int
    complete: bool
    apply_until: float  # no write starts after this (monotonic): the save must still fit


@dataclass
class _AppliedChunk:
    read: _ReadChunk
    done: list[tuple[plan.Action, AssetRecord | None, str, bool]]
    complete: bool


def _fail(
    result: SyncResult, lock: threading.Lock, error: Exception | str, doing: str = "", **where: str
) -> None:
    item = failure_item(error, doing=doing, **where)
    with lock:
        result.failed.add(item)
    logger.error("schema-sync item failed", extra=item)


class SchemaSync:
    def __init__(
        self,
        settings: Settings,
        adapters: SyncAdapters,
        remaining_seconds: Callable[[], float] | None = None,
    ) -> None:
        self.settings = settings
        self.adapters = adapters
        # By source key: the registry name, or `<account>:<registry>` for a source in another account.
        self.sources = {source.key: source for source in settings.sources}
        self.namespaces = _Namespaces(adapters.namespace_of)
        self.remaining_seconds = remaining_seconds
        self.workers = settings.tuning.max_concurrency
        self.margin = settings.tuning.deadline_margin_seconds
        self._lock = threading.Lock()
        self.drift_summaries: dict[str, DriftSummary] = {}
        self.drift_error: str | None = None

    # ---------------------------------------------------------------- the run
    @tracer.capture_method
    def run(self, request: SyncRequest, on_plan: Callable[[plan.SyncPlan], None] | None = None) -> SyncResult:
        """Run the request; `on_plan` receives each chunk's plan value (a dry run's whole plan is theirs)."""
        result = SyncResult(dry_run=request.dry_run, trigger=request.trigger)
        self.drift_summaries, self.drift_error = {}, None
        started = clock.monotonic()
        asset_type = self.adapters.catalog.asset_type(self.settings.asset_type_name)
        typed = clock.monotonic()
        records = self.adapters.asset_records.load()
        loaded = clock.monotonic()
        for arn in self.adapters.asset_records.unreadable:
            result.warnings.add({"schemaArn": arn, "warning": "mapping entry unreadable; re-created"})
        listed_calls = self.adapters.registry.calls
        triage, listings = self._triage(request, records, result)
        listing_calls = self.adapters.registry.calls - listed_calls
        # Each setup phase's time per call it made: a listing is a call a page (100 pages at 10,000 schemas),
        # an asset records load one a GetParametersByPath page of 10.
        phases = [
            typed - started,
            (loaded - typed) / (1 + self.adapters.asset_records.parameter_count() // 10),
        ]
        if listing_calls:
            phases.append((clock.monotonic() - loaded) / listing_calls)
        # One call's round trip, the quickest of the setup's (the first call of a client costs more): the
        # pacing's guess until chunks have run.
        latency = min(phases)
        # ...and the dearest: what a client's first call of a kind costs, paid again by the first chunk.
        cold = max(phases)
        orphans = self._orphans(records, listings, triage, result) if request.verify else []
        ledger = failsafe.Ledger.start(
            plan.registry_totals(records.values(), orphans),
            self.settings.tuning.mass_delete_share,
            request.allow_mass_delete,
        )
        verdict, ledger = ledger.screen(
            (*triage.deletions, *orphans), group=lambda d: d.registry_name, confirmed=lambda d: d.confirmed
        )
        held = plan.SyncPlan(held_back=verdict.held)
        self._report_held(held, result)
        if on_plan is not None:
            on_plan(held)
        result.skipped.extend(dict(item) for item in triage.skipped)
        result.unchanged += len(triage.unchanged)
        after = plan.Position(*request.resume_after) if request.resume_after else None
        work = plan.order_work(triage.candidates, verdict.kept, self.adapters.asset_records.group_of, after)
        if has_drift_form(asset_type) and any(isinstance(item, plan.Candidate) for _, item in work):
            # Only a run with schemas to inspect reads the summaries: a no-change run stays at its cost.
            self._load_drift(result, request.expected_drift)
        logger.info(
            "schema-sync planned its work",
            extra={
                "candidates": len(triage.candidates),
                "deletions": len(verdict.kept),
                "heldBack": len(verdict.held_items),
                "unchanged": len(triage.unchanged),
                "workItems": len(work),
                "resumeAfter": request.resume_after,
            },
        )
        _Pipeline(self, asset_type, result, ledger, request.dry_run, on_plan, latency, cold).run(work)
        if not request.dry_run:
            self._emit_metrics(result)
        return result

    def _load_drift(self, result: SyncResult, expected: Sequence[tuple[SchemaRef, int]] = ()) -> None:
        """Read the summaries once; for a drift event, again (briefly) until its summary is there.

        lineage-emission announces a drift before it saves the summary (so a crash in between announces it
        again rather than never), so the event may outrun the summary by the time of one SSM write.
        """
        reader = self.adapters.drift
        if reader is None:
            return
        pause, waited = 0.5, 0.0
        try:
            while True:
                self.drift_summaries = reader.load()
                missing = [(ref, version) for ref, version in expected if not self._has_drift(ref, version)]
                if (
                    not missing
                    or waited + pause > DRIFT_WAIT_SECONDS
                    or clock.monotonic() + pause > self.deadline()
                ):
                    break
                clock.sleep(pause)
                waited, pause = waited + pause, pause * 2
        except Exception as error:
            self.drift_error = failure_item(error, doing="drift summaries unreadable")["error"]
            logger.error("drift summaries unreadable", extra={"error": str(error)})
            return
        for ref, version in missing:
            result.warnings.add(
                {
                    "driftKey": drift_key(ref.registry_name, ref.schema_name),
                    "warning": f"the drift summary for v{version} is not saved yet; the next drift event or "
                    "verify run shows it",
                }
            )
        for key in reader.unreadable:
            # That topic shows no drift until lineage-emission writes its summary again.
            result.warnings.add({"driftKey": key, "warning": "drift summary unreadable; not shown"})

    def _has_drift(self, ref: SchemaRef, version: int) -> bool:
        found = summary_of(self.drift_summaries, ref.registry_name, ref.schema_name)
        return found is not None and found.to_version >= version

    def whole_plan(self, request: SyncRequest) -> tuple[plan.SyncPlan, SyncResult]:
        """The whole plan as one value, and the dry run's result (reads only, writes nothing)."""
        parts: list[plan.SyncPlan] = []
        result = self.run(replace(request, dry_run=True), on_plan=parts.append)
        whole = plan.SyncPlan()
        for part in parts:
            whole = whole + part
        return whole, result

    def _report_held(self, held: plan.SyncPlan, result: SyncResult) -> None:
        for group in held.held_back:
            for item in group.items:
                _fail(
                    result,
                    self._lock,
                    group.reason(),
                    schemaArn=item.schema_arn,
                    registryName=group.group,
                )

    # ---------------------------------------------------------------- reading and planning
    def _triage(
        self, request: SyncRequest, records: dict[str, AssetRecord], result: SyncResult
    ) -> tuple[plan.Triage, dict[str, list[ListedSchema]]]:
        by_registry: dict[str, dict[str, AssetRecord]] = {}
        for arn, record in records.items():
            by_registry.setdefault(record.registry_name, {})[arn] = record
        listings: dict[str, list[ListedSchema]] = {}
        if request.scope == "schemas":
            by_ref = {SchemaRef(r.registry_name, r.schema_name): r for r in records.values()}
            return (
                plan.triage_targets(request.schemas, self.sources, by_ref, request.confirmed_deleted_schemas),
                listings,
            )
        names = list(self.sources) if request.scope == "full" else list(request.registries)
        total = plan.Triage()
        for name in names:
            source = self.sources.get(name)
            if source is None:
                total += plan.Triage(skipped=({"registryName": name, "reason": "registry not configured"},))
                continue
            try:
                listed = self.adapters.registry.list_schemas(name)
            except RegistryNotFound:
                if name in request.confirmed_deleted_registries:
                    total += plan.Triage(
                        deletions=tuple(
                            plan.deletion(r, "registry deletion confirmed by event", True)
                            for r in by_registry.get(name, {}).values()
                        )
                    )
                else:
                    _fail(
                        result, self._lock, f"registry {name} not found; nothing deleted", registryName=name
                    )
                continue
            except Exception as error:
                _fail(result, self._lock, error, registryName=name)
                continue
            listings[name] = listed
            total += plan.triage_listing(source, listed, by_registry.get(name, {}), request.verify)
        return total, listings

    def inspect(self, candidate: plan.Candidate, asset_type: AssetType) -> plan.Action | None:
        """Read one candidate (GetSchema, versions, and the definition when the fingerprint moved), decide."""
        source = self.sources[candidate.registry_name]
        registry = self.adapters.registry
        details = registry.snapshot(candidate.registry_name, candidate.schema_name)
        if details.latest is None:
            return None  # no AVAILABLE version yet (PENDING): nothing to mirror until one lands
        namespace = self.namespaces(source)
        if self.drift_error is not None and has_drift_form(asset_type):
            raise DriftUnavailable(self.drift_error)
        drift = summary_of(self.drift_summaries, details.registry_name, details.schema_name)
        shown = marker(shown_drift(asset_type, drift, details.latest.number))
        fingerprint = source_fingerprint(details, namespace, asset_type.revision, shown)
        if not plan.needs_definition(candidate, fingerprint):
            return plan.decide(candidate, details, None, namespace)
        definition = registry.definition(details.schema_arn, details.latest.number)
        parsed = parse_definition(details.data_format, definition)
        desired = desired_asset(source, details, parsed, definition, namespace, asset_type, drift)
        return plan.decide(candidate, details, desired, namespace)

    def _orphans(
        self,
        records: dict[str, AssetRecord],
        listings: dict[str, list[ListedSchema]],
        triage: plan.Triage,
        result: SyncResult,
    ) -> list[plan.Delete]:
        """verify: assets of our type that no asset record knows and whose schema is gone: remove them.

        An asset whose schema is mirrored is left to the create for that schema, which adopts it.
        """
        catalog = self.adapters.catalog
        known_assets = {record.asset_id for record in records.values()}
        known_arns = set(records) | {candidate.key for candidate in triage.candidates}
        mirrored = {
            schema.schema_arn
            for name, listed in listings.items()
            for schema in listed
            if schema.status != "DELETING" and self.sources[name].mirrors(schema.schema_name)
        }
        found: list[plan.Delete] = []
        try:
            assets = list(catalog.assets_of_type(self.settings.asset_type_name))
        except Exception as error:
            _fail(result, self._lock, error, registryName="*", schemaArn="verify: asset search")
            return found
        for asset in assets:
            if asset.asset_id in known_assets or asset.external_identifier in known_arns:
                continue
            registry = _registry_of_arn(asset.external_identifier, self.settings)
            if registry is None or registry not in listings:
                result.skipped.add(
                    {"assetId": asset.asset_id, "reason": "asset of the type outside the configured sources"}
                )
                continue
            if asset.external_identifier in mirrored:
                continue
            found.append(plan.orphan(registry, asset.external_identifier, asset.asset_id))
        return found

    # ---------------------------------------------------------------- applying one action
    def apply_one(
        self, action: plan.Action, asset_type: AssetType, warn: Callable[[str, str], None] | None = None
    ) -> tuple[AssetRecord | None, str, bool]:
        """Returns (the asset record after the action, the change to announce, whether it adopted);
        `warn(schema_arn, text)` hears what a write could not do as asked."""
        catalog = self.adapters.catalog
        domain = self.settings.domain_id
        if isinstance(action, plan.Touch):
            return action.new_record, "", False
        if isinstance(action, plan.Delete):
            catalog.unpublish(action.asset_id, client_token("unpublish", domain, action.asset_id))
            catalog.delete_asset(action.asset_id)
            return None, "deleted", False
        content_hash = action.desired.content_hash
        adopted = False
        if isinstance(action, plan.Revise):
            record = action.record
            try:
                asset = catalog.revise_asset(
                    record.asset_id,
                    action.desired.content,
                    asset_type,
                    client_token(
                        "revise",
                        domain,
                        record.asset_id,
                        record.asset_revision or record.content_hash,
                        content_hash,
                    ),
                )
                change = "revised"
            except AssetGone:
                # Deleted behind our back: create anew (a token of its own, or DataZone would replay the old).
                asset, adopted = self._create(
                    action,
                    asset_type,
                    client_token(
                        "create",
                        domain,
                        action.schema_arn,
                        action.new_record.created_time,
                        content_hash,
                        record.asset_id,
                    ),
                )
                change = "created"
        else:
            asset, adopted = self._create(
                action,
                asset_type,
                client_token(
                    "create", domain, action.schema_arn, action.new_record.created_time, content_hash
                ),
            )
            change = "revised" if adopted else "created"
        if asset.note and warn is not None:
            warn(action.schema_arn, asset.note)
        catalog.publish(
            asset.asset_id, asset.revision, client_token("publish", domain, asset.asset_id, asset.revision)
        )
        return (
            replace(action.new_record, asset_id=asset.asset_id, asset_revision=asset.revision),
            change,
            adopted,
        )

    def _create(
        self, action: plan.Create | plan.Revise, asset_type: AssetType, token: str
    ) -> tuple[CatalogAsset, bool]:
        catalog = self.adapters.catalog
        try:
            return catalog.create_asset(action.schema_arn, action.desired.content, asset_type, token), False
        except AssetConflict as conflict:
            asset_id = conflict.asset_id
            if asset_id is None:
                found = catalog.find_by_external_id(action.schema_arn, self.settings.asset_type_name)
                if found is None:
                    raise
                asset_id = found.asset_id
        current = catalog.get_asset(asset_id)
        if current is None:
            raise AssetGone(asset_id)
        logger.info(
            "adopting an asset the mapping did not know",
            extra={"assetId": asset_id, "schemaArn": action.schema_arn},
        )
        revised = catalog.revise_asset(
            asset_id,
            action.desired.content,
            asset_type,
            client_token(
                "revise", self.settings.domain_id, asset_id, current.revision, action.desired.content_hash
            ),
        )
        return revised, True

    # ---------------------------------------------------------------- helpers
    def parallel(self, pool: ThreadPoolExecutor, work: Callable[[Any], None], items: Sequence[Any]) -> None:
        if len(items) <= 1 or self.workers == 1:
            for item in items:
                work(item)
            return
        list(pool.map(work, items))

    def deadline(self) -> float:
        """The monotonic time by which this invocation must have stopped (the margin already taken off)."""
        if self.remaining_seconds is None:
            return float("inf")
        return clock.monotonic() + self.remaining_seconds() - self.margin

    def count(self, result: SyncResult, action: plan.Action, adopted: bool) -> None:
        with self._lock:
            if adopted:
                result.adopted += 1
            if isinstance(action, plan.Create):
                result.created += 1
            elif isinstance(action, plan.Revise):
                result.updated += 1
            elif isinstance(action, plan.Delete):
                result.deleted += 1
            else:
                result.unchanged += 1

    @staticmethod
    def _emit_metrics(result: SyncResult) -> None:
        for name, value in (
            ("SchemasCreated", result.created),
            ("SchemasUpdated", result.updated),
            ("SchemasDeleted", result.deleted),
            ("SchemasUnchanged", result.unchanged),
            ("SchemasFailed", result.failed.total),
            ("AssetsAdopted", result.adopted),
            ("EventsFailed", result.events_failed),
        ):
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


class _Stop(Exception):
    """The lease was lost: another invocation writes the asset records now; this one stops writing."""


class _Pipeline:
    """Read chunk k+1 while chunk k is applied and chunk k-1 saved; stop in time (see the module doc)."""

    def __init__(
        self,
        sync: SchemaSync,
        asset_type: AssetType,
        result: SyncResult,
        ledger: failsafe.Ledger,
        dry_run: bool,
        on_plan: Callable[[plan.SyncPlan], None] | None,
        latency: float,
        cold: float,
    ) -> None:
        self.sync = sync
        self.on_plan = on_plan
        self.asset_type = asset_type
        self.result = result
        self.ledger = ledger
        self.dry_run = dry_run
        self.pace = _Pace(sync.settings.tuning, latency, cold)
        self.lock = sync._lock
        self.stopped = threading.Event()  # lease lost or busy, or a crash
        self.leased = sync.adapters.lease is None or dry_run
        self.pending: tuple[plan.Action, ...] = ()  # the chunk the applier is on
        self.apply_free_at = 0.0  # estimated monotonic time the applier is done with what it was given
        self.save_free_at = 0.0
        self.crash: BaseException | None = None
        self.resume_frozen = False  # a chunk left items undone: a follow-up must not resume past them
        self.read_pool = ThreadPoolExecutor(max_workers=sync.workers, thread_name_prefix="sync-read")
        self.write_pool = ThreadPoolExecutor(max_workers=sync.workers, thread_name_prefix="sync-write")

    # -- the loop: this thread reads; one thread applies, one saves
    def run(self, work: Sequence[tuple[plan.Position, plan.Work]]) -> None:
        to_apply: queue.Queue[_ReadChunk | None] = queue.Queue(maxsize=1)
        to_save: queue.Queue[_AppliedChunk | None] = queue.Queue(maxsize=1)
        applier = threading.Thread(
            target=self._guard, args=(self._apply_loop, to_apply, to_save), daemon=True
        )
        saver = threading.Thread(target=self._guard, args=(self._save_loop, to_save, None), daemon=True)
        applier.start()
        saver.start()
        position = 0
        number = 0
        try:
            while position < len(work) and not self.stopped.is_set() and self.crash is None:
                end = plan.cut(work, position, CHUNK_ITEMS, self._fits)
                if end == position:
                    logger.warning(
                        "stopping: the next chunk could not finish before the deadline",
                        extra={"remaining": len(work) - position},
                    )
                    break
                chunk = work[position:end]
                self.apply_free_at, self.save_free_at = self._finish_times(chunk)
                # Stage limits: a stage that runs late skips the rest of its items, so the later stages of
                # the chunk still end in time (the skipped items are the follow-up's).
                _, apply, save = self.pace.estimate(chunk)
                until = self.sync.deadline() - self._finish_allowance()
                read = self._read(number, chunk, read_until=until - apply - save, apply_until=until - save)
                number += 1
                position = end if read.complete else position
                to_apply.put(read)
                if not read.complete:
                    break
                # Read-ahead is one chunk: the next read starts once the applier has taken this one.
                to_apply.join()
        finally:
            to_apply.put(None)
            applier.join()
            saver.join()
            self.read_pool.shutdown()
            self.write_pool.shutdown()
        if self.crash is not None:
            raise self.crash
        left = len(work) - position
        if left:
            self.result.incomplete = True
            self.result.remaining += left

    def _guard(
        self, loop: Callable[..., None], inbox: queue.Queue[Any], outbox: queue.Queue[Any] | None
    ) -> None:
        try:
            loop(inbox, outbox)
        except BaseException as error:  # a bug: drain so nobody blocks, and re-raise in the run's thread
            self.crash = error
            self.stopped.set()
            while True:
                item = inbox.get()
                inbox.task_done()
                if item is None:
                    break
            if outbox is not None:
                outbox.put(None)

    def _finish_times(self, chunk: Sequence[tuple[plan.Position, plan.Work]]) -> tuple[float, float]:
        """When `chunk`, read from now on, would be applied and saved (monotonic), by the pacing estimates."""
        read, apply, save = self.pace.estimate(chunk)
        if self.dry_run:
            apply = save = 0.0
        elif not self.leased:
            apply += self.pace.lease_seconds()
        applied = max(clock.monotonic() + read, self.apply_free_at) + apply
        return applied, max(applied, self.save_free_at) + save

    def _finish_allowance(self) -> float:
        """After the last save the handler still releases the lease and may invoke the follow-up."""
        return 0.0 if self.dry_run else 2 * self.pace.latency + STAGE_SECONDS

    def _fits(self, chunk: Sequence[tuple[plan.Position, plan.Work]]) -> bool:
        return self._finish_times(chunk)[1] + self._finish_allowance() <= self.sync.deadline()

    # -- stage 1: reads (this thread, with the read pool), planning (pure)
    def _read(
        self,
        number: int,
        chunk: Sequence[tuple[plan.Position, plan.Work]],
        read_until: float,
        apply_until: float,
    ) -> _ReadChunk:
        started = clock.monotonic()
        candidates = [item for _, item in chunk if isinstance(item, plan.Candidate)]
        deletions = [item for _, item in chunk if isinstance(item, plan.Delete)]
        decided: list[plan.Action] = []
        gone: list[plan.Delete] = []
        unchanged = 0
        complete = True
        sync = self.sync

        def inspect(candidate: plan.Candidate) -> None:
            nonlocal unchanged, complete
            if self.stopped.is_set() or clock.monotonic() > read_until:
                with self.lock:
                    complete = False
                return
            try:
                action = sync.inspect(candidate, self.asset_type)
            except SchemaNotFound:
                deletion = plan.gone(candidate)
                if deletion is not None:
                    with self.lock:
                        gone.append(deletion)
                return
            except Exception as error:
                _fail(
                    self.result,
                    self.lock,
                    error,
                    schemaArn=candidate.key,
                    registryName=candidate.registry_name,
                )
                return
            warning = getattr(getattr(action, "desired", None), "warning", None)
            if warning and action is not None:
                self.result_warning(action.schema_arn, warning)
            with self.lock:
                if action is None:
                    unchanged += 1
                else:
                    decided.append(action)

        sync.parallel(self.read_pool, inspect, candidates)
        self.pace.observe("read", len(candidates), clock.monotonic() - started)
        verdict, self.ledger = self.ledger.screen(
            gone, group=lambda d: d.registry_name, confirmed=lambda d: d.confirmed
        )
        # Apply in the run's order: a dry run lists its plan the same way every time.
        order = {position.key: index for index, (position, _) in enumerate(chunk)}
        actions = sorted([*decided, *verdict.kept, *deletions], key=lambda a: order.get(a.schema_arn, -1))
        chunk_plan = plan.SyncPlan(actions=tuple(actions), held_back=verdict.held, unchanged=unchanged)
        self.sync._report_held(chunk_plan, self.result)
        writes = sum(1 for action in decided if not isinstance(action, plan.Touch))
        self.pace.observe_writes(len(candidates), writes)
        return _ReadChunk(
            number, chunk[-1][0], len(chunk), chunk_plan, len(candidates), complete, apply_until
        )

    def result_warning(self, schema_arn: str, warning: str) -> None:
        with self.lock:
            self.result.warnings.add({"schemaArn": schema_arn, "warning": warning})
        logger.warning("schema-sync warning", extra={"schemaArn": schema_arn, "warning": warning})

    # -- stage 2: DataZone writes
    def _apply_loop(
        self, inbox: queue.Queue[_ReadChunk | None], outbox: queue.Queue[_AppliedChunk | None]
    ) -> None:
        while True:
            read = inbox.get()
            inbox.task_done()
            if read is None:
                break
            outbox.put(self._apply(read))
        outbox.put(None)

    def _apply(self, read: _ReadChunk) -> _AppliedChunk:
        started = clock.monotonic()
        chunk_plan = read.chunk_plan
        with self.lock:
            self.result.unchanged += chunk_plan.unchanged
        if self.on_plan is not None:
            self.on_plan(chunk_plan)
        if self.dry_run:
            for action in chunk_plan.actions:
                self.sync.count(self.result, action, adopted=False)
            with self.lock:
                self.result.planned.extend(chunk_plan.describe())
            logger.info(
                "schema-sync dry run: planned", extra={"chunk": read.number, "planned": chunk_plan.describe()}
            )
            return _AppliedChunk(read, [], read.complete)
        done: list[tuple[plan.Action, AssetRecord | None, str, bool]] = []
        complete = read.complete
        self.pending = chunk_plan.writes()
        if self.pending and not self.leased and not self._take_lease():
            return _AppliedChunk(read, done, False)

        def apply(action: plan.Action) -> None:
            nonlocal complete
            if self.stopped.is_set() or clock.monotonic() > read.apply_until:
                with self.lock:
                    complete = False
                return
            try:
                record, change, adopted = self.sync.apply_one(action, self.asset_type, self.result_warning)
            except Exception as error:
                _fail(
                    self.result,
                    self.lock,
                    error,
                    schemaArn=action.schema_arn,
                    registryName=action.registry_name,
                )
                return
            with self.lock:
                done.append((action, record, change, adopted))

        self.sync.parallel(self.write_pool, apply, chunk_plan.writes())
        writes = sum(1 for action in chunk_plan.writes() if not isinstance(action, plan.Touch))
        self.pace.observe("apply", writes, clock.monotonic() - started)
        return _AppliedChunk(read, done, complete)

    def _take_lease(self) -> bool:
        """Hold the state lease before the first write, then read the asset records again (the run planned on
        what it read before: a decision made stale meanwhile is an idempotent write, a conflict adopts)."""
        adapters = self.sync.adapters
        assert adapters.lease is not None
        try:
            adapters.lease.acquire(wait_seconds=adapters.lease_wait_seconds)
        except LeaseBusy as busy:
            logger.info("mapping held by another invocation: stopping", extra={"lease": str(busy)})
            with self.lock:
                self.result.busy = True
            self.stopped.set()
            return False
        except Exception as error:  # SSM failing: nothing may be written without the lease
            for action in self.pending:
                _fail(
                    self.result,
                    self.lock,
                    error,
                    doing="mapping lease not acquired",
                    schemaArn=action.schema_arn,
                    registryName=action.registry_name,
                )
            self.stopped.set()
            return False
        self.leased = True
        adapters.asset_records.load()  # the saver has saved nothing yet: no earlier chunk had a change
        return True

    # -- stage 3: the asset records' save, then the chunk's events
    def _save_loop(self, inbox: queue.Queue[_AppliedChunk | None], _: None) -> None:
        while True:
            applied = inbox.get()
            inbox.task_done()
            if applied is None:
                break
            self._save(applied)

    def _save(self, applied: _AppliedChunk) -> None:
        result = self.result
        read = applied.read
        if self.dry_run:
            self._advance(applied)
            with self.lock:
                result.chunks += 1
            return
        started = clock.monotonic()
        changes: dict[str, AssetRecord | None] = {
            action.schema_arn: record for action, record, _, _ in applied.done
        }
        records = self.sync.adapters.asset_records
        lease = self.sync.adapters.lease
        writes = 0
        try:
            if changes and self.stopped.is_set() and self.crash is None and lease is not None:
                raise _Stop("the lease was lost earlier in this run")
            if changes and lease is not None:
                lease.ensure_held()
            writes = records.save(changes) if changes else 0
        except Exception as error:
            lost = isinstance(error, _Stop | LeaseLost)
            if lost:
                self.stopped.set()
            # The DataZone side is done and idempotent: the next run adopts what the asset records missed.
            for action, _, _, _ in applied.done:
                _fail(result, self.lock, error, doing="mapping not saved", schemaArn=action.schema_arn)
            if not lost:
                self._reload_asset_records()
            with self.lock:
                self.resume_frozen = True  # unrecorded: the follow-up must look at these again
            return
        self._advance(applied)
        self.pace.observe("save", writes, clock.monotonic() - started)
        events = []
        for action, record, change, adopted in applied.done:
            self.sync.count(result, action, adopted)
            if change:
                events.append(_event_detail(action, record, change))
        with self.lock:
            result.mapping_writes += writes
            result.chunks += 1
            result.progressed = True
        logger.info(
            "schema-sync chunk saved",
            extra={"chunk": read.number, "items": read.items, "writes": writes, "through": read.last.group},
        )
        if events:
            try:
                rejected = self.sync.adapters.events.put(events)
            except Exception as error:
                rejected = events
                logger.error("Topic Asset Changed events not put", extra={"error": str(error)})
            with self.lock:
                result.events_failed += len(rejected)

    def _advance(self, applied: _AppliedChunk) -> None:
        """Move the resume point past a chunk whose every item was looked at (chunks come in order)."""
        with self.lock:
            if not applied.complete:
                # Items skipped for time (read or write): the follow-up must see them again.
                self.resume_frozen = True
                self.result.incomplete = True
                self.result.remaining += applied.read.items - len(applied.done)
            elif not self.resume_frozen:
                self.result.resume_after = applied.read.last

    def _reload_asset_records(self) -> None:
        """After a failed save SSM may hold part of it: re-read, so later chunks save on what is there."""
        try:
            self.sync.adapters.asset_records.load()
        except Exception as error:
            logger.error("asset records reload failed", extra={"error": str(error)})


def _registry_of_arn(arn: str, settings: Settings) -> str | None:
    """The source key of a schema ARN: its account tells a source account's registry from this one's."""
    parts = arn.split(":", 5)
    if len(parts) < 6 or not parts[5].startswith("schema/"):
        return None
    pieces = parts[5].split("/")
    return settings.source_key(parts[4], pieces[1]) if len(pieces) == 3 else None


def _event_detail(action: plan.Action, record: AssetRecord | None, change: str) -> dict[str, Any]:
    source = record or getattr(action, "record", None)
    return {
        "registryName": action.registry_name,
        "schemaArn": action.schema_arn,
        "topic": action.topic,
        "assetId": (source.asset_id if source else getattr(action, "asset_id", "")) or "",
        "schemaVersion": source.latest_version if source else 0,
        "change": change,
    }
