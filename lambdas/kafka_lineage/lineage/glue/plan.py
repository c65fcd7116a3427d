"""What the Glue target posts this run: a pure diff of the topics' current edges against its own state.

The current edges are DataZone's (the same resolution and Glue table reads), so both graphs draw the same
lineage; each target decides alone what it must post:
- an edge whose Glue state is missing (a target added later: every current edge once) or whose fingerprint
  moved is posted (`GluePost`); a forced run posts every edge again (the same run: same runId, eventTime
  and body);
- an edge Glue holds that the topic no longer has is closed (`GlueClose`): a COMPLETE run of its job that
  reads and writes nothing, since Glue deletes nothing. Not while another current edge names the same job
  (a sink connector's or a consumer group's job draws several edges): the closing run would then stand as
  that job's latest run too. Its state goes either way;
- an edge whose table is in a federated catalog (S3 Tables' `s3tablescatalog/...`), or is a resource link,
  is skipped and reported: Glue gives such tables no lineage ("Considerations": "Federated tables and
  resource links don't get lineage");
- edges DataZone keeps as they are (their connector or path unread), holds back (the mass-removal fail-safe)
  or cannot plan (a table missing, a topic failed) are left as Glue has them.

Where each edge goes: the graph of the account that holds its table (the table's source key), else the
account of the topic's cluster (a source with a role: its key), both in the functions' Region.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from kafka_lineage.lineage.consumer_inputs import Consumer
from kafka_lineage.lineage.content import Content
from kafka_lineage.lineage.edge_content import (
    consumer_content,
    content_for,
    hop_content,
    location_content,
)
from kafka_lineage.lineage.glue.state import GlueEdgeState
from kafka_lineage.lineage.model import EdgeKey
from kafka_lineage.lineage.plan import EmitScope, LineagePlan, Selection
from kafka_lineage.lineage.resolve import Edge, Location, Resolution, Target
from kafka_lineage.model.digest import fingerprint as digest
from kafka_lineage.model.tables import TableReads
from kafka_lineage.model.topics import TopicKey

TARGET = "glue"
# Bump when the events posted to Glue from the same content change: every edge is then posted once more.
GLUE_EMITTER_VERSION = "1"

SkipReason = Literal["federated table", "resource link"]
SKIP_WHY: dict[SkipReason, str] = {
    "federated table": "the table is in a federated catalog, which Glue's lineage graph does not cover",
    "resource link": "the table is a resource link, which Glue's lineage graph does not cover",
}


@dataclass(frozen=True, slots=True)
class GluePost:
    key: EdgeKey
    edge: Edge
    content: Content
    fingerprint: str
    graph: str  # the source key of the account whose graph receives the edge ("" the functions' own)
    previous: GlueEdgeState | None
    reason: Literal["new", "changed", "forced"]

    def describe(self) -> dict[str, object]:
        return {
            "target": TARGET,
            "action": "post",
            **self.key.as_dict(),
            "job": self.content.job,
            "graph": self.graph or "own account",
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class GlueClose:
    key: EdgeKey
    previous: GlueEdgeState
    post: bool  # False: another current edge names the job, so only the state goes

    def describe(self) -> dict[str, object]:
        return {
            "target": TARGET,
            "action": "close" if self.post else "forget",
            **self.key.as_dict(),
            "job": f"{self.previous.job_namespace}/{self.previous.job_name}",
            "graph": self.previous.graph or "own account",
        }


@dataclass(frozen=True, slots=True)
class GlueSkip:
    key: EdgeKey
    reason: SkipReason

    def as_dict(self) -> dict[str, str]:
        return {**self.key.as_dict(), "target": TARGET, "reason": SKIP_WHY[self.reason]}


GlueAction = GluePost | GlueClose


@dataclass(frozen=True)
class GluePlan:
    actions: tuple[GlueAction, ...] = ()
    unchanged: int = 0
    skipped: tuple[GlueSkip, ...] = ()
    unreadable: tuple[str, ...] = ()  # state entries that could not be read: their edges are left alone

    def describe(self) -> list[dict[str, object]]:
        return [action.describe() for action in self.actions]


def graph_of(edge: Edge) -> str:
    """The account whose Glue graph receives `edge`: its table's, else its topic's cluster's."""
    if isinstance(edge, Target):
        return edge.table.catalog
    return edge.source.key if edge.source.role_arn else ""


def glue_fingerprint(content: Content) -> str:
    return digest({"content": content.fingerprint(), "glue": GLUE_EMITTER_VERSION})


