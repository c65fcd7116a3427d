"""A follow-up's share of a lineage run that one invocation could not finish.

The run applies its actions in the order of the state's hash groups (engine/stream.py), and hands on the
last group through which every action was done and saved (`done_through`). Its follow-up does not look at
those groups again, as schema-sync's follow-up resumes after its last chunk: a topic every edge of which is
in them was finished by the chain. Of the rest it takes only what it can emit before its deadline (the
window: the next groups, up to as many edges as its time allows at the posts' ceiling, with some slack for
edges found unchanged), so it reads the Glue tables of those topics alone. The tables are what a lineage
run reads most (a GetTables page per hundred tables): each invocation of a chain read all of them again.

Topics without an asset record (their schema is gone) are always taken: their edges are retracted, which
needs no table, and the fail-safe screens those retractions against the same totals in every invocation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from kafka_lineage.config import Settings
from kafka_lineage.engine.checkpoints import SaveReport
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.lineage.model import EdgeKey, LineageState
from kafka_lineage.lineage.plan import EmitScope, Selection, select
from kafka_lineage.lineage.ports import StateStore
from kafka_lineage.lineage.resolve import Resolution
from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.lineage.targets import Targets
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.state_layout import hash_group
from kafka_lineage.model.topics import TopicKey

POSTS_PER_EDGE = 2  # an emitted edge: its START and its COMPLETE event
# The window holds this much more than the posts' ceiling allows in the time left: some of its edges are
# found unchanged, and a window too small costs a whole invocation more.
WINDOW_SLACK = 1.25


@dataclass(frozen=True)
class Window:
    """The topics this follow-up looks at, how many it leaves to the next (`beyond`), and the last group it
    covers (None: no window, every topic selected)."""

    selection: Selection
    beyond: int = 0
    end: str | None = None


class _World(Protocol):
    @property
    def state(self) -> StateStore: ...

    def targets(self, settings: Settings) -> Targets: ...


class Chain(Protocol):
    """What a run's share is made from (lineage/run.py's RunContext)."""

    @property
    def scope(self) -> EmitScope: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def world(self) -> _World: ...

    @property
    def deadline(self) -> Deadline: ...


def share_of(
    run: Chain,
    records: Mapping[str, AssetRecord],
    resolution: Resolution,
    states: Mapping[str, LineageState],
) -> Window:
    """The topics this invocation covers: a follow-up's share of its chain; every one for a first
    invocation, a dry run, or with other targets than DataZone (they keep no resume point of their own)."""
    registries = [source.key for source in run.settings.sources]  # by source key (`<account>:` for a role)
    selection, through = select(run.scope, records, states, registries), run.scope.through
    if through is None or run.scope.dry_run or run.world.targets(run.settings).others:
        return Window(selection)
    budget = edge_budget(run.deadline.left(), run.settings.tuning.datazone_rps)
    known = {TopicKey(record.registry_name, record.schema_name) for record in records.values()}
    return window(selection, resolution, states, known, through, budget, run.world.state.group_bits)


def edge_budget(left_seconds: float, posts_per_second: float) -> float:
    """How many edges a follow-up may take on in `left_seconds` at the posts' ceiling."""
    return left_seconds * posts_per_second / POSTS_PER_EDGE * WINDOW_SLACK


def window(
    selection: Selection,
    resolution: Resolution,
    states: Mapping[str, object],
    known: set[TopicKey],
    through: str,
    budget: float,
    group_bits: int,
) -> Window:
    """The topics after `through` (the last group the chain finished) that fit in `budget` edges."""
    stated: dict[TopicKey, list[str]] = {}
    for key in states:
        stated.setdefault(EdgeKey.parse(key).topic, []).append(key)
    pending: dict[TopicKey, list[str]] = {}  # topic -> the groups of its edges still to look at
    kept: list[TopicKey] = []
    for topic in selection.keys:
        if topic not in known:
            kept.append(topic)  # a retraction: no table to read
            continue
        keys = [edge.edge.key for edge in resolution.edges_of(topic)] + stated.get(topic, [])
        groups = sorted({g for g in (hash_group(key, group_bits) for key in keys) if g > through})
        if groups:
            pending[topic] = groups
    edges = Counter(group for groups in pending.values() for group in groups)
    end: str | None = None
    taken = 0
    for group in sorted(edges):
        if end is not None and taken + edges[group] > budget:
            break
        end, taken = group, taken + edges[group]
    chosen = [topic for topic, groups in pending.items() if end is not None and groups[0] <= end]
    beyond = len(pending) - len(chosen)
    ordered = _in_order(selection.keys, {*kept, *chosen})
    return Window(replace(selection, keys=ordered), beyond, end if beyond else None)


def _in_order(keys: Sequence[TopicKey], chosen: set[TopicKey]) -> tuple[TopicKey, ...]:
    return tuple(key for key in keys if key in chosen)


def record_apply(result: EmitResult, through: str | None, share: Window | None, saved: SaveReport) -> None:
    """What the apply left (`EmitResult.record_apply`), where the chain's follow-up resumes, and the topics
    this invocation left beyond its window."""
    result.record_apply(saved)
    end = share.end if share is not None else None
    result.done_through = resume_point(through, end, saved.done_through, saved.finished)
    if share is not None and share.beyond:
        result.remaining += share.beyond
        result.incomplete = True
        # The window moved on even when none of its topics needed a write: hand the rest on.
        result.progressed = result.progressed or result.done_through != through


def resume_point(
    through: str | None, window_end: str | None, done_through: str | None, finished: bool
) -> str | None:
    """The last group a chain has finished after this invocation: `through` before it; the window's end when
    this one did all it took (the groups after it hold topics it left); else where its actions stopped."""
    reached = done_through if window_end is None else (window_end if finished else None)
    if window_end is not None and not finished and done_through is not None:
        reached = min(done_through, window_end)
    candidates = [group for group in (through, reached) if group is not None]
    return max(candidates) if candidates else None
