"""One writer of the mapping: overlapping schema-sync invocations under latency lose no mapping entry."""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
import pytest

from kafka_lineage.aws.asset_records import AssetRecordStore
from kafka_lineage.aws.packed_store import PackedStore
from local import world
from tests.fixtures import CountdownContext
from tests.integration.sync.conftest import CdcWorld


def colliding_pairs(count: int) -> list[tuple[str, str]]:
    """`count` pairs of schema names whose mapping entries share a hash group (so a parameter)."""
    seen: dict[str, str] = {}
    pairs: list[tuple[str, str]] = []
    for n in itertools.count():
        name = f"orders.v{n}"
        group = PackedStore.group_of(world.schema_arn("cdc", name))
        if group in seen:
            pairs.append((seen.pop(group), name))
            if len(pairs) == count:
                return pairs
        else:
            seen[group] = name
    raise AssertionError("unreachable")


def mapped() -> set[str]:
    return set(AssetRecordStore(boto3.client("ssm", region_name=world.REGION), world.MAPPING_PATH).load())


def context(request_id: str, seconds: float = 900) -> CountdownContext:
    return CountdownContext(seconds, request_id)


def halves(cdc: CdcWorld, pairs: list[tuple[str, str]]) -> tuple[dict[str, Any], dict[str, Any]]:
    for pair in pairs:
        for name in pair:
            cdc.register(name)
    first = {"schemaArns": [world.schema_arn("cdc", a) for a, _ in pairs]}
    second = {"schemaArns": [world.schema_arn("cdc", b) for _, b in pairs]}
    return first, second


def test_two_overlapping_invocations_under_latency_converge_to_one_asset_each_and_a_complete_mapping(
    cdc: CdcWorld,
) -> None:
    # Given 10 pairs of schemas whose entries share a mapping parameter, and every AWS call taking 20 ms
    pairs = colliding_pairs(10)
    first, second = halves(cdc, pairs)
    cdc.aws.latency_ms = 20

    # When two invocations start together, each asked for one schema of every pair
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(
            pool.map(
                lambda job: cdc.sync(job[0], context=context(job[1])), [(first, "req-a"), (second, "req-b")]
            )
        )

    # Then one held the mapping while the other waited for it, and each mirrored its own half
    assert sorted(run["created"] for run in runs) == [10, 10]
    # And there is exactly one asset per schema, and the mapping knows every one of them
    arns = {world.schema_arn("cdc", name) for pair in pairs for name in pair}
    assets = cdc.assets()
    assert sorted(asset.external_identifier for asset in assets) == sorted(arns)
    assert mapped() == arns


def test_an_invocation_that_cannot_get_the_lease_hands_its_event_on_and_the_follow_up_does_it(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    from schema_sync.wiring import Wiring

    # Given one invocation holding the mapping, and another that may not wait for it
    pairs = colliding_pairs(6)
    first, second = halves(cdc, pairs)
    cdc.aws.latency_ms = 20
    impatient = cdc.deployed.handler("schema-sync", Wiring(lease_wait_seconds=0.0))
    handed: list[dict[str, Any]] = []
    monkeypatch.setattr(
        "kafka_lineage.aws.continuation.continue_asynchronously",
        lambda _client, _arn, event: handed.append(event),
    )
    from kafka_lineage.aws.clients import Clients
    from kafka_lineage.aws.lease import StateLease

    holder = StateLease(Clients().client("ssm"), world.MAPPING_PATH, "schema-sync", 900, "someone-else")
    holder.acquire(wait_seconds=0)

    # When the second invocation runs, then it defers: nothing written, the same request handed on (with
    # the pace its calls reached, and no lease generation: it held none)
    deferred = impatient(second, context("req-b"))
    assert deferred["deferred"] == "busy"
    assert deferred["continued"] is True
    assert [{key: value for key, value in event.items() if key != "handover"} for event in handed] == [second]
    assert "lease" not in handed[0].get("handover", {})
    assert cdc.assets() == []

    # When the holder is done and the follow-up runs the handed event, then it mirrors that half
    holder.release()
    assert cdc.sync(handed[0], context=context("req-c"))["created"] == 6
    cdc.sync(first, context=context("req-d"))
    assert mapped() == {world.schema_arn("cdc", name) for pair in pairs for name in pair}


def test_a_lost_answer_to_the_lease_create_still_leaves_the_run_holding_its_lease(cdc: CdcWorld) -> None:
    # Given the lease's create is applied but its answer is lost (the SDK's retry then meets the name)
    cdc.register("orders")
    cdc.aws.faults.add(service="ssm", operation="PutParameter", kind="lost_response", times=1)

    # When the sync runs, then it holds the lease it created and mirrors the schema without waiting
    result = cdc.sync(context=context("req-a"))

    assert result["created"] == 1
    assert "deferred" not in result
    assert mapped() == {world.schema_arn("cdc", "orders")}


def test_a_run_that_loses_its_lease_stops_writing_and_the_next_run_adopts_what_it_left(
    cdc: CdcWorld,
) -> None:
    import json

    from kafka_lineage.aws.clients import Clients
    from kafka_lineage.aws.lease import StateLease
    from kafka_lineage.model.failures import LeaseLost
    from schema_sync.wiring import HOLDER, Wiring

    class TakenOver(StateLease):
        """Another invocation takes the lease over after the run's first save."""

        checks = 0

        def ensure_held(self) -> None:
            TakenOver.checks += 1
            if TakenOver.checks > 1:
                raise LeaseLost("schema-sync lease generation 1 was taken over")
            super().ensure_held()

    # Given 60 new schemas, and a run whose lease is taken over after its first chunk was saved
    for i in range(60):
        cdc.register(f"t{i}")

    def taken_over(settings: Any, invocation: Any) -> StateLease:
        ssm = Clients().client("ssm")
        return TakenOver(ssm, settings.mapping_path, HOLDER, 900, invocation.aws_request_id)

    # When it runs, then it saves nothing more, stops, and reports the unsaved items as failed
    with pytest.raises(Exception, match="mapping not saved") as raised:
        cdc.deployed.handler("schema-sync", Wiring(lease=taken_over))({}, context("req-a"))
    summary = json.loads(str(raised.value))
    saved = mapped()
    assert 0 < len(saved) < 60
    assert summary["created"] == len(saved)

    # When the next run holds the lease, then it adopts what the stopped run created but did not record
    result = cdc.sync(context=context("req-b"))
    assert len(cdc.assets()) == 60
    assert mapped() == {world.schema_arn("cdc", f"t{i}") for i in range(60)}
    assert result["created"] + result["adopted"] == 60 - len(saved)
