"""What the subscription-grants function was asked: the one small module that reads its events (so that a
shared request parser can replace it later without touching the run).

Accepted (contract §8, docs/invocation.md):
- DataZone's "Subscription Grant Requested" and "Subscription Grant Revoke Requested" events (`source`
  "aws.datazone"), as EventBridge delivers them to a Lambda target. Only `detail.metadata.id` (the grant)
  and `detail.metadata.domain` are taken: everything else is read from DataZone's API (events are best
  effort and may be stale or redelivered).
- An SQS event whose records' bodies are such events.
- `{}`, `{"dryRun": true}` or an EventBridge "Scheduled Event": a reconciling run. A follow-up invocation of
  a reconciling run carries `resumeAfter` (the last consumer-role group it finished).

Malformed input is reported, never raised: Lambda would retry an event that can never parse.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.access.model import DATAZONE_ID

GRANT_REQUESTED = "Subscription Grant Requested"
REVOKE_REQUESTED = "Subscription Grant Revoke Requested"
SCHEDULED = "Scheduled Event"
# The keys of a direct invocation; any other is refused by name.
OPTION_KEYS = ("dryRun", "resumeAfter")


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
    if not isinstance(event, Mapping):
        return GrantRequest(malformed=(f"the event is a {type(event).__name__}, not a JSON object",))
    if "Records" in event:
        return _sqs(event)
    if "detail-type" in event or "source" in event:
        return _eventbridge_alone(event)
    return _direct(event)


def _direct(event: Mapping[str, Any]) -> GrantRequest:
    unknown = sorted(str(key) for key in event if key not in OPTION_KEYS)
    if unknown:
        return GrantRequest(
            malformed=(
                f"unknown key(s) {', '.join(unknown)}; a direct invocation takes {', '.join(OPTION_KEYS)}",
            )
        )
    dry_run = event.get("dryRun", False)
    if not isinstance(dry_run, bool):
        return GrantRequest(malformed=(f"dryRun must be true or false, not {dry_run!r}",))
    resume = event.get("resumeAfter")
    if resume is not None and not isinstance(resume, str):
        return GrantRequest(malformed=(f"resumeAfter must be a string, not {resume!r}",))
    return GrantRequest(reconcile=True, dry_run=dry_run, resume_after=resume)


def _eventbridge_alone(event: Mapping[str, Any]) -> GrantRequest:
    if event.get("detail-type") == SCHEDULED and event.get("source") == "aws.events":
        return GrantRequest(reconcile=True)
    found = _grant_event(event)
    if isinstance(found, str):
        return GrantRequest(malformed=(found,))
    return GrantRequest(events=(found,))


def _sqs(event: Mapping[str, Any]) -> GrantRequest:
    records = event.get("Records")
    if not isinstance(records, list) or not records:
        return GrantRequest(malformed=("Records must be a non-empty list of SQS records",))
    events: list[GrantEvent] = []
    malformed: list[str] = []
    reconcile = False
    for index, record in enumerate(records):
        body = record.get("body") if isinstance(record, Mapping) else None
        try:
            inner = json.loads(body) if isinstance(body, str) else None
        except json.JSONDecodeError as error:
            malformed.append(f"Records[{index}].body is not JSON: {error}")
            continue
        if not isinstance(inner, Mapping):
            malformed.append(f"Records[{index}].body is not an EventBridge event (a JSON object)")
            continue
        if inner.get("detail-type") == SCHEDULED and inner.get("source") == "aws.events":
            reconcile = True
            continue
        found = _grant_event(inner)
        if isinstance(found, str):
            malformed.append(f"Records[{index}]: {found}")
        else:
            events.append(found)
    return GrantRequest(events=tuple(events), reconcile=reconcile, malformed=tuple(malformed))


def _grant_event(event: Mapping[str, Any]) -> GrantEvent | str:
    """The grant event, or why it is not one."""
    detail_type = event.get("detail-type")
    if event.get("source") != "aws.datazone" or detail_type not in (GRANT_REQUESTED, REVOKE_REQUESTED):
        return (
            f"not a DataZone subscription grant event (source {event.get('source')!r}, "
            f"detail-type {detail_type!r}); expected {GRANT_REQUESTED!r} or {REVOKE_REQUESTED!r} "
            "from aws.datazone"
        )
    detail = event.get("detail")
    metadata = detail.get("metadata") if isinstance(detail, Mapping) else None
    if not isinstance(metadata, Mapping):
        return "detail.metadata is missing: the event names no grant"
    grant_id, domain = metadata.get("id"), metadata.get("domain")
    if not isinstance(grant_id, str) or not DATAZONE_ID.fullmatch(grant_id):
        return f"detail.metadata.id {grant_id!r} is not a subscription grant id"
    if not isinstance(domain, str) or not domain:
        return "detail.metadata.domain is missing"
    return GrantEvent(grant_id, domain, str(detail_type))
