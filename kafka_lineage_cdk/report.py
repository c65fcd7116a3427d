"""The functions' results as tables (rich): a summary table, then one table per non-empty list.

Every member of a result is shown, by its kind and not by its name, so a count or a list that a function
adds to its result later shows without a change here:
- `trigger` and `dryRun` make the summary table's title;
- a number, a flag (yes/no), a word, or any other object (as JSON) is a row of the summary table;
- a list is a row of the summary table with its full count, and, when not empty, a table of its own: a
  column per member of its items, in order of first appearance, titled "name (shown of total)" when the
  function sampled it. The full count is `<list>Total` (schema-sync), `counts.<list>` (lineage-emission),
  else the list's length; those totals appear in their list's row, not as rows of their own.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from rich.table import Table
from rich.text import Text

from .outcome import Outcome

# Members that name the run rather than count anything: they make the summary table's title.
TITLE_MEMBERS = ("trigger", "dryRun")
# lineage-emission's totals of its sampled lists (schema-sync spells them `<list>Total` beside the list).
COUNTS_MEMBER = "counts"
_MAX_CELL = 120


def _cell(value: Any) -> Text:
    """A value as a cell: plain text (AWS's messages may hold brackets, which rich would read as markup)."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return Text(text if len(text) <= _MAX_CELL else text[: _MAX_CELL - 1] + "…")


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


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def list_totals(result: Mapping[str, Any]) -> dict[str, int]:
    """Each list's full count: `<list>Total`, else `counts.<list>`, else its length (a list never sampled)."""
    counts = result.get(COUNTS_MEMBER)
    counts = counts if isinstance(counts, Mapping) else {}
    totals: dict[str, int] = {}
    for name, value in result.items():
        if isinstance(value, list):
            total = result.get(f"{name}Total", counts.get(name))
            totals[name] = total if _is_count(total) else len(value)
    return totals


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    return _cell(value).plain


def summary_rows(result: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Every member of the result but the title's, in the result's order: a list as its full count, a
    list's total in that list's row (not a row of its own), anything else as it is."""
    totals = list_totals(result)
    rows: list[tuple[str, str]] = []
    for name, value in result.items():
        if name in TITLE_MEMBERS or (name.endswith("Total") and name.removesuffix("Total") in totals):
            continue
        if name == COUNTS_MEMBER and isinstance(value, Mapping):
            # the lists' totals, shown in their lists' rows; any other count it holds gets a row
            rows.extend((f"{name}.{key}", _value(v)) for key, v in value.items() if key not in totals)
        elif isinstance(value, list):
            rows.append((name, str(totals[name])))
        else:
            rows.append((name, _value(value)))
    return rows


def summary_table(title: str, result: Mapping[str, Any]) -> Table:
    """The run's counts, one per row (they fit any terminal)."""
    table = Table(title=title, title_justify="left")
    table.add_column("count")
    table.add_column("value", justify="right")
    for name, value in summary_rows(result):
        table.add_row(Text(name), Text(value))
    return table


def result_tables(function: str, result: Mapping[str, Any]) -> list[Table]:
    """A function's result: the summary, then one table per non-empty list, in the result's order."""
    notes = [str(result["trigger"])] if "trigger" in result else []
    notes += ["dry run"] if result.get("dryRun") else []
    title = f"{function} ({', '.join(notes)})" if notes else function
    totals = list_totals(result)
    tables = [summary_table(title, result)]
    for name, total in totals.items():
        items = result[name]
        if items:
            tables.append(items_table(name, items, total))
    return tables


def outcome_tables(outcome: Outcome) -> list[Table]:
    """The tables for an invocation: its result's, or one row naming the error."""
    if outcome.result is None:
        return [
            items_table(
                f"{outcome.function} failed", [{"error": outcome.error_type, "message": outcome.error}]
            )
        ]
    return result_tables(outcome.function, outcome.result)
