"""EventBridge: the "Topic Asset Changed" events schema-sync puts on the default bus (contract §3)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

SOURCE = "kafka-lineage.schema-sync"
DETAIL_TYPE = "Topic Asset Changed"
# The lineage function announces schema drift ("Schema Drift Detected", kafka_lineage.drift.DETAIL_TYPE).
DRIFT_SOURCE = "kafka-lineage.lineage-emission"
PUT_EVENTS_BATCH = 10  # PutEvents takes at most 10 entries


class TopicEvents:
    def __init__(self, events: Any, bus_name: str = "default") -> None:
        self.events = events
        self.bus_name = bus_name

    def put(self, details: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Put one event per detail; return the details whose entries EventBridge did not accept."""
        rejected: list[dict[str, Any]] = []
        for start in range(0, len(details), PUT_EVENTS_BATCH):
            batch = details[start : start + PUT_EVENTS_BATCH]
            answer = self.events.put_events(
                Entries=[
                    {
                        "Source": SOURCE,
                        "DetailType": DETAIL_TYPE,
                        "Detail": json.dumps(detail, separators=(",", ":")),
                        "EventBusName": self.bus_name,
                    }
                    for detail in batch
                ]
            )
            if answer.get("FailedEntryCount"):
                rejected.extend(
                    detail
                    for detail, entry in zip(batch, answer.get("Entries", []), strict=False)
                    if entry.get("ErrorCode")
                )
        return rejected


class EventRejected(RuntimeError):
    """PutEvents answered, but did not accept the entry."""


class DriftEvents:
    """Puts one "Schema Drift Detected" event per drift on the bus (source DRIFT_SOURCE)."""

    def __init__(self, events: Any, detail_type: str, bus_name: str = "default") -> None:
        self.events = events
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
