"""The whole emission in memory: group-by-group saves, the lease checked before each, the deadline."""

from __future__ import annotations

import pytest

from bench import seed
from kafka_lineage.aws.lease import LeaseLost
from kafka_lineage.lineage.plan import EmitScope
from kafka_lineage.lineage.run import emit_lineage
from tests.unit.lineage.lineage_builders import settings, source
from tests.unit.lineage.memory_world import memory_world

CONFIG = settings(source(tableRule=seed.TABLE_RULE))


class Lease:
    def __init__(self, lost_after: int | None = None) -> None:
        self.checks = 0
        self.lost_after = lost_after

    def ensure_held(self) -> None:
        self.checks += 1
        if self.lost_after is not None and self.checks > self.lost_after:
            raise LeaseLost("generation 1 was taken over by another invocation (generation 2)")


def test_a_first_run_writes_each_state_parameter_once_checking_the_lease_before_every_save():
    # Given 300 topics (their states spread over most of the store's 256 hash groups)
    world, ssm, _events = memory_world(300)
    lease = Lease()
    # When the first run emits them all
    result = emit_lineage(EmitScope(), CONFIG, world, lease=lease, acquire=lambda: None)
    # Then every state parameter was written exactly once, each save after a lease check
    assert result.emitted == 294
    assert ssm.puts == len(ssm.values) == result.state_writes > 100
    assert 1 <= lease.checks <= ssm.puts
    # And a second run finds every topic recorded
    again = emit_lineage(EmitScope(), CONFIG, world, lease=Lease())
    assert (again.emitted, again.unchanged) == (0, 294)


def test_a_lost_lease_stops_every_write_and_every_further_topic():
    world, ssm, _events = memory_world(300)
    result = emit_lineage(EmitScope(), CONFIG, world, lease=Lease(lost_after=0), acquire=lambda: None)
    assert result.lease_lost
    assert ssm.puts == 0
    assert result.remaining > 0
    assert result.to_dict()["leaseLost"] is True


@pytest.mark.parametrize("left", [0.0, 200.0])
def test_inside_the_deadline_margin_nothing_starts(left):
    # Given an invocation with `left` seconds, and the default 60 s margin
    world, _ssm, events = memory_world(50)
    result = emit_lineage(EmitScope(), CONFIG, world, remaining_seconds=lambda: left)
    if left < 60:
        # (an invocation that starts inside its margin does not even read: it cannot know what is left)
        assert (result.emitted, result.incomplete, result.progressed) == (0, True, False)
        assert events.count == 0
    else:
        assert (result.emitted, result.incomplete) == (49, False)
