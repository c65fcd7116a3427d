"""The per-topic emission state: round trip, and the worst case fits one packed SSM parameter."""

from __future__ import annotations

from kafka_lineage.aws.packed_store import MAX_VALUE_BYTES
from kafka_lineage.lineage.model import MAX_STALE_RUNS, LineageState, StaleRun, TopicKey


def worst_case() -> tuple[str, LineageState]:
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
        for i in range(MAX_STALE_RUNS + 3)
    )
    state = LineageState(
        fingerprint="f" * 32,
        run_id="11111111-1111-5111-8111-111111111111",
        event_time="2025-03-14T09:15:02.123Z",
        event_ids=("abcdefghijklmn", "opqrstuvwxyz01"),
        table="d" * 255 + "/" + "t" * 255,
        stale=stale,
    )
    return key.key, state


def test_state_round_trips_through_its_entry():
    _, state = worst_case()
    back = LineageState.from_entry(state.to_entry())
    # Only the newest MAX_STALE_RUNS stale runs are kept
    assert back == LineageState(**{**state.__dict__, "stale": state.stale[-MAX_STALE_RUNS:]})


def test_the_worst_case_entry_fits_a_standard_parameter():
    import json

    key, state = worst_case()
    entry = json.dumps({key: state.to_entry()}, separators=(",", ":"), ensure_ascii=False)
    assert len(entry.encode()) + len('{"v":1,"e":}') < MAX_VALUE_BYTES


def test_a_topic_key_splits_at_the_first_slash():
    assert TopicKey.from_key("cdc.prod-$1#/a/b") == TopicKey("cdc.prod-$1#", "a/b")
    assert TopicKey("cdc", "x").key == "cdc/x"


def test_an_empty_state_is_an_empty_entry():
    assert LineageState().to_entry() == {}
    assert not LineageState.from_entry({}).emitted
