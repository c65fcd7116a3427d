"""The stand-ins of the managed delivery paths: MSK Data Delivery channels, Firehose streams with an MSK
source, and tables of federated Glue catalogs (S3 Tables), each over the wire and validated against
botocore's models. Requests follow the shapes of the MSK developer guide's and the Firehose guide's
examples."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from moto.moto_api import state_manager

from local.standins import LocalAws, lifecycle

ACCOUNT = "123456789012"
CLUSTER_ARN = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/my-express-cluster/abc123-4"
TOPIC_ARN = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:topic/my-express-cluster/abc123-4/orders-topic"
GSR_ARN = f"arn:aws:glue:eu-west-1:{ACCOUNT}:schema/my-registry/orders-topic"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/MSKChannelRole"


def iceberg_channel(name: str = "orders-channel", topic_arn: str = TOPIC_ARN) -> dict[str, Any]:
    return {
        "ClusterArn": CLUSTER_ARN,
        "ChannelName": name,
        "TopicConfigurationList": [
            {
                "TopicArn": topic_arn,
                "RecordConverter": {"ValueConverter": "JSON_SCHEMA_GSR"},
                "RecordSchema": {"GsrArn": GSR_ARN},
            }
        ],
        "IcebergDestinationConfiguration": {
            "ServiceExecutionRoleArn": ROLE,
            "AppendOnly": True,
            "DataFreshnessInSeconds": 300,
            "Catalog": {"WarehouseLocation": f"arn:aws:s3tables:eu-west-1:{ACCOUNT}:bucket/lake-tables"},
            "DestinationTableList": [{"DestinationDatabaseName": "sales", "DestinationTableName": "orders"}],
            "DeadLetterQueueS3": {"BucketArn": "arn:aws:s3:::orders-dlq"},
            "SchemaEvolution": {"EnableSchemaEvolution": False},
            "TableCreation": {"EnableTableCreation": True},
        },
    }


def test_a_created_channel_is_listed_and_described_as_the_model_says(local_aws: LocalAws) -> None:
    # Given an Express cluster the account has
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam="b-1.x.kafka.eu-west-1.amazonaws.com:9098")
    kafka = boto3.client("kafka")

    # When a channel to S3 Tables is created, then listed and described
    arn = kafka.create_channel(**iceberg_channel())["ChannelArn"]
    listed = kafka.list_channels(ClusterArn=CLUSTER_ARN)["Channels"]
    described = kafka.describe_channel(ClusterArn=CLUSTER_ARN, ChannelArn=arn)

    # Then its ARN follows the guide's form and both answers carry what lineage reads
    assert arn == f"arn:aws:kafka:eu-west-1:{ACCOUNT}:channel/my-express-cluster/abc123-4/orders-channel"
    assert [(c["ChannelName"], c["Status"], c["DestinationType"]) for c in listed] == [
        ("orders-channel", "ACTIVE", "ICEBERG")
    ]
    assert described["TopicConfigurationList"][0]["RecordSchema"]["GsrArn"] == GSR_ARN
    assert described["IcebergDestinationConfiguration"]["DestinationTableList"] == [
        {"DestinationDatabaseName": "sales", "DestinationTableName": "orders"}
    ]


def test_channels_page_filter_by_topic_and_need_a_known_cluster(local_aws: LocalAws) -> None:
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam="b-1.x.kafka.eu-west-1.amazonaws.com:9098")
    kafka = boto3.client("kafka")
    for index in range(3):
        topic = TOPIC_ARN.replace("orders-topic", f"t{index}")
        kafka.create_channel(**iceberg_channel(f"c{index}", topic))

    first = kafka.list_channels(ClusterArn=CLUSTER_ARN, MaxResults=2)
    second = kafka.list_channels(ClusterArn=CLUSTER_ARN, MaxResults=2, NextToken=first["NextToken"])
    filtered = kafka.list_channels(ClusterArn=CLUSTER_ARN, TopicNameFilter="t1")["Channels"]

    assert [c["ChannelName"] for c in first["Channels"] + second["Channels"]] == ["c0", "c1", "c2"]
    assert "NextToken" not in second
    assert [c["ChannelName"] for c in filtered] == ["c1"]
    with pytest.raises(ClientError) as excinfo:
        kafka.list_channels(ClusterArn=CLUSTER_ARN.replace("abc123-4", "other-1"))
    assert excinfo.value.response["Error"]["Code"] == "NotFoundException"
    with pytest.raises(ClientError) as excinfo:
        kafka.create_channel(**iceberg_channel("c0"))
    assert excinfo.value.response["Error"]["Code"] == "ConflictException"


def test_a_deleted_channel_lingers_deleting_then_is_gone(local_aws: LocalAws) -> None:
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam="b-1.x.kafka.eu-west-1.amazonaws.com:9098")
    kafka = boto3.client("kafka")
    arn = kafka.create_channel(**iceberg_channel())["ChannelArn"]

    kafka.delete_channel(ClusterArn=CLUSTER_ARN, ChannelArn=arn)

    assert [c["Status"] for c in kafka.list_channels(ClusterArn=CLUSTER_ARN)["Channels"]] == ["DELETING"]
    assert kafka.list_channels(ClusterArn=CLUSTER_ARN)["Channels"] == []


@pytest.mark.parametrize("linger", [0, 2])
def test_a_deleted_channel_is_listed_deleting_for_the_readings_listings_then_not_found(
    local_aws: LocalAws, linger: int
) -> None:
    # Given deleted channels stay listed for `linger` listings (moto's state manager counts them)
    local_aws.set_readings(deleted_channels_linger=linger)
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam="b-1.x.kafka.eu-west-1.amazonaws.com:9098")
    kafka = boto3.client("kafka")
    arn = kafka.create_channel(**iceberg_channel())["ChannelArn"]

    # When it is deleted, described (which counts no listing), then listed that many times
    kafka.delete_channel(ClusterArn=CLUSTER_ARN, ChannelArn=arn)
    described = [
        kafka.describe_channel(ClusterArn=CLUSTER_ARN, ChannelArn=arn)["Status"] for _ in range(linger)
    ]
    listed = [
        [c["Status"] for c in kafka.list_channels(ClusterArn=CLUSTER_ARN)["Channels"]] for _ in range(linger)
    ]

    # Then each of those listings showed it DELETING, and it is gone: not found, its name free again
    assert described == ["DELETING"] * linger
    assert listed == [["DELETING"]] * linger
    with pytest.raises(ClientError) as excinfo:
        kafka.describe_channel(ClusterArn=CLUSTER_ARN, ChannelArn=arn)
    assert excinfo.value.response["Error"]["Code"] == "NotFoundException"
    kafka.create_channel(**iceberg_channel())
    assert [c["Status"] for c in kafka.list_channels(ClusterArn=CLUSTER_ARN)["Channels"]] == ["ACTIVE"]


def msk_stream(name: str, destination: dict[str, Any]) -> dict[str, Any]:
    return {
        "DeliveryStreamName": name,
        "DeliveryStreamType": "MSKAsSource",
        "MSKSourceConfiguration": {
            "MSKClusterARN": CLUSTER_ARN,
            "TopicName": "orders-topic",
            "AuthenticationConfiguration": {"RoleARN": ROLE, "Connectivity": "PRIVATE"},
        },
        **destination,
    }


ICEBERG = {
    "IcebergDestinationConfiguration": {
        "DestinationTableConfigurationList": [
            {"DestinationDatabaseName": "UserEvents", "DestinationTableName": "customer_id"}
        ],
        "RoleARN": ROLE,
        "CatalogConfiguration": {
            "CatalogARN": f"arn:aws:glue:eu-west-1:{ACCOUNT}:catalog/s3tablescatalog/lake"
        },
        "S3Configuration": {"RoleARN": ROLE, "BucketARN": "arn:aws:s3:::firehose-errors"},
    }
}


def test_a_firehose_stream_keeps_its_msk_source_and_iceberg_tables(local_aws: LocalAws) -> None:
    firehose = boto3.client("firehose")

    firehose.create_delivery_stream(**msk_stream("orders-to-lake", ICEBERG))
    described = firehose.describe_delivery_stream(DeliveryStreamName="orders-to-lake")[
        "DeliveryStreamDescription"
    ]

    assert described["Source"]["MSKSourceDescription"]["MSKClusterARN"] == CLUSTER_ARN
    assert described["Source"]["MSKSourceDescription"]["TopicName"] == "orders-topic"
    iceberg = described["Destinations"][0]["IcebergDestinationDescription"]
    assert iceberg["CatalogConfiguration"]["CatalogARN"].endswith(":catalog/s3tablescatalog/lake")
    assert iceberg["DestinationTableConfigurationList"][0]["DestinationTableName"] == "customer_id"
    assert iceberg["S3DestinationDescription"]["CompressionFormat"] == "UNCOMPRESSED"


def test_firehose_lists_page_by_name_and_refuse_a_source_of_the_wrong_type(local_aws: LocalAws) -> None:
    firehose = boto3.client("firehose")
    s3 = {
        "ExtendedS3DestinationConfiguration": {
            "RoleARN": ROLE,
            "BucketARN": "arn:aws:s3:::raw",
            "Prefix": "o/",
        }
    }
    for name in ("b-stream", "a-stream", "c-stream"):
        firehose.create_delivery_stream(**msk_stream(name, s3))

    first = firehose.list_delivery_streams(Limit=2)
    rest = firehose.list_delivery_streams(Limit=2, ExclusiveStartDeliveryStreamName="b-stream")

    assert (first["DeliveryStreamNames"], first["HasMoreDeliveryStreams"]) == (["a-stream", "b-stream"], True)
    assert (rest["DeliveryStreamNames"], rest["HasMoreDeliveryStreams"]) == (["c-stream"], False)
    with pytest.raises(ClientError) as excinfo:
        firehose.create_delivery_stream(**{**msk_stream("d", s3), "DeliveryStreamType": "DirectPut"})
    assert excinfo.value.response["Error"]["Code"] == "InvalidArgumentException"
    with pytest.raises(ClientError) as excinfo:
        firehose.describe_delivery_stream(DeliveryStreamName="gone")
    assert excinfo.value.response["Error"]["Code"] == "ResourceNotFoundException"


def statuses_read(local_aws: LocalAws, reads: int) -> dict[str, list[str]]:
    """A channel and a stream created now, each read `reads` times (a listing, then descriptions)."""
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam="b-1.x.kafka.eu-west-1.amazonaws.com:9098")
    kafka, firehose = boto3.client("kafka"), boto3.client("firehose")
    arn = kafka.create_channel(**iceberg_channel())["ChannelArn"]
    firehose.create_delivery_stream(**msk_stream("orders-to-lake", ICEBERG))
    channel = [kafka.list_channels(ClusterArn=CLUSTER_ARN)["Channels"][0]["Status"]]
    channel += [
        kafka.describe_channel(ClusterArn=CLUSTER_ARN, ChannelArn=arn)["Status"] for _ in range(reads - 1)
    ]
    stream = [
        firehose.describe_delivery_stream(DeliveryStreamName="orders-to-lake")["DeliveryStreamDescription"][
            "DeliveryStreamStatus"
        ]
        for _ in range(reads)
    ]
    return {"channel": channel, "stream": stream}


@pytest.mark.parametrize("creating_reads", [0, 1, 3])
def test_a_new_channel_and_stream_read_creating_for_the_readings_reads(
    local_aws: LocalAws, creating_reads: int
) -> None:
    # Given new channels and streams that stay CREATING for `creating_reads` reads (moto's state manager)
    local_aws.set_readings(
        channel_creating_reads=creating_reads, delivery_stream_creating_reads=creating_reads
    )

    # When a new channel and stream are each read one time more than that
    statuses = statuses_read(local_aws, creating_reads + 1)

    # Then exactly that many reads answer CREATING, and the next ACTIVE
    expected = ["CREATING"] * creating_reads + ["ACTIVE"]
    assert statuses == {"channel": expected, "stream": expected}


def test_moto_state_managers_transition_overrides_the_reading(local_aws: LocalAws) -> None:
    # Given the readings say ACTIVE at once, but moto's state manager is told two reads for both models
    manual = {"progression": "manual", "times": 2}
    state_manager.set_transition(lifecycle.CHANNEL, manual)
    state_manager.set_transition(lifecycle.DELIVERY_STREAM, manual)
    try:
        # When a new channel and stream are read three times each
        statuses = statuses_read(local_aws, 3)
    finally:
        state_manager.unset_transition(lifecycle.CHANNEL)
        state_manager.unset_transition(lifecycle.DELIVERY_STREAM)

    # Then moto's transition counted the reads, as it does for moto's own models
    expected = ["CREATING", "CREATING", "ACTIVE"]
    assert statuses == {"channel": expected, "stream": expected}


def test_a_status_set_by_hand_stays_whatever_the_reads(local_aws: LocalAws) -> None:
    # Given a channel and a stream set CREATING by the test hooks, while new ones turn ACTIVE at once
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam="b-1.x.kafka.eu-west-1.amazonaws.com:9098")
    request = {k: v for k, v in iceberg_channel().items() if k not in ("ClusterArn", "ChannelName")}
    arn = local_aws.channels.create(CLUSTER_ARN, "held", request, "CREATING")
    firehose = boto3.client("firehose")
    firehose.create_delivery_stream(**msk_stream("held-stream", ICEBERG))
    local_aws.firehose.set_status(ACCOUNT, "held-stream", "CREATING")

    # When each is read three times
    kafka = boto3.client("kafka")
    channel = {kafka.describe_channel(ClusterArn=CLUSTER_ARN, ChannelArn=arn)["Status"] for _ in range(3)}
    stream = {
        firehose.describe_delivery_stream(DeliveryStreamName="held-stream")["DeliveryStreamDescription"][
            "DeliveryStreamStatus"
        ]
        for _ in range(3)
    }

    # Then each still reads as it was set: only a status the resource was created with moves on
    assert (channel, stream) == ({"CREATING"}, {"CREATING"})


@pytest.mark.parametrize("reading", ["qualified", "account"])
def test_federated_catalog_tables_are_read_with_a_qualified_catalog_id(
    local_aws: LocalAws, reading: str
) -> None:
    # Given an S3 Tables table in s3tablescatalog/lake-tables, and a same-named table in the root catalog
    local_aws.set_readings(federated_catalog_id_in_answer=reading)
    local_aws.glue_catalogs.add_table(
        ACCOUNT, "s3tablescatalog/lake-tables", "sales", "orders", [("id", "string")]
    )
    glue = boto3.client("glue")
    glue.create_database(DatabaseInput={"Name": "sales"})
    glue.create_table(
        DatabaseName="sales", TableInput={"Name": "orders", "StorageDescriptor": {"Columns": []}}
    )
    catalog_id = f"{ACCOUNT}:s3tablescatalog/lake-tables"

    # When each is read
    federated = glue.get_table(CatalogId=catalog_id, DatabaseName="sales", Name="orders")["Table"]
    listed = glue.get_tables(CatalogId=catalog_id, DatabaseName="sales", Expression="orders|x")["TableList"]
    root = glue.get_table(DatabaseName="sales", Name="orders")["Table"]

    # Then the federated one has its columns and the answer's CatalogId follows the reading
    assert federated["StorageDescriptor"]["Columns"] == [{"Name": "id", "Type": "string"}]
    assert federated["CatalogId"] == (catalog_id if reading == "qualified" else ACCOUNT)
    assert [t["Name"] for t in listed] == ["orders"]
    assert root["StorageDescriptor"]["Columns"] == []
    with pytest.raises(ClientError) as excinfo:
        glue.get_table(CatalogId=f"{ACCOUNT}:s3tablescatalog/other", DatabaseName="sales", Name="orders")
    assert excinfo.value.response["Error"]["Code"] == "EntityNotFoundException"
