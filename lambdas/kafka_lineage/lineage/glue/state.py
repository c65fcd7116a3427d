"""What was last posted to Glue's lineage graph for each edge: the Glue target's own emission state, packed
under `{MAPPING_PATH}/glue-lineage` by the edge's key (`EdgeKey.key`, as DataZone's state).

Glue has no delete and keeps every event, so the state holds no event ids: only what decides whether the
edge must be posted again (`fingerprint`), the run to supersede (`run_id`, `event_time`), the job a closing
run would name, the graph (account) that holds it, and the edge's origin (with DataZone off, the run plans
against this state: `reference` below, and an edge whose connector or path is unread is kept by its origin).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.lineage.model import LineageState, LoadedStates
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
    # The edge's origin (`Edge.origin`: operator | cdk | connector:<name> | channel:... | rule); "" in entries
    # written before it was kept.
    origin: str = ""

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
        if self.origin:
            entry["o"] = self.origin
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
            origin=str(entry.get("o", "")),
        )


def load_glue_states(entries: Mapping[str, Mapping[str, Any]]) -> tuple[dict[str, GlueEdgeState], list[str]]:
    """Each edge's state, and the keys of entries that cannot be read (their edges are left alone)."""
    return read_entries(entries, lambda _, entry: GlueEdgeState.from_entry(entry))


def reference(states: Mapping[str, GlueEdgeState]) -> LoadedStates:
    """Glue's state as the plan's reference when DataZone is not a target: each edge posted (its run), its
    origin (what keeps it when its connector or path is unread) and its fingerprint, which is Glue's own and
    so never matches DataZone's: every edge plans as changed, which only the topics' selection, the
    retractions, the kept edges, the fail-safe and drift read (lineage/targets.py). Unreadable entries are
    the Glue plan's to report, not the reference's."""
    return LoadedStates(
        {
            key: LineageState(state.fingerprint, state.run_id, state.event_time, origin=state.origin)
            for key, state in states.items()
        },
        {key: frozenset({key}) for key in states},
    )
