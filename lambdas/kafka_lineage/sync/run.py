"""schema-sync, the story of one run: read through the ports, triage, plan in pure code, apply, record,
announce (one deadline covers all of it).

1. Read: the asset type, the asset records, the registry listings (and, for `verify`, the assets of the
   type). Their timings give the pacing its first guess of a call's latency.
2. Triage: `plan.triage_*` says which schemas need a look and which assets are gone; the fail-safe screens
   the inferred deletions (kafka_lineage.failsafe). The work (candidates and deletions) is put in the order
   of the asset records' hash groups; a follow-up invocation starts after where the last one stopped.
3. The engine's chunked pipeline (engine/pipeline.py: chunks, workers, pacing, the deadline) cuts the work
   into chunks and runs each through the run's steps (sync/stages.py):
   - read: inspect each candidate (GetSchema, versions, and the definition when the fingerprint moved),
     decide (plan.decide), screen the deletions found, and the chunk's plan is a frozen value (a dry run
     stops here: its result is the plan);
   - apply: take the state lease before the run's first write (the engine's lease policy; a run with nothing
     to write takes none, writes nothing at all), then apply each action (sync/apply.py: tokens, adoption);
   - save: the asset records of the chunk, under the lease, by the engine's one grouped saver
     (engine/checkpoints.py, as the lineage emission's state); report: the result, and only then the
     chunk's "Topic Asset Changed" events.
4. Report: the result (sync/result.py) counts, samples and emits the metrics; a run that stopped says
   `incomplete` and where to resume, so the follow-up redoes no finished read or write.

One bad item never stops the others: it fails in the result, the logs and the SchemasFailed metric.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from kafka_lineage import failsafe
from kafka_lineage.config import Settings, Source
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.order import Position
from kafka_lineage.engine.pace import Pace
from kafka_lineage.engine.pipeline import Item, Pipeline
from kafka_lineage.model import clock
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetType
from kafka_lineage.model.failures import RegistryNotFound
from kafka_lineage.model.registry import ListedSchema
from kafka_lineage.observability import logger, tracer
from kafka_lineage.schemas import parse_definition
from kafka_lineage.sync import plan
from kafka_lineage.sync.apply import Applier
from kafka_lineage.sync.desired import (
    Catalogued,
    Governance,
    desired_asset,
    has_drift_form,
    shown_drift,
    source_fingerprint,
)
from kafka_lineage.sync.drift import marker, read_summaries, summary_of
from kafka_lineage.sync.listings import Listings
from kafka_lineage.sync.ports import SyncAdapters
from kafka_lineage.sync.products.run import ProductSync, RunState
from kafka_lineage.sync.requests import SchemaRef, SyncRequest
from kafka_lineage.sync.result import SyncResult
from kafka_lineage.sync.stages import PlanOnly, SyncSteps
from kafka_lineage.sync.topics import (
    TopicListings,
    TopicSeen,
    current_properties,
    without_schema,
    without_topic,
)

__all__ = ["DriftUnavailable", "SchemaSync", "SyncAdapters", "SyncResult"]  # what the handler and tests use


class DriftUnavailable(Exception):
    """The drift summaries could not be read: a schema whose content must be built waits for the next run
    (building it without them would drop a drift form the asset shows, then put it back)."""


@dataclass(frozen=True)
class _World:
    """What the run read before planning, and how long a call took doing it."""

    asset_type: AssetType
    records: dict[str, AssetRecord]
    triage: plan.Triage
    listings: dict[str, list[ListedSchema]]
    # One call's round trip, the quickest of the reads' (a client's first call costs more): the pacing's
    # guess until chunks ran; and the dearest, what a client's first call of a kind costs (the first chunk
    # pays it again).
    latency: float
    cold: float


class SchemaSync:
    """schema-sync's run (the run contract, engine/run.py): `execute(request, deadline)`."""

    def __init__(self, settings: Settings, adapters: SyncAdapters) -> None:
        self.settings = settings
        self.adapters = adapters
        # By source key: the registry name, or `<account>:<registry>` for a source in another account.
        self.sources = {source.key: source for source in settings.sources}
        self.namespaces = _Namespaces(adapters.namespace_of)
        self.deadline = Deadline.never()  # the invocation's, given to `execute`
        self.drift_summaries: dict[str, DriftSummary] = {}
        self.drift_error: str | None = None
        # What a governed domain's rules ask of every asset (assetForms, glossaryTerms).
        self.governance = Governance(settings.asset_forms, settings.glossary_terms)
        # Each cluster's topics, listed once per run (sync/topics.py).
        self.topics = TopicListings(adapters.topics)

    # ---------------------------------------------------------------- the run
    @tracer.capture_method
    def execute(self, request: SyncRequest, deadline: Deadline) -> SyncResult:
        """Read, plan, apply (a dry run stops at the plan), report; nothing starts past `deadline`."""
        self.deadline = deadline
        return self._execute(request)[0]

    def whole_plan(self, request: SyncRequest) -> tuple[plan.SyncPlan, SyncResult]:
        """The whole plan as one value, and the dry run's result (reads only, writes nothing)."""
        result, parts = self._execute(replace(request, dry_run=True))
        whole = plan.SyncPlan()
        for part in parts:
            whole = whole + part
        return whole, result

    def _execute(self, request: SyncRequest) -> tuple[SyncResult, list[plan.SyncPlan]]:
        result = SyncResult(dry_run=request.dry_run, trigger=request.trigger)
        for arn, why in request.rejected:  # named by the request, and no run can read it
            result.fail(why, schemaArn=arn)
        world = self._read(request, result)
        ledger, held, work = self._triage_work(request, world, result)
        if has_drift_form(world.asset_type) and any(isinstance(item, plan.Candidate) for _, item in work):
            # Only a run with schemas to inspect reads the summaries: a no-change run stays at its cost.
            self._read_drift(result, request.expected_drift)
        steps = self._steps(world.asset_type, result, ledger, request)
        steps.plans.append(held)
        pace = Pace(self.adapters.rates, self.settings.tuning.max_concurrency, world.latency, world.cold)
        progress = Pipeline(steps, pace, self.deadline).run(work)
        result.record_progress(progress)
        result.record_topic_errors(self.topics.errors())
        self._keep_products(request, steps, result)
        return result, steps.plans

    def _keep_products(self, request: SyncRequest, steps: SyncSteps, result: SyncResult) -> None:
        """The data products, from the asset records the run left (kafka_lineage.sync.products); a run that
        stopped early or was deferred leaves them to the one that finishes."""
        ports = self.adapters.products
        if ports is None or not self.settings.data_products or result.incomplete or result.deferred:
            return
        state = RunState(
            tuple(steps.plans),
            request.dry_run,
            steps.leased,
            self.adapters.lease,
            self.adapters.lease_wait_seconds,
            request.verify,
        )
        ProductSync(self.settings.data_products, ports, self.deadline).run(state, result)

    # ---------------------------------------------------------------- 1. read
    def _read(self, request: SyncRequest, result: SyncResult) -> _World:
        names = [] if request.scope == "schemas" else self._listed(request)
        started = clock.monotonic()
        asset_type = self.adapters.catalog.asset_type(self.settings.asset_type_name)
        typed = clock.monotonic()
        # The listings on a thread of their own from now on, while the asset records and the topics are read.
        # After the asset type's read, so that its time is a call's own: the pacing's first guess rests on it
        # and on the listing's pages (each measured on its own thread), never on a span two threads shared.
        listed = Listings(self.adapters.registry, names)
        try:
            records = self.adapters.asset_records.load()
            for arn in self.adapters.asset_records.unreadable:
                result.warn("mapping entry unreadable; re-created", schemaArn=arn)
            for source in (self.sources[name] for name in names):  # each cluster's topics, a page per 100
                self.topics.of(source)
            triage, listings = self._triage(request, records, result, listed)
        finally:
            listed.wait()  # nothing of this run goes on calling after it
        # Each phase's time per call it made: a listing is a call a page (100 pages at 10,000 schemas).
        phases = [typed - started]
        if listed.calls:
            phases.append(listed.seconds / listed.calls)
        return _World(asset_type, records, triage, listings, latency=min(phases), cold=max(phases))

    def _listed(self, request: SyncRequest) -> list[str]:
        """The configured registries the request lists."""
        names = self.sources if request.scope == "full" else request.registries
        return [name for name in dict.fromkeys(names) if name in self.sources]

    def _triage(
        self, request: SyncRequest, records: dict[str, AssetRecord], result: SyncResult, listing: Listings
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
        named: dict[str, set[str]] = {}  # cluster ARN -> the topics its listed sources' schemas name
        for name in names:
            source = self.sources.get(name)
            if source is None:
                total += plan.Triage(skipped=({"registryName": name, "reason": "registry not configured"},))
                continue
            try:
                listed = listing.of(name)
            except RegistryNotFound:
                if name in request.confirmed_deleted_registries:
                    gone = by_registry.get(name, {}).values()
                    reason = "registry deletion confirmed by event"
                    total += plan.Triage(deletions=tuple(plan.deletion(r, reason, True) for r in gone))
                else:
                    result.fail(f"registry {name} not found; nothing deleted", registryName=name)
                continue
            except Exception as error:
                result.fail(error, registryName=name)
                continue
            listings[name] = listed
            topics = self.topics.of(source)
            total += plan.triage_listing(source, listed, by_registry.get(name, {}), request.verify, topics)
            if topics is not None:
                result.report_without_topic(without_topic(source, listed, topics))
                named.setdefault(source.cluster_arn, set()).update(
                    s.schema_name for s in listed if s.status != "DELETING" and source.mirrors(s.schema_name)
                )
        self._report_without_schema(named, listings, result)
        return total, listings

    def _report_without_schema(
        self, named: dict[str, set[str]], listings: dict[str, list[ListedSchema]], result: SyncResult
    ) -> None:
        """`withoutSchema`, for each cluster whose every source was listed in this run (a topic is without
        schema only when no source of its cluster names it)."""
        for cluster_arn, names in sorted(named.items()):
            sources = [s for s in self.sources.values() if s.cluster_arn == cluster_arn]
            topics = self.topics.of(sources[0])
            if topics is not None and all(s.key in listings for s in sources):
                result.report_without_schema(without_schema(cluster_arn, topics, names))

    def _orphans(self, world: _World, result: SyncResult) -> list[plan.Delete]:
        """verify: assets of our type that no asset record knows and whose schema is gone: remove them.

        An asset whose schema is mirrored is left to the create for that schema, which adopts it.
        """
        known_assets = {record.asset_id for record in world.records.values()}
        known_arns = set(world.records) | {candidate.key for candidate in world.triage.candidates}
        mirrored = {
            schema.schema_arn
            for name, listed in world.listings.items()
            for schema in listed
            if schema.status != "DELETING" and self.sources[name].mirrors(schema.schema_name)
        }
        found: list[plan.Delete] = []
        try:
            assets = list(self.adapters.catalog.assets_of_type(self.settings.asset_type_name))
        except Exception as error:
            result.fail(error, registryName="*", schemaArn="verify: asset search")
            return found
        for asset in assets:
            if asset.asset_id in known_assets or asset.external_identifier in known_arns:
                continue
            registry = _registry_of_arn(asset.external_identifier, self.settings)
            if registry is None or registry not in world.listings:
                reason = "asset of the type outside the configured sources"
                result.skip([{"assetId": asset.asset_id, "reason": reason}])
                continue
            if asset.external_identifier in mirrored:
                continue
            found.append(plan.orphan(registry, asset.external_identifier, asset.asset_id))
        return found

    def _read_drift(self, result: SyncResult, expected: Sequence[tuple[SchemaRef, int]]) -> None:
        if self.adapters.drift is None:
            return
        read = read_summaries(self.adapters.drift, expected, self.deadline.allows)
        self.drift_summaries, self.drift_error = dict(read.summaries), read.error
        for warning in read.warnings:
            result.warn(warning["warning"], driftKey=warning["driftKey"])

    # ---------------------------------------------------------------- 2. triage
    def _triage_work(
        self,
        request: SyncRequest,
        world: _World,
        result: SyncResult,
    ) -> tuple[failsafe.Ledger, plan.SyncPlan, Sequence[Item]]:
        """The fail-safe's ledger, after screening the deletions known before any inspection, the deletions
        it held back, and the work in the run's order (after `resume_after`, for a follow-up)."""
        triage = world.triage
        orphans = self._orphans(world, result) if request.verify else []
        ledger = failsafe.Ledger.start(
            plan.registry_totals(world.records.values(), orphans),
            self.settings.tuning.mass_delete_share,
            request.allow_mass_delete,
        )
        verdict, ledger = ledger.screen(
            (*triage.deletions, *orphans), group=lambda d: d.registry_name, confirmed=lambda d: d.confirmed
        )
        held = plan.SyncPlan(held_back=verdict.held)
        result.hold(held)
        result.skip(dict(item) for item in triage.skipped)
        result.count_unchanged(len(triage.unchanged))
        after = Position(*request.resume_after) if request.resume_after else None
        work = plan.order_work(triage.candidates, verdict.kept, self.adapters.asset_records.group_of, after)
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
        return ledger, held, work

    # ---------------------------------------------------------------- 3. the chunks: plan, apply, save
    def _steps(
        self, asset_type: AssetType, result: SyncResult, ledger: failsafe.Ledger, request: SyncRequest
    ) -> SyncSteps:
        settings = self.settings
        applier = Applier(self.adapters.catalog, asset_type, settings.asset_type_name, settings.domain_id)
        steps = PlanOnly if request.dry_run else SyncSteps  # a dry run: the plan alone (stages.py)
        return steps(
            lambda candidate, warn: self.inspect(candidate, asset_type, request.verify, warn),
            self.adapters,
            applier,
            result,
            ledger,
            self.deadline,
        )

    def inspect(
        self,
        candidate: plan.Candidate,
        asset_type: AssetType,
        verify: bool = False,
        warn: Callable[[str, str], None] | None = None,
    ) -> plan.Action | None:
        """Read one candidate (GetSchema, versions, the topic's configs when they may have moved, and the
        definition when the fingerprint moved), decide."""
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
        topic = self._topic(source, candidate, details.schema_name, verify, warn)
        fingerprint = source_fingerprint(
            details, namespace, asset_type.revision, shown, self.governance, topic.properties
        )
        if not plan.needs_definition(candidate, fingerprint):
            return plan.decide(candidate, details, None, namespace, topic)
        definition = registry.definition(details.schema_arn, details.latest.number)
        parsed = parse_definition(details.data_format, definition)
        desired = desired_asset(
            source,
            details,
            parsed,
            definition,
            Catalogued(namespace, asset_type, self.governance),
            drift,
            topic.properties,
        )
        return plan.decide(candidate, details, desired, namespace, topic)

    def _topic(
        self,
        source: Source,
        candidate: plan.Candidate,
        topic: str,
        verify: bool,
        warn: Callable[[str, str], None] | None,
    ) -> TopicSeen:
        """The candidate's topic as the cluster has it (sync/topics.py); without topics read, as it was."""
        record = candidate.record
        if not self.topics.enabled:
            return TopicSeen(record.topic_properties, record.topic_tracked) if record else TopicSeen()
        listing = self.topics.of(source)
        properties, warning = current_properties(
            record, listing, topic, verify, lambda: self.topics.describe(source, topic)
        )
        if warning and warn is not None:
            warn(candidate.key, warning)
        return TopicSeen(properties, tracked=True)


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


def _registry_of_arn(arn: str, settings: Settings) -> str | None:
    """The source key of a schema ARN: its account tells a source account's registry from this one's."""
    parts = arn.split(":", 5)
    if len(parts) < 6 or not parts[5].startswith("schema/"):
        return None
    pieces = parts[5].split("/")
    return settings.source_key(parts[4], pieces[1]) if len(pieces) == 3 else None
