"""docs/operate.md's alarms and metrics tables, generated from the one catalog in code.

The pages' Cog blocks write them (`make docs-gen`). The catalog, kafka_lineage.model.metrics, is what the
functions emit (`kafka_lineage.observability.emit`) and what the stack's alarms read (stacks/monitoring.py);
tests/unit/test_metrics_catalog.py fails when the code emits a metric the catalog lacks. `python
docs/gen_metrics.py` prints the tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_common import ensure_paths, table

ensure_paths()

from kafka_lineage.model import metrics as catalog  # noqa: E402
from kafka_lineage.model.service import METRICS_NAMESPACE, SERVICE  # noqa: E402

PAGE = "operate.md"
DEPLOY_PAGE = "deploy.md"
_FUNCTIONS = {
    catalog.SCHEMA_SYNC: "schema-sync",
    catalog.LINEAGE: "lineage-emission",
    catalog.BOTH: "both",
    catalog.SUBSCRIPTION_GRANTS: "subscription-grants",
}


def alarms_table() -> str:
    rows = [
        [f"`{alarm.construct_id}` ({alarm.reads})", alarm.fires_when, alarm.what_to_do]
        for alarm in catalog.ALARMS
    ]
    return table(["alarm", "fires when", "what to do"], rows)


def metrics_table() -> str:
    rows = [
        [
            f"`{metric.name}`",
            _FUNCTIONS[metric.function],
            metric.unit,
            metric.when,
            metric.meaning,
            ", ".join(f"`{alarm.construct_id}`" for alarm in catalog.alarms_reading(metric)),
        ]
        for metric in catalog.METRICS
    ]
    every_run = [metric.function for metric in catalog.METRICS if metric.when == catalog.EVERY_RUN]
    intro = (
        f"Namespace `{METRICS_NAMESPACE}`, dimension `service` = `{SERVICE}` (Powertools Metrics, published "
        f"as embedded metric format in the functions' logs). {every_run.count(catalog.SCHEMA_SYNC)} from "
        f"schema-sync and {every_run.count(catalog.LINEAGE)} from lineage-emission are published on every "
        "run that is no dry run; the others when their occasion comes."
    )
    return intro + "\n\n" + table(["metric", "function", "unit", "published", "meaning", "alarm"], rows)


def alarm_names() -> str:
    """The alarms' names as the console shows them (CDK prefixes each with its construct path)."""
    return ", ".join(f"`…{alarm.construct_id}`" for alarm in catalog.ALARMS)


if __name__ == "__main__":
    print(alarms_table(), metrics_table(), sep="\n\n")
