"""Who a run is: its runId, its eventTime, and the emitter's own identity, the same on every retry.

The runId is `uuid5(fingerprint, superseded runId)` (the fingerprint is `RunContent.fingerprint`, see
content.py): the same content replacing the same run is the same run (a retry), while content that returns
to an earlier state (A -> B -> A) is a new run, never a reuse of a deleted one. The eventTime is the latest of
the schema version's registration time and the explicit mapping's last modification: a real moment at which
the described edge became true, identical on every retry.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from kafka_lineage.lineage.model import EVENT_TYPES

# Bump when the events built from the same inputs change shape: every topic is then re-emitted once.
EMITTER_VERSION = "1"
# URI naming this emitter in `producer` and facets' `_producer` (OpenLineage: "URI identifying the producer").
PRODUCER = "urn:kafka-lineage:lineage-emission"
# Namespace of the uuid5 run ids (a fixed random UUID: run ids of this emitter never collide with others').
RUN_ID_NAMESPACE = uuid.UUID("5d0f8c3e-7a4b-4f0e-9d51-2b8f3c6a9e17")
# COMPLETE follows START by this much so that every reader orders the two the same way.
COMPLETE_AFTER = timedelta(milliseconds=1)


def event_moments(event_time: datetime) -> tuple[tuple[str, datetime], ...]:
    """Each event of a run (START, COMPLETE) and its eventTime."""
    return tuple(zip(EVENT_TYPES, (event_time, event_time + COMPLETE_AFTER), strict=True))


def derive_run_id(fingerprint: str, superseded_run_id: str = "") -> str:
    return str(uuid.uuid5(RUN_ID_NAMESPACE, f"{fingerprint}:{superseded_run_id}"))


def derive_event_time(*moments: datetime | None) -> datetime:
    """The latest of the given moments (UTC, millisecond precision): when the described edge became true."""
    known = [_utc(moment) for moment in moments if moment is not None]
    if not known:
        raise ValueError("no registration or modification time to derive the run's eventTime from")
    latest = max(known)
    return latest.replace(microsecond=latest.microsecond // 1000 * 1000)


def parse_time(text: str) -> datetime | None:
    """An AWS timestamp as Glue returns it (ISO 8601, with or without zone), or None when unreadable."""
    if not text:
        return None
    try:
        return _utc(datetime.fromisoformat(text.strip().replace(" ", "T", 1)))
    except ValueError:
        return None


def format_time(moment: datetime) -> str:
    moment = _utc(moment)
    return f"{moment:%Y-%m-%dT%H:%M:%S}.{moment.microsecond // 1000:03d}Z"


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
