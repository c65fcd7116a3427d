"""DataZone lineage events as the emitter sees them: the idempotency token of a post, a listed event."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime


def client_token(body: bytes, nonce: str = "") -> str:
    """The body's token: the same body is the same post. A nonce (force) gives the same body a fresh one."""
    digest = hashlib.sha256(body)
    if nonce:
        digest.update(b"\0" + nonce.encode("utf-8"))
    return digest.hexdigest()


@dataclass(frozen=True)
class EventSummary:
    """One ListLineageEvents item, flattened to what the emitter reads back."""

    event_id: str
    run_id: str
    event_type: str
    event_time: datetime | None
    job_namespace: str
    job_name: str
    processing_status: str
