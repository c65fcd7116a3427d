"""schema-sync's dry run over writer ports that fail on any call: it plans every schema and passes. The same
ports in a real run are reached (so the test can fail)."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_lineage.sync.ports import SYNC_WRITERS, SyncAdapters
from schema_sync.handler import SyncFailed
from schema_sync.wiring import Wiring, build_adapters
from tests.fixtures import FakeContext
from tests.integration.failing_writers import failing
from tests.integration.sync.conftest import CdcWorld
from tests.integration.sync.test_schema_sync import WRITE_OPERATIONS


def wiring_over_failing_writers(reached: list[str]) -> Wiring:
    def adapters(settings: Any, lease: Any, function_name: str) -> SyncAdapters:
        return failing(build_adapters(settings, lease, function_name), SYNC_WRITERS, reached)

    return Wiring(adapters=adapters, hand_on=lambda arn, event: False)


def test_given_writer_ports_that_fail_on_any_call_when_a_dry_run_syncs_then_it_plans_and_passes(
    cdc: CdcWorld,
) -> None:
    # Given schemas no run has mirrored yet, and writer ports that fail on any call
    names = cdc.inventory()
    reached: list[str] = []
    handler = cdc.deployed.handler("schema-sync", wiring_over_failing_writers(reached))
    cdc.reset_calls()
    # When a dry run goes
    result = handler({"dryRun": True}, FakeContext())
    # Then every schema is planned, no item failed, and no writer was reached
    assert result["dryRun"] is True
    assert result["created"] == len(names)
    assert result["failed"] == []
    assert reached == []
    assert not WRITE_OPERATIONS & set(cdc.calls())


def test_given_the_same_failing_writers_when_a_real_run_syncs_then_they_are_reached(cdc: CdcWorld) -> None:
    # Given the same world and writer ports
    cdc.inventory()
    reached: list[str] = []
    handler = cdc.deployed.handler("schema-sync", wiring_over_failing_writers(reached))
    # When a real run goes, then it fails on the writers (the dry run's pass is no accident)
    with pytest.raises(SyncFailed):
        handler({}, FakeContext())
    assert reached
