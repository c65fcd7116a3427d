"""The lineage result stays small at any size: counts, and samples of its per-item lists."""

from __future__ import annotations

import json

from kafka_lineage.lineage.result import SAMPLE_SIZE, EmitResult


def test_lists_are_sampled_and_counted_so_the_result_stays_small_at_any_size():
    # Given a run over 100,000 topics, every one emitted, failed and unmapped
    result = EmitResult(dry_run=False)
    for i in range(100_000):
        topic = {"registryName": "cdc", "topic": f"dbserver1.inventory.t{i:06d}"}
        result.emitted += 1
        result.emissions.add({**topic, "table": "lakehouse/x" * 10, "eventIds": ["a" * 14, "b" * 14]})
        result.fail({**topic, "error": "x" * 200})
        result.unmapped.add(topic)
    # When it is returned
    answer = result.to_dict()
    # Then each list holds its first items only, the counts hold every one, and the whole is a few kilobytes
    assert len(answer["emissions"]) == len(answer["failed"]) == len(answer["unmapped"]) == SAMPLE_SIZE
    assert answer["emissions"][0]["topic"] == "dbserver1.inventory.t000000"
    assert answer["counts"]["emissions"] == answer["counts"]["failed"] == 100_000
    assert answer["emitted"] == 100_000
    assert len(json.dumps(answer)) < 60_000  # Lambda's response limit is 6 MB


def test_a_run_cut_short_says_so_and_a_complete_one_does_not():
    result = EmitResult(dry_run=False)
    assert "incomplete" not in result.to_dict()
    result.incomplete, result.remaining = True, 7
    assert (result.to_dict()["incomplete"], result.to_dict()["remaining"]) == (True, 7)
