"""lineage-emission invocation events -> an `EmitScope` (contract §3). Unknown shapes are rejected by name.

Accepted: an EventBridge schedule ("Scheduled Event") or `{}` (every mapped topic); schema-sync's
"Topic Asset Changed" event (that topic only); `{"topics": [{"registryName"?, "topic"}, ...]}`; with
`"force"`, `"dryRun"` and `"allowMassDelete"` (lifts the retraction fail-safe, as for schema-sync) added to
the manual shapes. `"forceNonce"` is the function's own: it marks the follow-up of a forced run.
"""

from __future__ import annotations

from typing import Any, Literal

from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kafka_lineage.config import GLUE_REGISTRY_NAME, SOURCE_KEY
from kafka_lineage.lineage.plan import EmitScope, TopicSelector

SYNC_SOURCE = "kafka-lineage.schema-sync"
TOPIC_ASSET_CHANGED = "Topic Asset Changed"


class InvalidRequest(ValueError):
    """The invocation event has a shape lineage-emission does not accept; the message says what."""


def _glue_name(value: str | None) -> str | None:
    if value is not None and not GLUE_REGISTRY_NAME.fullmatch(value):
        raise ValueError(f"{value!r} is not a Glue Schema Registry name ([a-zA-Z0-9-_$#.]{{1,255}})")
    return value


def _source_key(value: str | None) -> str | None:
    # A source in another account is named `<account>:<registry name>` (kafka_lineage.config.Source.key).
    if value is not None and not SOURCE_KEY.fullmatch(value):
        raise ValueError(f"{value!r} is not a registry name, nor <account>:<registry name>")
    return value


class TopicRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    topic: str
    registry_name: str | None = Field(default=None, alias="registryName")

    _names = field_validator("topic")(classmethod(lambda cls, v: _glue_name(v)))
    _keys = field_validator("registry_name")(classmethod(lambda cls, v: _source_key(v)))


class ManualRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    topics: list[TopicRequest] | None = Field(default=None, min_length=1)
    force: bool = False
    # Set by the function itself on the follow-up of a forced run it cut short: the topics the first
    # invocation already re-posted under this nonce are not re-posted again (so the follow-up can finish).
    force_nonce: str | None = Field(
        default=None, alias="forceNonce", min_length=1, max_length=128, pattern=r"^[\x21-\x7e]+$"
    )
    dry_run: bool = Field(default=False, alias="dryRun")
    allow_mass_delete: bool = Field(default=False, alias="allowMassDelete")


class TopicAssetChanged(BaseModel):
    """schema-sync's event detail (contract §3)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    registry_name: str = Field(alias="registryName")
    schema_arn: str = Field(alias="schemaArn")
    topic: str
    asset_id: str | None = Field(default=None, alias="assetId")
    schema_version: int | None = Field(default=None, alias="schemaVersion")
    change: Literal["created", "revised", "deleted"]

    _names = field_validator("topic")(classmethod(lambda cls, v: _glue_name(v)))
    _keys = field_validator("registry_name")(classmethod(lambda cls, v: _source_key(v)))


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in item['loc']) or 'event'}: {item['msg']}" for item in error.errors()
    )


def parse_emit_event(event: Any) -> EmitScope:
    """Turn any accepted invocation payload into an EmitScope; raise InvalidRequest otherwise."""
    if not isinstance(event, dict):
        raise InvalidRequest(f"expected a JSON object, got {type(event).__name__}")
    if "detail-type" in event or "source" in event:
        try:
            envelope = EventBridgeModel.model_validate(event)
        except ValidationError as error:
            raise InvalidRequest(f"malformed EventBridge event: {_problems(error)}") from error
        if envelope.detail_type == "Scheduled Event":
            return EmitScope(mode="all", trigger="schedule")
        if envelope.source == SYNC_SOURCE and envelope.detail_type == TOPIC_ASSET_CHANGED:
            try:
                detail = TopicAssetChanged.model_validate(event.get("detail") or {})
            except ValidationError as error:
                raise InvalidRequest(f"malformed {TOPIC_ASSET_CHANGED} detail: {_problems(error)}") from error
            return EmitScope(
                mode="event",
                topics=(TopicSelector(detail.topic, detail.registry_name),),
                trigger=f"topic-asset-changed:{detail.change}",
            )
        raise InvalidRequest(
            f"unexpected EventBridge event: source {envelope.source!r}, detail-type {envelope.detail_type!r}"
        )
    try:
        manual = ManualRequest.model_validate(event)
    except ValidationError as error:
        raise InvalidRequest(f"unexpected invocation payload: {_problems(error)}") from error
    selectors = tuple(dict.fromkeys(TopicSelector(t.topic, t.registry_name) for t in manual.topics or ()))
    return EmitScope(
        mode="topics" if selectors else "all",
        topics=selectors,
        force=manual.force,
        force_nonce=manual.force_nonce or "",
        dry_run=manual.dry_run,
        allow_mass_delete=manual.allow_mass_delete,
        trigger="manual",
    )
