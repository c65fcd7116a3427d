"""lineage-emission's dry run over writer ports that fail on any call (DataZone and Glue posts, the states,
the drift announcement): it plans the edge and passes. The same ports in a real run are reached."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_lineage.lineage.world import LINEAGE_WRITERS, LineageWorld
from lineage_emission.wiring import Wiring, connect
from tests.integration.failing_writers import failing
from tests.integration.lineage.conftest import FakeContext, Lakehouse
from tests.integration.lineage.test_lineage_emission import customers
from tests.integration.lineage.test_lineage_request_options import writes


def wiring_over_failing_writers(reached: list[str]) -> Wiring:
    def world(settings: Any, account: str, function_name: str) -> LineageWorld:
        return failing(connect(settings, account, function_name), LINEAGE_WRITERS, reached)

    return Wiring(world=world)


def test_given_writer_ports_that_fail_on_any_call_when_a_dry_run_emits_then_it_plans_and_passes(
    lakehouse: Lakehouse,
) -> None:
    # Given a topic whose edge was never emitted, and writer ports that fail on any call
    customers(lakehouse)
    reached: list[str] = []
    handler = lakehouse.deployed.handler("lineage-emission", wiring_over_failing_writers(reached))
    lakehouse.reset_calls()
    # When a dry run goes
    result = handler({"dryRun": True}, FakeContext())
    # Then the edge is planned, nothing failed, and no writer was reached
    assert [action["action"] for action in result["planned"]] == ["emit"]
    assert result["failed"] == []
    assert reached == []
    assert writes(lakehouse) == {}


def test_given_the_same_failing_writers_when_a_real_run_emits_then_they_are_reached(
    lakehouse: Lakehouse,
) -> None:
    # Given the same world and writer ports
    customers(lakehouse)
    reached: list[str] = []
    handler = lakehouse.deployed.handler("lineage-emission", wiring_over_failing_writers(reached))
    # When a real run goes, then it fails on the writers (the dry run's pass is no accident)
    with pytest.raises(Exception, match=r"events\.post"):
        handler({}, FakeContext())
    assert "events.post" in reached
