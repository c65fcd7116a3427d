"""DataZone lineage events through boto3: post (with the caller's clientToken), delete, check, list.

openlineage-python's DataZone transport sends no clientToken, so botocore invents a random one per call and
a retry of ours would post a second copy; here the caller passes a token derived from the body instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.model.failures import NotFound
from kafka_lineage.model.lineage_events import EventSummary

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient

LIST_PAGE_SIZE = 50  # ListLineageEvents maxResults maximum (botocore datazone MaxResults)
CLIENT_TOKEN_MAX = 128  # ClientToken: 1-128 characters of [\x21-\x7E]


class LineageApi:
    def __init__(self, datazone: DataZoneClient, domain_id: str, limiter: Pacer | None = None) -> None:
        # Posts, deletes and the drift walks share the client and its limiter (lineage.run).
        self.datazone = instrument(datazone, limiter)
        self.domain_id = domain_id
        self.limiter = limiter

    def post(self, body: bytes, token: str) -> str:
        """PostLineageEvent; returns the event id. The same token answers with the same event."""
        if not 1 <= len(token) <= CLIENT_TOKEN_MAX:
            raise ValueError(f"clientToken must be 1-{CLIENT_TOKEN_MAX} characters")
        answer = self.datazone.post_lineage_event(
            domainIdentifier=self.domain_id, event=body, clientToken=token
        )
        return str(answer["id"])

    def delete(self, event_id: str) -> bool:
        """DeleteLineageEvent; False when the event was already gone (a retried delete is a success)."""
        try:
            self.datazone.delete_lineage_event(domainIdentifier=self.domain_id, identifier=event_id)
        except NotFound:
            return False
        return True

    def status(self, event_id: str) -> str | None:
        """GetLineageEvent's processingStatus, or None once the event is gone: how a deletion is confirmed
        (DeleteLineageEvent is asynchronous, and its answer's status may be the event's, not the delete's)."""
        try:
            answer = self.datazone.get_lineage_event(domainIdentifier=self.domain_id, identifier=event_id)
        except NotFound:
            return None
        body = answer.get("event")
        if body is not None and hasattr(body, "close"):
            body.close()  # the event itself is not needed; free the connection
        return str(answer.get("processingStatus") or "")

    def list_events(self, after: datetime, before: datetime) -> Iterator[EventSummary]:
        """ListLineageEvents between two timestamps, every page."""
        pages = self.datazone.get_paginator("list_lineage_events").paginate(
            domainIdentifier=self.domain_id,
            timestampAfter=after,
            timestampBefore=before,
            PaginationConfig={"PageSize": LIST_PAGE_SIZE},
        )
        for page in pages:
            for item in page.get("items", []):
                summary = (item.get("eventSummary") or {}).get("openLineageRunEventSummary") or {}
                job = summary.get("job") or {}
                yield EventSummary(
                    event_id=str(item.get("id", "")),
                    run_id=str(summary.get("runId", "")),
                    event_type=str(summary.get("eventType", "")),
                    event_time=item.get("eventTime"),
                    job_namespace=str(job.get("namespace", "")),
                    job_name=str(job.get("name", "")),
                    processing_status=str(item.get("processingStatus", "")),
                )
