"""DataZone lineage events through boto3: post (with the caller's clientToken), delete, check, list.

openlineage-python's DataZone transport sends no clientToken, so botocore invents a random one per call and
a retry of ours would post a second copy; here the caller passes a token derived from the body instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from kafka_lineage.aws.clients import RateLimiter
from kafka_lineage.model.lineage_events import EventSummary

LIST_PAGE_SIZE = 50  # ListLineageEvents maxResults maximum (botocore datazone MaxResults)
CLIENT_TOKEN_MAX = 128  # ClientToken: 1-128 characters of [\x21-\x7E]


class LineageApi:
    def __init__(self, datazone: Any, domain_id: str, limiter: RateLimiter | None = None) -> None:
        self.datazone = datazone
        self.domain_id = domain_id
        self.limiter = limiter

    def _call(self, operation: str, **kwargs: Any) -> dict[str, Any]:
        if self.limiter is not None:
            self.limiter.acquire()
        result: dict[str, Any] = getattr(self.datazone, operation)(domainIdentifier=self.domain_id, **kwargs)
        return result

    def post(self, body: bytes, token: str) -> str:
        """PostLineageEvent; returns the event id. The same token answers with the same event."""
        if not 1 <= len(token) <= CLIENT_TOKEN_MAX:
            raise ValueError(f"clientToken must be 1-{CLIENT_TOKEN_MAX} characters")
        answer = self._call("post_lineage_event", event=body, clientToken=token)
        return str(answer["id"])

    def delete(self, event_id: str) -> bool:
        """DeleteLineageEvent; False when the event was already gone (a retried delete is a success)."""
        try:
            self._call("delete_lineage_event", identifier=event_id)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
                return False
            raise
        return True

    def status(self, event_id: str) -> str | None:
        """GetLineageEvent's processingStatus, or None once the event is gone: how a deletion is confirmed
        (DeleteLineageEvent is asynchronous, and its answer's status may be the event's, not the delete's)."""
        try:
            answer = self._call("get_lineage_event", identifier=event_id)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
                return None
            raise
        body = answer.get("event")
        if body is not None and hasattr(body, "close"):
            body.close()  # the event itself is not needed; free the connection
        return str(answer.get("processingStatus") or "")

    def list_events(self, after: datetime, before: datetime) -> Iterator[EventSummary]:
        """ListLineageEvents between two timestamps, every page."""
        request: dict[str, Any] = {
            "timestampAfter": after,
            "timestampBefore": before,
            "maxResults": LIST_PAGE_SIZE,
        }
        while True:
            page = self._call("list_lineage_events", **request)
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
            token = page.get("nextToken")
            if not token:
                return
            request["nextToken"] = token
