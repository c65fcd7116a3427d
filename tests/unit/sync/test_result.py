"""The schema-sync result stays small at any registry size: counts, and samples of the per-item lists."""

from __future__ import annotations

import json

from kafka_lineage.sync.result import SAMPLE, SyncResult


def test_given_a_failure_per_schema_of_a_huge_registry_when_returned_then_a_sample_and_the_total() -> None:
    # Given a run in which 100,000 schemas failed and as many were planned (dry run)
    result = SyncResult(dry_run=True, trigger="schedule")
    for i in range(100_000):
        arn = f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{'t' * 200}{i}"
        result.failed.add({"schemaArn": arn, "error": "ValidationException: " + "x" * 300})
        result.planned.add({"action": "create", "schemaArn": arn, "reason": "new"})

    # When it is rendered as the Lambda's response
    rendered = result.to_dict()
    size = len(json.dumps(rendered).encode())

    # Then it keeps the contract's keys, the first entries of each list and their totals, far below 6 MB
    assert {"dryRun", "created", "updated", "unchanged", "deleted", "failed"} <= set(rendered)
    assert len(rendered["failed"]) == SAMPLE
    assert rendered["failedTotal"] == 100_000
    assert rendered["failed"][0]["schemaArn"].endswith("t0")
    assert len(rendered["planned"]) == SAMPLE
    assert rendered["plannedTotal"] == 100_000
    assert size < 200_000
