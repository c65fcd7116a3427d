"""The result samples of docs/invocation.md, rendered from the result types themselves.

The page's Cog blocks write them (`make docs-gen`): each is a JSON block that `to_dict()` of a sample result
returns (`SyncResult`, `EmitResult`), so every member a result always carries is on the page, and a list of
the members that appear only when they apply, each with what it means. A member the results gain without a
meaning here fails `make docs-gen` (tests/unit/test_result_samples.py). `python docs/gen_results.py` prints
them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_common import ensure_paths

ensure_paths()

from kafka_lineage.engine.lease import Deferred  # noqa: E402
from kafka_lineage.lineage.result import EmitResult  # noqa: E402
from kafka_lineage.model.delivery import InactivePath  # noqa: E402
from kafka_lineage.model.report import Sample, failure_item  # noqa: E402
from kafka_lineage.sync.governed import HeldDeletion  # noqa: E402
from kafka_lineage.sync.result import SyncResult  # noqa: E402

PAGE = "invocation.md"
SCHEMA = "arn:aws:glue:eu-west-1:111122223333:schema/cdc/orders-value"

# Members a result has only when they apply, and what they say. The handlers add `continued` themselves.
SYNC_OCCASIONAL = {
    "planned": "a dry run's plan (its first 100 actions), with `plannedTotal`",
    "plannedTotal": "the number of actions a dry run planned",
    "incomplete": "`true` when the deadline came before every schema was looked at",
    "remaining": "how many were left for the follow-up invocation",
    "deferred": '`"busy"` when another invocation held the mapping\'s lease: nothing was written',
}
LINEAGE_OCCASIONAL = {
    "keptConnectorEdges": "connector edges kept as they are because their connector could not be read",
    "incomplete": "`true` when the deadline came before every action started",
    "remaining": "how many actions were left for the follow-up invocation",
    "leaseLost": "`true` when another invocation took the state's lease during the run: this one stopped "
    "writing state at once and hands nothing on (the holder finishes the work)",
    "planned": "a dry run's plan (every action it would take)",
}


def sync_sample() -> SyncResult:
    """A full sync that created, revised, published, held and failed a little."""
    result = SyncResult(dry_run=False, trigger="schedule")
    result.created, result.updated, result.unchanged, result.published = 3, 1, 40, 1
    # The items as the run records them, without its log lines (which would print during the docs build).
    result.held.add(
        HeldDeletion(
            schema_arn=SCHEMA.replace("orders", "customers"), asset_id="…", subscriptions=2
        ).describe()
    )
    result.failed.add(failure_item("AccessDeniedException: …", schemaArn=SCHEMA))
    result.record_chunk(writes=2, saved=True)
    return result


def sync_everything() -> SyncResult:
    """A result with every occasional member present."""
    result = SyncResult(dry_run=True, trigger="schedule")
    result.incomplete, result.remaining = True, 7
    result.defer(Deferred())
    return result


def _add(sample: Sample, *items: dict[str, Any]) -> None:
    sample.extend(items)


def lineage_sample() -> EmitResult:
    """A run that emitted edges of each kind, left a topic undetermined and found a stream inactive."""
    result = EmitResult(dry_run=False)
    result.emitted, result.unchanged, result.state_writes = 3, 30, 4
    _add(
        result.emissions,
        {"topic": "…", "table": "…", "origin": "connector:lakehouse-sink", "job": "…", "runId": "…"},
        {
            "topic": "…",
            "sourceDataset": "mysql://…:3306/inventory.orders",
            "origin": "connector:inventory-mysql",
        },
        {"topic": "…", "location": "s3://raw-zone/orders/", "origin": "firehose:orders-raw"},
    )
    _add(result.undetermined, {"registryName": "…", "topic": "…", "connector": "…", "reason": "…"})
    _add(result.inactive_paths, InactivePath("firehose:orders-raw-backup", "CREATING", "…").as_dict())
    return result


def lineage_everything() -> EmitResult:
    """A result with every occasional member present."""
    result = EmitResult(dry_run=True)
    result.kept, result.remaining, result.incomplete, result.lease_lost = 2, 7, True, True
    result.planned = []
    return result


def _value(key: str, value: Any) -> str:
    """A member's value, compact; a list of several items one item a line."""
    if isinstance(value, list) and len(value) > 1:
        indent = ",\n" + " " * (len(json.dumps(key)) + 4)
        return "[" + indent.join(json.dumps(item, ensure_ascii=False) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def render(result: dict[str, Any]) -> str:
    """A result as a JSON block: one member a line."""
    members = [f"{json.dumps(key)}: {_value(key, value)}" for key, value in result.items()]
    return "```json\n{" + ",\n ".join(members) + "}\n```"


def occasional(
    sample: dict[str, Any], everything: dict[str, Any], meanings: dict[str, str], name: str
) -> list[str]:
    """The members `everything` has that `sample` lacks, each with its meaning; refuses one without."""
    extra = [key for key in everything if key not in sample]
    missing = [key for key in extra if key not in meanings]
    if missing:
        raise ValueError(f"{name} members without a meaning in docs/gen_results.py: {', '.join(missing)}")
    return [f"- `{key}`: {meanings[key]}" for key in extra]


def _block(
    sample: Callable[[], Any], everything: Callable[[], Any], meanings: dict[str, str], name: str
) -> str:
    shown = sample().to_dict()
    lines = occasional(shown, everything().to_dict(), meanings, name)
    return render(shown) + "\n\nMembers present only when they apply:\n\n" + "\n".join(lines)


def sync_block() -> str:
    return _block(sync_sample, sync_everything, SYNC_OCCASIONAL, "SyncResult")


def lineage_block() -> str:
    return _block(lineage_sample, lineage_everything, LINEAGE_OCCASIONAL, "EmitResult")


if __name__ == "__main__":
    print(sync_block(), lineage_block(), sep="\n\n")
