"""What the subscription-grants function was asked, read through the functions' one request reader
(kafka_lineage.model.requests): options are honoured or refused by name on every shape, and any other key is
refused, naming it.

Accepted (contract §8, docs/invocation.md):
- DataZone's "Subscription Grant Requested" and "Subscription Grant Revoke Requested" events (`source`
  "aws.datazone"), as EventBridge delivers them to a Lambda target. Only `detail.metadata.id` (the grant)
  and `detail.metadata.domain` are taken: everything else is read from DataZone's API (events are best
  effort and may be stale or redelivered).
- An SQS event whose records' bodies are such events.
- `{}`, `{"dryRun": true}` or an EventBridge "Scheduled Event": a reconciling run. A follow-up invocation of
  a reconciling run carries `resumeAfter` (the last consumer-role group it finished).

Options: `dryRun` (every shape: the plan alone, nothing written); `resumeAfter` (the function's own
follow-up of a reconciling run: `{}` or a Scheduled Event only). An SQS record's body is read as one more
payload, and takes no option (the options of an SQS-delivered invocation would belong to no one record).

Malformed input is reported, never raised: Lambda would retry an event that can never parse.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from kafka_lineage.access.model import DATAZONE_ID
from kafka_lineage.model.events import DATAZONE_SOURCE, GRANT_REQUESTED, REVOKE_REQUESTED
from kafka_lineage.model.requests import SCHEDULED_EVENT, InvalidRequest, Request, Shape, read_request

_RESUME = (
    "the function's own follow-up of a reconciling run carries it: {} or a Scheduled Event, never a grant "
    "event"
)


class GrantOptions(BaseModel):
    """subscription-grants' options. Strict: `"dryRun": "yes"` is refused, naming the key."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    dry_run: StrictBool = Field(default=False, alias="dryRun")
    resume_after: str | None = Field(
        default=None, alias="resumeAfter", min_length=1, max_length=2048, description=_RESUME
    )


class _NoOptions(BaseModel):
    """An SQS record's body takes no option."""

    model_config = ConfigDict(extra="forbid", frozen=True)


_EVERY = frozenset({"dryRun", "resumeAfter"})
RECONCILE = Shape("{}", _EVERY)
SCHEDULE = Shape("a Scheduled Event", _EVERY, detail_type=SCHEDULED_EVENT)
REQUESTED = Shape(
    f"a {GRANT_REQUESTED} event", frozenset({"dryRun"}), detail_type=GRANT_REQUESTED, source=DATAZONE_SOURCE
)
REVOKE = Shape(
    f"a {REVOKE_REQUESTED} event", frozenset({"dryRun"}), detail_type=REVOKE_REQUESTED, source=DATAZONE_SOURCE
)
SQS = Shape("an SQS event", frozenset({"dryRun"}), keys=frozenset({"Records"}))
SHAPES = (RECONCILE, SCHEDULE, REQUESTED, REVOKE, SQS)
RECORD_SHAPES = (SCHEDULE, REQUESTED, REVOKE)


@dataclass(frozen=True)
class GrantEvent:
    """One grant event: the grant and the domain it names, and which event it was."""

    grant_id: str
    domain: str
    detail_type: str


@dataclass(frozen=True)
class GrantRequest:
    """The parsed invocation: grant events to act on, or a reconciling run; what could not be read."""

    events: tuple[GrantEvent, ...] = ()
    reconcile: bool = False
    dry_run: bool = False
    resume_after: str | None = None
    malformed: tuple[str, ...] = ()

    @property
    def trigger(self) -> str:
        return "reconcile" if self.reconcile else "events"


def parse_request(event: Any) -> GrantRequest:
    """Read an invocation; never raises (what cannot be read is in `malformed`)."""
    try:
        request = read_request(event, SHAPES, GrantOptions)
    except InvalidRequest as error:
        return GrantRequest(malformed=(str(error),))
    options = request.options
    if request.shape in (RECONCILE, SCHEDULE):
        return GrantRequest(reconcile=True, dry_run=options.dry_run, resume_after=options.resume_after)
    if request.shape is SQS:
        return _sqs(request.body.get("Records"), options.dry_run)
    found = _grant_event(request)
    if isinstance(found, str):
        return GrantRequest(malformed=(found,), dry_run=options.dry_run)
    return GrantRequest(events=(found,), dry_run=options.dry_run)


def _sqs(records: Any, dry_run: bool) -> GrantRequest:
    if not isinstance(records, list) or not records:
        return GrantRequest(malformed=("Records must be a non-empty list of SQS records",), dry_run=dry_run)
    events: list[GrantEvent] = []
    malformed: list[str] = []
    reconcile = False
    for index, record in enumerate(records):
        body = record.get("body") if isinstance(record, Mapping) else None
        try:
            inner = json.loads(body) if isinstance(body, str) else None
            request = read_request(inner, RECORD_SHAPES, _NoOptions)
        except json.JSONDecodeError as error:
            malformed.append(f"Records[{index}].body is not JSON: {error}")
            continue
        except InvalidRequest as error:
            malformed.append(f"Records[{index}].body: {error}")
            continue
        if request.shape is SCHEDULE:
            reconcile = True
            continue
        found = _grant_event(request)
        if isinstance(found, str):
            malformed.append(f"Records[{index}]: {found}")
        else:
            events.append(found)
    return GrantRequest(
        events=tuple(events), reconcile=reconcile, dry_run=dry_run, malformed=tuple(malformed)
    )


def _grant_event(request: Request[Any]) -> GrantEvent | str:
    """The grant event, or why it is not one."""
    detail = request.body.get("detail")
    metadata = detail.get("metadata") if isinstance(detail, Mapping) else None
    if not isinstance(metadata, Mapping):
        return "detail.metadata is missing: the event names no grant"
    grant_id, domain = metadata.get("id"), metadata.get("domain")
    if not isinstance(grant_id, str) or not DATAZONE_ID.fullmatch(grant_id):
        return f"detail.metadata.id {grant_id!r} is not a subscription grant id"
    if not isinstance(domain, str) or not domain:
        return "detail.metadata.domain is missing"
    return GrantEvent(grant_id, domain, str(request.shape.detail_type))
