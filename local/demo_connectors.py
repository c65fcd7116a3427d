"""The MSK Connect connectors of the demo world, created through the MSK Connect API (the stand-in locally).

A Debezium MySQL source captures the tutorial's `inventory` database into `dbserver1.inventory.<table>`;
an Iceberg sink (`topics.regex`) writes customers and orders into their lakehouse tables, routed by the
topic (InsertField puts it in `_topic`, each table's route-regex picks its topic); an archive sink writes
orders a second time, into the archive. The demo and the integration tests use these, so what they show
is what a deployed stack would read.
"""

from __future__ import annotations

from typing import Any

MYSQL_HOST = "mysql.internal"
MYSQL_NAMESPACE = f"mysql://{MYSQL_HOST}:3306"
ICEBERG_SINK = "org.apache.iceberg.connect.IcebergSinkConnector"
GLUE_CATALOG = "org.apache.iceberg.aws.glue.GlueCatalog"

SOURCE = {
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "topic.prefix": "dbserver1",
    "database.hostname": MYSQL_HOST,
    "database.port": "3306",
    "database.user": "debezium",
    "database.password": "not-a-real-password",  # never read, logged or stored by lineage
    "database.include.list": "inventory",
    "table.include.list": "inventory\\.(customers|orders|products)",
}
LAKEHOUSE_SINK = {
    "connector.class": ICEBERG_SINK,
    "topics.regex": "dbserver1\\.inventory\\.(customers|orders)",
    "iceberg.catalog.catalog-impl": GLUE_CATALOG,
    "iceberg.tables": "lakehouse.customers,lakehouse.orders",
    "iceberg.tables.route-field": "_topic",
    "iceberg.table.lakehouse.customers.route-regex": "dbserver1\\.inventory\\.customers",
    "iceberg.table.lakehouse.orders.route-regex": "dbserver1\\.inventory\\.orders",
    "transforms": "topic",
    "transforms.topic.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.topic.topic.field": "_topic",
}
ARCHIVE_SINK = {
    "connector.class": ICEBERG_SINK,
    "topics": "dbserver1.inventory.orders",
    "iceberg.catalog.catalog-impl": GLUE_CATALOG,
    "iceberg.tables": "archive.orders",
}
CONNECTORS = {
    "inventory-mysql": SOURCE,
    "lakehouse-sink": LAKEHOUSE_SINK,
    "archive-sink": ARCHIVE_SINK,
}


def create_request(name: str, config: dict[str, str], bootstrap_servers: str) -> dict[str, Any]:
    """A CreateConnector request as MSK Connect's model requires it."""
    return {
        "capacity": {"provisionedCapacity": {"mcuCount": 1, "workerCount": 1}},
        "connectorConfiguration": config,
        "connectorName": name,
        "kafkaCluster": {
            "apacheKafkaCluster": {"bootstrapServers": bootstrap_servers, "vpc": {"subnets": ["subnet-1"]}}
        },
        "kafkaClusterClientAuthentication": {"authenticationType": "IAM"},
        "kafkaClusterEncryptionInTransit": {"encryptionType": "TLS"},
        "kafkaConnectVersion": "2.7.1",
        "plugins": [
            {
                "customPlugin": {
                    "customPluginArn": "arn:aws:kafkaconnect:eu-west-1:123456789012:custom-plugin/p/1",
                    "revision": 1,
                }
            }
        ],
        "serviceExecutionRoleArn": "arn:aws:iam::123456789012:role/connect",
    }


def create(kafkaconnect: Any, name: str, config: dict[str, str], bootstrap_servers: str) -> str:
    """Create the connector; returns its ARN."""
    answer = kafkaconnect.create_connector(**create_request(name, config, bootstrap_servers))
    return str(answer["connectorArn"])


def delete(kafkaconnect: Any, name: str) -> None:
    for page in kafkaconnect.get_paginator("list_connectors").paginate(connectorNamePrefix=name):
        for connector in page["connectors"]:
            if connector["connectorName"] == name:
                kafkaconnect.delete_connector(connectorArn=connector["connectorArn"])
