"""schema-sync invocation events -> a `SyncRequest` (docs/invocation.md). Unknown shapes are rejected by name.

The envelope is read by `kafka_lineage.model.requests`, as for every function: this module declares which
shapes schema-sync accepts and which options each honours (SHAPES, SyncOptions), and reads each shape's
content. `dryRun` and `allowMassDelete` go with every shape; `verify` only with a full sync.

CloudTrail-via-EventBridge shapes follow AWS's "AWS API Call via CloudTrail" envelope; the Glue members
(`requestParameters.schemaId`, `registryId`, …) follow the Glue API's request members in camelCase, as
CloudTrail records them (see tests/events/README.md for where each fixture's shape comes from).
lineage-emission's "Schema Drift Detected" event (source `kafka_lineage.aws.bus.DRIFT_SOURCE`) is a targeted
sync of the topic it names, which puts the recorded drift summary into the asset's drift form.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from kafka_lineage.model.errors import describe
from kafka_lineage.model.events import (
    CLOUDTRAIL_DETAIL_TYPE,
    DRIFT_DETAIL_TYPE,
    DRIFT_SOURCE,
    GLUE_EVENT_NAMES,
    GLUE_SOURCE,
)
from kafka_lineage.model.handover import HANDOVER_KEY, Handover
from kafka_lineage.model.names import GLUE_REGISTRY_NAME, GlueName, SourceKey
from kafka_lineage.model.requests import SCHEDULED_EVENT, InvalidRequest, Shape, read_request

_NAME = GLUE_REGISTRY_NAME.pattern
SCHEMA_ARN = re.compile(
    rf"arn:aws[a-z-]*:glue:(?P<region>[a-z0-9-]+):(?P<account>\d{{12}}):schema/"
    rf"(?P<registry>{_NAME})/(?P<schema>{_NAME})"
)
REGISTRY_ARN = re.compile(
    rf"arn:aws[a-z-]*:glue:[a-z0-9-]+:(?P<account>\d{{12}}):registry/(?P<registry>{_NAME})"
)
# (account, registry name) -> the key of the source that reads it (kafka_lineage.config.Settings.source_key):
# an event or ARN from a source account names that source. Without one, the registry name as given.
KeyOf = Callable[[str, str], str]


def _plain(account: str, registry_name: str) -> str:
    return registry_name


DEFAULT_REGISTRY = "default-registry"  # Glue's registry when a SchemaId names none
DELETION_EVENTS = {"DeleteSchema", "DeleteSchemaVersions", "DeleteRegistry"}


@dataclass(frozen=True)
class SchemaRef:
    registry_name: str
    schema_name: str


@dataclass(frozen=True)
class SyncRequest:
    """What one run must do. `scope` full: every source; registries: whole registries; schemas: those only."""

    scope: Literal["full", "registries", "schemas"] = "full"
    schemas: tuple[SchemaRef, ...] = ()
    registries: tuple[str, ...] = ()
    # Deletions an event confirms: the fail-safe does not apply to them.
    confirmed_deleted_schemas: frozenset[SchemaRef] = frozenset()
    confirmed_deleted_registries: frozenset[str] = frozenset()
    verify: bool = False
    dry_run: bool = False
    allow_mass_delete: bool = False
    trigger: str = "manual"
    # A follow-up invocation of the same run: the (hash group, key) of the last item the earlier one finished.
    resume_after: tuple[str, str] | None = None
    # A drift event's topic and version: lineage saves the summary right after announcing it, so the run
    # waits a little for that summary to be readable (sync.drift.DRIFT_WAIT_SECONDS).
    expected_drift: tuple[tuple[SchemaRef, int], ...] = ()
    # ARNs the request named that no run can read (another region than the functions'): reported as failed.
    rejected: tuple[tuple[str, str], ...] = ()  # (schema ARN, why)


class _Targets(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_arns: list[str] = Field(alias="schemaArns", min_length=1)


def parse_schema_arn(arn: str, key_of: KeyOf = _plain) -> SchemaRef:
    found = SCHEMA_ARN.fullmatch(arn)
    if found is None:
        raise InvalidRequest(
            f"schemaArns: {arn!r} is not a Glue schema ARN (arn:aws:glue:R:A:schema/REG/NAME)"
        )
    return SchemaRef(key_of(found["account"], found["registry"]), found["schema"])


def _other_region(arn: str, region: str | None) -> str | None:
    """Why an ARN of another region than the functions' cannot be synced (None: it can). The registries are
    read in the functions' region, where the same names are other schemas: never fall back to them."""
    found = SCHEMA_ARN.fullmatch(arn)
    if region is None or found is None or found["region"] == region:
        return None
    return f"schema ARN of region {found['region']}: the registries are read in {region}; not synced"


