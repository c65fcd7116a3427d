"""What lies downstream of a Glue table in DataZone's lineage graph: a `DownstreamWalker` over GetLineageNode.

The walk starts at the table's lineage node, found by its sourceIdentifier (the table ARN), and follows
`downstreamNodes` breadth-first, each node read once (the graph may have cycles), up to `depth` hops and at
most `max_nodes` nodes a table.

**Hops count data steps.** DataZone puts job-run (and job) nodes between datasets: `table -> run -> table`.
A node's `hops` is the number of datasets passed on the shortest path from the table, itself included: a
job run reading the table and the Redshift table it writes are both 1 hop away, the dashboard fed by that
Redshift table 2. Process nodes (`JobRunLineageNodeType`, `JobLineageNodeType`) are listed too (an EMR job
that reads the table breaks with it), at the hop of the step they are on. Any other type counts as data.

**Why GetLineageNode and not QueryGraph.** Both are in botocore's model and the SAR (no resource type).
QueryGraph would cost fewer calls: 1 + ceil(N / 50) for N nodes against GetLineageNode's 1 + N. But what
the walk needs from it is not documented: its root `identifier` is "the identifier of the root entity"
(not said to accept a sourceIdentifier, which GetLineageNode's is documented to); its items carry no hop
count and it is unsaid whether the root is among them, so the hops cannot be derived with certainty; its
`maxPathLength` stops at 5 node hops (2 data steps with job runs between); and it declares no
ResourceNotFoundException, so a table without a lineage node cannot be told from one with nothing
downstream. GetLineageNode documents all of it: `identifier` is a node id or a sourceIdentifier (up to
1,800 characters), not found is ResourceNotFoundException, `downstreamNodes` lists neighbour ids. The cost
is bounded instead: one call a node, at most `max_nodes + 1` calls a table, paced by the DataZone limiter.

Left open by AWS, and readings of the stand-ins (local/standins/readings.py):
- whether a sourceIdentifier resolves a node that only posted events created (`lineage_node_lookup_posted`):
  relied on, as the API reference says both identifiers are supported; otherwise such a table reads as
  "no lineage node" (reported, not an error);
- whether `downstreamNodes` lists the neighbours of every version of the node or only of its latest
  (`lineage_node_neighbours`): the walk reads the present nodes (no eventTimestamp) and relies on the
  former; under the latter it sees what each node's latest event linked.
`downstreamNodes` holds at most 100 references (botocore LineageNodeReferenceList): a node that lists 100
may have more, and the walk's report says so.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.model.downstream import DownstreamNode
from kafka_lineage.model.failures import NotFound
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient

DEFAULT_DEPTH = 3
DEFAULT_MAX_NODES = 200
MAX_REFERENCES = 100  # LineageNodeReferenceList: at most 100 members
PROCESS_NODE_TYPES = frozenset(
    {"amazon.datazone.JobRunLineageNodeType", "amazon.datazone.JobLineageNodeType"}
)


@dataclass(frozen=True)
class WalkReport:
    """How one table's walk went: what a caller may add to its result or logs."""

    table_arn: str
    calls: int
    nodes: int
    found: bool  # the table has a lineage node
    truncated: bool  # stopped at max_nodes with nodes left to read
    partial_references: tuple[str, ...] = ()  # node ids listing the maximum of 100 downstream references
    vanished: int = 0  # referenced nodes that were gone when read

    @property
    def complete(self) -> bool:
        return not self.truncated and not self.partial_references


