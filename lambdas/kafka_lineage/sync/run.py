"""schema-sync, end to end: read through the adapters, plan in pure code, apply, record, announce.

Every write is idempotent by construction, so any run may be retried, crash, or overlap another:
- CreateAsset carries a clientToken derived from the schema ARN and its CreatedTime, and a conflict on the
  external identifier (the asset exists but the mapping lost it) adopts that asset;
- revisions and listings carry tokens derived from the asset id and the revision they start from;
- a delete of something already gone is a success;
- the mapping is written after each chunk of actions, and only then are the chunk's events put.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from kafka_lineage.aws.bus import TopicEvents
from kafka_lineage.aws.catalog import AssetConflict, AssetGone, AssetType, Catalog, CatalogAsset
from kafka_lineage.aws.registry import ListedSchema, RegistryNotFound, RegistryReader, SchemaNotFound
from kafka_lineage.config import Settings, Source
from kafka_lineage.mapping import AssetMapping, AssetRecord
from kafka_lineage.observability import logger, metrics, tracer
from kafka_lineage.schemas import parse_definition
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import desired_asset, source_fingerprint
from kafka_lineage.sync.requests import SchemaRef, SyncRequest

APPLY_CHUNK = 50  # actions applied between two mapping saves (the checkpoint granularity)


def client_token(*parts: Any) -> str:
    """A deterministic idempotency token: the same write, retried by anyone, is the same request."""
    return hashlib.sha256(json.dumps(parts, separators=(",", ":")).encode()).hexdigest()


@dataclass
class SyncAdapters:
    registry: RegistryReader
    catalog: Catalog
    mapping: AssetMapping
    events: TopicEvents
    namespace_of: Callable[[Source], str]  # the topic namespace of a source (its `namespace` or the brokers)


@dataclass
class SyncResult:
    dry_run: bool
    trigger: str
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0
    adopted: int = 0
    failed: list[dict[str, str]] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    planned: list[dict[str, object]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    mapping_writes: int = 0
    events_failed: int = 0
    incomplete: bool = False
    remaining: int = 0
    progressed: bool = False  # at least one chunk was applied (a follow-up invocation would not loop)

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "dryRun": self.dry_run,
            "trigger": self.trigger,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
            "adopted": self.adopted,
            "failed": self.failed,
            "skipped": self.skipped,
            "warnings": self.warnings,
            "mappingWrites": self.mapping_writes,
            "eventsFailed": self.events_failed,
        }
        if self.dry_run:
            result["planned"] = self.planned
        if self.incomplete:
            result["incomplete"] = True
            result["remaining"] = self.remaining
        return result


class _Namespaces:
    """Resolve each source's namespace at most once per run, and only when some schema needs it."""

    def __init__(self, resolve: Callable[[Source], str]) -> None:
        self._resolve = resolve
        self._known: dict[str, str | Exception] = {}
        self._lock = threading.Lock()

    def __call__(self, source: Source) -> str:
        with self._lock:
            if source.registry_name not in self._known:
                try:
                    self._known[source.registry_name] = self._resolve(source)
                except Exception as error:  # a failure to resolve fails that source's schemas, not the run
                    self._known[source.registry_name] = error
            known = self._known[source.registry_name]
        if isinstance(known, Exception):
            raise known
        return known


def _fail(result: SyncResult, error: Exception | str, **where: str) -> None:
    message = error if isinstance(error, str) else f"{type(error).__name__}: {error}"
    result.failed.append({**where, "error": message})
    logger.error("schema-sync item failed", extra={**where, "error": message})


