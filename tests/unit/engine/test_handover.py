"""What an invocation hands its follow-up (model/handover.py), as both functions' requests read it, and
whether a lease vouches for what a follow-up read before taking it (engine/handover.py)."""

from __future__ import annotations

import pytest

from kafka_lineage.engine.handover import unchanged_since_handover
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.model.handover import HANDOVER_KEY, handover_of, with_handover
from kafka_lineage.model.requests import InvalidRequest
from kafka_lineage.sync.requests import parse_sync_event


def test_a_follow_up_event_carries_the_lease_held_and_the_resume_point_and_the_next_replaces_them() -> None:
    # Given a scheduled request handed on by an invocation that held generation 7 and finished through 3f
    event = {"detail-type": "Scheduled Event", "source": "aws.events", "detail": {}}
    handed = with_handover(event, 7, "3f")
    # Then the follow-up's event is the same request with the handover beside it
    assert handed == {**event, HANDOVER_KEY: {"lease": 7, "through": "3f"}}
    assert (handover_of(handed).lease, handover_of(handed).through) == (7, "3f")
    # When that follow-up hands on without holding the lease (it was deferred: another invocation held it)
    again = with_handover(handed, None, "3f")
    # Then no generation is passed on: the next cannot know who wrote since
    assert again[HANDOVER_KEY] == {"through": "3f"}
    # And the pace reached goes with it, by quota
    paced = with_handover(event, 7, None, {"datazone:CreateAsset": 19.87654, "ssm:parameter-reads": 40.0})
    assert handover_of(paced).rates == {"datazone:CreateAsset": 19.877, "ssm:parameter-reads": 40.0}
    assert parse_emit_event(with_handover({}, 7, None, {"datazone:CreateAsset": 19.9})).mode == "all"
    # And a request handed nothing carries no handover
    assert with_handover(event, None) == event
    assert handover_of(event).lease is None


def test_both_functions_accept_a_handover_and_refuse_one_that_is_not_theirs() -> None:
    # Given follow-up events of both functions
    sync = parse_sync_event({"resumeAfter": {"group": "0a", "key": "k"}, HANDOVER_KEY: {"lease": 3}})
    scope = parse_emit_event({HANDOVER_KEY: {"lease": 3, "through": "3f"}})
    # Then they are read as the same requests, lineage's with where its chain resumes
    assert sync.resume_after == ("0a", "k")
    assert (scope.mode, scope.through) == ("all", "3f")
    # And a malformed handover is refused, naming it
    with pytest.raises(InvalidRequest, match=HANDOVER_KEY):
        parse_emit_event({HANDOVER_KEY: {"lease": "7"}})
    with pytest.raises(InvalidRequest, match=HANDOVER_KEY):
        parse_sync_event({HANDOVER_KEY: {"through": "not hex"}})
    with pytest.raises(InvalidRequest, match=HANDOVER_KEY):
        parse_sync_event({HANDOVER_KEY: {"lease": 1, "owner": "x"}})
    with pytest.raises(InvalidRequest, match=HANDOVER_KEY):
        parse_sync_event({HANDOVER_KEY: {"rates": {"datazone:CreateAsset": -1}}})


class Taken:
    def __init__(self, follows: bool) -> None:
        self.follows_handover = follows


def test_only_a_lease_taken_right_after_the_handed_one_vouches_for_what_was_read() -> None:
    assert unchanged_since_handover(Taken(True))
    assert not unchanged_since_handover(Taken(False))
    assert not unchanged_since_handover(None)
    assert not unchanged_since_handover(object())  # a lease that knows nothing of handovers