class DataZoneDownstreamWalker:
    """`DownstreamWalker` (kafka_lineage.drift.impact) over DataZone's GetLineageNode.

    Thread-safe: walks of several tables may run at once; `reports` keeps the last walk of each table.
    """

    def __init__(
        self,
        datazone: DataZoneClient,
        domain_id: str,
        *,
        depth: int = DEFAULT_DEPTH,
        max_nodes: int = DEFAULT_MAX_NODES,
        limiter: Pacer | None = None,
    ) -> None:
        if depth < 0:
            raise ValueError("depth must be 0 or more")
        if max_nodes < 1:
            raise ValueError("max_nodes must be at least 1")
        self.datazone = instrument(datazone, limiter)
        self.domain_id = domain_id
        self.depth = depth
        self.max_nodes = max_nodes
        self.limiter = limiter
        self._reports: dict[str, WalkReport] = {}
        self._lock = threading.Lock()

    @property
    def reports(self) -> dict[str, WalkReport]:
        with self._lock:
            return dict(self._reports)

    def __call__(self, table_arn: str) -> Sequence[DownstreamNode]:
        if self.depth == 0:
            return ()
        walk = _Walk(self, table_arn)
        found = walk.run()
        report = walk.report()
        with self._lock:
            self._reports[table_arn] = report
        if not report.found:
            logger.info("no lineage node for the table: nothing downstream", extra={"tableArn": table_arn})
        elif not report.complete:
            logger.warning(
                "downstream walk is partial",
                extra={
                    "tableArn": table_arn,
                    "nodes": report.nodes,
                    "truncatedAtMaxNodes": report.truncated,
                    "maxNodes": self.max_nodes,
                    "nodesListingMaxReferences": list(report.partial_references),
                },
            )
        return found

    def get_node(self, identifier: str) -> dict[str, Any] | None:
        """GetLineageNode at the present; None when DataZone has no such node."""
        try:
            answer = self.datazone.get_lineage_node(domainIdentifier=self.domain_id, identifier=identifier)
        except NotFound:
            return None
        return dict(answer)


class _Walk:
    """One table's walk: a 0-1 breadth-first search (a step out of a data node costs a hop, out of a
    process node none), so nodes come out in order of hops and each is read once, at its fewest hops."""

    def __init__(self, walker: DataZoneDownstreamWalker, table_arn: str) -> None:
        self.walker = walker
        self.table_arn = table_arn
        self.calls = 0
        self.found = False
        self.truncated = False
        self.partial: list[str] = []
        self.vanished = 0
        self.nodes: list[DownstreamNode] = []

    def _get(self, identifier: str) -> dict[str, Any] | None:
        self.calls += 1
        return self.walker.get_node(identifier)

    def run(self) -> tuple[DownstreamNode, ...]:
        root = self._get(self.table_arn)
        if root is None:
            return ()
        self.found = True
        best: dict[str, int] = {str(root["id"]): 0}
        done: set[str] = {str(root["id"])}
        queue: deque[tuple[str, int]] = deque()
        self._expand(root, 0, best, queue)
        while queue:
            node_id, hops = queue.popleft()
            if node_id in done or hops > best[node_id]:
                continue  # read already, or queued again at fewer hops
            if self.calls > self.walker.max_nodes:  # the root's read plus max_nodes reads
                self.truncated = True
                break
            done.add(node_id)
            answer = self._get(node_id)
            if answer is None:
                self.vanished += 1  # deleted between the reference and the read: nothing to report
                continue
            self.nodes.append(
                DownstreamNode(
                    id=str(answer["id"]),
                    type_name=str(answer["typeName"]),
                    hops=hops,
                    name=answer.get("name"),
                    source_identifier=answer.get("sourceIdentifier"),
                )
            )
            self._expand(answer, hops, best, queue)
        return tuple(self.nodes)

    def _expand(
        self, answer: dict[str, Any], hops: int, best: dict[str, int], queue: deque[tuple[str, int]]
    ) -> None:
        process = answer.get("typeName") in PROCESS_NODE_TYPES
        step = 0 if process else 1
        if hops + step > self.walker.depth:
            return
        references = answer.get("downstreamNodes") or []
        if len(references) >= MAX_REFERENCES:  # the list's maximum: there may be more than it shows
            self.partial.append(str(answer["id"]))
        for reference in references:
            child = reference.get("id")
            if not child or best.get(child, hops + step + 1) <= hops + step:
                continue
            best[child] = hops + step
            if step == 0:
                queue.appendleft((child, hops))
            else:
                queue.append((child, hops + step))

    def report(self) -> WalkReport:
        return WalkReport(
            table_arn=self.table_arn,
            calls=self.calls,
            nodes=len(self.nodes),
            found=self.found,
            truncated=self.truncated,
            partial_references=tuple(self.partial),
            vanished=self.vanished,
        )
