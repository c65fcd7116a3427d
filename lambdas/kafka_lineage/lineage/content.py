"""What a run describes, known without reading the schema definition, and its fingerprint.

`RunContent` is a sink edge (the topic -> a Glue table), `HopContent` a first hop (a Debezium source
connector's table -> the topic), `LocationContent` a location edge (a channel or stream writes the topic to
an S3 location), `ConsumerContent` a consumer edge (a consumer group reads the topic).
Each starts with the topic's schema version (`TopicVersion`).

The fingerprint hashes everything the events carry except runId and eventTime: the topic's identity and
schema version (its fields are a function of the immutable version, so no definition is read to decide
"unchanged"), the other end (the table and its columns, the source table, the location), the job, what
decided the edge and the EMITTER_VERSION (run_identity.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_lineage.lineage.run_identity import EMITTER_VERSION, PRODUCER
from kafka_lineage.model.digest import fingerprint
from kafka_lineage.model.tables import ColumnMatch, GlueTable, TableRef
from kafka_lineage.model.topics import TopicKey


def job_name(table: TableRef) -> str:
    return f"sink/{table.database}.{table.table}"


@dataclass(frozen=True, slots=True)
class TopicField:
    """A field of the topic's schema: `name` is its flattened path (e.g. `after.id`)."""

    name: str
    type: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class TopicVersion:
    """The topic and its schema version: what every run of the topic starts from."""

    key: TopicKey
    topic_namespace: str
    schema_arn: str
    schema_version: int
    schema_version_id: str
    schema_created: str  # the schema's creation time: tells a re-created schema apart
    data_format: str

    def described_version(self) -> dict[str, Any]:
        """What every run's fingerprint says of this emitter and the topic's schema version (keys are
        sorted before hashing, so where they are added does not matter)."""
        return {
            "emitter": EMITTER_VERSION,
            "producer": PRODUCER,
            "topic": [self.topic_namespace, self.key.registry_name, self.key.topic],
            "schema": [
                self.schema_arn,
                self.schema_version,
                self.schema_version_id,
                self.schema_created,
                self.data_format,
            ],
        }


# "cdk" was "stack" before edges: the same mapping keeps its fingerprint (no re-emission).
_FINGERPRINT_ORIGIN = {"cdk": "stack"}


@dataclass(frozen=True, slots=True)
class RunContent(TopicVersion):
    """Everything a sink edge's run describes that is known without reading the schema definition."""

    table: GlueTable
    job_namespace: str
    origin: str  # operator | cdk | connector:<name> | rule
    mapping_parameter: str = ""
    connector_job: str = ""  # the sink connector's job name ("" for mappings and rules: sink/{db}.{table})
    connector_arn: str = ""
    previous_version: int = 0  # the version mirrored before `schema_version`: the run's drift is from it
    # The `schemaDrift` facet's fields (lineage.drift_check.drift_facet). A function of the two versions, so
    # left out of the fingerprint, which has `previous_version`.
    drift: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def job_name(self) -> str:
        return self.connector_job or job_name(self.table.ref)

    @property
    def job(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"

    @property
    def topic_identifier(self) -> str:
        """The DataZone sourceIdentifier of the topic's node (and of its catalog asset)."""
        return f"{self.topic_namespace}/{self.key.topic}"

    def fingerprint(self) -> str:
        described = self.described_version()
        if self.previous_version:
            described["schema"].append(self.previous_version)
        described |= {
            "table": [self.table.namespace, self.table.ref.name],
            "columns": [[c.name, c.type, c.comment] for c in self.table.columns],
            "job": [self.job_namespace, self.job_name],
            "mapping": [_FINGERPRINT_ORIGIN.get(self.origin, self.origin), self.mapping_parameter],
        }
        if self.connector_arn:
            described["connector"] = self.connector_arn
        return fingerprint(described)

    def describe(self) -> dict[str, object]:
        """What the result reports about the edge's ends."""
        return {"table": self.table.ref.name, "tableArn": self.table.arn}


@dataclass(frozen=True, slots=True)
class HopContent(TopicVersion):
    """Everything a first-hop run describes that is known without reading the schema definition."""

    dataset_namespace: str  # the source table, OpenLineage naming (e.g. mysql://host:3306)
    dataset_name: str  # e.g. inventory.customers
    job_namespace: str
    job_name: str
    connector: str
    connector_arn: str
    columns: tuple[str, ...] = ()  # the connector's column list, () when it names none

    @property
    def origin(self) -> str:
        return f"connector:{self.connector}"

    @property
    def job(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"

    def fingerprint(self) -> str:
        described = self.described_version() | {
            "hop": [self.dataset_namespace, self.dataset_name, list(self.columns)],
            "job": [self.job_namespace, self.job_name],
            "connector": self.connector_arn,
        }
        return fingerprint(described)

    def describe(self) -> dict[str, object]:
        return {"sourceDataset": f"{self.dataset_namespace}/{self.dataset_name}"}

    def matches(self, row_fields: Mapping[str, str]) -> tuple[ColumnMatch, ...]:
        """(topic field path, source column) pairs: every row field, or those the connector lists."""
        if not self.columns:
            return tuple(ColumnMatch(column=path, field=name) for name, path in row_fields.items())
        lowered = {name.lower(): (name, path) for name, path in row_fields.items()}
        found = []
        for column in self.columns:
            hit = (column, row_fields[column]) if column in row_fields else lowered.get(column.lower())
            if hit is not None:
                found.append(ColumnMatch(column=hit[1], field=column))
        return tuple(found)


@dataclass(frozen=True, slots=True)
class LocationContent(TopicVersion):
    """Everything a location edge's run describes: the S3 dataset and the channel or stream writing it."""

    dataset_namespace: str  # s3://<bucket>
    dataset_name: str  # the prefix's static part, "/" for the bucket's root
    job_namespace: str
    job_name: str
    origin: str  # channel:<name> | firehose:<name>
    arn: str  # the channel's or stream's ARN

    @property
    def job(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"

    @property
    def location(self) -> str:
        """The lineage node's identifier, `<namespace>/<name>` (EdgeKey.location's other end)."""
        return f"{self.dataset_namespace}/{self.dataset_name}"

    def fingerprint(self) -> str:
        described = self.described_version() | {
            "location": [self.dataset_namespace, self.dataset_name],
            "job": [self.job_namespace, self.job_name],
            "path": [self.origin, self.arn],
        }
        return fingerprint(described)

    def describe(self) -> dict[str, object]:
        return {"location": self.location}


@dataclass(frozen=True, slots=True)
class ConsumerContent(TopicVersion):
    """Everything a consumer edge's run describes: the consumer group that reads the topic, and its cluster.
    The run has the topic as its input and no output (what the group writes, lineage does not know)."""

    group: str
    cluster_arn: str
    job_namespace: str

    @property
    def origin(self) -> str:
        return f"consumer:{self.group}"

    @property
    def job_name(self) -> str:
        return consumer_job_name(self.group)

    @property
    def job(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"

    def fingerprint(self) -> str:
        described = self.described_version() | {
            "consumer": [self.group, self.cluster_arn],
            "job": [self.job_namespace, self.job_name],
        }
        return fingerprint(described)

    def describe(self) -> dict[str, object]:
        return {"consumerGroup": self.group, "clusterArn": self.cluster_arn}


def consumer_job_name(group: str) -> str:
    return f"consumer/{group}"


Content = RunContent | HopContent | LocationContent | ConsumerContent
