"""lineage-emission invocation events -> an `EmitScope` (docs/invocation.md). Unknown shapes are rejected.

The envelope is read by `kafka_lineage.model.requests`, as for every function: this module declares which
shapes lineage-emission accepts and which options each honours (SHAPES, EmitOptions), and reads each
shape's content. Accepted: an EventBridge schedule ("Scheduled Event") or `{}` (every mapped topic);
schema-sync's "Topic Asset Changed" event (that topic only); `{"topics": [{"registryName"?, "topic"}, ...]}`.
`force` and `dryRun` go with every shape; `allowMassDelete` (lifts the retraction fail-safe) only with a run
over every topic, the only run that fail-safe holds back. `"forceNonce"` is the function's own: it marks
the follow-up of a forced run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from kafka_lineage.lineage.plan import EmitScope, TopicSelector
from kafka_lineage.model.errors import describe
from kafka_lineage.model.events import TopicAssetChanged
from kafka_lineage.model.handover import HANDOVER_KEY, Handover
from kafka_lineage.model.names import GlueName, SourceKey
from kafka_lineage.model.requests import SCHEDULED_EVENT, InvalidRequest, Shape, read_request

FORCE_NONCE = "forceNonce"


class TopicRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    topic: GlueName
    # a registry name, or `<account>:<registry name>` for a source in another account
    registry_name: SourceKey | None = Field(default=None, alias="registryName")


class _Topics(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    topics: list[TopicRequest] = Field(min_length=1)


_EVERY_TOPIC = (
    "the retraction fail-safe holds back only a run over every topic, {} or a Scheduled Event; "
    "a topic list or an event is never held back"
)


class EmitOptions(BaseModel):
    """lineage-emission's options, on any shape that honours them (SHAPES). Strict: `"dryRun": "yes"` is
    refused, naming the key (lax parsing would take "no" or "false" too)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    dry_run: StrictBool = Field(default=False, alias="dryRun")
    force: StrictBool = False
    allow_mass_delete: StrictBool = Field(default=False, alias="allowMassDelete", description=_EVERY_TOPIC)
    # Set by the function itself on the follow-up of a forced run it cut short: the topics the first
    # invocation already re-posted under this nonce are not re-posted again (so the follow-up can finish).
    force_nonce: str | None = Field(
        default=None, alias="forceNonce", min_length=1, max_length=128, pattern=r"^[\x21-\x7e]+$"
    )
    # Set by the function on every follow-up it hands work to: the lease it held, the pace it reached.
    handover: Handover | None = Field(default=None, alias="handover")


_EVERY = frozenset({"dryRun", "force", "allowMassDelete", FORCE_NONCE, HANDOVER_KEY})
_CHOSEN = _EVERY - {"allowMassDelete"}
SCHEDULE = Shape("a Scheduled Event", _EVERY, detail_type=SCHEDULED_EVENT)
TOPIC_ASSET_CHANGED = Shape(
    f"a {TopicAssetChanged.DETAIL_TYPE} event",
    _CHOSEN,
    detail_type=TopicAssetChanged.DETAIL_TYPE,
    source=TopicAssetChanged.SOURCE,
)
EVERY_TOPIC = Shape("{}", _EVERY)
TOPICS = Shape('{"topics": [...]}', _CHOSEN, keys=frozenset({"topics"}))
SHAPES = (EVERY_TOPIC, TOPICS, SCHEDULE, TOPIC_ASSET_CHANGED)


def _from_topic_asset_changed(detail: Any) -> EmitScope:
    try:
        changed = TopicAssetChanged.model_validate(detail or {})
    except ValidationError as error:
        raise InvalidRequest(
            f"malformed {TopicAssetChanged.DETAIL_TYPE} detail: {describe(error, where='event')}"
        ) from error
    return EmitScope(
        mode="event",
        topics=(TopicSelector(changed.topic, changed.registry_name),),
        trigger=f"topic-asset-changed:{changed.change}",
    )


def _from_topics(body: Mapping[str, Any]) -> EmitScope:
    try:
        chosen = _Topics.model_validate(body)
    except ValidationError as error:
        raise InvalidRequest(f"unexpected invocation payload: {describe(error, where='event')}") from error
    selectors = tuple(dict.fromkeys(TopicSelector(t.topic, t.registry_name) for t in chosen.topics))
    return EmitScope(mode="topics", topics=selectors, trigger="manual")


def parse_emit_event(event: Any) -> EmitScope:
    """Turn any accepted invocation payload into an EmitScope; raise InvalidRequest otherwise."""
    request = read_request(event, SHAPES, EmitOptions)
    if request.shape is SCHEDULE:
        scope = EmitScope(mode="all", trigger="schedule")
    elif request.shape is TOPIC_ASSET_CHANGED:
        scope = _from_topic_asset_changed(request.body.get("detail"))
    elif request.shape is TOPICS:
        scope = _from_topics(request.body)
    else:
        scope = EmitScope(mode="all", trigger="manual")
    options = request.options
    if options.force_nonce is not None and not options.force:
        # The function adds it only to a forced run's follow-up: alone, it would ask for nothing.
        raise InvalidRequest(f'{FORCE_NONCE}: only a forced run\'s follow-up carries it (no "force": true)')
    return replace(
        scope,
        force=options.force,
        force_nonce=options.force_nonce or "",
        dry_run=options.dry_run,
        allow_mass_delete=options.allow_mass_delete,
        through=options.handover.through if options.handover is not None else None,
    )
