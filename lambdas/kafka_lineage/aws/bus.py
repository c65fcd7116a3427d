"""EventBridge: the "Topic Asset Changed" events schema-sync puts on the default bus (docs/invocation.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from kafka_lineage.aws.calls import instrument
from kafka_lineage.model.errors import describe
from kafka_lineage.model.events import DRIFT_SOURCE, TopicAssetChanged
from kafka_lineage.model.failures import EventRejected
from kafka_lineage.observability import logger

PUT_EVENTS_BATCH = 10  # PutEvents takes at most 10 entries

if TYPE_CHECKING:
    from mypy_boto3_events import EventBridgeClient
    from mypy_boto3_events.type_defs import PutEventsRequestEntryTypeDef


class TopicEvents:
    def __init__(self, events: EventBridgeClient, bus_name: str = "default") -> None:
        self.events = instrument(events)
        self.bus_name = bus_name

    def put(self, details: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Put one event per detail; return the details that were not put (invalid, or not accepted)."""
        rejected: list[dict[str, Any]] = []
        entries: list[tuple[dict[str, Any], PutEventsRequestEntryTypeDef]] = []
        for detail in details:
            try:
                # The parser's own model renders the detail, so emitter and parser cannot drift apart.
                body = TopicAssetChanged.model_validate(detail).to_detail()
            except ValidationError as error:
                logger.error("Topic Asset Changed detail invalid, not put", extra={"error": describe(error)})
                rejected.append(detail)
                continue
            entry: PutEventsRequestEntryTypeDef = {
                "Source": TopicAssetChanged.SOURCE,
                "DetailType": TopicAssetChanged.DETAIL_TYPE,
                "Detail": body,
                "EventBusName": self.bus_name,
            }
            entries.append((detail, entry))
        for start in range(0, len(entries), PUT_EVENTS_BATCH):
            batch = entries[start : start + PUT_EVENTS_BATCH]
            answer = self.events.put_events(Entries=[entry for _, entry in batch])
            if answer.get("FailedEntryCount"):
                rejected.extend(
                    detail
                    for (detail, _), result in zip(batch, answer.get("Entries", []), strict=False)
                    if result.get("ErrorCode")
                )
        return rejected


class DriftEvents:
    """Puts one "Schema Drift Detected" event per drift on the bus (source DRIFT_SOURCE)."""

    def __init__(self, events: EventBridgeClient, detail_type: str, bus_name: str = "default") -> None:
        self.events = instrument(events)
        self.detail_type = detail_type
        self.bus_name = bus_name

    def announce(self, detail: Mapping[str, Any]) -> None:
        answer = self.events.put_events(
            Entries=[
                {
                    "Source": DRIFT_SOURCE,
                    "DetailType": self.detail_type,
                    # The drift detail is sized as compact JSON without ASCII escapes (drift.drift_detail).
                    "Detail": json.dumps(detail, separators=(",", ":"), ensure_ascii=False),
                    "EventBusName": self.bus_name,
                }
            ]
        )
        if answer.get("FailedEntryCount"):
            entry = (answer.get("Entries") or [{}])[0]
            raise EventRejected(
                f"PutEvents refused the drift event: {entry.get('ErrorCode')}: {entry.get('ErrorMessage')}"
            )
