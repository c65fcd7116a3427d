"""Reading the managed delivery paths (aws/delivery.py) and federated catalog tables (aws/tables.py) on the
stand-ins: what is read, what an unchanged run costs, and what a failure keeps."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.config import Config

from kafka_lineage.aws.delivery import DeliveryPaths
from kafka_lineage.aws.tables import GlueTables
from kafka_lineage.config import Source
from kafka_lineage.model.tables import TableRef
from local.standins import LocalAws

ACCOUNT = "123456789012"
CLUSTER = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/lake/abc123-4"
OTHER_CLUSTER = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/other/def567-8"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/delivery"
ONE_TRY = Config(retries={"mode": "standard", "total_max_attempts": 1})


def source(**settings: Any) -> Source:
    return Source.model_validate({"registryName": "lake", "clusterArn": CLUSTER, **settings})


def topic_arn(topic: str, cluster: str = CLUSTER) -> str:
    head, _, path = cluster.partition(":cluster/")
    return f"{head}:topic/{path}/{topic}"


def channel(name: str, topic: str, destination: dict[str, Any]) -> dict[str, Any]:
    return {
        "ClusterArn": CLUSTER,
        "ChannelName": name,
        "TopicConfigurationList": [
            {
                "TopicArn": topic_arn(topic),
                "RecordConverter": {"ValueConverter": "JSON_SCHEMA_GSR"},
                "RecordSchema": {"GsrArn": f"arn:aws:glue:eu-west-1:{ACCOUNT}:schema/lake/{topic}"},
            }
        ],
        **destination,
    }


def to_table_bucket(bucket: str, database: str, table: str) -> dict[str, Any]:
    return {
        "IcebergDestinationConfiguration": {
            "ServiceExecutionRoleArn": ROLE,
            "AppendOnly": True,
            "Catalog": {"WarehouseLocation": f"arn:aws:s3tables:eu-west-1:{ACCOUNT}:bucket/{bucket}"},
            "DestinationTableList": [{"DestinationDatabaseName": database, "DestinationTableName": table}],
            "DeadLetterQueueS3": {"BucketArn": "arn:aws:s3:::dlq"},
            "SchemaEvolution": {"EnableSchemaEvolution": False},
            "TableCreation": {"EnableTableCreation": False},
        }
    }


def to_bucket(bucket: str, prefix: str) -> dict[str, Any]:
    return {
        "S3DestinationConfiguration": {
            "ServiceExecutionRoleArn": ROLE,
            "DeadLetterQueueS3": {"BucketArn": "arn:aws:s3:::dlq"},
            "Storage": {
                "BucketArn": f"arn:aws:s3:::{bucket}",
                "CompressionType": "GZIP",
                "OutputPrefix": prefix,
                "StorageClass": "STANDARD",
            },
        }
    }


def stream(name: str, cluster: str, topic: str, destination: dict[str, Any]) -> dict[str, Any]:
    return {
        "DeliveryStreamName": name,
        "DeliveryStreamType": "MSKAsSource",
        "MSKSourceConfiguration": {
            "MSKClusterARN": cluster,
            "TopicName": topic,
            "AuthenticationConfiguration": {"RoleARN": ROLE, "Connectivity": "PRIVATE"},
        },
        **destination,
    }


def iceberg_stream(tables: list[tuple[str, str]], processing: dict[str, Any] | None = None) -> dict[str, Any]:
    configuration: dict[str, Any] = {
        "DestinationTableConfigurationList": [
            {"DestinationDatabaseName": d, "DestinationTableName": t} for d, t in tables
        ],
        "RoleARN": ROLE,
        "CatalogConfiguration": {
            "CatalogARN": f"arn:aws:glue:eu-west-1:{ACCOUNT}:catalog/s3tablescatalog/lake"
        },
        "S3Configuration": {"RoleARN": ROLE, "BucketARN": "arn:aws:s3:::errors"},
    }
    if processing:
        configuration["ProcessingConfiguration"] = processing
    return {"IcebergDestinationConfiguration": configuration}


def reader(clock: list[float] | None = None) -> DeliveryPaths:
    now = clock or [1_000.0]
    return DeliveryPaths(
        boto3.client("kafka", config=ONE_TRY), boto3.client("firehose", config=ONE_TRY), clock=lambda: now[0]
    )


def seed(aws: LocalAws) -> None:
    aws.kafka.set_brokers(CLUSTER, sasl_iam="b-1.lake.kafka.eu-west-1.amazonaws.com:9098")
    kafka, firehose = boto3.client("kafka"), boto3.client("firehose")
    kafka.create_channel(
        **channel("orders-channel", "orders", to_table_bucket("lake-tables", "sales", "orders"))
    )
    kafka.create_channel(
        **channel("clicks-raw", "clicks", to_bucket("raw-zone", "clicks/!{timestamp:yyyy}/"))
    )
    firehose.create_delivery_stream(
        **stream("payments-to-lake", CLUSTER, "payments", iceberg_stream([("fin", "payments")]))
    )
    firehose.create_delivery_stream(
        **stream("elsewhere", OTHER_CLUSTER, "payments", iceberg_stream([("x", "y")]))
    )


def test_channels_and_streams_of_the_cluster_are_read_into_paths(local_aws: LocalAws) -> None:
    # Given two channels on the source's cluster and two MSK-sourced streams, one on another cluster
    seed(local_aws)

    # When the paths are read
    reads = reader().read([source()])

    # Then each path says what it reads and where it writes; the other cluster's stream is not kept
    paths = {p.origin: p for p in reads.paths}
    assert sorted(paths) == ["channel:clicks-raw", "channel:orders-channel", "firehose:payments-to-lake"]
    orders = paths["channel:orders-channel"]
    assert orders.iceberg is not None
    assert (orders.iceberg.catalog, orders.iceberg.tables) == (
        "s3tablescatalog/lake-tables",
        (("sales", "orders"),),
    )
    assert orders.topics[0].schema_arn.endswith(":schema/lake/orders")
    clicks = paths["channel:clicks-raw"]
    assert clicks.s3 is not None
    assert (clicks.s3.bucket, clicks.s3.prefix) == ("raw-zone", "clicks/")
    payments = paths["firehose:payments-to-lake"]
    assert payments.iceberg is not None
    assert payments.iceberg.catalog == "s3tablescatalog/lake"
    assert (reads.channels_ok, reads.firehose_ok, reads.unread) == (True, True, ())


def test_an_unchanged_second_read_only_lists(local_aws: LocalAws) -> None:
    seed(local_aws)
    paths = reader()
    first = paths.read([source()])
    local_aws.calls.clear()

    second = paths.read([source()])

    assert second.paths == first.paths
    assert dict(local_aws.call_counts()) == {"kafka:ListChannels": 1, "firehose:ListDeliveryStreams": 1}


def test_a_recreated_channel_is_described_again_and_a_stream_after_its_refresh(local_aws: LocalAws) -> None:
    # Given paths read once (UpdateChannel changes only DataFreshnessInSeconds: a channel's topics and
    # destination change only by deleting it and creating it again)
    seed(local_aws)
    clock = [1_000.0]
    paths = reader(clock)
    paths.read([source()])
    kafka = boto3.client("kafka")
    listed = kafka.list_channels(ClusterArn=CLUSTER)["Channels"]
    arn = next(c["ChannelArn"] for c in listed if c["ChannelName"] == "clicks-raw")
    kafka.update_channel(
        ClusterArn=CLUSTER, ChannelArn=arn, S3DestinationUpdate={"DataFreshnessInSeconds": 60}
    )
    local_aws.set_readings(deleted_channels_linger=0)
    kafka.delete_channel(ClusterArn=CLUSTER, ChannelArn=arn)
    kafka.create_channel(**channel("clicks-raw", "clicks", to_bucket("raw-zone", "clicks-v2/")))
    local_aws.calls.clear()

    # When they are read again, then a day later
    changed = paths.read([source()])
    same_day = dict(local_aws.call_counts())
    clock[0] += 86_400
    paths.read([source()])

    # Then the recreated channel is described again at once, the streams only after a day
    clicks = next(p for p in changed.paths if p.name == "clicks-raw")
    assert clicks.s3 is not None
    assert clicks.s3.prefix == "clicks-v2/"
    assert same_day["kafka:DescribeChannel"] == 1
    assert "firehose:DescribeDeliveryStream" not in same_day
    assert local_aws.call_counts()["firehose:DescribeDeliveryStream"] == 2  # both MSK streams, once a day


def test_settings_off_and_filters_limit_what_is_read(local_aws: LocalAws) -> None:
    seed(local_aws)
    local_aws.calls.clear()

    reads = reader().read([source(channels={"exclude": ["clicks-*"]}, firehose="off")])

    assert [p.origin for p in reads.paths] == ["channel:orders-channel"]
    assert "firehose:ListDeliveryStreams" not in local_aws.call_counts()


def test_a_failed_listing_is_not_read_ok_and_a_failed_description_is_unread(local_aws: LocalAws) -> None:
    seed(local_aws)
    local_aws.faults.add(service="kafka", operation="ListChannels", kind="server_error")
    local_aws.faults.add(service="firehose", operation="DescribeDeliveryStream", kind="server_error", times=5)

    reads = reader().read([source()])

    assert reads.channels_ok is False
    assert reads.firehose_ok is True
    assert set(reads.unread) == {"firehose:payments-to-lake", "firehose:elsewhere"}
    assert any(e.startswith("ListChannels ") for e in reads.errors)


def test_per_record_routing_and_static_jsonquery_tables(local_aws: LocalAws) -> None:
    local_aws.kafka.set_brokers(CLUSTER, sasl_iam="b-1.lake.kafka.eu-west-1.amazonaws.com:9098")
    firehose = boto3.client("firehose")

    def jq(query: str) -> dict[str, Any]:
        parameters = [{"ParameterName": "MetadataExtractionQuery", "ParameterValue": query}]
        return {"Enabled": True, "Processors": [{"Type": "MetadataExtraction", "Parameters": parameters}]}

    lambda_arn = f"arn:aws:lambda:eu-west-1:{ACCOUNT}:function:router"
    by_lambda = {
        "Enabled": True,
        "Processors": [
            {"Type": "Lambda", "Parameters": [{"ParameterName": "LambdaArn", "ParameterValue": lambda_arn}]}
        ],
    }
    # The Firehose guide's JSONQuery example routes by a record field; a literal names one table.
    firehose.create_delivery_stream(
        **stream(
            "by-field",
            CLUSTER,
            "devices",
            iceberg_stream(
                [],
                jq(
                    '{destinationDatabaseName: "IoTevents", destinationTableName: .deviceId, '
                    'operation: "insert"}'
                ),
            ),
        )
    )
    firehose.create_delivery_stream(
        **stream(
            "by-literal",
            CLUSTER,
            "devices",
            iceberg_stream(
                [],
                jq('{destinationDatabaseName: "iot", destinationTableName: "devices", operation: "insert"}'),
            ),
        )
    )
    firehose.create_delivery_stream(
        **stream(
            "operation-only", CLUSTER, "devices", iceberg_stream([("iot", "all")], jq("{operation: .op}"))
        )
    )
    firehose.create_delivery_stream(
        **stream("by-lambda", CLUSTER, "devices", iceberg_stream([("iot", "x")], by_lambda))
    )

    paths = {p.name: p.iceberg for p in reader().read([source()]).paths}

    assert paths["by-field"] is not None
    assert "computes each record's table" in paths["by-field"].routing
    assert paths["by-literal"] is not None
    assert paths["by-literal"].tables == (("iot", "devices"),)
    assert paths["operation-only"] is not None
    assert paths["operation-only"].tables == (("iot", "all"),)
    assert paths["by-lambda"] is not None
    assert lambda_arn in paths["by-lambda"].routing


def test_federated_catalog_tables_keep_their_catalog_and_arn_under_both_readings(local_aws: LocalAws) -> None:
    local_aws.glue_catalogs.add_table(
        ACCOUNT, "s3tablescatalog/lake-tables", "sales", "orders", [("id", "string")]
    )
    ref = TableRef("sales", "orders", glue_catalog="s3tablescatalog/lake-tables")
    missing = TableRef("sales", "gone", glue_catalog="s3tablescatalog/lake-tables")
    for reading in ("qualified", "account"):
        local_aws.set_readings(federated_catalog_id_in_answer=reading)

        reads = GlueTables(boto3.client("glue", config=ONE_TRY), account=ACCOUNT).read([ref, missing])

        table = reads.tables[ref]
        assert table is not None
        assert table.arn == f"arn:aws:glue:eu-west-1:{ACCOUNT}:table/s3tablescatalog/lake-tables/sales/orders"
        assert [c.name for c in table.columns] == ["id"]
        assert reads.tables[missing] is None


def test_an_unknown_federated_catalog_fails_its_database_only(local_aws: LocalAws) -> None:
    glue = boto3.client("glue")
    glue.create_database(DatabaseInput={"Name": "sales"})
    glue.create_table(DatabaseName="sales", TableInput={"Name": "orders"})
    federated = TableRef("sales", "orders", glue_catalog="s3tablescatalog/nowhere")

    reads = GlueTables(boto3.client("glue", config=ONE_TRY), account=ACCOUNT).read(
        [federated, TableRef("sales", "orders")]
    )

    assert reads.tables[TableRef("sales", "orders")] is not None
    assert reads.tables[federated] is None


@pytest.mark.parametrize("reading", ["bad_request", "empty"])
def test_a_cluster_of_standard_brokers_lists_no_channels_and_fails_nothing(
    local_aws: LocalAws, reading: str
) -> None:
    seed(local_aws)
    local_aws.set_readings(channels_on_standard_brokers=reading)
    local_aws.channels.mark_standard(CLUSTER)

    reads = reader().read([source()])

    assert [p.kind for p in reads.paths] == ["firehose"]
    assert (reads.channels_ok, reads.errors) == (True, ())


def test_a_cluster_that_does_not_exist_lists_no_channels(local_aws: LocalAws) -> None:
    reads = reader().read([source()])  # the cluster was never registered: ListChannels answers NotFound

    assert (reads.paths, reads.channels_ok, reads.errors) == ((), True, ())
