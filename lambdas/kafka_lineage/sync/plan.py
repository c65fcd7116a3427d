"""The pure middle of schema-sync: registry listings + asset records -> what to read, then what to write.

Every value here is frozen and every function pure (no I/O, no clock):
1. `triage_listing` / `triage_targets` compare the listings (cheap: one call per 100 schemas) or the schemas
   an event names with the asset records. Unchanged schemas stop here, so a no-change run reads nothing
   per schema.
   The rest become `Candidate`s to inspect; schemas that are gone become `Delete`s.
2. `order_work` puts candidates and deletions in the order the run processes them: by the packed store's
   hash group of their key (the schema ARN), so that `cut` can end chunks on group boundaries and each SSM
   parameter of the asset records is written once per run, not once per chunk that touches it.
3. `decide` turns an inspected candidate (GetSchema + versions + definition -> desired content) into an
   action: `Create`, `Revise`, `Touch` (asset record only) or nothing.
4. A `SyncPlan` is the value a chunk (or a dry run: the whole run) amounts to; the fail-safe
   (kafka_lineage.failsafe) decides which inferred deletions it may hold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import ClassVar

from kafka_lineage.config import Source
from kafka_lineage.engine.order import Position
from kafka_lineage.failsafe import Held
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.combine import combined
from kafka_lineage.model.registry import ListedSchema, SchemaDetails
from kafka_lineage.sync.desired import Desired
from kafka_lineage.sync.requests import SchemaRef
from kafka_lineage.sync.topics import LISTING_MOVED, Listing, TopicSeen, listing_moved

REQUESTED = "requested"  # a Candidate's reason when a request or an event named the schema


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

    @property
    def key(self) -> str:
        """The asset record key the candidate lands under (its ARN; a targeted schema's name until read)."""
        return self.schema_arn or f"{self.registry_name}/{self.schema_name}"


def _summary(kind: str, registry: str, topic: str, arn: str, reason: str) -> dict[str, object]:
    return {"action": kind, "registryName": registry, "topic": topic, "schemaArn": arn, "reason": reason}


def _with_desired(summary: dict[str, object], desired: Desired) -> dict[str, object]:
    """A write's summary with what its content says: a warning, and the drift form as it would be written."""
    if desired.warning:
        summary["warning"] = desired.warning
    if desired.drift is not None:
        summary["drift"] = desired.drift
    return summary


@dataclass(frozen=True)
class Create:
    """A schema no asset record knows: create its asset (or adopt one that exists) and publish it."""

    kind: ClassVar[str] = "create"
    registry_name: str
    topic: str
    schema_arn: str
    reason: str
    new_record: AssetRecord  # asset id and revision are filled in when the write answers
    desired: Desired

    def describe(self) -> dict[str, object]:
        summary = _summary(self.kind, self.registry_name, self.topic, self.schema_arn, self.reason)
        summary["schemaVersion"] = self.new_record.latest_version
        return _with_desired(summary, self.desired)


@dataclass(frozen=True)
class _OnExistingAsset:
    """An action on an asset that exists: which asset (its record), and the record it leaves."""

    kind: ClassVar[str]
    registry_name: str
    topic: str
    schema_arn: str
    reason: str
    record: AssetRecord
    new_record: AssetRecord

    def describe(self) -> dict[str, object]:
        """Which asset, at which schema version."""
        summary = _summary(self.kind, self.registry_name, self.topic, self.schema_arn, self.reason)
        summary.update(assetId=self.record.asset_id, schemaVersion=self.new_record.latest_version)
        return summary


@dataclass(frozen=True)
class Revise(_OnExistingAsset):
    """The asset's content changed: write a new revision and refresh its listing."""

    kind: ClassVar[str] = "revise"
    desired: Desired

    def describe(self) -> dict[str, object]:
        return _with_desired(super().describe(), self.desired)


@dataclass(frozen=True)
class Touch(_OnExistingAsset):
    """Same content, newer registry times: only the asset record changes (no DataZone write)."""

    kind: ClassVar[str] = "touch"


@dataclass(frozen=True)
class Publish(_OnExistingAsset):
    """The asset exists with this content, but its last publish was refused (a domain rule): publish it,
    creating nothing."""

    kind: ClassVar[str] = "publish"


@dataclass(frozen=True)
class Delete:
    """Delete an asset (its listing goes with it), or hold it while subscribers keep its listing. `record`
    is None for an orphan (an asset no asset record knows)."""

    kind: ClassVar[str] = "delete"
    registry_name: str
    topic: str
    schema_arn: str
    reason: str
    asset_id: str
    record: AssetRecord | None = None
    # An event confirmed the deletion, or it was held before (screened when it was first decided): the
    # fail-safe does not apply.
    confirmed: bool = False

    @property
    def key(self) -> str:
        return self.schema_arn

    @property
    def was_held(self) -> bool:
        """The asset's deletion was held for subscriptions on an earlier run."""
        return self.record is not None and self.record.held > 0

    def describe(self) -> dict[str, object]:
        summary = _summary(self.kind, self.registry_name, self.topic, self.schema_arn, self.reason)
        summary["assetId"] = self.asset_id
        if self.was_held and self.record is not None:
            summary["heldSubscriptions"] = self.record.held
        return summary


Action = Create | Revise | Touch | Publish | Delete
Work = Candidate | Delete  # what a chunk holds before it is read: deletions need no read


@dataclass(frozen=True)
class Triage:
    candidates: tuple[Candidate, ...] = ()
    deletions: tuple[Delete, ...] = ()
    unchanged: tuple[str, ...] = ()
    skipped: tuple[Mapping[str, str], ...] = ()

    def __add__(self, other: Triage) -> Triage:
        return combined(Triage, (self, other))


@dataclass(frozen=True)
class SyncPlan:
    """What a chunk, or a whole dry run, amounts to: the writes, and the deletions the fail-safe held."""

    actions: tuple[Action, ...] = ()
    # verify: assets of the type whose schema is gone and no asset record knows
    orphans: tuple[Delete, ...] = ()
    held_back: tuple[Held[Delete], ...] = ()
    unchanged: int = 0

    def __add__(self, other: SyncPlan) -> SyncPlan:
        return combined(SyncPlan, (self, other))

    def writes(self) -> tuple[Action, ...]:
        """The actions in the order they are applied (orphans are deletions like the others)."""
        return self.actions + self.orphans

    def describe(self) -> list[dict[str, object]]:
        """The plan as a dry run reports it (touches only refresh the asset records: not listed)."""
        return [action.describe() for action in self.writes() if not isinstance(action, Touch)]


def deletion(record: AssetRecord, reason: str, confirmed: bool) -> Delete:
    """A record's deletion. One held for subscriptions before passed the fail-safe (or an event confirmed
    it) when it was first decided: retried each run, it is not screened again, which would otherwise trip
    the fail-safe run after run while subscribers keep the assets."""
    if record.held:
        reason = f"{reason}; held for {record.held} subscription(s) since an earlier run"
    return Delete(
        registry_name=record.registry_name,
        topic=record.schema_name,
        schema_arn=record.schema_arn,
        reason=reason,
        asset_id=record.asset_id,
        record=record,
        confirmed=confirmed or record.held > 0,
    )


def orphan(registry_name: str, schema_arn: str, asset_id: str) -> Delete:
    return Delete(
        registry_name=registry_name,
        topic=schema_arn.rsplit("/", 1)[-1],
        schema_arn=schema_arn,
        reason="orphan asset (no mapping, schema gone)",
        asset_id=asset_id,
    )


def triage_listing(
    source: Source,
    listed: Iterable[ListedSchema],
    records: Mapping[str, AssetRecord],
    verify: bool,
    topics: Listing | None = None,
) -> Triage:
    """Compare one registry's listing, and its cluster's topic listing (None: not read), with the asset
    records of that registry."""
    candidates: list[Candidate] = []
    deletions: list[Delete] = []
    unchanged: list[str] = []
    seen: set[str] = set()
    for schema in listed:
        seen.add(schema.schema_arn)
        record = records.get(schema.schema_arn)
        if not source.mirrors(schema.schema_name):
            if record is not None:
                deletions.append(deletion(record, "excluded by the source's filters", False))
            continue
        if schema.status == "DELETING":
            if record is not None:
                deletions.append(deletion(record, "listed as DELETING", False))
            continue
        reason = _reason(schema, record, verify, topics)
        if reason is None:
            unchanged.append(schema.schema_arn)
        else:
            candidates.append(
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
            deletions.append(deletion(record, "no longer listed", False))
    return Triage(tuple(candidates), tuple(deletions), tuple(unchanged))


def _reason(
    schema: ListedSchema, record: AssetRecord | None, verify: bool, topics: Listing | None
) -> str | None:
    if record is None:
        return "new"
    if record.created_time != schema.created_time:
        return "re-created under the same name"
    if record.updated_time != schema.updated_time:
        return "listing changed"
    if listing_moved(record, topics):
        return LISTING_MOVED
    if record.unpublished:
        return "not published yet (a domain rule refused the last publish)"
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
    candidates: list[Candidate] = []
    deletions: list[Delete] = []
    skipped: list[Mapping[str, str]] = []
    for ref in targets:
        source = sources.get(ref.registry_name)
        record = records_by_ref.get(ref)
        if source is None:
            skipped.append(
                {
                    "registryName": ref.registry_name,
                    "topic": ref.schema_name,
                    "reason": "registry not configured",
                }
            )
            continue
        if not source.mirrors(ref.schema_name):
            if record is not None:
                deletions.append(deletion(record, "excluded by the source's filters", ref in confirmed))
            else:
                skipped.append(
                    {
                        "registryName": ref.registry_name,
                        "topic": ref.schema_name,
                        "reason": "excluded by the source's filters",
                    }
                )
            continue
        candidates.append(
            Candidate(
                registry_name=ref.registry_name,
                schema_name=ref.schema_name,
                schema_arn=record.schema_arn if record else None,
                reason=REQUESTED,
                record=record,
                confirmed_deleted=ref in confirmed,
            )
        )
    return Triage(tuple(candidates), tuple(deletions), skipped=tuple(skipped))


# ------------------------------------------------------------------------------------------- ordering, chunks
def order_work(
    candidates: Iterable[Candidate],
    deletions: Iterable[Delete],
    group_of: Callable[[str], str],
    after: Position | None = None,
) -> tuple[tuple[Position, Work], ...]:
    """Every item with its position, sorted; those at or before `after` (done by an earlier invocation of
    the same run) are left out."""
    every: list[Work] = [*candidates, *deletions]
    items = [(Position(group_of(item.key), item.key), item) for item in every]
    items.sort(key=lambda pair: pair[0])
    if after is not None:
        items = [pair for pair in items if pair[0] > after]
    return tuple(items)


# ------------------------------------------------------------------------------------------------- deciding
def needs_definition(candidate: Candidate, fingerprint: str) -> bool:
    """False when GetSchema + versions match what was last mirrored: the definition need not be read."""
    record = candidate.record
    return record is None or record.source_fingerprint != fingerprint


def refreshed_record(
    record: AssetRecord,
    details: SchemaDetails,
    listed: ListedSchema | None,
    fingerprint: str,
    topic: TopicSeen | None = None,
) -> AssetRecord:
    """The record with the registry's current times and the topic as seen; same asset, same content."""
    seen = topic or TopicSeen(record.topic_properties, record.topic_tracked)
    return replace(
        record,
        updated_time=listed.updated_time if listed else details.updated_time,
        created_time=listed.created_time if listed else details.created_time,
        source_fingerprint=fingerprint,
        topic_properties=seen.properties,
        topic_tracked=seen.tracked,
    )


def decide(
    candidate: Candidate,
    details: SchemaDetails,
    desired: Desired | None,
    namespace: str,
    topic: TopicSeen | None = None,
) -> Action | None:
    """Inspected candidate -> action. `desired` None means the fingerprint matched (content unchanged);
    `topic` what the run saw of the topic (None: the record keeps what it had)."""
    record = candidate.record
    where = (details.registry_name, details.schema_name, details.schema_arn, candidate.reason)
    if desired is None:
        if record is None:
            raise ValueError("a schema without an asset record must be inspected in full")
        refreshed = refreshed_record(record, details, candidate.listed, record.source_fingerprint, topic)
        if record.unpublished:
            return Publish(*where, record=record, new_record=replace(refreshed, unpublished=False))
        return None if refreshed == record else Touch(*where, record=record, new_record=refreshed)
    created_time = candidate.listed.created_time if candidate.listed else details.created_time
    seen = topic or (TopicSeen(record.topic_properties, record.topic_tracked) if record else TopicSeen())
    new_record = AssetRecord(
        registry_name=details.registry_name,
        schema_name=details.schema_name,
        schema_arn=details.schema_arn,
        asset_id=record.asset_id if record else "",
        latest_version=desired.latest_version,
        data_format=details.data_format,
        namespace=namespace,
        updated_time=candidate.listed.updated_time if candidate.listed else details.updated_time,
        created_time=created_time,
        content_hash=desired.content_hash,
        schema_version_id=desired.schema_version_id,
        asset_revision=record.asset_revision if record else "",
        source_fingerprint=desired.source_fingerprint,
        previous_version=previous_version(record, desired.latest_version, created_time),
        topic_properties=seen.properties,
        topic_tracked=seen.tracked,
    )
    if record is None:
        return Create(*where, new_record=new_record, desired=desired)
    if record.content_hash != desired.content_hash:
        return Revise(*where, record=record, new_record=new_record, desired=desired)
    if record.unpublished:
        return Publish(*where, record=record, new_record=new_record)
    if new_record == record:
        return None
    return Touch(*where, record=record, new_record=new_record)


def previous_version(record: AssetRecord | None, latest_version: int, created_time: str) -> int:
    """The version the record mirrored before its current one (lineage diffs the two for schema drift).

    It moves on only when the latest version does; a schema deleted and created again under the same ARN
    starts over (its versions are not the old schema's)."""
    if record is None or (record.created_time and created_time and record.created_time != created_time):
        return 0
    if record.latest_version != latest_version:
        return record.latest_version
    return record.previous_version


def gone(candidate: Candidate) -> Delete | None:
    """The inspected schema does not exist (any more)."""
    if candidate.record is None:
        return None
    return deletion(
        candidate.record,
        "deletion confirmed by event" if candidate.confirmed_deleted else "schema not found",
        candidate.confirmed_deleted,
    )


def registry_totals(records: Iterable[AssetRecord], orphans: Iterable[Delete]) -> dict[str, int]:
    """A registry's assets, for the fail-safe's share: the mapped ones and the orphans verify found. Assets
    held for subscriptions are left out: their deletion is decided, just not done, so they neither count as
    the registry's live assets (which would dilute the share of new deletions) nor are screened again."""
    totals: dict[str, int] = {}
    live = [record.registry_name for record in records if not record.held]
    for name in live + [item.registry_name for item in orphans]:
        totals[name] = totals.get(name, 0) + 1
    return totals
