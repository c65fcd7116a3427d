"""Small builders for the lineage unit tests: settings, asset records, Glue tables, states."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kafka_lineage.config import Settings
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.connectors import ConnectorNote, Derivation, SinkEdge, SourceEdge
from kafka_lineage.model.tables import GlueTable, TableColumn, TableRef
from kafka_lineage.model.topics import TopicKey

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
NAMESPACE = "kafka://b-1.cdc.abc123.c2.kafka.eu-west-1.amazonaws.com:9098"
RULE = {"database": "lakehouse", "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}
REGISTERED = datetime(2025, 3, 14, 9, 15, 2, 123456, tzinfo=UTC)


def settings(*sources: dict[str, Any], share: float = 0.5) -> Settings:
    return Settings.model_validate(
        {
            "domain_id": "dzd_local1234",
            "project_id": "prj1234local",
            "mapping_path": "/kafka-lineage",
            "sources": list(sources) or [source()],
            "tuning": {"mass_delete_share": share},
        }
    )


def source(registry: str = "cdc", **extra: Any) -> dict[str, Any]:
    return {"registryName": registry, "clusterArn": CLUSTER_ARN, "tableRule": RULE, **extra}


def record(topic: str, registry: str = "cdc", version: int = 1, **changes: Any) -> AssetRecord:
    values: dict[str, Any] = {
        "registry_name": registry,
        "schema_name": topic,
        "schema_arn": f"arn:aws:glue:eu-west-1:123456789012:schema/{registry}/{topic}",
        "asset_id": "a" * 14,
        "latest_version": version,
        "data_format": "AVRO",
        "namespace": NAMESPACE,
        "updated_time": "2025-03-14T09:15:02.123000+00:00",
        "created_time": "2025-03-01T08:00:00+00:00",
        "content_hash": "c" * 16,
        "schema_version_id": f"00000000-0000-4000-8000-{version:012d}",
    }
    values.update(changes)
    return AssetRecord(**values)


def records(*items: AssetRecord) -> dict[str, AssetRecord]:
    return {item.schema_arn: item for item in items}


def table(name: str, *columns: str | tuple[str, str], database: str = "lakehouse") -> GlueTable:
    cols = tuple(TableColumn(c, "string") if isinstance(c, str) else TableColumn(c[0], c[1]) for c in columns)
    return GlueTable(TableRef(database, name), cols, "123456789012", "eu-west-1")


CONNECT_NAMESPACE = "kafka-connect://cdc"
MYSQL = "mysql://mysql.internal:3306"


def sink_edge(
    topic: str,
    table_name: str,
    connector: str = "iceberg-sink",
    registry: str = "cdc",
    database: str = "lakehouse",
) -> SinkEdge:
    return SinkEdge(
        key=TopicKey(registry, topic),
        table=TableRef(database, table_name),
        connector=connector,
        connector_arn=f"arn:aws:kafkaconnect:eu-west-1:123456789012:connector/{connector}/1111-2222",
        job_namespace=CONNECT_NAMESPACE,
        job_name=connector,
    )


def source_edge(
    topic: str, dataset: str, connector: str = "inventory-source", registry: str = "cdc", **extra: Any
) -> SourceEdge:
    return SourceEdge(
        key=TopicKey(registry, topic),
        dataset_namespace=MYSQL,
        dataset_name=dataset,
        connector=connector,
        connector_arn=f"arn:aws:kafkaconnect:eu-west-1:123456789012:connector/{connector}/3333-4444",
        job_namespace=CONNECT_NAMESPACE,
        job_name=connector,
        **extra,
    )


def derivation(
    *edges: SinkEdge | SourceEdge, notes: tuple[ConnectorNote, ...] = (), read_ok: bool = True
) -> Derivation:
    return Derivation(
        sinks=tuple(e for e in edges if isinstance(e, SinkEdge)),
        sources=tuple(e for e in edges if isinstance(e, SourceEdge)),
        notes=notes,
        read_ok=read_ok,
    )
