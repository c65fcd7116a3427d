"""The pure middle of schema-sync: registry listings + mapping -> what to read, then what to write.

Two steps, both pure:
1. `triage` compares the listings (cheap: one call per 100 schemas) with the mapping. Unchanged schemas stop
   here, so a no-change run reads nothing per schema. The rest become `Candidate`s to inspect, and schemas
   that are gone become `Deletion`s.
2. `decide` turns an inspected candidate (GetSchema + versions + definition -> desired content) into an
   `Action`: create, revise, touch (mapping only) or nothing.
`apply_fail_safe` then holds back a source's inferred deletions when they would remove too much of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from kafka_lineage.aws.registry import ListedSchema, SchemaDetails
from kafka_lineage.config import Source
from kafka_lineage.mapping import AssetRecord
from kafka_lineage.sync.desired import Desired
from kafka_lineage.sync.requests import SchemaRef

ActionKind = Literal["create", "revise", "touch", "delete"]


@dataclass(frozen=True)
class Candidate:
    """A schema whose asset may need writing: inspect it (read its details) to decide."""

    registry_name: str
    schema_name: str
    schema_arn: str | None  # unknown for a targeted schema until GetSchema answers
    reason: str
    record: AssetRecord | None
    listed: ListedSchema | None = None
    confirmed_deleted: bool = False  # an event confirmed its deletion; re-read to be sure it is gone


@dataclass(frozen=True)
class Action:
    kind: ActionKind
    registry_name: str
    topic: str
    schema_arn: str
    reason: str
    record: AssetRecord | None = None  # the mapping as it stands
    new_record: AssetRecord | None = None  # what the mapping holds after success (asset id filled in later)
    desired: Desired | None = None
    asset_id: str | None = None  # for deletions of assets no mapping knows (verify's orphans)
    confirmed: bool = False  # deletion confirmed by an event: the fail-safe does not apply

    def describe(self) -> dict[str, object]:
        """The action as a dry run reports it."""
        summary: dict[str, object] = {
            "action": self.kind,
            "registryName": self.registry_name,
            "topic": self.topic,
            "schemaArn": self.schema_arn,
            "reason": self.reason,
        }
        asset_id = self.asset_id or (self.record.asset_id if self.record else None)
        if asset_id:
            summary["assetId"] = asset_id
        if self.new_record is not None:
            summary["schemaVersion"] = self.new_record.latest_version
        if self.desired is not None and self.desired.warning:
            summary["warning"] = self.desired.warning
        return summary


@dataclass
class Triage:
    candidates: list[Candidate] = field(default_factory=list)
    deletions: list[Action] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)


def deletion(record: AssetRecord, reason: str, confirmed: bool) -> Action:
    return Action(
        kind="delete",
        registry_name=record.registry_name,
        topic=record.schema_name,
        schema_arn=record.schema_arn,
        reason=reason,
        record=record,
        confirmed=confirmed,
    )


def triage_listing(
    source: Source, listed: Iterable[ListedSchema], records: Mapping[str, AssetRecord], verify: bool
) -> Triage:
    """Compare one registry's listing with the mapping records of that registry."""
    result = Triage()
    seen: set[str] = set()
    for schema in listed:
        seen.add(schema.schema_arn)
        record = records.get(schema.schema_arn)
        if not source.mirrors(schema.schema_name):
            if record is not None:
                result.deletions.append(deletion(record, "excluded by the source's filters", False))
            continue
        if schema.status == "DELETING":
            if record is not None:
                result.deletions.append(deletion(record, "listed as DELETING", False))
            continue
        reason = _reason(schema, record, verify)
        if reason is None:
            result.unchanged.append(schema.schema_arn)
        else:
            result.candidates.append(
                Candidate(
                    registry_name=schema.registry_name,
                    schema_name=schema.schema_name,
                    schema_arn=schema.schema_arn,
                    reason=reason,
                    record=record,
                    listed=schema,
                )
            )
    for arn, record in records.items():
        if arn not in seen:
            result.deletions.append(deletion(record, "no longer listed", False))
    return result


def _reason(schema: ListedSchema, record: AssetRecord | None, verify: bool) -> str | None:
    if record is None:
        return "new"
    if record.created_time != schema.created_time:
        return "re-created under the same name"
    if record.updated_time != schema.updated_time:
        return "listing changed"
    if verify:
        return "verify"
    return None


