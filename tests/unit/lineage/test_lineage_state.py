"""The per-edge emission state: round trip, nothing dropped, every packed entry fits an SSM parameter, and
entries of the per-topic layout read as edges."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kafka_lineage.aws.packed_store import _EMPTY_SIZE, _Chunk
from kafka_lineage.lineage.model import (
    MAX_KEY_BYTES,
    EdgeKey,
    LineageState,
    PendingDelete,
    StaleRun,
    load_states,
    state_entries,
    unstorable,
)
from kafka_lineage.model.state_layout import MAX_VALUE_BYTES
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey


def worst_case(stale_runs: int = 11, pending: int = 0) -> tuple[str, LineageState]:
    key = EdgeKey.sink(TopicKey("r" * 255, "t" * 255), TableRef("d" * 255, "t" * 255))
    moment, attempt = "2025-03-14T09:15:02.123Z", "2025-03-14T09:16:00.000Z"
    stale = tuple(
        StaleRun(
            f"{i:08d}-2222-5222-8222-222222222222",
            moment,
            attempt,
            ("abcdefghijklmn", "opqrstuvwxyz01"),
            True,
        )
        for i in range(stale_runs)
    )
    state = LineageState(
        fingerprint="f" * 32,
        run_id="11111111-1111-5111-8111-111111111111",
        event_time="2025-03-14T09:15:02.123Z",
        event_ids=("abcdefghijklmn", "opqrstuvwxyz01"),
        table="d" * 255 + "/" + "t" * 255,
        stale=stale,
        deleting=tuple(PendingDelete(f"del{i:011d}", i % 3) for i in range(pending)),
        origin="connector:" + "c" * 128,
    )
    return key.key, state


def fits_a_parameter(key: str, entry: dict) -> bool:
    text = json.dumps(entry, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return _EMPTY_SIZE + _Chunk.piece(key, text) <= MAX_VALUE_BYTES


def test_state_round_trips_through_its_entry_with_every_stale_run():
    _, state = worst_case(stale_runs=40, pending=5)
    assert LineageState.from_entry(state.to_entry()) == state


@pytest.mark.parametrize(("stale_runs", "pending"), [(0, 0), (3, 2), (11, 0), (60, 0), (25, 300)])
def test_a_state_of_any_size_packs_into_entries_that_each_fit_and_merge_back_whole(stale_runs, pending):
    # Given a topic with the longest names and many stale runs and pending deletions
    key, state = worst_case(stale_runs, pending)
    # When it is cut into packed entries
    entries = state_entries(key, state)
    # Then each entry fits a standard SSM parameter on its own, and loading them gives back the whole state
    assert all(fits_a_parameter(k, e) for k, e in entries.items())
    loaded = load_states(entries)
    assert loaded.states == {key: state}
    assert loaded.parts[key] == frozenset(entries)
    assert (len(entries) > 1) == (stale_runs + pending > 12)


def test_a_shrinking_state_removes_the_parts_it_no_longer_needs():
    key, big = worst_case(stale_runs=60)
    loaded = load_states(state_entries(key, big))
    _, small = worst_case(stale_runs=1)
    changes = loaded.changes(key, small)
    assert changes[key] == small.to_entry()
    assert {k for k, v in changes.items() if v is None} == set(loaded.parts[key]) - {key}
    assert set(loaded.changes(key, None).values()) == {None}


def test_a_part_without_its_topic_entry_is_still_loaded():
    key, state = worst_case(stale_runs=60)
    entries = state_entries(key, state)
    del entries[key]
    loaded = load_states(entries)
    assert loaded.states[key].stale  # the runs of the surviving parts are still to be deleted
    assert not loaded.states[key].emitted


def test_a_topic_key_splits_at_the_first_slash():
    assert TopicKey.from_key("cdc.prod-$1#/a/b") == TopicKey("cdc.prod-$1#", "a/b")
    assert TopicKey("cdc", "x").key == "cdc/x"


def test_an_empty_state_is_no_entry():
    assert LineageState().to_entry() == {}
    assert state_entries("cdc/x", LineageState()) == {}
    assert not LineageState.from_entry({}).emitted


def test_an_edge_key_names_its_topic_and_its_other_end_and_parses_back():
    topic = TopicKey("cdc.prod-$1#", "dbserver1.inventory.orders")
    sink = EdgeKey.sink(topic, TableRef("lake-house", "orders.v2"))
    source = EdgeKey.source(topic, "mysql://mysql.internal:3306", "inventory.orders")
    assert sink.key == "cdc.prod-$1#/dbserver1.inventory.orders>lake-house/orders.v2"
    assert (
        source.key == "cdc.prod-$1#/dbserver1.inventory.orders<mysql://mysql.internal:3306/inventory.orders"
    )
    for edge in (sink, source, EdgeKey(topic, "legacy")):
        assert EdgeKey.parse(edge.key) == edge
    assert EdgeKey.parse(topic.key) == EdgeKey(topic, "legacy")
    assert sink.as_dict() == {**topic.as_dict(), "table": "lake-house/orders.v2"}


@pytest.mark.parametrize(
    ("namespace", "name"),
    [
        ("s3://raw-zone", "orders/"),
        ("s3://raw-zone", "/"),  # the bucket's root
        ("s3://raw.zone-1", "/leading/slash"),
        ("s3://raw-zone", "cdc$prod#1/.hidden/-_x/"),
        ("s3://raw-zone", "a>b<c|d/x>y.db/t"),  # every separator, in the other end
        ("s3://raw-zone", "|"),
        ("s3://raw-zone", "ünïcødé/日本/"),
    ],
)
def test_a_location_key_parses_back_exactly_whatever_its_prefix_holds(namespace: str, name: str) -> None:
    # Given a topic of the longest name, in a role source's registry (`<account>:<registry>`)
    topic = TopicKey("444455556666:cdc.prod-$1#", "t" * 255)
    # When its location edge is keyed
    edge = EdgeKey.location(topic, namespace, name)
    # Then the key is the topic's, the location separator, the node's identifier; it parses back exactly
    assert edge.key == f"{topic.key}|{namespace}/{name}"
    assert EdgeKey.parse(edge.key) == edge
    assert edge.as_dict() == {**topic.as_dict(), "location": f"{namespace}/{name}"}
    assert edge.table == ""
    assert unstorable(edge.key) == ""


def test_the_keys_written_before_locations_parse_as_before() -> None:
    # Given the keys the sink, source and per-topic layouts wrote, each with the others' separators after it
    keys = {
        "cdc/dbserver1.inventory.orders>lakehouse/orders": ("sink", "lakehouse/orders"),
        "cdc/orders>s3tablescatalog/lake-tables/sales/orders": (
            "sink",
            "s3tablescatalog/lake-tables/sales/orders",
        ),
        "cdc/orders<mysql://mysql:3306/inventory.orders": ("source", "mysql://mysql:3306/inventory.orders"),
        "123456789012:cdc/orders>lakehouse/orders": ("sink", "lakehouse/orders"),
        "cdc/dbserver1.inventory.orders": ("legacy", ""),
    }
    for key, (kind, other) in keys.items():
        # When each is parsed
        edge = EdgeKey.parse(key)
        # Then it is the edge it always was, and writes the same key back
        assert (edge.kind, edge.other) == (kind, other), key
        assert edge.key == key


def test_a_location_whose_key_cannot_be_stored_is_named() -> None:
    topic = TopicKey("r" * 255, "t" * 255)
    # A prefix of 1,024 four-byte characters (Firehose's longest) and one with a line feed
    long = EdgeKey.location(topic, "s3://raw-zone", "𝄞" * 1024)
    assert f"over {MAX_KEY_BYTES}" in unstorable(long.key)
    assert "line feed" in unstorable(EdgeKey.location(topic, "s3://raw-zone", "a\nb").key)
    # The longest sink key is storable, and so is its state packed into entries
    key, state = worst_case()
    assert unstorable(key) == ""
    worst = EdgeKey.location(topic, "s3://" + "b" * 63, "p" * (MAX_KEY_BYTES - 600))
    assert unstorable(worst.key) == ""
    for entry_key, entry in state_entries(worst.key, replace(state, table="")).items():
        assert fits_a_parameter(entry_key, entry)


def old_layout_state(table: str = "lakehouse/orders", **extra) -> LineageState:
    return LineageState(
        fingerprint="f" * 32,
        run_id="11111111-1111-5111-8111-111111111111",
        event_time="2025-03-14T09:15:02.123Z",
        event_ids=("evt00000000001", "evt00000000002"),
        table=table,
        **extra,
    )


def test_an_entry_of_the_per_topic_layout_is_read_as_the_edge_of_its_table():
    # Given the state a per-topic release left: keyed by the topic, naming its table in `tb`, with a part
    topic = TopicKey("cdc", "dbserver1.inventory.orders")
    moment, attempt = "2025-03-14T09:15:00.000Z", "2025-03-14T09:16:00.000Z"
    stale = tuple(StaleRun(f"{i:08d}-2222", moment, attempt, (f"old{i:011d}",), True) for i in range(40))
    old = old_layout_state(stale=stale, deleting=(PendingDelete("gone0000000001", 1),))
    entries = state_entries(topic.key, old)
    assert len(entries) > 1  # the old entry continued in parts
    # When it is loaded
    loaded = load_states(entries)
    # Then it is the state of the sink edge to that table, whole, and due to be rewritten under that key
    edge = EdgeKey.sink(topic, TableRef("lakehouse", "orders")).key
    assert loaded.states == {edge: old}
    assert loaded.migrated == {edge}
    # And saving the edge removes every entry of the old layout
    changes = loaded.changes(edge, old)
    assert {k for k, v in changes.items() if v is None} == set(entries) - set(state_entries(edge, old))
    assert set(state_entries(edge, old)) <= {k for k, v in changes.items() if v is not None}


def test_an_old_entry_beside_its_edge_after_a_save_cut_short_merges_without_losing_a_run():
    # Given a save that wrote the edge's entry but did not remove the topic's (a crash in between)
    topic = TopicKey("cdc", "dbserver1.inventory.orders")
    edge = EdgeKey.sink(topic, TableRef("lakehouse", "orders")).key
    old = old_layout_state(stale=(StaleRun("r-old", "2025-03-14T09:14:00.000Z", "2025-03-14T09:14:00.000Z"),))
    new = LineageState(
        fingerprint="e" * 32, run_id="r-new", event_time="2025-03-14T09:20:00.000Z",
        event_ids=("evt00000000009", "evt00000000010"), table="lakehouse/orders", origin="rule",
    )  # fmt: skip
    loaded = load_states({**state_entries(topic.key, old), **state_entries(edge, new)})
    # Then one state: the newer run current, the old run (and its stale one) kept to be deleted
    state = loaded.states[edge]
    assert set(loaded.states) == {edge}
    assert (state.run_id, state.origin) == ("r-new", "rule")
    assert [run.run_id for run in state.stale] == [old.run_id, "r-old"]
    assert loaded.parts[edge] == {topic.key, edge}


def test_an_old_entry_with_no_table_stays_a_legacy_edge_to_clean_up():
    topic = TopicKey("cdc", "dbserver1.inventory.orders")
    leftover = LineageState(
        stale=(StaleRun("r-failed", "2025-03-14T09:14:00.000Z", "2025-03-14T09:14:00.000Z"),)
    )
    loaded = load_states(state_entries(topic.key, leftover))
    assert loaded.states == {topic.key: leftover}
    assert EdgeKey.parse(topic.key).kind == "legacy"
    assert not loaded.migrated
