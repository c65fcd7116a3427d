"""The harness's own logic: options, follow-up invocations after a checkpoint, the Lambda-like context."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bench import run
from bench.invoke import LambdaContext


def answer(wall: float, peak: float, **result: Any) -> dict[str, Any]:
    return {"wall_seconds": wall, "peak_rss_mb": peak, "result": result, "error": None}


def test_a_checkpointed_run_is_continued_and_its_invocations_added_up() -> None:
    # Given a sync that checkpoints twice, then finishes
    answers = iter(
        [
            answer(800.0, 150.0, created=400, incomplete=True, remaining=600),
            answer(810.0, 170.0, created=450, incomplete=True, remaining=150),
            answer(200.0, 140.0, created=150),
        ]
    )
    told: list[str] = []

    done = run.until_done(lambda: next(answers), max_invocations=5, log=told.append)

    # Then three invocations ran; time adds up, memory is the largest one's, the result is the last one's
    assert done.invocations == 3
    assert done.wall_seconds == pytest.approx(1810.0)
    assert done.peak_rss_mb == 170.0
    assert done.result == {"created": 150}
    assert len(told) == 2


def test_continuation_stops_at_the_invocation_limit_and_at_an_error() -> None:
    forever = run.until_done(lambda: answer(1.0, 1.0, incomplete=True, remaining=1), max_invocations=3)
    assert forever.invocations == 3
    assert forever.result["incomplete"] is True

    broken = {"wall_seconds": 1.0, "peak_rss_mb": 1.0, "result": {}, "error": "KeyError: 'x'"}
    failed = run.until_done(lambda: broken, max_invocations=3)
    assert failed.invocations == 1
    assert failed.result == {"error": "KeyError: 'x'"}


def test_options_default_to_a_quick_run_and_accept_the_full_one() -> None:
    quick = run.parse_args([])
    full = run.parse_args(["--schemas", "10000", "--latency-ms", "50", "--fast-tuning", "off"])

    assert quick.schemas * quick.latency_ms <= 200 * 20
    assert quick.fast_tuning == run.FAST_TUNING
    assert quick.tuning == {}
    assert (full.schemas, full.latency_ms, full.fast_tuning) == (10000, 50.0, None)
    assert run.parse_args(["--tuning", '{"datazone_rps": 50}']).tuning == {"datazone_rps": 50}
    with pytest.raises(SystemExit):
        run.parse_args(["--schemas", "0"])


def test_long_result_lists_are_cut_for_the_report() -> None:
    result: dict[str, Any] = {
        "failed": [{"schemaArn": str(i)} for i in range(8)],
        "created": 3,
        "planned": [1],
    }

    slim = run._slim(result)

    assert slim["failed"] == result["failed"][:5]
    assert slim["failedTotal"] == 8
    assert slim["created"] == 3
    assert "planned" not in slim
    assert run.report._outcome(slim) == "created 3, failed 8"  # counted in full


def test_the_lambda_context_counts_down_from_its_deadline() -> None:
    # Given contexts started just now, 5 minutes ago and 15 minutes ago (relative to monotonic(), whose
    # zero is arbitrary: on a freshly booted machine it can be under a minute)
    now = time.monotonic()
    fresh = LambdaContext(deadline_seconds=900.0)
    midway = LambdaContext(deadline_seconds=900.0, started=now - 300.0)
    expired = LambdaContext(deadline_seconds=900.0, started=now - 900.5)

    # Then the remaining time counts down from the deadline, and stops at zero once it has passed
    assert 899_000 < fresh.get_remaining_time_in_millis() <= 900_000
    assert 590_000 < midway.get_remaining_time_in_millis() <= 600_000
    assert expired.get_remaining_time_in_millis() == 0


def test_scenarios_can_be_chosen_and_bring_what_they_need() -> None:
    every = run.parse_args([]).scenarios
    chosen = run.parse_args(["--scenarios", "resync_no_change,lineage_no_change"]).scenarios

    assert every == set(run.report.DEFAULT_SCENARIOS)
    # The project's no-change reruns run on the readers world, after its first sync and lineage first run;
    # the baseline's on its main world, after its own first sync and lineage first run
    assert chosen == {
        "first_sync",
        "resync_no_change",
        "lineage_first",
        "lineage_no_change",
        "first_sync_readers",
        "lineage_first_consumers",
    }
    with pytest.raises(SystemExit):
        run.parse_args(["--scenarios", "first_sync,warp_speed"])


def test_the_readers_world_alone_needs_no_main_first_sync_without_the_baseline() -> None:
    # Given the project alone (no baseline to compare the no-change reruns with)
    alone = run.parse_args(["--skip-baseline", "--scenarios", "resync_no_change,lineage_no_change"]).scenarios
    consumers = run.parse_args(["--skip-baseline", "--scenarios", "lineage_first_consumers"]).scenarios

    # Then only the readers world runs: its first sync, then what was asked and what it follows
    assert alone == {"first_sync_readers", "resync_no_change", "lineage_first_consumers", "lineage_no_change"}
    assert consumers == {"first_sync_readers", "lineage_first_consumers"}
    assert set(run.report.READERS_SCENARIOS) <= set(run.report.DEFAULT_SCENARIOS)
