"""The demo's second graph: the Glue Data Catalog's lineage graph of the account, where lineage-emission
posted every edge too (`lineageTargets` ["datazone", "glue"]). A Glue 6.1 job reads the Iceberg table and
writes a report table, and posts its run as Glue's Spark listener does; then GetLineageNode walks back from
the report to the source database: one graph, from database to report."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import boto3

from local import world
from local.standins import LocalAws

REPORT = "customer_report"
# What a Glue 6.1 job's OpenLineage listener posts for `INSERT INTO analytics.customer_report SELECT ...
# FROM lakehouse.customers` (the Glue guide: tables resolved to Glue's identity, signed by the job's role).
GLUE_JOB_RUN = {
    "eventType": "COMPLETE",
    "eventTime": "2026-12-01T06:00:00.000Z",
    "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.40.0/integration/spark",
    "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
    "run": {"runId": "01937a4e-1c2b-7d3e-8f4a-5b6c7d8e9f00"},
    "job": {
        "namespace": "glue",
        "name": "customer_report_job.execute_insert_into_hadoop_fs_relation",
    },
    "inputs": [{"namespace": "{glue}", "name": "table/lakehouse/customers"}],
    "outputs": [{"namespace": "{glue}", "name": f"table/analytics/{REPORT}"}],
}


def glue_job_run() -> dict[str, Any]:
    glue = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}"
    text = json.dumps(GLUE_JOB_RUN).replace("{glue}", glue)
    return dict(json.loads(text))


def walk_back(node_of: Callable[[str], dict[str, Any]], start: str, keep: str, depth: int = 8) -> list[str]:
    """The chain upstream of `start` (GetLineageNode, one call per node): at a job with several inputs, the
    input whose identifier names `keep` (a sink connector's job reads several topics)."""
    chain: list[str] = []
    node = node_of(start)
    for _ in range(depth):
        chain.append(f"{node['TypeName']:<8} {node['SourceIdentifier']}")
        upstream = [node_of(ref["Id"]) for ref in node["UpstreamNodes"]]
        if not upstream:
            break
        named = [n for n in upstream if keep in n["SourceIdentifier"]]
        node = (named or upstream)[0]
    return chain


def show(aws: LocalAws) -> list[str]:
    """Post the Glue job's run, let the graph process what was accepted, and walk back from the report."""
    glue = boto3.client("glue", region_name=world.REGION)
    glue.post_lineage_event(Event=json.dumps(glue_job_run()))
    aws.glue_lineage.settle(world.ACCOUNT, world.REGION)  # Glue processes accepted events within minutes
    report = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:table/analytics/{REPORT}"
    chain = walk_back(
        lambda identifier: dict(glue.get_lineage_node(Identifier=identifier)), report, "customers"
    )
    for step, line in enumerate(chain):
        print(("  " * step) + ("<- " if step else "") + line)
    return chain
