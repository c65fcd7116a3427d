"""EventBridge: the "Topic Asset Changed" events schema-sync puts on the default bus (README: Invocation)."""

from __future__ import annotations

import json
from collections.abc import Sequence
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
