"""Glue's dataset identity, and the events posted to Glue's lineage graph.

The Glue developer guide ("Publishing lineage from third-party and open-source sources", "Dataset identity")
asks producers to name datasets as AWS services do, so that one dataset is one node:
- a Data Catalog table: namespace `arn:aws:glue:<region>:<account-id>`, name `table/<database>/<table>`
  (together the table ARN) -- not DataZone's split (namespace `...:table`, name `<database>/<table>`);
- an S3 location: namespace `s3://<bucket>`, name `/<path>` (the support matrix's example:
  `s3://amzn-s3-demo-bucket` and `/sales/orders`);
- anything else (a Kafka topic, a source database table): OpenLineage's naming, as DataZone has it.

A run's DataZone COMPLETE body is rewritten here: only the dataset identities differ; the job, the facets and
the column lineage (whose input fields name the topic, the same in both graphs) stay byte for byte.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from openlineage.client.event_v2 import Job, Run, RunEvent, RunState
from openlineage.client.generated.documentation_job import DocumentationJobFacet

from kafka_lineage.lineage.content import Content, LocationContent, RunContent
from kafka_lineage.lineage.events import MAX_EVENT_BYTES, EventTooLarge
from kafka_lineage.lineage.facets import dump, serialize
from kafka_lineage.lineage.run_identity import PRODUCER, format_time
from kafka_lineage.model.tables import GlueTable


def table_dataset(table: GlueTable) -> tuple[str, str]:
    """A Data Catalog table's (namespace, name) in Glue's graph: its ARN, cut after the account."""
    return f"arn:{table.partition}:glue:{table.region}:{table.catalog_id}", f"table/{table.ref.name}"


def location_dataset(namespace: str, prefix: str) -> tuple[str, str]:
    """An S3 location's (namespace, name) in Glue's graph: the path with one leading slash and none
    trailing (the root: "/"). DataZone's name is the prefix as configured (`orders/`, "/" for the root)."""
    path = prefix.strip("/")
    return namespace, f"/{path}" if path else "/"


def glue_identity(content: Content) -> tuple[str, str] | None:
    """The (namespace, name) the run's output takes in Glue's graph, when it differs from DataZone's."""
    if isinstance(content, RunContent):
        return table_dataset(content.table)
    if isinstance(content, LocationContent):
        return location_dataset(content.dataset_namespace, content.dataset_name)
    return None  # a first hop's output is the topic, a consumer's run has none: the same in both graphs


def to_glue(body: bytes, content: Content, max_bytes: int = MAX_EVENT_BYTES) -> bytes:
    """The COMPLETE body DataZone gets, in Glue's dataset identity (at most `max_bytes`, PostLineageEvent's
    limit: a table's Glue name is as long as DataZone's, so a body that fit DataZone fits Glue)."""
    identity = glue_identity(content)
    if identity is None:
        return body
    document: dict[str, Any] = json.loads(body)
    outputs = document.get("outputs") or []
    if outputs:
        outputs[0] = {**outputs[0], "namespace": identity[0], "name": identity[1]}
    rewritten = dump(document)
    if len(rewritten) > max_bytes:
        raise EventTooLarge(f"the Glue event of {content.key.key} needs {len(rewritten)} bytes; {max_bytes}")
    return rewritten


def closing_body(job_namespace: str, job_name: str, run_id: str, moment: datetime, why: str) -> bytes:
    """A COMPLETE run of a job that reads and writes nothing: what Glue's graph gets when an edge goes (it
    has no delete). Its job's latest run then draws no edge (see docs/aws-readings.md,
    `glue_lineage_job_edges`)."""
    event = RunEvent(
        eventType=RunState.COMPLETE,
        eventTime=format_time(moment),
        producer=PRODUCER,
        run=Run(runId=run_id, facets={}),
        job=Job(
            namespace=job_namespace,
            name=job_name,
            facets={"documentation": DocumentationJobFacet(description=why, producer=PRODUCER)},
        ),
        inputs=[],
        outputs=[],
    )
    return serialize(event)
