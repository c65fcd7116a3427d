"""The harness's watching of the handlers: call signatures, the new options, parsing CPU by format."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from bench import invoke, run, seed
from bench.report import DOCUMENTED_TUNING


def test_a_call_signature_ignores_idempotency_tokens_and_names_ssm_targets() -> None:
    # Given two CreateAsset calls that differ only in their client token, and a PutParameter
    first = invoke.call_signature(
        "datazone", "CreateAsset", {"name": "t", "clientToken": "a"}, {"clientToken"}
    )
    second = invoke.call_signature(
        "datazone", "CreateAsset", {"name": "t", "clientToken": "b"}, {"clientToken"}
    )
    other = invoke.call_signature(
        "datazone", "CreateAsset", {"name": "u", "clientToken": "a"}, {"clientToken"}
    )
    put = invoke.call_signature("ssm", "PutParameter", {"Name": "/m/a", "Value": "v"}, set())

    # Then the same request has the same digest, another request another one, and SSM calls name their target
    assert first == second
    assert first[:2] == ["datazone:CreateAsset", ""]
    assert other[2] != first[2]
    assert put[:2] == ["ssm:PutParameter", "/m/a"]


def test_every_api_call_of_any_client_is_recorded_once_and_only_inside_the_block() -> None:
    # Given a client built in the block's absence, answered by a stub
    client = boto3.client("ssm", region_name="eu-west-1", aws_access_key_id="x", aws_secret_access_key="y")
    stubber = Stubber(client)
    for _ in range(3):
        stubber.add_response("put_parameter", {"Version": 1}, None)
    stubber.activate()

    # When it makes two identical calls inside the block and one after it
    with invoke.recorded_calls() as recorded:
        client.put_parameter(Name="/m/a", Value="v", Type="String", Overwrite=True)
        client.put_parameter(Name="/m/a", Value="v", Type="String", Overwrite=True)
    client.put_parameter(Name="/m/b", Value="v", Type="String", Overwrite=True)

    # Then the two inside are recorded, with one signature
    calls = recorded.calls
    assert len(calls) == 2
    assert calls[0] == calls[1]
    assert calls[0][:2] == ["ssm:PutParameter", "/m/a"]
    # And each with its span, one after the other
    assert [key for key, _, _ in recorded.spans] == ["ssm:PutParameter"] * 2
    (_, start_1, end_1), (_, start_2, end_2) = recorded.spans
    assert 0 <= start_1 <= end_1 <= start_2 <= end_2


def test_a_checkpointed_run_keeps_the_calls_of_every_invocation_in_order() -> None:
    answers = iter(
        [
            {
                "wall_seconds": 1.0,
                "peak_rss_mb": 1.0,
                "result": {"incomplete": True},
                "calls": [["a:Get", "", "1"]],
            },
            {
                "wall_seconds": 1.0,
                "peak_rss_mb": 1.0,
                "result": {},
                "calls": [["a:Get", "", "1"], ["a:Put", "", "2"]],
            },
        ]
    )

    done = run.until_done(lambda: next(answers), max_invocations=5)

    assert done.calls == [["a:Get", "", "1"], ["a:Get", "", "1"], ["a:Put", "", "2"]]


def test_the_new_options_default_to_the_documented_quotas_and_a_short_deadline() -> None:
    quick = run.parse_args([])
    chosen = run.parse_args(
        [
            "--documented-tuning",
            "off",
            "--checkpoint-deadline-seconds",
            "120",
            "--checkpoint-max-invocations",
            "9",
        ]
    )

    assert quick.documented_tuning == DOCUMENTED_TUNING
    assert quick.checkpoint_deadline_seconds == run.CHECKPOINT_DEADLINE_SECONDS
    assert {"first_sync_checkpointed", "by_format"} <= quick.scenarios
    assert "first_sync_documented" not in quick.scenarios  # on demand: --scenarios first_sync_documented
    assert (
        chosen.documented_tuning,
        chosen.checkpoint_deadline_seconds,
        chosen.checkpoint_max_invocations,
    ) == (
        None,
        120.0,
        9,
    )
    with pytest.raises(SystemExit):
        run.parse_args(["--checkpoint-deadline-seconds", "0"])


def test_parsing_cpu_is_measured_per_format_on_the_seeded_definitions() -> None:
    # Given the seeded topics of a small registry
    topics = seed.topics(30)

    # When parsing is timed, on at most 5 definitions per format
    found = run.parse_cpu_ms(topics, sample=5, rounds=1)

    # Then every format present has a positive figure
    assert set(found) == {topic.data_format for topic in topics}
    assert all(value > 0 for value in found.values())


def test_a_chain_that_makes_no_progress_is_stopped_as_stalled() -> None:
    # Given a sync that checkpoints with 40 left, then 30, then 30 again and again
    left = iter([40, 30, 30, 30, 30, 30, 30])
    told: list[str] = []

    def invocation() -> dict[str, object]:
        return {
            "wall_seconds": 1.0,
            "peak_rss_mb": 1.0,
            "result": {"incomplete": True, "remaining": next(left)},
        }

    done = run.until_done(invocation, max_invocations=100, log=told.append, stall_limit=3)

    # Then the harness gives up after three invocations without progress, and says so
    assert done.invocations == 5
    assert done.result["stalled"] is True
    assert "no progress" in told[-1]


def test_a_deferred_invocation_is_followed_up_like_a_checkpoint() -> None:
    answers = iter(
        [
            {"wall_seconds": 1.0, "peak_rss_mb": 1.0, "result": {"deferred": "busy", "continued": True}},
            {"wall_seconds": 1.0, "peak_rss_mb": 1.0, "result": {"created": 3}},
        ]
    )

    done = run.until_done(lambda: next(answers), max_invocations=5)

    assert done.invocations == 2
    assert done.result == {"created": 3}


def test_a_scenario_on_a_fresh_world_runs_without_the_main_first_sync() -> None:
    # The 10,000-schema checkpointed sync alone must not pay for a full first sync at the safe defaults first
    alone = run.parse_args(["--scenarios", "first_sync_checkpointed"]).scenarios
    with_verify = run.parse_args(["--scenarios", "first_sync_checkpointed,verify"]).scenarios

    assert alone == {"first_sync_checkpointed"}
    assert with_verify == {"first_sync_checkpointed", "verify", "first_sync"}
    # A checkpointed lineage run needs the world its checkpointed sync builds, next to the same neighbour
    lineage = run.parse_args(["--scenarios", "lineage_first_checkpointed_neighbour"]).scenarios
    assert lineage == {"lineage_first_checkpointed_neighbour", "first_sync_checkpointed_neighbour"}
