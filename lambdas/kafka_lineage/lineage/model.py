"""The lineage emission state: edges (a topic and a table, a source dataset, an S3 location or a consumer
group) and what was emitted for each.

An edge is one run in DataZone: a topic feeding one Glue table (a sink edge), a source database table
feeding the topic (a first hop), a channel or stream writing the topic to an S3 location (a location
edge), or a consumer group reading the topic (a consumer edge). Each edge has its own state entry, keyed
by `EdgeKey.key`. Entries written before edges existed are keyed by topic alone (`"<registry>/<topic>"`)
and name their table in `tb`; `load_states` reads such an entry as the sink edge of that table (see
`migrate`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from kafka_lineage.config import Source
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

# One emission is one OpenLineage run of two events: START, then COMPLETE.
EVENT_TYPES = ("START", "COMPLETE")
# A topic's state is one packed entry, continued in further entries `{key}{PART_SEPARATOR}{n}` when its stale
# runs and pending deletions outgrow one: nothing is ever dropped to make it fit. Glue names cannot contain a
# line feed, so a part's key never equals a topic's.
PART_SEPARATOR = "\n"
# Bytes of one entry's JSON (with its key) kept well under a 4,096-byte SSM value.
ENTRY_BUDGET = 3_600
# An edge's state key is its topic's key, a separator, then the other end. No separator is valid in a
# registry or schema name ([a-zA-Z0-9-_$#.]), nor in a source's key (`<account>:<registry>`), so the first
# one found is the separator, whatever the other end holds (an S3 prefix may hold any of them).
TO_TABLE = ">"  # "<registry>/<topic>><database>/<table>": the topic feeds that Glue table
FROM_DATASET = "<"  # "<registry>/<topic><<namespace>/<name>": that source table feeds the topic
TO_LOCATION = "|"  # "<registry>/<topic>|s3://<bucket>/<prefix>": a path writes the topic there
READ_BY = "@"  # "<registry>/<topic>@<group>": that consumer group reads the topic
# A location's prefix is the one end of unbounded length (Firehose allows 1,024 characters, each up to 4
# UTF-8 bytes): a longer key (as JSON) would leave its state entry no room in a 4,096-byte SSM value.
MAX_KEY_BYTES = 2_000


EdgeKind = Literal["sink", "source", "location", "consumer", "legacy"]
_KINDS: dict[str, EdgeKind] = {
    TO_TABLE: "sink",
    FROM_DATASET: "source",
    TO_LOCATION: "location",
    READ_BY: "consumer",
}
_SEPARATORS = {kind: separator for separator, kind in _KINDS.items()}


@dataclass(frozen=True, order=True, slots=True)
class EdgeKey:
    """One edge of a topic: `sink` (topic -> Glue table `other` = `<db>/<table>`), `source` (the first hop:
    dataset `other` = `<namespace>/<name>` -> topic), `location` (topic -> the S3 location `other` =
    `<namespace>/<name>`, e.g. `s3://raw-zone/orders/`, the bucket's root `s3://raw-zone//`: the lineage
    node's identifier, exact whatever the prefix), `consumer` (the consumer group `other` reads the topic;
    a group name may hold any character, the separators included), or `legacy` (an old per-topic entry
    that names no table: only runs left to delete)."""

    topic: TopicKey
    kind: EdgeKind
    other: str = ""

    @classmethod
    def sink(cls, topic: TopicKey, table: TableRef) -> EdgeKey:
        return cls(topic, "sink", table.name)

    @classmethod
    def source(cls, topic: TopicKey, namespace: str, name: str) -> EdgeKey:
        return cls(topic, "source", f"{namespace}/{name}")

    @classmethod
    def location(cls, topic: TopicKey, namespace: str, name: str) -> EdgeKey:
        return cls(topic, "location", f"{namespace}/{name}")

    @classmethod
    def consumer(cls, topic: TopicKey, group: str) -> EdgeKey:
        return cls(topic, "consumer", group)

    @property
    def key(self) -> str:
        separator = _SEPARATORS.get(self.kind)
        return f"{self.topic.key}{separator}{self.other}" if separator else self.topic.key

    @classmethod
    def parse(cls, key: str) -> EdgeKey:
        cut = min((i for i in map(key.find, _KINDS) if i >= 0), default=-1)
        if cut < 0:
            return cls(TopicKey.from_key(key), "legacy")
        return cls(TopicKey.from_key(key[:cut]), _KINDS[key[cut]], key[cut + 1 :])

    @property
    def table(self) -> str:
        """`<db>/<table>` of a sink edge, else ''."""
        return self.other if self.kind == "sink" else ""

    def as_dict(self) -> dict[str, str]:
        described = self.topic.as_dict()
        if self.kind == "sink":
            described["table"] = self.other
        elif self.kind == "source":
            described["sourceDataset"] = self.other
        elif self.kind == "location":
            described["location"] = self.other
        elif self.kind == "consumer":
            described["consumerGroup"] = self.other
        return described


@dataclass(frozen=True, slots=True)
class TopicEdge:
    """What every edge a run resolves starts from (resolve.py's `Target`, `FirstHop`, `Location`,
    consumer_inputs.py's `Consumer`): the mirrored topic, its asset record, and the source it comes from."""

    key: TopicKey
    record: AssetRecord
    source: Source


def unstorable(key: str) -> str:
    """Why an edge's state cannot be kept under `key` ('' when it can)."""
    if PART_SEPARATOR in key:
        return "it holds a line feed, which the lineage state keys reserve"
    size = len(json.dumps(key, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    if size > MAX_KEY_BYTES:
        return f"its lineage state key would be {size} bytes, over {MAX_KEY_BYTES}"
    return ""


@dataclass(frozen=True, slots=True)
class StaleRun:
    """A run whose events may exist in DataZone but are not (or no longer) the topic's current lineage.

    `event_ids` are the ids DataZone confirmed; when fewer than both events are known (a lost response),
    the rest are looked up by run id around `event_time` and `attempted_at` before anything is re-posted.
    """

    run_id: str
    event_time: str
    attempted_at: str
    event_ids: tuple[str, ...] = ()
    complete: bool = False  # every event of the run is in event_ids

    def to_entry(self) -> dict[str, Any]:
        return {
            "r": self.run_id,
            "t": self.event_time,
            "a": self.attempted_at,
            "i": list(self.event_ids),
            "c": self.complete,
        }

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> StaleRun:
        return cls(
            run_id=str(entry["r"]),
            event_time=str(entry["t"]),
            attempted_at=str(entry.get("a", entry["t"])),
            event_ids=tuple(str(i) for i in entry.get("i", ())),
            complete=bool(entry.get("c", False)),
        )


@dataclass(frozen=True, slots=True)
class PendingDelete:
    """An event DeleteLineageEvent accepted, not yet confirmed gone (deletion is asynchronous).

    `checks` counts the later GetLineageEvent calls that still found it; after a few the delete is sent again.
    """

    event_id: str
    checks: int = 0

    def to_entry(self) -> list[Any]:
        return [self.event_id, self.checks]

    @classmethod
    def from_entry(cls, entry: Any) -> PendingDelete:
        event_id, checks = entry
        return cls(str(event_id), int(checks))


@dataclass(frozen=True, slots=True)
class LineageState:
    """What was last emitted for a topic (under `{MAPPING_PATH}/lineage`, key `TopicKey.key`).

    `fingerprint` is the hash of everything the run's events carry except runId and eventTime; `run_id`,
    `event_time` and `event_ids` identify the run in DataZone (empty when no emission succeeded yet).
    `stale` lists runs to delete: superseded runs whose deletion failed, and attempts whose posts failed.
    `deleting` lists events whose deletion DataZone accepted but has not been seen to finish. A topic keeps
    every one of them until it is confirmed gone, however many there are (see `state_entries`).
    """

    fingerprint: str = ""
    run_id: str = ""
    event_time: str = ""
    event_ids: tuple[str, ...] = ()
    table: str = ""  # `{database}/{table}` of the current edge (reports, the demo)
    stale: tuple[StaleRun, ...] = field(default=())
    deleting: tuple[PendingDelete, ...] = field(default=())
    forced: str = ""  # the nonce of the forced request that last emitted the current run, if any
    origin: str = ""  # operator | cdk | connector:<name> | rule ("" in entries older than edges)

    @property
    def connector_derived(self) -> bool:
        return self.origin.startswith("connector:")

    @property
    def emitted(self) -> bool:
        return bool(self.run_id)

    @property
    def settled(self) -> bool:
        """Nothing left to delete or to confirm: only the current run (if any) exists in DataZone."""
        return not self.stale and not self.deleting

    @property
    def latest_event_time(self) -> str:
        """The latest eventTime of any run of the topic that may still be in DataZone (ISO text sorts)."""
        return max([self.event_time, *(run.event_time for run in self.stale)])

    def to_entry(self) -> dict[str, Any]:
        # Short keys: entries are packed several to a 4 KB SSM parameter.
        entry: dict[str, Any] = {}
        if self.emitted:
            entry.update(
                {
                    "f": self.fingerprint,
                    "r": self.run_id,
                    "t": self.event_time,
                    "i": list(self.event_ids),
                    "tb": self.table,
                }
            )
            if self.forced:
                entry["n"] = self.forced
            if self.origin:
                entry["o"] = self.origin
        if self.stale:
            entry["s"] = [run.to_entry() for run in self.stale]
        if self.deleting:
            entry["d"] = [pending.to_entry() for pending in self.deleting]
        return entry

    @classmethod
    def from_entry(cls, entry: Mapping[str, Any]) -> LineageState:
        return cls(
            fingerprint=str(entry.get("f", "")),
            run_id=str(entry.get("r", "")),
            event_time=str(entry.get("t", "")),
            event_ids=tuple(str(i) for i in entry.get("i", ())),
            table=str(entry.get("tb", "")),
            stale=tuple(StaleRun.from_entry(run) for run in entry.get("s", ())),
            deleting=tuple(PendingDelete.from_entry(item) for item in entry.get("d", ())),
            forced=str(entry.get("n", "")),
            origin=str(entry.get("o", "")),
        )


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def part_key(key: str, index: int) -> str:
    return f"{key}{PART_SEPARATOR}{index}"


def state_entries(key: str, state: LineageState, budget: int = ENTRY_BUDGET) -> dict[str, dict[str, Any]]:
    """The state as packed entries: the topic's own (key `key`), continued in parts `{key}\\n1`, `\\n2`, …
    when its lists outgrow `budget` bytes. An empty state gives no entry at all."""
    whole = state.to_entry()
    if _size({key: whole}) <= budget:
        return {key: whole} if whole else {}
    head = {name: value for name, value in whole.items() if name not in ("s", "d")}
    items = [("s", item) for item in whole.get("s", ())] + [("d", item) for item in whole.get("d", ())]
    entries: dict[str, dict[str, Any]] = {}
    index, current_key, current = 0, key, head
    for name, item in items:
        candidate = {**current, name: [*current.get(name, ()), item]}
        if _size({current_key: candidate}) > budget and ("s" in current or "d" in current):
            entries[current_key] = current
            index += 1
            current_key, candidate = part_key(key, index), {name: [item]}
        current = candidate
    entries[current_key] = current
    return entries


@dataclass(frozen=True)
class LoadedStates:
    """Edge states merged from their packed entries, which entry keys each spans, what was unreadable, and
    which edges were read from an older layout (their entries are rewritten under the edge's key)."""

    states: dict[str, LineageState]
    parts: dict[str, frozenset[str]]
    unreadable: tuple[str, ...] = ()
    migrated: frozenset[str] = frozenset()

    def changes(self, key: str, state: LineageState | None) -> dict[str, dict[str, Any] | None]:
        """The store changes that replace `key`'s entries with `state` (None: remove the edge's state)."""
        entries: dict[str, dict[str, Any] | None] = dict(state_entries(key, state) if state else {})
        for old in self.parts.get(key, frozenset({key})) | {key}:
            entries.setdefault(old, None)
        return entries


def load_states(entries: Mapping[str, Mapping[str, Any]]) -> LoadedStates:
    """Merge packed entries into one state per edge. A part whose head entry is missing (a save cut short)
    still counts: its runs and pending deletions are kept, never forgotten. Entries of the per-topic layout
    are migrated (see `migrate`)."""
    grouped: dict[str, dict[int, Mapping[str, Any]]] = {}
    for entry_key, entry in entries.items():
        base, separator, suffix = entry_key.partition(PART_SEPARATOR)
        grouped.setdefault(base, {})[int(suffix) if separator and suffix.isdigit() else 0] = entry
    states: dict[str, LineageState] = {}
    parts: dict[str, frozenset[str]] = {}
    unreadable: list[str] = []
    for base, pieces in grouped.items():
        parts[base] = frozenset(base if i == 0 else part_key(base, i) for i in pieces)
        merged: dict[str, Any] = dict(pieces.get(0, {}))
        for index in sorted(i for i in pieces if i):
            for name in ("s", "d"):
                merged[name] = [*merged.get(name, ()), *pieces[index].get(name, ())]
        try:
            states[base] = LineageState.from_entry(merged)
        except (KeyError, TypeError, ValueError):
            unreadable.append(base)
            states[base] = LineageState()
    return migrate(LoadedStates(states, parts, tuple(unreadable)))


def migrate(loaded: LoadedStates) -> LoadedStates:
    """Read per-topic entries (the layout before edges) as edges: an entry keyed by its topic is the sink
    edge of the table it recorded (`tb`), and its entries are rewritten under the edge's key by the next
    save of that edge. An entry with no table (only failed attempts or deletions left) stays a `legacy`
    edge, which nothing wants, so its runs are deleted. When a save was cut short between writing the edge
    and removing the topic entry, both are read into one state: nothing is dropped, no run is counted twice.
    """
    states = dict(loaded.states)
    parts = dict(loaded.parts)
    migrated: set[str] = set()
    unreadable = set(loaded.unreadable)
    for key in sorted(loaded.states):
        edge = EdgeKey.parse(key)
        if edge.kind != "legacy" or key in unreadable:
            continue
        old = states[key]
        if not old.table:
            continue
        new_key = EdgeKey.sink(edge.topic, TableRef(*old.table.split("/", 1))).key
        state = _absorb(states[new_key], old) if new_key in states else old
        del states[key]
        states[new_key] = state
        parts[new_key] = parts.pop(key, frozenset({key})) | parts.get(new_key, frozenset())
        migrated.add(new_key)
    return LoadedStates(states, parts, loaded.unreadable, frozenset(migrated))


def _absorb(current: LineageState, old: LineageState) -> LineageState:
    """`current` keeping whatever of `old` it does not already track, as runs to delete."""
    known = {current.run_id, *(run.run_id for run in current.stale)}
    stale = list(current.stale)
    if old.emitted and old.run_id not in known:
        stale.append(StaleRun(old.run_id, old.event_time, old.event_time, old.event_ids, complete=True))
    stale += [run for run in old.stale if run.run_id not in known]
    pending = {item.event_id for item in current.deleting}
    deleting = (*current.deleting, *(item for item in old.deleting if item.event_id not in pending))
    return replace(current, table=current.table or old.table, stale=tuple(stale), deleting=deleting)
