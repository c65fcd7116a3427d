"""The DataZone stand-in's lineage graph beyond posted events: native lineage, and GetLineageNode's readings.

**Native lineage.** DataZone draws lineage of its own (Glue data source runs, Redshift, EMR), beside what
PostLineageEvent posts; every node is unique by its sourceIdentifier, so native and posted lineage meet on
one node (a Glue table's is its ARN). `NativeLineage` is a domain's native part, added by tests and the demo
(`DataZoneBackend.native_lineage(domain_id)`): nodes of any type and edges between sourceIdentifiers, each
at an event time; an edge's endpoint that no node describes is a dataset node named by its
sourceIdentifier. The graph of GetLineageNode is the posted events' graph with these drawn in (each edge a
version of both endpoints at its time, so `eventTimestamp` sees the graph as of then).

**Readings** (local/standins/readings.py) of what the API reference leaves open:
- `lineage_node_lookup_posted`: whether a sourceIdentifier resolves a node that only posted events drew.
  When False, only nodes native lineage knows resolve by sourceIdentifier; node ids always do.
- `lineage_node_neighbours`: "all" lists the neighbours every version of the node linked (each at the
  latest time one did); "latest_version" only those of the node's latest version at the time asked.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # datazone imports this module: no import cycle at run time
    from local.standins.datazone import LineageGraph, _Node

DATASET_NODE = "amazon.datazone.DatasetLineageNodeType"
NEIGHBOUR_READINGS = ("all", "latest_version")
NATIVE_EVENT_ID = "native"


@dataclass(frozen=True)
class NativeNode:
    source_identifier: str
    type_name: str
    name: str
    at: datetime


@dataclass(frozen=True)
class NativeEdge:
    upstream: str  # sourceIdentifier
    downstream: str
    at: datetime


class NativeLineage:
    """A domain's native lineage: what DataZone would have drawn from the services it captures itself."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._nodes: dict[str, NativeNode] = {}
        self._edges: list[NativeEdge] = []
        self.version = 0  # moves on every change, so a cached graph is redrawn

    def add_node(self, source_identifier: str, type_name: str, name: str, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("native lineage times must be timezone-aware")
        with self._lock:
            self._nodes[source_identifier] = NativeNode(source_identifier, type_name, name, at)
            self.version += 1

    def add_edge(self, upstream: str, downstream: str, at: datetime) -> None:
        if at.tzinfo is None:
            raise ValueError("native lineage times must be timezone-aware")
        if upstream == downstream:
            raise ValueError("a lineage edge links two nodes")
        with self._lock:
            self._edges.append(NativeEdge(upstream, downstream, at))
            self.version += 1

    def knows(self, source_identifier: str) -> bool:
        """Native lineage drew this node (as a node of its own or an edge's endpoint)."""
        with self._lock:
            return source_identifier in self._nodes or any(
                source_identifier in (edge.upstream, edge.downstream) for edge in self._edges
            )

    def draw(self, graph: LineageGraph, as_of: datetime | None) -> None:
        """Add the native nodes and edges up to `as_of` (all, when None) to a graph of posted events."""
        from local.standins.datazone import _NodeVersion  # at run time: datazone is loaded by now

        with self._lock:
            nodes = list(self._nodes.values())
            edges = sorted(self._edges, key=lambda edge: edge.at)

        def node(source_identifier: str, at: datetime) -> _Node:
            native = next((n for n in nodes if n.source_identifier == source_identifier), None)
            if native is not None:
                return graph._node(source_identifier, native.type_name, native.name)
            return graph._node(source_identifier, DATASET_NODE, source_identifier)

        for native in nodes:
            if as_of is None or native.at <= as_of:
                node(native.source_identifier, native.at).versions.append(
                    _NodeVersion(NATIVE_EVENT_ID, native.at, native.at)
                )
        for edge in edges:
            if as_of is not None and edge.at > as_of:
                continue
            up, down = node(edge.upstream, edge.at), node(edge.downstream, edge.at)
            up.versions.append(_NodeVersion(NATIVE_EVENT_ID, edge.at, edge.at, downstream={edge.downstream}))
            down.versions.append(_NodeVersion(NATIVE_EVENT_ID, edge.at, edge.at, upstream={edge.upstream}))
        graph.by_id = {n.id: n for n in graph.nodes.values()}


def find_node(
    graph: LineageGraph, native: NativeLineage, identifier: str, lookup_posted: bool
) -> _Node | None:
    """GetLineageNode's lookup: by node id, or by sourceIdentifier (for a node only posted events drew,
    only under the reading `lineage_node_lookup_posted`)."""
    found = graph.find(identifier)
    if found is None or found.id == identifier or lookup_posted:
        return found
    return found if native.knows(identifier) else None


def neighbours(node: _Node, side: str, reading: str) -> dict[str, datetime]:
    """Neighbour sourceIdentifier -> the event time that linked it, per `lineage_node_neighbours`."""
    if reading not in NEIGHBOUR_READINGS:
        raise ValueError(f"lineage_node_neighbours must be one of {NEIGHBOUR_READINGS}, not {reading!r}")
    if reading == "all":
        return node.neighbours(side)
    latest = max(node.versions, key=lambda v: (v.event_time, v.created_at))
    return dict.fromkeys(getattr(latest, side), latest.event_time)