def _registry_of(identifier: dict[str, Any] | None, account: str, key_of: KeyOf) -> str | None:
    if not isinstance(identifier, dict):
        return None
    if identifier.get("registryName"):
        return key_of(account, str(identifier["registryName"]))
    arn = identifier.get("registryArn")
    found = REGISTRY_ARN.fullmatch(arn) if isinstance(arn, str) else None
    return key_of(found["account"], found["registry"]) if found else None


def _schema_of(schema_id: dict[str, Any] | None, account: str, key_of: KeyOf) -> SchemaRef | None:
    if not isinstance(schema_id, dict):
        return None
    arn = schema_id.get("schemaArn")
    if isinstance(arn, str):
        found = SCHEMA_ARN.fullmatch(arn)
        return SchemaRef(key_of(found["account"], found["registry"]), found["schema"]) if found else None
    name = schema_id.get("schemaName")
    if isinstance(name, str) and name:
        return SchemaRef(key_of(account, str(schema_id.get("registryName") or DEFAULT_REGISTRY)), name)
    return None


def _from_cloudtrail(detail: dict[str, Any], account: str, key_of: KeyOf) -> SyncRequest:
    """`account` is the envelope's: the account whose API call it was (a source account's events are
    forwarded to this account's bus unchanged), so names without an ARN are read in that account."""
    name = detail.get("eventName")
    if name not in GLUE_EVENT_NAMES:
        raise InvalidRequest(f"detail.eventName {name!r} is not one of {sorted(GLUE_EVENT_NAMES)}")
    params = detail.get("requestParameters") or {}
    failed_call = bool(detail.get("errorCode"))
    trigger = f"cloudtrail:{name}"
    if name == "DeleteRegistry":
        registry = _registry_of(params.get("registryId"), account, key_of)
        if registry is None:
            return SyncRequest(scope="full", trigger=trigger)
        gone: frozenset[str] = frozenset() if failed_call else frozenset({registry})
        return SyncRequest(
            scope="registries",
            registries=(registry,),
            confirmed_deleted_registries=gone,
            trigger=trigger,
        )
    if name == "CreateSchema":
        registry = _registry_of(params.get("registryId"), account, key_of) or key_of(
            account, DEFAULT_REGISTRY
        )
        schema_name = params.get("schemaName")
        ref = SchemaRef(registry, schema_name) if isinstance(schema_name, str) and schema_name else None
    else:
        ref = _schema_of(params.get("schemaId"), account, key_of)
    if ref is None:
        registry = _registry_of(params.get("schemaId"), account, key_of) or _registry_of(
            params.get("registryId"), account, key_of
        )
        if registry is None:
            return SyncRequest(scope="full", trigger=trigger)
        return SyncRequest(scope="registries", registries=(registry,), trigger=trigger)
    # DeleteSchemaVersions may leave the schema in place: the sync re-reads it and deletes the asset only when
    # the schema is really gone, so the event "confirms" nothing more than that.
    confirmed: frozenset[SchemaRef] = (
        frozenset({ref}) if name in DELETION_EVENTS and not failed_call else frozenset()
    )
    return SyncRequest(scope="schemas", schemas=(ref,), confirmed_deleted_schemas=confirmed, trigger=trigger)


class _DriftDetail(BaseModel):
    """The members of a "Schema Drift Detected" detail that name the topic (docs/schema-drift.md); the rest
    (versions, severity, changes, impact) is lineage's finding, which schema-sync reads from the summary."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    registry_name: SourceKey = Field(alias="registryName")
    topic: GlueName
    schema_arn: str | None = Field(default=None, alias="schemaArn")
    to_version: int | None = Field(default=None, alias="toVersion", ge=1)


def _from_drift(detail: Any, key_of: KeyOf = _plain) -> SyncRequest:
    """lineage-emission found drift and saved its summary: sync that one topic, so its asset shows it.

    Why this ends (no event loop): the targeted sync revises the asset once, because the summary moved the
    schema's source fingerprint and content hash, and announces "Topic Asset Changed" (revised). lineage
    then finds the same schema version and the same drift fingerprint, so it saves nothing and announces
    no drift. A repeated drift event (EventBridge delivers at least once) finds the content unchanged:
    no revision, no "Topic Asset Changed", and the chain stops there.
    """
    try:
        drift = _DriftDetail.model_validate(detail)
    except ValidationError as error:
        raise InvalidRequest(
            f"malformed {DRIFT_DETAIL_TYPE} detail: {describe(error, first_only=True)}"
        ) from error
    # `registryName` is the source's key (`<account>:<registry>` for a source in another account).
    ref = SchemaRef(drift.registry_name, drift.topic)
    if drift.schema_arn is not None:
        found = SCHEMA_ARN.fullmatch(drift.schema_arn)
        if found is None or SchemaRef(key_of(found["account"], found["registry"]), found["schema"]) != ref:
            raise InvalidRequest(
                f"{DRIFT_DETAIL_TYPE} detail: schemaArn {drift.schema_arn!r} does not name registry "
                f"{ref.registry_name!r} and topic {ref.schema_name!r}"
            )
    expected = ((ref, drift.to_version),) if drift.to_version is not None else ()
    return SyncRequest(scope="schemas", schemas=(ref,), trigger="drift", expected_drift=expected)


RESUME_KEY = "resumeAfter"


class _Resume(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    group: str = Field(pattern=r"^[0-9a-f]{1,4}$")
    key: str = Field(min_length=1, max_length=2048)


_FULL_ONLY = (
    "it searches every registry for assets no mapping knows: only a full sync, {} or a Scheduled Event, "
    "takes it"
)


class SyncOptions(BaseModel):
    """schema-sync's options, on any shape that honours them (SHAPES). Strict: `"dryRun": "yes"` (or
    "false", which lax parsing takes as False) is refused, naming the key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    dry_run: StrictBool = Field(default=False, alias="dryRun")
    verify: StrictBool = Field(default=False, description=_FULL_ONLY)
    allow_mass_delete: StrictBool = Field(default=False, alias="allowMassDelete")
    # Added by the run itself to the event of its follow-up invocation (any shape may carry it).
    resume_after: _Resume | None = Field(default=None, alias="resumeAfter")
    # Added by the handler to its follow-up's event too: the lease it held, the pace it reached.
    handover: Handover | None = Field(default=None, alias="handover")


