"""The DataZone stand-in's lineage graph: the nodes processed lineage events draw, and native lineage.

**Posted events.** `LineageGraph` draws each processed, live event: inputs -> job run -> outputs. Node ids
are derived from the sourceIdentifier (`node_id`).

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

import functools
import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from local.standins.datazone.events import LineageEvent, job_of
from local.standins.errors import validation

DATASET_NODE = "amazon.datazone.DatasetLineageNodeType"
JOB_NODE = "amazon.datazone.JobLineageNodeType"
JOB_RUN_NODE = "amazon.datazone.JobRunLineageNodeType"
MAX_SOURCE_IDENTIFIER_LOOKUP = 1800  # GetLineageNode: longer sourceIdentifiers need the node id
NEIGHBOUR_READINGS = ("all", "latest_version")
NATIVE_EVENT_ID = "native"


@functools.lru_cache(maxsize=65_536)
def node_id(source_identifier: str) -> str:
    """Stable lineage node ids, derived from the sourceIdentifier (14 characters, like DataZone's)."""
    return hashlib.sha256(source_identifier.encode("utf-8")).hexdigest()[:14]


@dataclass
class NodeVersion:
    event_id: str
    event_time: datetime
    created_at: datetime
    upstream: set[str] = field(default_factory=set)  # sourceIdentifiers
    downstream: set[str] = field(default_factory=set)


@dataclass
class Node:
    source_identifier: str
    type_name: str
    name: str
    versions: list[NodeVersion] = field(default_factory=list)

    @property
    def id(self) -> str:
        return node_id(self.source_identifier)

    def neighbours(self, side: str) -> dict[str, datetime]:
        """Neighbour sourceIdentifier -> the latest event time that linked it."""
        found: dict[str, datetime] = {}
        for version in self.versions:
            for other in getattr(version, side):
                found[other] = max(found.get(other, version.event_time), version.event_time)
        return found


class LineageGraph:
    """Lineage nodes derived from processed, live events: inputs -> job run -> outputs.

    Dataset nodes: `<namespace>/<name>`; job nodes: `<namespace>.<name>`; job-run nodes:
    `<namespace>.<name>/<runId>` (AWS's documented sourceIdentifier rules). A deleted event contributes
    nothing, so no edge outlives the events that drew it.
    """

    def __init__(self, events: Iterable[LineageEvent], as_of: datetime | None = None) -> None:
        self.nodes: dict[str, Node] = {}
        ordered = sorted(events, key=lambda e: (e.event_time, e.created_at, e.id))
        for event in ordered:
            if as_of is None or event.event_time <= as_of:
                self._add(event)
        self.by_id = {node.id: node for node in self.nodes.values()}

    def _node(self, source_identifier: str, type_name: str, name: str) -> Node:
        return self.nodes.setdefault(source_identifier, Node(source_identifier, type_name, name))

    def _version(self, node: Node, event: LineageEvent) -> NodeVersion:
        version = NodeVersion(event.id, event.event_time, event.created_at)
        node.versions.append(version)
        return version

    def _add(self, event: LineageEvent) -> None:
        namespace, name = job_of(event.event)
        job_sid = f"{namespace}.{name}"
        run_sid = f"{job_sid}/{event.event['run']['runId']}"
        self._version(self._node(job_sid, JOB_NODE, name), event)
        run_version = self._version(self._node(run_sid, JOB_RUN_NODE, event.event["run"]["runId"]), event)
        for side, link in (("inputs", "downstream"), ("outputs", "upstream")):
            for dataset in event.event.get(side, []):
                sid = f"{dataset['namespace']}/{dataset['name']}"
                version = self._version(self._node(sid, DATASET_NODE, dataset["name"]), event)
                getattr(version, link).add(run_sid)
                getattr(run_version, "upstream" if side == "inputs" else "downstream").add(sid)

    def find(self, identifier: str) -> Node | None:
        """By node id or by sourceIdentifier; AWS resolves a sourceIdentifier only up to 1800 characters."""
        if identifier in self.by_id:
            return self.by_id[identifier]
        if len(identifier) > MAX_SOURCE_IDENTIFIER_LOOKUP:
            raise validation(
                f"A sourceIdentifier over {MAX_SOURCE_IDENTIFIER_LOOKUP} characters cannot identify a lineage"
                " node; use the node id"
            )
        return self.nodes.get(identifier)


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
        with self._lock:
            nodes = list(self._nodes.values())
            edges = sorted(self._edges, key=lambda edge: edge.at)

        def node(source_identifier: str, at: datetime) -> Node:
            native = next((n for n in nodes if n.source_identifier == source_identifier), None)
            if native is not None:
                return graph._node(source_identifier, native.type_name, native.name)
            return graph._node(source_identifier, DATASET_NODE, source_identifier)

        for native in nodes:
            if as_of is None or native.at <= as_of:
                node(native.source_identifier, native.at).versions.append(
                    NodeVersion(NATIVE_EVENT_ID, native.at, native.at)
                )
        for edge in edges:
            if as_of is not None and edge.at > as_of:
                continue
            up, down = node(edge.upstream, edge.at), node(edge.downstream, edge.at)
            up.versions.append(NodeVersion(NATIVE_EVENT_ID, edge.at, edge.at, downstream={edge.downstream}))
            down.versions.append(NodeVersion(NATIVE_EVENT_ID, edge.at, edge.at, upstream={edge.upstream}))
        graph.by_id = {n.id: n for n in graph.nodes.values()}


def find_node(
    graph: LineageGraph, native: NativeLineage, identifier: str, lookup_posted: bool
) -> Node | None:
    """GetLineageNode's lookup: by node id, or by sourceIdentifier (for a node only posted events drew,
    only under the reading `lineage_node_lookup_posted`)."""
    found = graph.find(identifier)
    if found is None or found.id == identifier or lookup_posted:
        return found
    return found if native.knows(identifier) else None


def node_neighbours(node: Node, side: str, reading: str) -> dict[str, datetime]:
    """Neighbour sourceIdentifier -> the event time that linked it, per `lineage_node_neighbours`."""
    if reading not in NEIGHBOUR_READINGS:
        raise ValueError(f"lineage_node_neighbours must be one of {NEIGHBOUR_READINGS}, not {reading!r}")
    if reading == "all":
        return node.neighbours(side)
    latest = max(node.versions, key=lambda v: (v.event_time, v.created_at))
    return dict.fromkeys(getattr(latest, side), latest.event_time)
