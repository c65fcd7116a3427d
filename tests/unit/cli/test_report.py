"""The result tables (kafka_lineage_cdk.report): every count and every list a result carries is shown, by
its kind and not by its name, so what a function adds to its result later shows too."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

from rich.console import Console

from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.model.report import Sample
from kafka_lineage.sync.result import SyncResult
from kafka_lineage_cdk.outcome import Outcome
from kafka_lineage_cdk.report import outcome_tables, summary_rows


def render(function: str, result: dict[str, Any]) -> str:
    console = Console(file=io.StringIO(), width=400, color_system=None)
    for table in outcome_tables(Outcome(function, result=result)):
        console.print(table)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert isinstance(text, str)
    return text


def titles(function: str, result: dict[str, Any]) -> list[str]:
    return [str(table.title) for table in outcome_tables(Outcome(function, result=result))]


def filled(result: Any) -> Any:
    """Every list of a result's dataclass given one item naming it, and every count a distinct value."""
    for number, field in enumerate(dataclasses.fields(result), start=7):
        value = getattr(result, field.name)
        if isinstance(value, Sample):
            value.add({"item": f"{field.name}-item"})
        elif isinstance(value, int) and not isinstance(value, bool):
            setattr(result, field.name, number)
    return result


def test_given_every_list_and_count_of_a_lineage_dry_run_when_rendered_then_each_shows() -> None:
    # Given a lineage dry run's result, every list non-empty and every count set (as the handler returns it)
    emit = filled(EmitResult(dry_run=True))
    emit.planned = [
        {"action": "emit", "topic": "dbserver1.inventory.customers", "table": "lakehouse/customers"}
    ]
    emit.incomplete = emit.lease_lost = True
    result = emit.to_dict()
    # When rendered
    text = render("lineage-emission", result)
    shown = titles("lineage-emission", result)
    # Then every member has a row or a table, every list's item shows, and nothing is left out
    assert shown[0] == "lineage-emission (dry run)"
    for name, value in result.items():
        if name in ("dryRun", "counts"):
            continue
        assert name in text, name
        if isinstance(value, list):
            assert name in shown, name
    for name in ("planned", "inactivePaths", "deliveryErrors"):
        assert name in shown
    assert "keptConnectorEdges" in dict(summary_rows(result))
    assert "dbserver1.inventory.customers" in text
    for field in dataclasses.fields(emit):
        if isinstance(getattr(emit, field.name), Sample):
            assert f"{field.name}-item" in text, field.name


def test_given_every_list_and_count_of_a_sync_dry_run_when_rendered_then_each_shows() -> None:
    sync = filled(SyncResult(dry_run=True, trigger="schedule"))
    sync.incomplete = True
    result = sync.to_dict()

    text = render("schema-sync", result)
    rows = dict(summary_rows(result))

    assert titles("schema-sync", result)[0] == "schema-sync (schedule, dry run)"
    assert rows["published"] == str(result["published"])
    for name, value in result.items():
        if name in ("dryRun", "trigger"):
            continue
        if name.endswith("Total"):
            # a list's total is in its list's row
            assert rows[name.removesuffix("Total")] == str(value)
        else:
            assert name in rows, name
    for name in ("held", "failed", "skipped", "planned", "warnings"):
        assert f"{name}-item" in text


def test_given_a_list_and_a_count_no_one_knows_yet_when_rendered_then_they_show() -> None:
    # Given a result with members this module never heard of
    result = {
        "dryRun": False,
        "grants": [{"grantId": "g-1", "role": "arn:aws:iam::111122223333:role/consumer"}],
        "grantsTotal": 7,
        "policiesWritten": 3,
        "leaseLost": False,
        "limits": {"inline": 10240},
    }
    # When rendered
    text = render("subscription-grants", result)
    rows = dict(summary_rows(result))
    # Then the list has its table (sampled: 1 of 7) and its row, and the others their rows
    assert titles("subscription-grants", result) == ["subscription-grants", "grants (1 of 7)"]
    assert rows == {"grants": "7", "policiesWritten": "3", "leaseLost": "no", "limits": '{"inline": 10240}'}
    assert "role/consumer" in text


def test_given_lineage_counts_when_rendered_then_they_are_the_lists_totals() -> None:
    result = {
        "dryRun": False,
        "emitted": 120,
        "emissions": [{"topic": f"t{n}"} for n in range(50)],
        "failed": [],
        "counts": {"emissions": 120, "failed": 0, "somethingNew": 2},
        "stateWrites": 4,
    }

    rows = summary_rows(result)

    assert rows == [
        ("emitted", "120"),
        ("emissions", "120"),
        ("failed", "0"),
        ("counts.somethingNew", "2"),
        ("stateWrites", "4"),
    ]
    assert titles("lineage-emission", result) == ["lineage-emission", "emissions (50 of 120)"]


def test_given_a_refused_payload_when_rendered_then_one_row_names_the_error() -> None:
    outcome = Outcome("schema-sync", error_type="InvalidRequest", error="unexpected key 'dryrun'")
    console = Console(file=io.StringIO(), width=200, color_system=None)
    for table in outcome_tables(outcome):
        console.print(table)
    assert "unexpected key 'dryrun'" in console.file.getvalue()  # type: ignore[attr-defined]


def test_given_brackets_in_a_cause_when_rendered_then_they_are_text_not_markup() -> None:
    # Given a failure cause and a count holding what rich would read as markup
    cause = "AccessDenied: arn:aws:iam::111122223333:role/[ops] [bold]denied[/bold]"
    result = {"failed": [{"grantId": "g1", "cause": cause}], "note": "[red]x[/red]"}
    # When rendered / Then both show as they are
    text = render("subscription-grants", result)
    assert cause in text
    assert "[red]x[/red]" in text
