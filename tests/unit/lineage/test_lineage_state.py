"""The per-topic emission state: round trip, nothing dropped, and every packed entry fits an SSM parameter."""

from __future__ import annotations

import json

import pytest

from kafka_lineage.aws.packed_store import _EMPTY_SIZE, MAX_VALUE_BYTES, _Chunk
from kafka_lineage.lineage.model import (
    LineageState,
    PendingDelete,
    StaleRun,
    TopicKey,
    load_states,
    state_entries,
)


def worst_case(stale_runs: int = 11, pending: int = 0) -> tuple[str, LineageState]:
    key = TopicKey("r" * 255, "t" * 255)
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
