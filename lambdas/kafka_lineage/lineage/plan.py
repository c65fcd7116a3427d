"""Which topics to emit, clean up or retract: a pure diff of the wanted edges against the emission state.

A topic is unchanged when the fingerprint of what its run would carry (see events.RunContent) equals the
one last emitted, and nothing stale is left to delete; deciding it reads no schema definition. The plan is
data: tests assert on it, a dry run returns it, apply executes it.

Retractions: a topic whose schema is gone (no asset record) or that no longer maps to any table has its
edge retracted. On a full (scheduled) run, retractions inferred from a missing record are held back when
they would remove more than `mass_delete_share` of a registry's edges (an empty or unreadable mapping must
not wipe the lineage), unless the request allows it; events and explicit topic lists are never held back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from kafka_lineage import failsafe
from kafka_lineage.lineage.events import RunContent
from kafka_lineage.lineage.model import GlueTable, LineageState, TableRef, TopicKey
from kafka_lineage.lineage.resolve import Resolution, Target
from kafka_lineage.mapping import AssetRecord


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


@dataclass(frozen=True)
class Failure:
    key: TopicKey
    error: str

    def as_dict(self) -> dict[str, str]:
        return {**self.key.as_dict(), "error": self.error}


@dataclass(frozen=True)
class Selection:
    keys: tuple[TopicKey, ...]
    failed: tuple[Failure, ...] = ()


@dataclass(frozen=True, slots=True)
class Emit:
    """Post a run for the topic (or, for `cleanup`, only delete its stale events)."""

    key: TopicKey
    target: Target
    content: RunContent
    fingerprint: str
    previous: LineageState | None
    reason: Literal["new", "changed", "forced", "cleanup"]

    def describe(self) -> dict[str, object]:
        return {
            "action": "cleanup" if self.reason == "cleanup" else "emit",
            **self.key.as_dict(),
            "table": self.target.table.name,
            "job": self.content.job,
            "reason": self.reason,
            "origin": self.target.origin,
            "replaces": self.previous.table if self.previous and self.previous.emitted else None,
        }


@dataclass(frozen=True, slots=True)
class Retract:
    """Delete every event of the topic's edge and drop its state."""

    key: TopicKey
    previous: LineageState
    reason: Literal["schema deleted", "unmapped"]

    def describe(self) -> dict[str, object]:
        return {
            "action": "retract",
            **self.key.as_dict(),
            "table": self.previous.table or None,
            "reason": self.reason,
        }


Action = Emit | Retract


@dataclass(frozen=True)
class LineagePlan:
    actions: tuple[Action, ...] = ()
    unchanged: tuple[TopicKey, ...] = ()
    unmapped: tuple[TopicKey, ...] = ()
    failed: tuple[Failure, ...] = ()
    held_back: tuple[Retract, ...] = field(default=())

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
    stated = {TopicKey.from_key(key) for key in states}
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
    return {resolution.targets[key].table for key in selection.keys if key in resolution.targets}


def content_for(target: Target, table: GlueTable) -> RunContent:
    record = target.record
    return RunContent(
        key=target.key,
        topic_namespace=record.namespace,
        schema_arn=record.schema_arn,
        schema_version=record.latest_version,
        schema_version_id=record.schema_version_id,
        schema_created=record.created_time,
        data_format=record.data_format,
        table=table,
        job_namespace=target.source.job_namespace,
        origin=target.origin,
        mapping_parameter=target.mapping.parameter if target.mapping else "",
        previous_version=record.previous_version,
    )


