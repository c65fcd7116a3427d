"""lineage-emission invocation events -> an `EmitScope` (docs/lineage.md). Unknown shapes are rejected.

Accepted: an EventBridge schedule ("Scheduled Event") or `{}` (every mapped topic); schema-sync's
"Topic Asset Changed" event (that topic only); `{"topics": [{"registryName"?, "topic"}, ...]}`; with
`"force"`, `"dryRun"` and `"allowMassDelete"` (lifts the retraction fail-safe, as for schema-sync) added to
the manual shapes. `"forceNonce"` is the function's own: it marks the follow-up of a forced run.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.parser.models import EventBridgeModel
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from kafka_lineage.lineage.plan import EmitScope, TopicSelector
from kafka_lineage.model.errors import describe
from kafka_lineage.model.events import TopicAssetChanged
from kafka_lineage.model.names import GlueName, SourceKey


class InvalidRequest(ValueError):
    """The invocation event has a shape lineage-emission does not accept; the message says what."""


class TopicRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    topic: GlueName
    # a registry name, or `<account>:<registry name>` for a source in another account
    registry_name: SourceKey | None = Field(default=None, alias="registryName")


class ManualRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    topics: list[TopicRequest] | None = Field(default=None, min_length=1)
    # Strict: `"dryRun": "yes"` is refused, naming the key (lax parsing would take "no" or "false" too).
    force: StrictBool = False
    # Set by the function itself on the follow-up of a forced run it cut short: the topics the first
    # invocation already re-posted under this nonce are not re-posted again (so the follow-up can finish).
    force_nonce: str | None = Field(
        default=None, alias="forceNonce", min_length=1, max_length=128, pattern=r"^[\x21-\x7e]+$"
    )
    dry_run: StrictBool = Field(default=False, alias="dryRun")
    allow_mass_delete: StrictBool = Field(default=False, alias="allowMassDelete")


def parse_emit_event(event: Any) -> EmitScope:
    """Turn any accepted invocation payload into an EmitScope; raise InvalidRequest otherwise."""
    if not isinstance(event, dict):
        raise InvalidRequest(f"expected a JSON object, got {type(event).__name__}")
    if "detail-type" in event or "source" in event:
        try:
            envelope = EventBridgeModel.model_validate(event)
        except ValidationError as error:
            raise InvalidRequest(f"malformed EventBridge event: {describe(error, where='event')}") from error
        if envelope.detail_type == "Scheduled Event":
            return EmitScope(mode="all", trigger="schedule")
        if (
            envelope.source == TopicAssetChanged.SOURCE
            and envelope.detail_type == TopicAssetChanged.DETAIL_TYPE
        ):
            try:
                detail = TopicAssetChanged.model_validate(event.get("detail") or {})
            except ValidationError as error:
                raise InvalidRequest(
                    f"malformed {TopicAssetChanged.DETAIL_TYPE} detail: {describe(error, where='event')}"
                ) from error
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
        raise InvalidRequest(f"unexpected invocation payload: {describe(error, where='event')}") from error
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
