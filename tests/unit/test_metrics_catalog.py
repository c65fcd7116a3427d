"""One definition of the metrics and alarms (kafka_lineage.model.metrics): what the code emits, what the
stack's alarms read and what docs/operate.md shows all come from it."""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.model import metrics as catalog
from kafka_lineage.model.report import Sample
from kafka_lineage.observability import metrics
from kafka_lineage.sync.result import SyncResult
from stacks import monitoring
from tests.unit.docs_generators import DOCS, committed, load

ROOT = Path(__file__).resolve().parents[2]
CATALOG = {metric.name: metric for metric in catalog.METRICS}
gen = load("gen_metrics")


def _everything_counted(result: Any) -> Any:
    """Every counter of a result at 1 and every list with one item: whatever it can emit, it emits."""
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        if isinstance(value, Sample):
            value.add({"topic": "orders"})
        elif isinstance(value, int) and not isinstance(value, bool):
            setattr(result, field.name, 1)
    return result


def _emitted(publish: Any) -> dict[str, list[Any]]:
    metrics.clear_metrics()
    try:
        publish()
        return {name: entry["Value"] for name, entry in metrics.metric_set.items()}
    finally:
        metrics.clear_metrics()


def _units() -> dict[str, str]:
    return {name: entry["Unit"] for name, entry in metrics.metric_set.items()}


@pytest.mark.parametrize(
    "publish",
    [
        lambda: _everything_counted(SyncResult(dry_run=False, trigger="schedule")).publish_metrics(),
        lambda: _everything_counted(EmitResult(dry_run=False)).publish_metrics(),
        lambda: _everything_counted(EmitResult(dry_run=True)).publish_metrics(),
        lambda: SyncResult(dry_run=False, trigger="schedule").publish_metrics(),
        lambda: EmitResult(dry_run=False).publish_metrics(),
    ],
    ids=["sync", "lineage", "lineage-dry-run", "sync-nothing-done", "lineage-nothing-done"],
)
def test_every_metric_a_result_emits_is_in_the_catalog_with_its_unit(publish: Any):
    # Given a result, when it emits its metrics
    metrics.clear_metrics()
    publish()
    units = _units()
    metrics.clear_metrics()
    # then it emitted something, and each metric is in the catalog, with the catalog's unit
    assert units
    assert {name: CATALOG[name].unit if name in CATALOG else "not in the catalog" for name in units} == units


def test_the_every_run_metrics_are_exactly_what_a_run_that_did_nothing_emits():
    # Given results that did nothing, when they emit, then what they emit is what the catalog says is
    # published on every run, per function (the cost estimate counts these)
    sync = set(_emitted(SyncResult(dry_run=False, trigger="schedule").publish_metrics))
    lineage = set(_emitted(EmitResult(dry_run=False).publish_metrics))
    every_run = {m.name: m.function for m in catalog.METRICS if m.when == catalog.EVERY_RUN}
    assert sync == {name for name, function in every_run.items() if function == catalog.SCHEMA_SYNC}
    assert lineage == {name for name, function in every_run.items() if function == catalog.LINEAGE}


def _nodes() -> Iterator[tuple[Path, ast.AST]]:
    for path in (ROOT / "lambdas").rglob("*.py"):
        if path.name != "metrics.py" or path.parent.name != "model":
            for node in ast.walk(ast.parse(path.read_text())):
                yield path, node


def test_no_code_publishes_a_metric_past_the_catalog():
    # Given every call in the functions' code, then only observability.emit calls add_metric ...
    direct = [
        str(path.relative_to(ROOT))
        for path, call in _nodes()
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in ("add_metric", "put_metric_data")
    ]
    assert direct == ["lambdas/kafka_lineage/observability.py"]
    # ... and the code names every catalog metric (by its constant): no metric is documented that nothing
    # publishes
    named = {
        node.attr if isinstance(node, ast.Attribute) else node.name if isinstance(node, ast.alias) else ""
        for _, node in _nodes()
        if isinstance(node, ast.Attribute | ast.alias)
    }
    constants = {name for name, value in vars(catalog).items() if isinstance(value, catalog.Metric)}
    assert constants - named == set()


def test_the_stack_alarms_on_the_catalogs_metrics():
    # Given the stack's monitoring, then its failed-items and drift alarms read the catalog's metrics
    assert tuple(m.name for m in catalog.FAILED_ITEMS.metrics) == monitoring.FAILED_ITEM_METRICS
    assert catalog.SCHEMA_DRIFT_BREAKING.name == monitoring.BREAKING_DRIFT_METRIC
    # and every metric an alarm reads is a catalog metric
    assert {m for alarm in catalog.ALARMS for m in alarm.metrics} <= set(catalog.METRICS)


def test_the_operate_page_shows_every_metric_and_alarm_of_the_catalog():
    # Given docs/operate.md as committed
    page = committed(gen.PAGE)
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    # then every metric has its row, with its unit, and the alarms that read it
    for metric in catalog.METRICS:
        (row,) = [line for line in rows if line.startswith(f"| `{metric.name}` |")]
        assert f"| {metric.unit} |" in row
        for alarm in catalog.alarms_reading(metric):
            assert f"`{alarm.construct_id}`" in row
    # and every alarm has its row; no hand-written metric list is left
    for alarm in catalog.ALARMS:
        assert [line for line in rows if line.startswith(f"| `{alarm.construct_id}` (")]
    assert "LineageEmitted, LineageUnchanged" not in page


def test_deploy_names_every_alarm_of_the_catalog():
    # Given deploy.md as committed, then its check-the-result step names every alarm
    page = committed(gen.DEPLOY_PAGE)
    for alarm in catalog.ALARMS:
        assert f"`…{alarm.construct_id}`" in page


def test_the_cost_estimate_counts_the_catalogs_metrics_and_alarm_metrics():
    # Given the metrics published on every run, per function, and the metrics the alarms read (the error
    # alarm once per function), in the deployment the estimate prices: without `access`, so neither
    # subscription-grants nor the alarms on its metrics
    every_run = [m.function for m in catalog.METRICS if m.when == catalog.EVERY_RUN]
    sync, lineage = every_run.count(catalog.SCHEMA_SYNC), every_run.count(catalog.LINEAGE)
    default = [
        alarm
        for alarm in catalog.ALARMS
        if not any(m.function == catalog.SUBSCRIPTION_GRANTS for m in alarm.metrics)
    ]
    assert len(default) == len(catalog.ALARMS) - 2
    alarm_metrics = sum(len(alarm.metrics) or (2 if alarm is catalog.ERRORS else 1) for alarm in default)
    # then operate.md's cost estimate counts the same
    page = (DOCS / gen.PAGE).read_text()
    assert (
        f"{sync + lineage} published every hour ({sync} from schema-sync, {lineage} from lineage-emission"
        in page
    )
    assert f"{alarm_metrics} alarm metrics" in page
