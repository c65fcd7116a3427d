"""The typed OpenLineage events (openlineage-python's classes) of a run, in a given `Shape`.

What a sink edge's run carries:
* input: the topic, namespace = the source's Kafka namespace (`kafka://host:port`), name = topic, with a
  schema facet of the topic's fields (flattened paths such as `after.id`);
* output: the Glue table, namespace `arn:{partition}:glue:{region}:{account}:table`, name
  `{database}/{table}` (together the table ARN, which is how DataZone joins the Glue table asset), with a
  schema facet of its columns and a column-lineage facet: each table column whose name equals a CDC row
  field (`after.X` of a Debezium envelope, or `X` of an unwrapped record), case-insensitively, has that
  field as its DIRECT/IDENTITY input. Columns without a field are left out and counted.
* job: namespace = the source's `jobNamespace`, name = `sink/{database}.{table}`; for an edge an MSK Connect
  sink connector decides, the connector's job (namespace and name as `kafka_lineage.connectors` names it);
* run: the `schemaDrift` facet when the topic's new version drifted from the previous one.

A first hop is its own run: input the source table (OpenLineage naming, e.g. `mysql://host:port` +
`db.table`), output the topic with its schema facet and a column-lineage facet mapping each row field
`after.<column>` to the table's `<column>`, job the source connector.

A location edge is its own run too: input the topic with its schema facet, output the S3 location
(OpenLineage's S3 naming: namespace `s3://<bucket>`, name the prefix), job the channel or stream, whose
documentation facet says which path writes the topic there. Dataset-level lineage only: no Glue table
describes the objects' columns, so the output has no schema facet and no column lineage.

A consumer edge is its own run: input the topic with its schema facet, no output (what the group writes,
lineage does not know), job `consumer/<group>` with a job type facet (processingType STREAMING,
integration KAFKA, jobType CONSUMER) and a documentation facet naming the group and the cluster.

These typed events define the shape; render.py writes the same bytes faster, size_budget.py measures them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.generated.base import DatasetFacet, JobFacet, RunFacet
from openlineage.client.generated.column_lineage_dataset import (
    ColumnLineageDatasetFacet,
    Fields,
    InputField,
    Transformation,
)
from openlineage.client.generated.documentation_job import DocumentationJobFacet
from openlineage.client.generated.job_type_job import JobTypeJobFacet
from openlineage.client.generated.schema_dataset import SchemaDatasetFacet, SchemaDatasetFacetFields
from openlineage.client.serde import Serde

from kafka_lineage.lineage.content import ConsumerContent, HopContent, LocationContent, RunContent, TopicField
from kafka_lineage.lineage.run_identity import PRODUCER, event_moments, format_time
from kafka_lineage.model.tables import ColumnMatch

# The run facet a new schema version's run carries (JSON Schema: docs/facets/SchemaDriftRunFacet.json).
SCHEMA_DRIFT_FACET = "schemaDrift"
SCHEMA_DRIFT_FACET_URL = "urn:kafka-lineage:facets:SchemaDriftRunFacet:1#/$defs/SchemaDriftRunFacet"


class SchemaDriftRunFacet(RunFacet):
    """The schema drift of the run's topic version (fields added with `with_additional_properties`)."""

    @staticmethod
    def _get_schema() -> str:
        return SCHEMA_DRIFT_FACET_URL


# A consumer edge's job (OpenLineage JobTypeJobFacet): a Kafka consumer group reads continuously.
CONSUMER_PROCESSING = "STREAMING"
CONSUMER_INTEGRATION = "KAFKA"
CONSUMER_JOB_TYPE = "CONSUMER"


@dataclass(frozen=True)
class Shape:
    """How much of the optional content an event carries (the degradation ladder's rungs)."""

    descriptions: bool = True
    topic_schema: str = "all"  # all | row | none
    table_schema: bool = True
    transformations: bool = True
    lineage_columns: int | None = None  # None: all matched columns

    def kept(self, matches: Sequence[ColumnMatch]) -> Sequence[ColumnMatch]:
        """The matched columns whose lineage the events carry."""
        return matches if self.lineage_columns is None else matches[: self.lineage_columns]