class SchemaSync:
    def __init__(
        self,
        settings: Settings,
        adapters: SyncAdapters,
        remaining_seconds: Callable[[], float] | None = None,
    ) -> None:
        self.settings = settings
        self.adapters = adapters
        self.sources = {source.registry_name: source for source in settings.sources}
        self.namespaces = _Namespaces(adapters.namespace_of)
        self.remaining_seconds = remaining_seconds
        self.workers = settings.tuning.max_concurrency

    # ---------------------------------------------------------------- reading and planning
    @tracer.capture_method
    def run(self, request: SyncRequest) -> SyncResult:
        result = SyncResult(dry_run=request.dry_run, trigger=request.trigger)
        asset_type = self.adapters.catalog.asset_type(self.settings.asset_type_name)
        records = self.adapters.mapping.load()
        for arn in self.adapters.mapping.unreadable:
            result.warnings.append({"schemaArn": arn, "warning": "mapping entry unreadable; re-created"})
        triage, listings = self._triage(request, records, result)
        actions, deletions = self._inspect(triage.candidates, asset_type, result)
        deletions += triage.deletions
        orphans = self._orphans(records, listings, actions, result) if request.verify else []
        deletions += orphans
        # A registry's assets, for the fail-safe's share: the mapped ones and the orphans verify found.
        per_registry: dict[str, int] = {}
        for owner in [record.registry_name for record in records.values()] + [
            o.registry_name for o in orphans
        ]:
            per_registry[owner] = per_registry.get(owner, 0) + 1
        allowed, blocked = plan.apply_fail_safe(
            deletions, per_registry, self.settings.tuning.mass_delete_share, request.allow_mass_delete
        )
        for held in blocked:
            for deletion in held.deletions:
                _fail(
                    result,
                    f"deletion held back by the fail-safe: {len(held.deletions)} of {held.total} "
                    f"assets of registry {held.registry_name} ({held.share:.0%} > {held.limit:.0%}); "
                    'invoke with "allowMassDelete": true to apply',
                    schemaArn=deletion.schema_arn,
                    registryName=held.registry_name,
                )
        actions += allowed
        result.skipped.extend(triage.skipped)
        result.unchanged += len(triage.unchanged)
        if request.dry_run:
            result.planned = [action.describe() for action in actions if action.kind != "touch"]
            for action in actions:
                self._count(result, action.kind, adopted=False)
            return result
        self._apply(actions, asset_type, result)
        self._emit_metrics(result)
        return result

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
                total.skipped.append({"registryName": name, "reason": "registry not configured"})
                continue
            try:
                listed = self.adapters.registry.list_schemas(name)
            except RegistryNotFound:
                if name in request.confirmed_deleted_registries:
                    total.deletions += [
                        plan.deletion(r, "registry deletion confirmed by event", True)
                        for r in by_registry.get(name, {}).values()
                    ]
                else:
                    _fail(result, f"registry {name} not found; nothing deleted", registryName=name)
                continue
            except Exception as error:
                _fail(result, error, registryName=name)
                continue
            listings[name] = listed
            part = plan.triage_listing(source, listed, by_registry.get(name, {}), request.verify)
            total.candidates += part.candidates
            total.deletions += part.deletions
            total.unchanged += part.unchanged
        return total, listings

    def _inspect(
        self, candidates: list[plan.Candidate], asset_type: AssetType, result: SyncResult
    ) -> tuple[list[plan.Action], list[plan.Action]]:
        actions: list[plan.Action] = []
        deletions: list[plan.Action] = []
        lock = threading.Lock()

        def inspect(candidate: plan.Candidate) -> None:
            try:
                action = self._inspect_one(candidate, asset_type)
            except SchemaNotFound:
                action = plan.gone(candidate)
            except Exception as error:
                with lock:
                    _fail(
                        result,
                        error,
                        schemaArn=candidate.schema_arn
                        or f"{candidate.registry_name}/{candidate.schema_name}",
                        registryName=candidate.registry_name,
                    )
                return
            with lock:
                if action is None:
                    result.unchanged += 1
                elif action.kind == "delete":
                    deletions.append(action)
                else:
                    if action.desired is not None and action.desired.warning:
                        result.warnings.append(
                            {"schemaArn": action.schema_arn, "warning": action.desired.warning}
                        )
                        logger.warning(
                            "schema fields incomplete",
                            extra={"schemaArn": action.schema_arn, "warning": action.desired.warning},
                        )
                    actions.append(action)

        self._parallel(inspect, candidates)
        return actions, deletions

    def _inspect_one(self, candidate: plan.Candidate, asset_type: AssetType) -> plan.Action | None:
        source = self.sources[candidate.registry_name]
        registry = self.adapters.registry
        details = registry.snapshot(candidate.registry_name, candidate.schema_name)
        if details.latest is None:
            return None  # no AVAILABLE version yet (PENDING): nothing to mirror until one lands
        namespace = self.namespaces(source)
        fingerprint = source_fingerprint(details, namespace, asset_type.revision)
        if not plan.needs_definition(candidate, fingerprint):
            return plan.decide(candidate, details, None, namespace)
        definition = registry.definition(details.schema_arn, details.latest.number)
        parsed = parse_definition(details.data_format, definition)
        desired = desired_asset(source, details, parsed, definition, namespace, asset_type)
        return plan.decide(candidate, details, desired, namespace)

    def _orphans(
        self,
        records: dict[str, AssetRecord],
        listings: dict[str, list[ListedSchema]],
        actions: list[plan.Action],
        result: SyncResult,
    ) -> list[plan.Action]:
        """verify: assets of our type that no mapping knows. Adopt (via create) or remove them."""
        catalog = self.adapters.catalog
        known_assets = {record.asset_id for record in records.values()}
        known_arns = set(records) | {action.schema_arn for action in actions}
        mirrored = {
            schema.schema_arn
            for name, listed in listings.items()
            for schema in listed
            if schema.status != "DELETING" and self.sources[name].mirrors(schema.schema_name)
        }
        found: list[plan.Action] = []
        try:
            assets = list(catalog.assets_of_type(self.settings.asset_type_name))
        except Exception as error:
            _fail(result, error, registryName="*", schemaArn="verify: asset search")
            return found
        for asset in assets:
            if asset.asset_id in known_assets or asset.external_identifier in known_arns:
                continue
            registry = _registry_of_arn(asset.external_identifier)
            if registry is None or registry not in listings:
                result.skipped.append(
                    {"assetId": asset.asset_id, "reason": "asset of the type outside the configured sources"}
                )
                continue
            if asset.external_identifier in mirrored:
                continue  # its schema is mirrored: the create for it adopts the asset
            found.append(
                plan.Action(
                    kind="delete",
                    registry_name=registry,
                    topic=asset.external_identifier.rsplit("/", 1)[-1],
                    schema_arn=asset.external_identifier,
                    reason="orphan asset (no mapping, schema gone)",
                    asset_id=asset.asset_id,
                )
            )
        return found

    # ---------------------------------------------------------------- applying
    def _apply(self, actions: list[plan.Action], asset_type: AssetType, result: SyncResult) -> None:
        for start in range(0, len(actions), APPLY_CHUNK):
            if self._out_of_time():
                result.incomplete = True
                result.remaining = len(actions) - start
                logger.warning("stopping before the deadline", extra={"remaining": result.remaining})
                return
            chunk = actions[start : start + APPLY_CHUNK]
            result.progressed = True
            done: list[tuple[plan.Action, AssetRecord | None, str, bool]] = []
            lock = threading.Lock()

            def apply(action: plan.Action, done: list[Any] = done, lock: threading.Lock = lock) -> None:
                try:
                    record, change, adopted = self._apply_one(action, asset_type)
                except Exception as error:
                    with lock:
                        _fail(result, error, schemaArn=action.schema_arn, registryName=action.registry_name)
                    return
                with lock:
                    done.append((action, record, change, adopted))

            self._parallel(apply, chunk)
            changes: dict[str, AssetRecord | None] = {
                action.schema_arn: record for action, record, _, _ in done
            }
            try:
                result.mapping_writes += self.adapters.mapping.save(changes)
            except Exception as error:
                # The DataZone side is done and idempotent: the next run adopts what the mapping missed.
                for action, _, _, _ in done:
                    _fail(result, f"mapping not saved: {error}", schemaArn=action.schema_arn)
                self._reload_mapping()
                continue
            events = []
            for action, record, change, adopted in done:
                self._count(result, action.kind, adopted)
                if change:
                    events.append(_event_detail(action, record, change))
            if events:
                try:
                    rejected = self.adapters.events.put(events)
                except Exception as error:
                    rejected = events
                    logger.error("Topic Asset Changed events not put", extra={"error": str(error)})
                result.events_failed += len(rejected)

    def _apply_one(self, action: plan.Action, asset_type: AssetType) -> tuple[AssetRecord | None, str, bool]:
        """Returns (the mapping record after the action, the change to announce, whether it adopted)."""
        catalog = self.adapters.catalog
        domain = self.settings.domain_id
        if action.kind == "touch":
            return action.new_record, "", False
        if action.kind == "delete":
            asset_id = action.asset_id or (action.record.asset_id if action.record else "")
            catalog.unpublish(asset_id, client_token("unpublish", domain, asset_id))
            catalog.delete_asset(asset_id)
            return None, "deleted", False
        assert action.new_record is not None
        assert action.desired is not None
        content = action.desired.content
        adopted = False
        if action.kind == "revise" and action.record is not None:
            record = action.record
            try:
                asset = catalog.revise_asset(
                    record.asset_id,
                    content,
                    asset_type,
                    client_token(
                        "revise",
                        domain,
                        record.asset_id,
                        record.asset_revision or record.content_hash,
                        action.desired.content_hash,
                    ),
                )
                change = "revised"
            except AssetGone:
                # Deleted behind our back: create anew (a token of its own, or DataZone would replay the old).
                asset, adopted = self._create(
                    action,
                    asset_type,
                    client_token(
                        "create", domain, action.schema_arn, action.new_record.created_time, record.asset_id
                    ),
                )
                change = "created"
        else:
            asset, adopted = self._create(
                action,
                asset_type,
                client_token("create", domain, action.schema_arn, action.new_record.created_time),
            )
            change = "revised" if adopted else "created"
        catalog.publish(
            asset.asset_id, asset.revision, client_token("publish", domain, asset.asset_id, asset.revision)
        )
        return (
            replace(action.new_record, asset_id=asset.asset_id, asset_revision=asset.revision),
            change,
            adopted,
        )

    def _create(self, action: plan.Action, asset_type: AssetType, token: str) -> tuple[CatalogAsset, bool]:
        catalog = self.adapters.catalog
        assert action.desired is not None
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
    def _reload_mapping(self) -> None:
        """After a failed save SSM may hold part of it: re-read, so later chunks save on what is there."""
        try:
            self.adapters.mapping.load()
        except Exception as error:
            logger.error("mapping reload failed", extra={"error": str(error)})

    def _parallel(self, work: Callable[[Any], None], items: Iterable[Any]) -> None:
        items = list(items)
        if len(items) <= 1 or self.workers == 1:
            for item in items:
                work(item)
            return
        with ThreadPoolExecutor(max_workers=min(self.workers, len(items))) as pool:
            list(pool.map(work, items))

    def _out_of_time(self) -> bool:
        if self.remaining_seconds is None:
            return False
        return self.remaining_seconds() < self.settings.tuning.deadline_margin_seconds

    @staticmethod
    def _count(result: SyncResult, kind: str, adopted: bool) -> None:
        if adopted:
            result.adopted += 1
        if kind == "create":
            result.created += 1
        elif kind == "revise":
            result.updated += 1
        elif kind == "delete":
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
            ("SchemasFailed", len(result.failed)),
            ("AssetsAdopted", result.adopted),
            ("EventsFailed", result.events_failed),
        ):
            metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def _registry_of_arn(arn: str) -> str | None:
    parts = arn.split(":", 5)
    if len(parts) < 6 or not parts[5].startswith("schema/"):
        return None
    pieces = parts[5].split("/")
    return pieces[1] if len(pieces) == 3 else None


def _event_detail(action: plan.Action, record: AssetRecord | None, change: str) -> dict[str, Any]:
    source = record or action.record
    return {
        "registryName": action.registry_name,
        "schemaArn": action.schema_arn,
        "topic": action.topic,
        "assetId": (source.asset_id if source else action.asset_id) or "",
        "schemaVersion": source.latest_version if source else 0,
        "change": change,
    }
