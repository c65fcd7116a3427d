"""Which edges to emit, clean up or retract: a pure diff of the wanted edges against the emission state.

The invocation selects topics; each topic has edges (resolve.py: the tables it feeds, the S3 locations it
is written to, the source tables feeding it), and each edge is its own run with its own state entry. An
edge is unchanged when the fingerprint of what its run would carry (see content.RunContent, HopContent,
LocationContent) equals the one last emitted, and nothing stale is left to delete; deciding it reads no
schema definition. The plan is data: tests assert on it, a dry run returns it, apply executes it.

Retractions: an edge whose topic's schema is gone (no asset record), or that the topic no longer has (a remap,
a connector, channel or stream deleted or reconfigured, a mapping removed) is retracted. When the topic gains
a new edge of the same kind in the same run, that emission takes the old edges over (`Emit.replaces`): it
posts first, then deletes them, and its eventTime is later than theirs, as a remap always did. Tables and S3
locations are one kind here, what the topic feeds: a channel reconfigured from S3 Tables to a bucket moves its
edge like a remap. Consumer edges are never taken over: a group that disappears (ListMetrics forgets it after
two weeks without data) is retracted on its own. Otherwise the edge gets a `Retract` of its own. On a full
(scheduled) run, retractions inferred from a missing record are held back when they would remove more than
`mass_delete_share` of a registry's edges (an empty or unreadable mapping must not wipe the lineage), unless
the request allows it; events and explicit topic lists are never held back. Edges of connectors, channels and
streams that could not be read are kept as they are (`Resolution.keeps`): never retracted, never replaced by a
lower tier (a kept S3 location, which names no table, holds none back); so are the consumer edges of a cluster
whose consumer groups could not be listed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from kafka_lineage import failsafe
from kafka_lineage.lineage.consumer_inputs import Consumer
from kafka_lineage.lineage.content import Content
from kafka_lineage.lineage.edge_content import (
    consumer_content,
    content_for,
    hop_content,
    location_content,
)
from kafka_lineage.lineage.model import EdgeKey, LineageState, LoadedStates
from kafka_lineage.lineage.resolve import (
    BELOW_CONNECTORS,
    Edge,
    FirstHop,
    Location,
    Resolution,
    Target,
)
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.tables import GlueTable, TableReads, TableRef
from kafka_lineage.model.topics import TopicKey


@dataclass(frozen=True)
class TopicSelector:
    topic: str
    registry_name: str | None = None


@dataclass(frozen=True, slots=True)
class EmitScope:
    """What one invocation asks for (built by the handler from its event)."""

    mode: Literal["all", "topics", "event"] = "all"
    topics: tuple[TopicSelector, ...] = ()
    force: bool = False
    force_nonce: str = ""  # a forced run's follow-up: what was re-posted under this nonce is done
    dry_run: bool = False
    allow_mass_delete: bool = False
    trigger: str = "manual"
    through: str | None = None  # a follow-up's: the last hash group its chain finished (lineage/window.py)


@dataclass(frozen=True)
class Failure:
    key: TopicKey | EdgeKey
    error: str

    def as_dict(self) -> dict[str, str]:
        return {**self.key.as_dict(), "error": self.error}


@dataclass(frozen=True)
class Selection:
    keys: tuple[TopicKey, ...]
    failed: tuple[Failure, ...] = ()


@dataclass(frozen=True, slots=True)
class Emit:
    """Post a run for the edge (or, for `cleanup`, only delete its stale events; for `migrate`, also write
    its state under the edge's key, read from the per-topic layout). `replaces` are other edges of the topic,
    of the same kind, that this run takes over: deleted once it is posted, their state dropped."""

    key: EdgeKey
    target: Edge
    content: Content
    fingerprint: str
    previous: LineageState | None
    reason: Literal["new", "changed", "forced", "cleanup", "migrate"]
    replaces: tuple[tuple[EdgeKey, LineageState], ...] = ()

    def describe(self) -> dict[str, object]:
        replaced = [state.table or key.other for key, state in self.replaces]
        if self.previous is not None and self.previous.emitted and self.previous.table:
            replaced.insert(0, self.previous.table)
        return {
            "action": "cleanup" if self.reason in ("cleanup", "migrate") else "emit",
            **self.key.as_dict(),
            "job": self.content.job,
            "reason": self.reason,
            "origin": self.target.origin,
            "replaces": replaced[0] if len(replaced) == 1 else (replaced or None),
        }


@dataclass(frozen=True, slots=True)
class Retract:
    """Delete every event of the edge and drop its state."""

    key: EdgeKey
    previous: LineageState
    reason: Literal["schema deleted", "unmapped", "edge removed"]

    def describe(self) -> dict[str, object]:
        return {
            "action": "retract",
            **self.key.as_dict(),
            "table": self.previous.table or self.key.table or None,
            "origin": self.previous.origin or None,
            "reason": self.reason,
        }


Action = Emit | Retract


@dataclass(frozen=True)
class LineagePlan:
    actions: tuple[Action, ...] = ()
    unchanged: tuple[EdgeKey, ...] = ()
    unmapped: tuple[TopicKey, ...] = ()
    failed: tuple[Failure, ...] = ()
    held_back: tuple[Retract, ...] = field(default=())
    kept: tuple[EdgeKey, ...] = ()  # connector edges kept as they are: their connector could not be read

    def describe(self) -> list[dict[str, object]]:
        return [action.describe() for action in self.actions]


def select(
    scope: EmitScope,
    records: Mapping[str, AssetRecord],
    states: Mapping[str, LineageState],
    configured: Iterable[str],
) -> Selection:
    """The topics this invocation covers. Keys of topics no longer mirrored are included (to retract)."""
    registries = set(configured)
    known = {TopicKey(r.registry_name, r.schema_name) for r in records.values()}
    stated = {EdgeKey.parse(key).topic for key in states}
    if scope.mode == "all":
        keys = {k for k in known | stated if k.registry_name in registries}
        return Selection(tuple(sorted(keys)))
    chosen: set[TopicKey] = set()
    failed: list[Failure] = []
    for selector in scope.topics:
        if selector.registry_name is not None:
            key = TopicKey(selector.registry_name, selector.topic)
            if scope.mode == "topics" and key not in known and key not in stated:
                failed.append(Failure(key, "no mirrored schema of that name in that registry"))
            else:
                chosen.add(key)
            continue
        matches = sorted(k for k in known | stated if k.topic == selector.topic)
        if not matches:
            failed.append(Failure(TopicKey("", selector.topic), "no mirrored schema of that name"))
        elif len({k.registry_name for k in matches}) > 1:
            registries_named = ", ".join(sorted({k.registry_name for k in matches}))
            failed.append(
                Failure(
                    TopicKey("", selector.topic),
                    f"topic name is in several registries ({registries_named}): give registryName",
                )
            )
        else:
            chosen.add(matches[0])
    return Selection(tuple(sorted(chosen)), tuple(failed))


def tables_needed(selection: Selection, resolution: Resolution) -> set[TableRef]:
    return {
        edge.table for key in selection.keys for edge in resolution.edges_of(key) if isinstance(edge, Target)
    }


def _same_kind(edge: EdgeKey) -> str:
    # What the topic feeds (a table or an S3 location), what feeds it, or who reads it. An entry of the
    # per-topic layout with no table was a sink edge's.
    return edge.kind if edge.kind in ("source", "consumer") else "sink"


def make_plan(
    scope: EmitScope,
    selection: Selection,
    resolution: Resolution,
    reads: TableReads,
    loaded: LoadedStates,
    mass_delete_share: float,
) -> LineagePlan:
    """The plan. A database that could not be read (`reads.errors`) fails the edges into it; an unreadable
    state entry (`loaded.unreadable`) fails its whole topic: nothing is posted or deleted for a topic whose
    last emission is unknown. Edges read from the per-topic layout (`loaded.migrated`) are rewritten."""
    planner = _Planner(scope, resolution, reads, loaded.states, set(loaded.migrated))
    planner.failed.extend(selection.failed)
    unreadable = {EdgeKey.parse(key).topic for key in loaded.unreadable}
    for key in selection.keys:
        if key in unreadable:
            planner.failed.append(
                Failure(key, "its lineage state entry in SSM is unreadable; left untouched")
            )
        else:
            planner.plan_topic(key)
    held_back = planner.screen_inferred(mass_delete_share)
    return LineagePlan(
        actions=tuple(planner.actions),
        unchanged=tuple(planner.unchanged),
        unmapped=tuple(planner.unmapped),
        failed=tuple(planner.failed),
        held_back=held_back,
        kept=tuple(planner.kept),
    )


class _Planner:
    """The plan as it grows, topic by topic (make_plan's steps)."""

    def __init__(
        self,
        scope: EmitScope,
        resolution: Resolution,
        reads: TableReads,
        states: Mapping[str, LineageState],
        rewrite: set[str],
    ) -> None:
        self.scope = scope
        self.resolution = resolution
        self.tables: Mapping[TableRef, GlueTable | None] = reads.tables
        self.states = states
        self.table_errors: Mapping[str, str] = reads.errors
        self.rewrite = rewrite
        self.actions: list[Action] = []
        self.unchanged: list[EdgeKey] = []
        self.unmapped: list[TopicKey] = []
        self.failed: list[Failure] = []
        self.inferred: list[Retract] = []  # retractions for a missing record: the fail-safe screens them
        self.kept: list[EdgeKey] = []
        self.problems = {problem.key: problem.error for problem in resolution.failed}
        self.unmapped_keys = set(resolution.unmapped)
        self.unconfigured = set(resolution.unconfigured)
        self.stated_of: dict[TopicKey, list[EdgeKey]] = {}
        for state_key in states:
            edge_key = EdgeKey.parse(state_key)
            self.stated_of.setdefault(edge_key.topic, []).append(edge_key)
        self.known = {edge.topic for edge in resolution.edges} | self.unmapped_keys | set(self.problems)

    def plan_topic(self, key: TopicKey) -> None:
        """The topic's emissions, and what happens to its edges it no longer has."""
        if key in self.problems:
            self.failed.append(Failure(key, self.problems[key]))
            return
        if key in self.unconfigured:
            return
        stated = sorted(self.stated_of.get(key, ()))
        wanted, keep = self._wanted(key, stated)
        self.kept += keep
        emits, blocked = self._emits(wanted)
        wanted_keys = {edge.edge for edge in wanted}
        gone = [e for e in stated if e not in wanted_keys and e not in keep and self._may_exist(e)]
        if key not in self.known:
            self._retract_for_deleted_schema(gone)
            return
        # A kept table or location is still an edge the topic has: then it is not unmapped.
        unmapped = key in self.unmapped_keys and not any(e.kind in ("sink", "location") for e in keep)
        if unmapped:
            self.unmapped.append(key)
        for kind in ("sink", "source", "consumer"):
            old = [e for e in gone if _same_kind(e) == kind]
            if old and kind not in blocked:
                self._hand_over_or_retract(kind, old, emits, unmapped)
        self.actions.extend(emits)

    def _wanted(self, key: TopicKey, stated: list[EdgeKey]) -> tuple[list[Edge], list[EdgeKey]]:
        """The topic's edges this run, and the stated edges kept as they are (their connector unread)."""
        wanted = self.resolution.edges_of(key)
        # Connector edges whose connector is unknown this run stay as they are, and a lower tier does not
        # replace them (it would, wrongly, if the connector still routes the topic).
        keep = [e for e in stated if self.resolution.keeps_edge(e, self.states[e.key].origin)]
        if any(e.kind == "sink" for e in keep):
            wanted = [w for w in wanted if isinstance(w, FirstHop) or w.origin not in BELOW_CONNECTORS]
        return wanted, keep

    def _emits(self, wanted: list[Edge]) -> tuple[list[Emit], set[str]]:
        """The wanted edges' Emits, and the kinds with a wanted edge that failed (their old edges wait)."""
        emits: list[Emit] = []
        blocked: set[str] = set()
        for edge in wanted:
            emit = self._emit_or_not(edge)
            if isinstance(emit, Emit):
                emits.append(emit)
            elif emit == "failed":
                blocked.add(_same_kind(edge.edge))
        return emits, blocked

    def _emit_or_not(self, edge: Edge) -> Emit | Literal["unchanged", "failed"]:
        """The edge's Emit, or what it is instead (recorded in `unchanged` / `failed`)."""
        scope, states, tables, table_errors = self.scope, self.states, self.tables, self.table_errors
        rewrite, unchanged, failed = self.rewrite, self.unchanged, self.failed
        edge_key = edge.edge
        previous = states.get(edge_key.key)
        content: Content
        if isinstance(edge, Target):
            if edge.table.database_path in table_errors:
                failed.append(
                    Failure(
                        edge_key,
                        f"reading Glue database {edge.table.database_path} failed: "
                        + table_errors[edge.table.database_path],
                    )
                )
                return "failed"
            table = tables.get(edge.table)
            if table is None:
                failed.append(
                    Failure(edge_key, f"Glue table {edge.table.name} does not exist in the Data Catalog")
                )
                return "failed"
            content = content_for(edge, table)
        elif isinstance(edge, Location):
            content = location_content(edge)
        elif isinstance(edge, Consumer):
            content = consumer_content(edge)
        else:
            content = hop_content(edge)
        fingerprint = content.fingerprint()
        same = previous is not None and previous.emitted and previous.fingerprint == fingerprint
        # A forced run cut short hands on its nonce: the edges it re-posted are done, not forced again.
        forced_already = (
            scope.force and bool(scope.force_nonce) and previous is not None
            and previous.forced == scope.force_nonce
        )  # fmt: skip
        if same and (not scope.force or forced_already):
            assert previous is not None
            if not previous.settled:
                return Emit(edge_key, edge, content, fingerprint, previous, "cleanup")
            if edge_key.key in rewrite:
                # Read from the per-topic layout: written once under the edge's key. (An entry that only lacks
                # its origin is not rewritten for it: entries before edges were never connector-derived.)
                return Emit(edge_key, edge, content, fingerprint, previous, "migrate")
            unchanged.append(edge_key)
            return "unchanged"
        reason: Literal["new", "changed", "forced"] = (
            "forced" if same else ("changed" if previous is not None and previous.emitted else "new")
        )
        return Emit(edge_key, edge, content, fingerprint, previous, reason)

    def _may_exist(self, edge_key: EdgeKey) -> bool:
        """Whether the edge may still have events in DataZone (emitted, or deletions not yet confirmed)."""
        state = self.states[edge_key.key]
        return state.emitted or not state.settled

    def _retract_for_deleted_schema(self, gone: list[EdgeKey]) -> None:
        for edge_key in gone:
            previous = self.states[edge_key.key]
            retract = Retract(edge_key, previous, "schema deleted")
            # Only confirming deletions already requested is never held back: it removes nothing more.
            confirming = not previous.emitted and not previous.stale
            (self.inferred if self.scope.mode == "all" and not confirming else self.actions).append(retract)

    def _hand_over_or_retract(self, kind: str, old: list[EdgeKey], emits: list[Emit], unmapped: bool) -> None:
        """Old edges of one kind: taken over by the topic's new edge of that kind, else retracted. Consumer
        edges are never taken over: each group is a reader of its own, not the same edge moved."""
        taker = next(
            (
                i
                for i, e in enumerate(emits)
                if kind != "consumer" and _same_kind(e.key) == kind and e.reason == "new"
            ),
            None,
        )
        if taker is not None:
            emits[taker] = replace(emits[taker], replaces=tuple((e, self.states[e.key]) for e in old))
            return
        # A group no longer reading the topic is an edge removed, whatever the topic's tables.
        removed = unmapped and kind != "consumer"
        reason: Literal["unmapped", "edge removed"] = "unmapped" if removed else "edge removed"
        self.actions.extend(Retract(e, self.states[e.key], reason) for e in old)

    def screen_inferred(self, mass_delete_share: float) -> tuple[Retract, ...]:
        """Pass the inferred retractions through the mass-removal fail-safe; the ones held back fail."""
        if not self.inferred:
            return ()
        verdict = failsafe.screen(
            self.inferred,
            totals=_edges_per_registry(self.states),
            limit=mass_delete_share,
            allow=self.scope.allow_mass_delete,
            group=lambda retract: retract.key.topic.registry_name,
            confirmed=lambda retract: False,  # confirmed retractions never reach `inferred`
        )
        self.actions.extend(verdict.kept)
        for retract in verdict.held_items:
            self.failed.append(
                Failure(
                    retract.key,
                    "not retracted: its schema is missing from the asset mapping, and retracting every such "
                    f"edge would remove more than {mass_delete_share:.0%} of registry "
                    f"{retract.key.topic.registry_name}'s lineage; rerun with allowMassDelete if that is "
                    "intended",
                )
            )
        return tuple(verdict.held_items)


def _edges_per_registry(states: Mapping[str, LineageState]) -> dict[str, int]:
    """The fail-safe's totals: how many edges of each registry have lineage state."""
    edges: dict[str, int] = {}
    for key in states:
        registry = EdgeKey.parse(key).topic.registry_name
        edges[registry] = edges.get(registry, 0) + 1
    return edges