def make_glue_plan(
    scope: EmitScope,
    selection: Selection,
    resolution: Resolution,
    reads: TableReads,
    states: Mapping[str, GlueEdgeState],
    datazone: LineagePlan,
    unreadable: Sequence[str] = (),
) -> GluePlan:
    """The Glue target's plan for the topics `selection` covers (see the module's docstring)."""
    planner = _GluePlanner(scope, resolution, reads, states, datazone, set(unreadable))
    for key in selection.keys:
        planner.plan_topic(key)
    return GluePlan(
        actions=(*planner.posts, *planner.closes()),
        unchanged=planner.unchanged,
        skipped=tuple(planner.skipped),
        unreadable=tuple(sorted(unreadable)),
    )


class _GluePlanner:
    def __init__(
        self,
        scope: EmitScope,
        resolution: Resolution,
        reads: TableReads,
        states: Mapping[str, GlueEdgeState],
        datazone: LineagePlan,
        unreadable: set[str],
    ) -> None:
        self.scope, self.resolution, self.reads, self.states = scope, resolution, reads, states
        self.posts: list[GluePost] = []
        self.skipped: list[GlueSkip] = []
        self.unchanged = 0
        self.gone: list[EdgeKey] = []
        # What DataZone leaves as it is, Glue leaves too.
        self.left = {*datazone.kept, *(retract.key for retract in datazone.held_back)}
        self.failed_topics = {f.key for f in datazone.failed if isinstance(f.key, TopicKey)}
        self.failed_topics |= {EdgeKey.parse(key).topic for key in unreadable}
        self.problems = {problem.key for problem in resolution.failed} | set(resolution.unconfigured)
        self.stated_of: dict[TopicKey, list[EdgeKey]] = {}
        for state_key in states:
            edge_key = EdgeKey.parse(state_key)
            self.stated_of.setdefault(edge_key.topic, []).append(edge_key)

    def plan_topic(self, key: TopicKey) -> None:
        if key in self.failed_topics or key in self.problems:
            return
        wanted: set[EdgeKey] = set()
        blocked: set[str] = set()
        for edge in self.resolution.edges_of(key):
            wanted.add(edge.edge)
            if not self._post_or_not(edge):
                blocked.add(_kind(edge.edge))
        for stated in self.stated_of.get(key, ()):
            if stated not in wanted and stated not in self.left and _kind(stated) not in blocked:
                self.gone.append(stated)

    def _post_or_not(self, edge: Edge) -> bool:
        """Post, skip or count the edge unchanged; False when its content cannot be known this run."""
        content = self._content(edge)
        if content is None:
            return False
        if isinstance(content, str):
            self.skipped.append(GlueSkip(edge.edge, content))
            return True
        new_print = glue_fingerprint(content)
        previous = self.states.get(edge.edge.key)
        if previous is not None and previous.fingerprint == new_print and not self.scope.force:
            self.unchanged += 1
            return True
        reason: Literal["new", "changed", "forced"] = (
            "new" if previous is None else "changed" if previous.fingerprint != new_print else "forced"
        )
        self.posts.append(GluePost(edge.edge, edge, content, new_print, graph_of(edge), previous, reason))
        return True

    def _content(self, edge: Edge) -> Content | SkipReason | None:
        if isinstance(edge, Target):
            if edge.table.glue_catalog:
                return "federated table"
            if edge.table.database_path in self.reads.errors:
                return None
            table = self.reads.tables.get(edge.table)
            if table is None:
                return None
            if table.resource_link:
                return "resource link"
            return content_for(edge, table)
        if isinstance(edge, Location):
            return location_content(edge)
        if isinstance(edge, Consumer):
            return consumer_content(edge)
        return hop_content(edge)

    def closes(self) -> list[GlueClose]:
        """The edges gone, each closed unless a current edge still names its job."""
        in_use = {(post.content.job_namespace, post.content.job_name) for post in self.posts}
        gone = set(self.gone)
        in_use |= {
            (state.job_namespace, state.job_name)
            for key, state in self.states.items()
            if EdgeKey.parse(key) not in gone
        }
        return [
            GlueClose(
                key,
                self.states[key.key],
                (self.states[key.key].job_namespace, self.states[key.key].job_name) not in in_use,
            )
            for key in sorted(gone)
        ]


def _kind(edge: EdgeKey) -> str:
    return edge.kind if edge.kind in ("source", "consumer") else "sink"
