"""What was last posted to Glue's lineage graph for each edge: the Glue target's own emission state, packed
under `{MAPPING_PATH}/glue-lineage` by the edge's key (`EdgeKey.key`, as DataZone's state).

Glue has no delete and keeps every event, so the state holds no event ids: only what decides whether the
edge must be posted again (`fingerprint`), the run to supersede (`run_id`, `event_time`), the job a closing
run would name, and the graph (account) that holds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.model.state_layout import read_entries


@dataclass(frozen=True, slots=True)
class GlueEdgeState:
    fingerprint: str
    run_id: str
    event_time: str
    job_namespace: str
    job_name: str
    # The source key of the account whose graph holds the edge ("" for the functions' own account).
    graph: str = ""

    def to_entry(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "f": self.fingerprint,
            "r": self.run_id,
            "t": self.event_time,
            "jn": self.job_namespace,
            "j": self.job_name,
        }
        if self.graph:
            entry["g"] = self.graph
        return entry

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> GlueEdgeState:
        return cls(
            fingerprint=str(entry["f"]),
            run_id=str(entry["r"]),
            event_time=str(entry["t"]),
            job_namespace=str(entry["jn"]),
            job_name=str(entry["j"]),
            graph=str(entry.get("g", "")),
        )


def load_glue_states(entries: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, GlueEdgeState], list[str]]:
    """Each edge's state, and the keys of entries that cannot be read (their edges are left alone)."""
    return read_entries(entries, lambda _, entry: GlueEdgeState.from_entry(entry))
