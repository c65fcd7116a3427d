"""Lineage from MSK Connect connectors: Iceberg sinks (topic -> table), Debezium sources (table -> topic).

`derive` is the pure derivation. Its values (what the adapter reads, the edges and notes derived) are in
`kafka_lineage.model.connectors`, the allow-list of configuration keys in
`kafka_lineage.model.connector_keys`; the AWS adapter is `kafka_lineage.aws.connectors`.
"""

from kafka_lineage.connectors.derive import derive

__all__ = ["derive"]
