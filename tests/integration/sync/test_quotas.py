"""schema-sync against the stand-ins' rate quotas (AWS's per-operation rates, a neighbour taking half of
each), on the virtual clock: it adapts, converges, stops in time, and keeps one asset per schema when
overlapped."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from kafka_lineage.config import Tuning
from local import world
from tests.fixtures import CountdownContext, VirtualClock
from tests.integration.sync.conftest import CdcWorld
from tests.integration.sync.test_schema_sync import run_to_completion

# The production defaults: every operation paced at its own quota (the cdc world raises them otherwise).
DEFAULT_RATES = {key: getattr(Tuning(), key) for key in ("datazone_rps", "glue_rps", "ssm_write_rps")}


def throttled(cdc: CdcWorld) -> int:
    return sum(cdc.aws.quotas.throttled.values())


def test_a_first_sync_next_to_a_half_quota_neighbour_converges_with_few_throttles(
    cdc: CdcWorld, quotas: Callable[..., VirtualClock]
) -> None:
    # Given 80 new schemas, the default pacing, and a neighbour using half of every quota
    for i in range(80):
        cdc.register(f"orders.v{i}")
    cdc.configure(world.source_config(), tuning=DEFAULT_RATES)
    quotas(neighbour=0.5)
    cdc.reset_calls()

    # When the first sync runs
    result = cdc.sync()

    # Then every schema is mirrored once, and few of its calls were throttled (each retried)
    assert result["created"] == 80
    assert len(cdc.assets()) == 80
    calls = cdc.calls()
    assert calls["datazone:CreateAsset"] - cdc.aws.quotas.throttled["datazone:CreateAsset"] == 80
    assert throttled(cdc) <= 0.1 * sum(calls.values()), cdc.aws.quotas.throttled


def test_near_the_deadline_under_throttling_every_invocation_stops_in_time_and_nothing_is_redone(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch, quotas: Callable[..., VirtualClock]
) -> None:
    # Given 60 new schemas, Glue's ceiling at 2 a second per operation (so the reads take longer than one
    # invocation), a half-quota neighbour, and 12 s left in every invocation with a 2 s margin
    for i in range(60):
        cdc.register(f"t{i}")
    tuning = {**DEFAULT_RATES, "glue_rps": 2, "deadline_margin_seconds": 2}
    cdc.configure(world.source_config(), tuning=tuning)
    clock = quotas(neighbour=0.5)
    cdc.reset_calls()

    # When the sync runs, and its follow-ups run with the event each one hands on
    runs = run_to_completion(cdc, monkeypatch, {}, seconds=12, clock=clock.monotonic)

    # Then every invocation ended the margin before its deadline, and each made progress
    walls = [round(wall, 2) for _, wall in runs]
    assert all(wall <= 12 - 2 for wall in walls), walls
    assert len(runs) > 1
    # And all schemas were mirrored once: no schema created twice, whatever was throttled
    assert sum(result["created"] for result, _ in runs) == 60
    assert len(cdc.assets()) == 60
    assert cdc.aws.call_counts(ok=True)["datazone:CreateAsset"] == 60


def test_two_overlapping_invocations_under_throttling_converge_to_one_asset_each(
    cdc: CdcWorld, quotas: Callable[..., VirtualClock]
) -> None:
    # Given 30 schemas, and a half-quota neighbour
    names = [f"orders.v{i}" for i in range(30)]
    for name in names:
        cdc.register(name)
    cdc.configure(world.source_config(), tuning=DEFAULT_RATES)
    clock = quotas(neighbour=0.5)
    every = {"schemaArns": [world.schema_arn("cdc", name) for name in names]}

    # When two invocations asked for every schema start together
    def run(request_id: str) -> dict[str, Any]:
        return cdc.sync(every, context=CountdownContext(900, request_id, clock=clock.monotonic))

    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(run, ["req-a", "req-b"]))

    # Then neither failed (the second either waited for the lease and found the work done, or met the same
    # idempotent CreateAsset requests), and there is exactly one asset per schema
    assert [result["failed"] for result in runs] == [[], []]
    assets = cdc.assets()
    assert sorted(asset.external_identifier for asset in assets) == sorted(every["schemaArns"])