def make_plan(
    scope: EmitScope,
    selection: Selection,
    resolution: Resolution,
    tables: Mapping[TableRef, GlueTable | None],
    states: Mapping[str, LineageState],
    mass_delete_share: float,
    table_errors: Mapping[str, str] | None = None,
    unreadable_states: Iterable[str] = (),
) -> LineagePlan:
    """The plan. `table_errors` (database -> error) and `unreadable_states` (state keys) fail their topics:
    nothing is posted or deleted for a topic whose table or last emission is unknown."""
    actions: list[Action] = []
    unchanged: list[TopicKey] = []
    unmapped: list[TopicKey] = []
    failed: list[Failure] = list(selection.failed)
    inferred: list[Retract] = []
    problems = {problem.key: problem.error for problem in resolution.failed}
    unmapped_keys = set(resolution.unmapped)
    unconfigured = set(resolution.unconfigured)
    table_errors = table_errors or {}
    unreadable = set(unreadable_states)
    for key in selection.keys:
        previous = states.get(key.key)
        if key.key in unreadable:
            failed.append(Failure(key, "its lineage state entry in SSM is unreadable; left untouched"))
        elif key in problems:
            failed.append(Failure(key, problems[key]))
        elif key in resolution.targets:
            target = resolution.targets[key]
            table = tables.get(target.table)
            if target.table.database in table_errors:
                failed.append(
                    Failure(
                        key,
                        f"reading Glue database {target.table.database} failed: "
                        + table_errors[target.table.database],
                    )
                )
                continue
            if table is None:
                failed.append(
                    Failure(key, f"Glue table {target.table.name} does not exist in the Data Catalog")
                )
                continue
            content = content_for(target, table)
            fingerprint = content.fingerprint()
            same = previous is not None and previous.emitted and previous.fingerprint == fingerprint
            # A forced run cut short hands on its nonce: the topics it re-posted are done, not forced again.
            forced_already = (
                scope.force and bool(scope.force_nonce) and previous is not None
                and previous.forced == scope.force_nonce
            )  # fmt: skip
            if same and (not scope.force or forced_already):
                assert previous is not None
                if not previous.settled:
                    actions.append(Emit(key, target, content, fingerprint, previous, "cleanup"))
                else:
                    unchanged.append(key)
                continue
            reason: Literal["new", "changed", "forced"] = (
                "forced" if same else ("changed" if previous is not None and previous.emitted else "new")
            )
            actions.append(Emit(key, target, content, fingerprint, previous, reason))
        elif key in unmapped_keys:
            unmapped.append(key)
            if previous is not None and (previous.emitted or not previous.settled):
                actions.append(Retract(key, previous, "unmapped"))
        elif key in unconfigured:
            continue
        elif previous is not None and (previous.emitted or not previous.settled):
            retract = Retract(key, previous, "schema deleted")
            # Only confirming deletions already requested is never held back: it removes nothing more.
            confirming = not previous.emitted and not previous.stale
            (inferred if scope.mode == "all" and not confirming else actions).append(retract)
    held_back: list[Retract] = []
    if inferred:
        verdict = failsafe.screen(
            inferred,
            totals=_edges_per_registry(states),
            limit=mass_delete_share,
            allow=scope.allow_mass_delete,
            group=lambda retract: retract.key.registry_name,
            confirmed=lambda retract: False,  # confirmed retractions never reach `inferred`
        )
        actions.extend(verdict.kept)
        held_back = list(verdict.held_items)
        for retract in held_back:
            failed.append(
                Failure(
                    retract.key,
                    "not retracted: its schema is missing from the asset mapping, and retracting every such "
                    f"edge would remove more than {mass_delete_share:.0%} of registry "
                    f"{retract.key.registry_name}'s lineage; rerun with allowMassDelete if that is intended",
                )
            )
    return LineagePlan(
        actions=tuple(actions),
        unchanged=tuple(unchanged),
        unmapped=tuple(unmapped),
        failed=tuple(failed),
        held_back=tuple(held_back),
    )


def _edges_per_registry(states: Mapping[str, LineageState]) -> dict[str, int]:
    """The fail-safe's totals: how many topics of each registry have lineage state."""
    edges: dict[str, int] = {}
    for key in states:
        registry = TopicKey.from_key(key).registry_name
        edges[registry] = edges.get(registry, 0) + 1
    return edges
