"""MSK bootstrap brokers from the stand-in; everything else (Glue Data Catalog, STS, EventBridge) from moto
through the same front door."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import boto3
import pytest
from botocore.exceptions import ClientError

from local.standins import LocalAws

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
HOST = "cdc.abc123.c2.kafka.eu-west-1.amazonaws.com"
IAM = f"b-1.{HOST}:9098,b-2.{HOST}:9098"
TLS = f"b-1.{HOST}:9094"


def test_registered_cluster_answers_its_bootstrap_strings_under_the_model_names(local_aws: LocalAws) -> None:
    # Given a cluster registered with SASL/IAM and TLS brokers
    local_aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam=IAM, tls=TLS)

    # When boto3 asks for its bootstrap brokers
    answer = boto3.client("kafka").get_bootstrap_brokers(ClusterArn=CLUSTER_ARN)

    # Then exactly those strings come back, under botocore's member names
    answer.pop("ResponseMetadata")
    assert answer == {"BootstrapBrokerStringSaslIam": IAM, "BootstrapBrokerStringTls": TLS}


def test_unknown_cluster_is_not_found(local_aws: LocalAws) -> None:
    with pytest.raises(ClientError) as excinfo:
        boto3.client("kafka").get_bootstrap_brokers(ClusterArn=CLUSTER_ARN)

    assert excinfo.value.response["Error"]["Code"] == "NotFoundException"
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 404


@pytest.mark.parametrize(
    ("arn", "strings", "complaint"),
    [
        ("arn:aws:kafka:eu-west-1:123456789012:topic/cdc/x", {"sasl_iam": IAM}, "not an MSK cluster ARN"),
        (CLUSTER_ARN, {}, "at least one"),
        (CLUSTER_ARN, {"sasl_iam": "no-port.example.com"}, "host:port"),
        (CLUSTER_ARN, {"sasl_oauth": IAM}, "unknown bootstrap string kinds"),
    ],
)
def test_set_brokers_refuses_what_msk_would_never_answer(
    local_aws: LocalAws, arn: str, strings: dict[str, str], complaint: str
) -> None:
    with pytest.raises(ValueError, match=complaint):
        local_aws.kafka.set_brokers(arn, **strings)


def test_glue_data_catalog_works_through_the_front_door(local_aws: LocalAws) -> None:
    glue = boto3.client("glue")
    glue.create_database(DatabaseInput={"Name": "lakehouse"})
    columns = [{"Name": "id", "Type": "int"}, {"Name": "email", "Type": "string"}]

    glue.create_table(
        DatabaseName="lakehouse",
        TableInput={
            "Name": "customers",
            "StorageDescriptor": {"Columns": columns},
            "TableType": "EXTERNAL_TABLE",
        },
    )
    table = glue.get_table(DatabaseName="lakehouse", Name="customers")["Table"]

    assert table["StorageDescriptor"]["Columns"] == columns
    assert local_aws.call_counts() == {"glue:CreateDatabase": 1, "glue:CreateTable": 1, "glue:GetTable": 1}


def test_sts_answers_the_configured_account(local_aws: LocalAws) -> None:
    identity = boto3.client("sts").get_caller_identity()

    assert identity["Account"] == local_aws.account


def test_eventbridge_delivers_to_an_sqs_target(local_aws: LocalAws) -> None:
    sqs = boto3.client("sqs")
    events = boto3.client("events")
    queue_url = sqs.create_queue(QueueName="changes")["QueueUrl"]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    events.put_rule(Name="changes", EventPattern=json.dumps({"source": ["kafka-lineage.schema-sync"]}))
    events.put_targets(Rule="changes", Targets=[{"Id": "q", "Arn": queue_arn}])

    events.put_events(
        Entries=[{"Source": "kafka-lineage.schema-sync", "DetailType": "Topic Asset Changed", "Detail": "{}"}]
    )

    messages = sqs.receive_message(QueueUrl=queue_url)["Messages"]
    assert json.loads(messages[0]["Body"])["detail-type"] == "Topic Asset Changed"


def test_a_waiting_moto_call_does_not_hold_up_others(local_aws: LocalAws) -> None:
    # Given a consumer long-polling an empty queue for up to 10 s
    sqs = boto3.client("sqs")
    queue_url = sqs.create_queue(QueueName="slow")["QueueUrl"]
    with ThreadPoolExecutor(max_workers=1) as pool:
        started = time.monotonic()
        waiting = pool.submit(boto3.client("sqs").receive_message, QueueUrl=queue_url, WaitTimeSeconds=10)
        time.sleep(0.5)

        # When another client sends meanwhile
        sqs.send_message(QueueUrl=queue_url, MessageBody="hello")

        # Then the send got through and the waiting consumer received it well before its timeout
        assert waiting.result(timeout=15)["Messages"][0]["Body"] == "hello"
        assert time.monotonic() - started < 5
