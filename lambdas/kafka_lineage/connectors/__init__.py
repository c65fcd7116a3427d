"""Lineage from MSK Connect connectors: Iceberg sinks (topic -> table), Debezium sources (table -> topic).

`model` holds the values, `derive` the pure derivation; the AWS adapter is `kafka_lineage.aws.connectors`.
"""

from kafka_lineage.connectors.derive import derive
from kafka_lineage.connectors.model import (
    ConnectorConfig,
    ConnectorNote,
    ConnectorReads,
    Derivation,
    SinkEdge,
    SourceEdge,
)

__all__ = [
    "ConnectorConfig",
    "ConnectorNote",
    "ConnectorReads",
    "Derivation",
    "SinkEdge",
    "SourceEdge",
    "derive",
]
