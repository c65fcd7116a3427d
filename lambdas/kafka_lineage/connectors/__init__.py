"""Lineage from MSK Connect connectors: Iceberg sinks (topic -> table), Debezium sources (table -> topic).

`model` holds the values, `derive` the pure derivation; the AWS adapter is `kafka_lineage.aws.connectors`.
"""