_EVERY = frozenset({"dryRun", "verify", "allowMassDelete", RESUME_KEY, HANDOVER_KEY})
# A targeted run inspects what it names anyway; verify's search for unknown assets needs every listing.
# allowMassDelete is honoured everywhere: a targeted run may infer a deletion too (a schema gone or now
# excluded by the source's filters, without a deletion event), which the fail-safe screens.
_TARGETED = _EVERY - {"verify"}
SCHEDULE = Shape("a Scheduled Event", _EVERY, detail_type=SCHEDULED_EVENT)
CLOUDTRAIL = Shape(
    "a Glue CloudTrail event", _TARGETED, detail_type=CLOUDTRAIL_DETAIL_TYPE, source=GLUE_SOURCE
)
DRIFT = Shape(f"a {DRIFT_DETAIL_TYPE} event", _TARGETED, detail_type=DRIFT_DETAIL_TYPE, source=DRIFT_SOURCE)
EVERYTHING = Shape("{}", _EVERY)
SCHEMA_ARNS = Shape('{"schemaArns": [...]}', _TARGETED, keys=frozenset({"schemaArns"}))
SHAPES = (EVERYTHING, SCHEMA_ARNS, SCHEDULE, CLOUDTRAIL, DRIFT)


def with_resume(event: dict[str, Any], group: str, key: str) -> dict[str, Any]:
    """The event a follow-up invocation gets: the same request, resuming after (group, key)."""
    return {**event, RESUME_KEY: {"group": group, "key": key}}


def _targets(body: Mapping[str, Any], key_of: KeyOf, region: str | None) -> SyncRequest:
    try:
        arns = _Targets.model_validate(body).schema_arns
    except ValidationError as error:
        raise InvalidRequest(f"unexpected invocation payload: {describe(error, where='event')}") from error
    refs = tuple(
        dict.fromkeys(parse_schema_arn(arn, key_of) for arn in arns if not _other_region(arn, region))
    )
    rejected = tuple((arn, why) for arn in dict.fromkeys(arns) if (why := _other_region(arn, region)))
    if not refs:
        # Every ARN named was rejected: a full sync would do what nobody asked for.
        raise InvalidRequest("schemaArns: " + "; ".join(f"{arn}: {why}" for arn, why in rejected))
    return SyncRequest(scope="schemas", schemas=refs, rejected=rejected, trigger="manual")


def parse_sync_event(event: Any, key_of: KeyOf = _plain, region: str | None = None) -> SyncRequest:
    """Turn any accepted invocation payload into a SyncRequest; raise InvalidRequest otherwise. `key_of`
    names the source of an (account, registry) pair, so a source account's events reach that source;
    `region` is the functions' (a `schemaArns` entry of another region is rejected, and reported)."""
    request = read_request(event, SHAPES, SyncOptions)
    body, shape = request.body, request.shape
    if shape is SCHEDULE:
        found = SyncRequest(scope="full", trigger="schedule")
    elif shape is CLOUDTRAIL:
        account = request.envelope.account if request.envelope else ""
        found = _from_cloudtrail(body.get("detail") or {}, account, key_of)
    elif shape is DRIFT:
        found = _from_drift(body.get("detail"), key_of)
    elif shape is SCHEMA_ARNS:
        found = _targets(body, key_of, region)
    else:
        found = SyncRequest(scope="full", trigger="manual")
    options = request.options
    resume = options.resume_after
    return replace(
        found,
        verify=options.verify,
        dry_run=options.dry_run,
        allow_mass_delete=options.allow_mass_delete,
        resume_after=(resume.group, resume.key) if resume is not None else None,
    )
