"""The functions' results as tables (rich): a summary row of counts, then one table per non-empty list.

The lists are rendered generically (a column per member, in order of first appearance), so a member a
function adds to its result shows without a change here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rich.table import Table

from .outcome import Outcome

SYNC_COUNTS = ("created", "updated", "unchanged", "deleted", "adopted", "mappingWrites", "eventsFailed")
LINEAGE_COUNTS = ("emitted", "unchanged", "cleaned", "stateWrites")
# Members that are lists of items, with the member holding their full count when the list is sampled.
SYNC_LISTS = {
    "planned": "plannedTotal",
    "failed": "failedTotal",
    "held": "heldTotal",
    "skipped": "skippedTotal",
    "warnings": "warningsTotal",
}
LINEAGE_LISTS = (
    "emissions",
    "failed",
    "retracted",
    "retracting",
    "unmapped",
    "invalidMappings",
    "ambiguous",
    "undetermined",
    "connectorErrors",
    "drift",
)
_MAX_CELL = 120


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 1] + "…"


def items_table(title: str, items: Sequence[Any], total: int | None = None) -> Table:
    """One row per item: a column per member of the items (dicts), or one `value` column."""
    shown = f"{title} ({len(items)} of {total})" if total is not None and total > len(items) else title
    table = Table(title=shown, title_justify="left")
    columns = list(dict.fromkeys(key for item in items if isinstance(item, Mapping) for key in item))
    for column in columns or ["value"]:
        table.add_column(column, overflow="fold")
    for item in items:
        if isinstance(item, Mapping):
            table.add_row(*(_cell(item[c]) if c in item else "" for c in columns))
        else:
            table.add_row(_cell(item))
    return table


def counts_table(
    title: str, result: Mapping[str, Any], names: Iterable[str], extra: Mapping[str, Any]
) -> Table:
    """The run's counts, one per row (they fit any terminal)."""
    counts = {name: result[name] for name in names if name in result}
    counts.update(extra)
    table = Table(title=title, title_justify="left")
    table.add_column("count")
    table.add_column("value", justify="right")
    for name, value in counts.items():
        table.add_row(name, _cell(value))
    return table


def _progress_notes(result: Mapping[str, Any]) -> dict[str, Any]:
    notes: dict[str, Any] = {}
    if result.get("incomplete"):
        notes["remaining"] = result.get("remaining", "?")
    if "continued" in result:
        notes["continued"] = "yes" if result["continued"] else "no"
    if result.get("deferred"):
        notes["deferred"] = result["deferred"]
    return notes


def sync_tables(result: Mapping[str, Any]) -> list[Table]:
    extra: dict[str, Any] = {
        "failed": result.get("failedTotal", len(result.get("failed") or [])),
        **({"held": result["heldTotal"]} if "heldTotal" in result else {}),
        **_progress_notes(result),
    }
    title = f"schema-sync ({result.get('trigger', '?')}{', dry run' if result.get('dryRun') else ''})"
    tables = [counts_table(title, result, SYNC_COUNTS, extra)]
    for name, total in SYNC_LISTS.items():
        items = result.get(name) or []
        if items:
            tables.append(items_table(name, items, result.get(total)))
    return tables


def lineage_tables(result: Mapping[str, Any]) -> list[Table]:
    counts = result.get("counts") or {}
    extra: dict[str, Any] = {"failed": counts.get("failed", len(result.get("failed") or []))}
    extra.update(_progress_notes(result))
    title = f"lineage-emission{' (dry run)' if result.get('dryRun') else ''}"
    tables = [counts_table(title, result, LINEAGE_COUNTS, extra)]
    for name in LINEAGE_LISTS:
        items = result.get(name) or []
        if items:
            tables.append(items_table(name, items, counts.get(name)))
    return tables


def outcome_tables(outcome: Outcome) -> list[Table]:
    """The tables for an invocation: its result's, or one row naming the error."""
    if outcome.result is None:
        return [
            items_table(
                f"{outcome.function} failed", [{"error": outcome.error_type, "message": outcome.error}]
            )
        ]
    if outcome.function == "schema-sync":
        return sync_tables(outcome.result)
    return lineage_tables(outcome.result)