def triage_targets(
    targets: Iterable[SchemaRef],
    sources: Mapping[str, Source],
    records_by_ref: Mapping[SchemaRef, AssetRecord],
    confirmed: frozenset[SchemaRef],
) -> Triage:
    """Schemas named by an event or by `schemaArns`: each is inspected, whatever the listing says."""
    result = Triage()
    for ref in targets:
        source = sources.get(ref.registry_name)
        record = records_by_ref.get(ref)
        if source is None:
            result.skipped.append(
                {
                    "registryName": ref.registry_name,
                    "topic": ref.schema_name,
                    "reason": "registry not configured",
                }
            )
            continue
        if not source.mirrors(ref.schema_name):
            if record is not None:
                result.deletions.append(
                    deletion(record, "excluded by the source's filters", ref in confirmed)
                )
            else:
                result.skipped.append(
                    {
                        "registryName": ref.registry_name,
                        "topic": ref.schema_name,
                        "reason": "excluded by the source's filters",
                    }
                )
            continue
        result.candidates.append(
            Candidate(
                registry_name=ref.registry_name,
                schema_name=ref.schema_name,
                schema_arn=record.schema_arn if record else None,
                reason="requested",
                record=record,
                confirmed_deleted=ref in confirmed,
            )
        )
    return result


def needs_definition(candidate: Candidate, fingerprint: str) -> bool:
    """False when GetSchema + versions match what was last mirrored: the definition need not be read."""
    record = candidate.record
    return record is None or record.source_fingerprint != fingerprint


def refreshed_record(
    record: AssetRecord, details: SchemaDetails, listed: ListedSchema | None, fingerprint: str
) -> AssetRecord:
    """The record with the registry's current times; same asset, same content."""
    return replace(
        record,
        updated_time=listed.updated_time if listed else details.updated_time,
        created_time=listed.created_time if listed else details.created_time,
        source_fingerprint=fingerprint,
    )


def decide(
    candidate: Candidate,
    details: SchemaDetails,
    desired: Desired | None,
    namespace: str,
) -> Action | None:
    """Inspected candidate -> action. `desired` None means the fingerprint matched (content unchanged)."""
    record = candidate.record

    def action(kind: ActionKind, new: AssetRecord, wanted: Desired | None = None) -> Action:
        return Action(
            kind=kind,
            registry_name=details.registry_name,
            topic=details.schema_name,
            schema_arn=details.schema_arn,
            reason=candidate.reason,
            record=record,
            new_record=new,
            desired=wanted,
        )

    if desired is None:
        if record is None:
            raise ValueError("a schema without a mapping record must be inspected in full")
        refreshed = refreshed_record(record, details, candidate.listed, record.source_fingerprint)
        if refreshed == record:
            return None
        return action("touch", refreshed)
    new_record = AssetRecord(
        registry_name=details.registry_name,
        schema_name=details.schema_name,
        schema_arn=details.schema_arn,
        asset_id=record.asset_id if record else "",
        latest_version=desired.latest_version,
        data_format=details.data_format,
        namespace=namespace,
        updated_time=candidate.listed.updated_time if candidate.listed else details.updated_time,
        created_time=candidate.listed.created_time if candidate.listed else details.created_time,
        content_hash=desired.content_hash,
        schema_version_id=desired.schema_version_id,
        asset_revision=record.asset_revision if record else "",
        source_fingerprint=desired.source_fingerprint,
    )
    if record is None:
        return action("create", new_record, desired)
    if record.content_hash != desired.content_hash:
        return action("revise", new_record, desired)
    if new_record == record:
        return None
    return action("touch", new_record)


def gone(candidate: Candidate) -> Action | None:
    """The inspected schema does not exist (any more)."""
    if candidate.record is None:
        return None
    return deletion(
        candidate.record,
        "deletion confirmed by event" if candidate.confirmed_deleted else "schema not found",
        candidate.confirmed_deleted,
    )


@dataclass(frozen=True)
class Blocked:
    registry_name: str
    deletions: tuple[Action, ...]
    total: int
    share: float
    limit: float


def apply_fail_safe(
    deletions: Iterable[Action],
    records_per_registry: Mapping[str, int],
    limit: float,
    allow_mass_delete: bool,
) -> tuple[list[Action], list[Blocked]]:
    """Hold back a registry's *inferred* deletions when they would remove more than `limit` of its assets.

    Deletions an event confirmed always pass. A share above the limit blocks all of that registry's inferred
    deletions (none happen), so a listing that comes back empty or truncated can never wipe the catalog.
    """
    allowed: list[Action] = []
    inferred: dict[str, list[Action]] = {}
    for item in deletions:
        if item.confirmed or allow_mass_delete:
            allowed.append(item)
        else:
            inferred.setdefault(item.registry_name, []).append(item)
    blocked: list[Blocked] = []
    for registry, items in inferred.items():
        total = max(records_per_registry.get(registry, 0), len(items))
        share = len(items) / total
        if share > limit:
            blocked.append(Blocked(registry, tuple(items), total, share, limit))
        else:
            allowed.extend(items)
    return allowed, blocked
