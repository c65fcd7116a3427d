"""The managed delivery paths of the demo world, created through the services' APIs (the stand-ins
locally): an Amazon MSK Data Delivery channel that writes the orders topic to an Apache Iceberg table on
S3 Tables, an Amazon Data Firehose stream that writes the customers topic to another, a stream that writes
the orders topic's raw records to an S3 general purpose bucket (an `s3://` dataset), and a stream whose
Lambda function routes each record (reported as undetermined, never guessed). Beside the MSK Connect sinks,
the picture then shows the three paths side by side.
"""

from __future__ import annotations

from typing import Any

from local import world

TABLE_BUCKET = "lake-tables"
CATALOG = f"s3tablescatalog/{TABLE_BUCKET}"
ROLE = f"arn:aws:iam::{world.ACCOUNT}:role/delivery"
TABLE_BUCKET_ARN = f"arn:aws:s3tables:{world.REGION}:{world.ACCOUNT}:bucket/{TABLE_BUCKET}"
CATALOG_ARN = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:catalog/{CATALOG}"
# (topic's inventory table, S3 Tables namespace, table): what each path writes, in the table bucket.
CHANNEL_TABLE = ("orders", "sales", "orders")
STREAM_TABLE = ("customers", "crm", "customers")


def topic(table: str) -> str:
    return f"dbserver1.inventory.{table}"


def topic_arn(name: str) -> str:
    head, _, path = world.CLUSTER_ARN.partition(":cluster/")
    return f"{head}:topic/{path}/{name}"


def channel_request() -> dict[str, Any]:
    inventory, database, table = CHANNEL_TABLE
    return {
        "ClusterArn": world.CLUSTER_ARN,
        "ChannelName": "orders-to-s3-tables",
        "TopicConfigurationList": [
            {
                "TopicArn": topic_arn(topic(inventory)),
                "RecordConverter": {"ValueConverter": "JSON_SCHEMA_GSR"},
                "RecordSchema": {"GsrArn": world.schema_arn("cdc", topic(inventory))},
            }
        ],
        "IcebergDestinationConfiguration": {
            "ServiceExecutionRoleArn": ROLE,
            "AppendOnly": True,
            "DataFreshnessInSeconds": 300,
            "Catalog": {"WarehouseLocation": TABLE_BUCKET_ARN},
            "DestinationTableList": [{"DestinationDatabaseName": database, "DestinationTableName": table}],
            "DeadLetterQueueS3": {"BucketArn": "arn:aws:s3:::demo-delivery-dlq"},
            "SchemaEvolution": {"EnableSchemaEvolution": True},
            "TableCreation": {"EnableTableCreation": True},
        },
    }


def msk_sourced(name: str, inventory: str) -> dict[str, Any]:
    """A CreateDeliveryStream request's source part: the demo cluster's topic of `inventory`."""
    return {
        "DeliveryStreamName": name,
        "DeliveryStreamType": "MSKAsSource",
        "MSKSourceConfiguration": {
            "MSKClusterARN": world.CLUSTER_ARN,
            "TopicName": topic(inventory),
            "AuthenticationConfiguration": {"RoleARN": ROLE, "Connectivity": "PRIVATE"},
        },
    }


def stream_request(name: str, inventory: str, processing: dict[str, Any] | None = None) -> dict[str, Any]:
    _, database, table = STREAM_TABLE
    iceberg: dict[str, Any] = {
        "DestinationTableConfigurationList": [
            {"DestinationDatabaseName": database, "DestinationTableName": table}
        ],
        "RoleARN": ROLE,
        "CatalogConfiguration": {"CatalogARN": CATALOG_ARN},
        "S3Configuration": {"RoleARN": ROLE, "BucketARN": "arn:aws:s3:::demo-firehose-errors"},
    }
    if processing:
        iceberg["ProcessingConfiguration"] = processing
    return {**msk_sourced(name, inventory), "IcebergDestinationConfiguration": iceberg}


# The raw stream's bucket and prefix: the prefix's static part, before its timestamp, names the dataset.
RAW_BUCKET = "demo-raw-zone"
RAW_PREFIX = "cdc/orders/!{timestamp:yyyy/MM/dd}/"
RAW_DATASET = (f"s3://{RAW_BUCKET}", "cdc/orders/")


def raw_stream_request(name: str, inventory: str) -> dict[str, Any]:
    """A stream with an MSK source and an Amazon S3 destination (ExtendedS3DestinationConfiguration)."""
    return {
        **msk_sourced(name, inventory),
        "ExtendedS3DestinationConfiguration": {
            "RoleARN": ROLE,
            "BucketARN": f"arn:aws:s3:::{RAW_BUCKET}",
            "Prefix": RAW_PREFIX,
            "ErrorOutputPrefix": "errors/!{firehose:error-output-type}/",
            "CompressionFormat": "GZIP",
        },
    }


ROUTER_ARN = f"arn:aws:lambda:{world.REGION}:{world.ACCOUNT}:function:route-products"
ROUTER = {
    "Enabled": True,
    "Processors": [
        {
            "Type": "Lambda",
            "Parameters": [
                {
                    "ParameterName": "LambdaArn",
                    "ParameterValue": ROUTER_ARN,
                }
            ],
        }
    ],
}


def create(aws: Any, columns_of: dict[str, list[tuple[str, str]]]) -> list[str]:
    """Create the paths and their S3 Tables tables (columns as the lakehouse's); says what was made."""
    import boto3

    for inventory, database, table in (CHANNEL_TABLE, STREAM_TABLE):
        aws.glue_catalogs.add_table(world.ACCOUNT, CATALOG, database, table, columns_of[inventory])
    boto3.client("kafka").create_channel(**channel_request())
    firehose = boto3.client("firehose")
    firehose.create_delivery_stream(**stream_request("customers-to-s3-tables", STREAM_TABLE[0]))
    firehose.create_delivery_stream(**stream_request("products-routed", "products", ROUTER))
    firehose.create_delivery_stream(**raw_stream_request("orders-raw-to-s3", CHANNEL_TABLE[0]))
    return [
        f"S3 Tables ({CATALOG}): {CHANNEL_TABLE[1]}.{CHANNEL_TABLE[2]}, {STREAM_TABLE[1]}.{STREAM_TABLE[2]}",
        f"MSK channel orders-to-s3-tables: {topic('orders')} -> {CATALOG}/sales.orders",
        f"Firehose stream customers-to-s3-tables: {topic('customers')} -> {CATALOG}/crm.customers",
        f"Firehose stream products-routed: {topic('products')}, a Lambda function routes each record",
        f"Firehose stream orders-raw-to-s3: {topic('orders')} -> s3://{RAW_BUCKET}/{RAW_PREFIX}",
    ]