def serialize(value: object) -> bytes:
    return Serde.to_json(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def dump(document: Mapping[str, object]) -> bytes:
    """Plain JSON values written exactly as `serialize` writes the typed objects they stand for."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@dataclass(frozen=True)
class RunParts:
    """A sink edge's run before its shape is chosen: what it describes, the topic's fields, the paths of its
    row fields, the table columns they feed, the runId and the START's eventTime."""

    content: RunContent
    fields: Sequence[TopicField]
    row_paths: frozenset[str]
    matches: Sequence[ColumnMatch]
    run_id: str
    event_time: datetime


def typed_event(parts: RunParts, shape: Shape | None, event_type: str) -> RunEvent:
    """The sink edge's RunEvent; `shape` None gives both datasets empty facets (the size model's skeleton)."""
    content = parts.content
    topic_facets: dict[str, DatasetFacet] = {}
    table_facets: dict[str, DatasetFacet] = {}
    if shape is not None:
        topic_schema = topic_schema_facet(parts.fields, parts.row_paths, shape)
        if topic_schema is not None:
            topic_facets["schema"] = topic_schema
        table_schema = table_schema_facet(content, shape)
        if table_schema is not None:
            table_facets["schema"] = table_schema
        kept = shape.kept(parts.matches)
        if kept:
            table_facets["columnLineage"] = lineage_facet(
                {m.column: topic_lineage_fields(content, m.field, shape.transformations) for m in kept}
            )
    return _run_event(
        event_type,
        dict(event_moments(parts.event_time))[event_type],
        Run(runId=parts.run_id, facets=_run_facets(content)),
        _job(content.job_namespace, content.job_name, _job_description(content)),
        InputDataset(namespace=content.topic_namespace, name=content.key.topic, facets=topic_facets),
        OutputDataset(namespace=content.table.namespace, name=content.table.ref.name, facets=table_facets),
    )


def hop_bodies(
    content: HopContent,
    fields: Sequence[TopicField],
    types: Mapping[str, str],
    matches: Sequence[ColumnMatch],
    shape: Shape,
    run_id: str,
    event_time: datetime,
) -> tuple[tuple[str, bytes], ...]:
    """The first hop's START and COMPLETE bodies in `shape` (few fields: the typed path is fast enough)."""
    table_facets: dict[str, DatasetFacet] = {
        "schema": schema_facet(((m.field, types.get(m.column, ""), "") for m in matches), descriptions=False)
    }
    topic_facets = _topic_facets(fields, shape)
    kept = shape.kept(matches)
    if kept:
        topic_facets["columnLineage"] = lineage_facet(
            {
                m.column: lineage_fields(
                    content.dataset_namespace, content.dataset_name, m.field, shape.transformations
                )
                for m in kept
            }
        )
    description = (
        f"MSK Connect source connector {content.connector} captures table {content.dataset_name} "
        f"({content.dataset_namespace}) into Kafka topic {content.key.topic} (schema registry "
        f"{content.key.registry_name}, schema version {content.schema_version})."
    )
    job = _job(content.job_namespace, content.job_name, description)
    source = InputDataset(namespace=content.dataset_namespace, name=content.dataset_name, facets=table_facets)
    target = OutputDataset(namespace=content.topic_namespace, name=content.key.topic, facets=topic_facets)
    return _bodies(run_id, event_time, job, source, target)


def location_bodies(
    content: LocationContent, fields: Sequence[TopicField], shape: Shape, run_id: str, event_time: datetime
) -> tuple[tuple[str, bytes], ...]:
    """The location edge's START and COMPLETE bodies in `shape` (descriptions, topic schema)."""
    topic_facets = _topic_facets(fields, shape)
    kind, _, name = content.origin.partition(":")
    path = {"channel": "Amazon MSK Data Delivery channel", "firehose": "Amazon Data Firehose stream"}
    where = content.dataset_namespace
    where = f"the root of {where}" if content.dataset_name == "/" else f"{where} under {content.dataset_name}"
    description = (
        f"{path.get(kind, kind)} {name} writes Kafka topic {content.key.topic} (schema registry "
        f"{content.key.registry_name}, schema version {content.schema_version}) to {where}."
    )
    job = _job(content.job_namespace, content.job_name, description)
    source = InputDataset(namespace=content.topic_namespace, name=content.key.topic, facets=topic_facets)
    target = OutputDataset(namespace=content.dataset_namespace, name=content.dataset_name, facets={})
    return _bodies(run_id, event_time, job, source, target)


def consumer_bodies(
    content: ConsumerContent, fields: Sequence[TopicField], shape: Shape, run_id: str, event_time: datetime
) -> tuple[tuple[str, bytes], ...]:
    """The consumer edge's START and COMPLETE bodies in `shape` (descriptions, topic schema): the topic in,
    no output, a streaming consumer's job."""
    topic_facets = _topic_facets(fields, shape)
    cluster = content.cluster_arn.split("/")[1] if "/" in content.cluster_arn else content.cluster_arn
    description = (
        f"Consumer group {content.group} reads Kafka topic {content.key.topic} (schema registry "
        f"{content.key.registry_name}, schema version {content.schema_version}) on MSK cluster {cluster}, "
        "as the consumer-lag metrics MSK publishes to CloudWatch show."
    )
    job_type = JobTypeJobFacet(
        processingType=CONSUMER_PROCESSING,
        integration=CONSUMER_INTEGRATION,
        jobType=CONSUMER_JOB_TYPE,
        producer=PRODUCER,
    )
    job = _job(content.job_namespace, content.job_name, description, {"jobType": job_type})
    source = InputDataset(namespace=content.topic_namespace, name=content.key.topic, facets=topic_facets)
    return _bodies(run_id, event_time, job, source, None)


def _topic_facets(fields: Sequence[TopicField], shape: Shape) -> dict[str, DatasetFacet]:
    """The topic's facets on an edge without row fields: its schema, unless `shape` drops it."""
    schema = topic_schema_facet(fields, frozenset(), shape)
    return {} if schema is None else {"schema": schema}


def _bodies(
    run_id: str, event_time: datetime, job: Job, source: InputDataset, target: OutputDataset | None
) -> tuple[tuple[str, bytes], ...]:
    """A run's START and COMPLETE bodies, with no run facets: one job, the same datasets."""
    return tuple(
        (
            event_type,
            serialize(_run_event(event_type, moment, Run(runId=run_id, facets={}), job, source, target)),
        )
        for event_type, moment in event_moments(event_time)
    )


def _run_event(
    event_type: str, moment: datetime, run: Run, job: Job, source: InputDataset, target: OutputDataset | None
) -> RunEvent:
    return RunEvent(
        eventType=RunState(event_type),
        eventTime=format_time(moment),
        producer=PRODUCER,
        run=run,
        job=job,
        inputs=[source],
        outputs=[target] if target is not None else [],
    )


def _job(namespace: str, name: str, description: str, more: Mapping[str, JobFacet] | None = None) -> Job:
    documentation = DocumentationJobFacet(description=description, producer=PRODUCER)
    return Job(namespace=namespace, name=name, facets={"documentation": documentation, **(more or {})})


def _run_facets(content: RunContent) -> dict[str, RunFacet]:
    if not content.drift:
        return {}
    facet = SchemaDriftRunFacet(producer=PRODUCER).with_additional_properties(**content.drift)
    return {SCHEMA_DRIFT_FACET: cast(RunFacet, facet)}  # the same class, with the fields added


def _job_description(content: RunContent) -> str:
    how = {
        "rule": "the source's tableRule",
        "operator": f"the operator's table mapping {content.mapping_parameter}",
        "cdk": f"the stack's table mapping {content.mapping_parameter}",
    }.get(content.origin, content.origin)
    if content.origin.startswith("connector:"):
        how = f"the configuration of MSK Connect sink connector {content.origin.removeprefix('connector:')}"
    table = content.table.ref
    return (
        f"Kafka topic {content.key.topic} (schema registry {content.key.registry_name}, schema version "
        f"{content.schema_version}) sinks into Glue table {table.database}.{table.table}, "
        f"as declared by {how}."
    )


def schema_facet(items: Iterable[tuple[str, str, str]], descriptions: bool) -> SchemaDatasetFacet:
    """A schema facet of (name, type, description) fields; empty types and descriptions are left out."""
    return SchemaDatasetFacet(
        fields=[
            SchemaDatasetFacetFields(
                name=name,
                type=data_type or None,
                description=(description or None) if descriptions else None,
                fields=None,
            )
            for name, data_type, description in items
        ],
        producer=PRODUCER,
    )


def topic_schema_facet(
    fields: Sequence[TopicField], row_paths: frozenset[str], shape: Shape
) -> SchemaDatasetFacet | None:
    if shape.topic_schema == "none":
        return None
    chosen = (f for f in fields if shape.topic_schema == "all" or f.name in row_paths)
    return schema_facet(((f.name, f.type, f.description) for f in chosen), shape.descriptions)


def table_schema_facet(content: RunContent, shape: Shape) -> SchemaDatasetFacet | None:
    if not shape.table_schema:
        return None
    columns = ((c.name, c.type, c.comment) for c in content.table.columns)
    return schema_facet(columns, shape.descriptions)


def lineage_fields(namespace: str, name: str, field: str, transformations: bool) -> Fields:
    """A column's one input field: `field` of dataset `namespace`/`name`, DIRECT/IDENTITY unless dropped."""
    return Fields(
        inputFields=[
            InputField(
                namespace=namespace,
                name=name,
                field=field,
                transformations=[Transformation(type="DIRECT", subtype="IDENTITY")]
                if transformations
                else None,
            )
        ]
    )


def topic_lineage_fields(content: RunContent, field: str, transformations: bool) -> Fields:
    """A table column's input: the topic's row field `field`."""
    return lineage_fields(content.topic_namespace, content.key.topic, field, transformations)


def lineage_facet(fields: dict[str, Fields]) -> ColumnLineageDatasetFacet:
    return ColumnLineageDatasetFacet(fields=fields, dataset=None, producer=PRODUCER)
