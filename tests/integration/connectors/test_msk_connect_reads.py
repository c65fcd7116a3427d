"""MSK Connect over the wire: the stand-in (validated against botocore's model) and the adapter that reads
the connectors of the configured clusters, keeps no credential, and says what it could not read."""

from __future__ import annotations

import json
import logging
import urllib.request
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from kafka_lineage.aws.clients import RETRY_CONFIG
from kafka_lineage.aws.connectors import PAGE_SIZE, MskConnect, broker_set
from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.config import Source
from kafka_lineage.connectors import derive
from kafka_lineage.model.topics import TopicKey
from local import world
from local.demo_connectors import create_request
from local.standins import LocalAws
from tests.integration.conftest import client_as

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/orders/0f1e2d3c-4b5a-1"
OTHER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/payments/9a8b7c6d-1"
HOST = "orders.abc123.c2.kafka.eu-west-1.amazonaws.com"
SECRET = "s3cr3t-Value-42"
MYSQL = {
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "topic.prefix": "inv",
    "database.hostname": "mysql.internal",
    "database.user": "debezium",
    "database.password": SECRET,
    "database.history.consumer.sasl.jaas.config": f'... password="{SECRET}";',
}
SINK = {
    "connector.class": "io.tabular.iceberg.connect.IcebergSinkConnector",
    "topics.regex": r"inv\.shop\..*",
    "iceberg.tables": "lake.orders",
    "iceberg.catalog.catalog-impl": "org.apache.iceberg.aws.glue.GlueCatalog",
    "iceberg.catalog.s3.secret-access-key": SECRET,
}


def source(**extra: Any) -> Source:
    return Source.model_validate({"registryName": "cdc", "clusterArn": CLUSTER_ARN, **extra})


@pytest.fixture
def clusters(local_aws: LocalAws) -> LocalAws:
    local_aws.kafka.set_brokers(
        CLUSTER_ARN, sasl_iam=f"b-1.{HOST}:9098,b-2.{HOST}:9098", tls=f"b-1.{HOST}:9094"
    )
    local_aws.kafka.set_brokers(OTHER_ARN, sasl_iam="b-1.payments.example:9098")
    return local_aws


def reader(aws: LocalAws) -> MskConnect:
    return MskConnect(boto3.client("kafkaconnect", config=RETRY_CONFIG), boto3.client("kafka"))


def test_create_list_describe_delete_follow_the_model(clusters: LocalAws) -> None:
    kafkaconnect = boto3.client("kafkaconnect")
    # Given a connector created through the API
    created = kafkaconnect.create_connector(**create_request("cdc-mysql", MYSQL, f"b-1.{HOST}:9098"))
    assert created["connectorState"] == "CREATING"
    arn = created["connectorArn"]
    assert arn.startswith("arn:aws:kafkaconnect:eu-west-1:123456789012:connector/cdc-mysql/")
    # Then it is listed (RUNNING) and described with its whole configuration, as MSK Connect answers it
    (summary,) = kafkaconnect.list_connectors()["connectors"]
    assert (summary["connectorName"], summary["connectorState"]) == ("cdc-mysql", "RUNNING")
    assert summary["kafkaCluster"]["apacheKafkaCluster"]["bootstrapServers"] == f"b-1.{HOST}:9098"
    assert kafkaconnect.describe_connector(connectorArn=arn)["connectorConfiguration"] == MYSQL
    # And a second one of the same name conflicts
    with pytest.raises(ClientError) as conflict:
        kafkaconnect.create_connector(**create_request("cdc-mysql", MYSQL, f"b-1.{HOST}:9098"))
    assert conflict.value.response["Error"]["Code"] == "ConflictException"
    # When deleted: DELETING for one listing (the reading's default), then gone
    assert kafkaconnect.delete_connector(connectorArn=arn)["connectorState"] == "DELETING"
    assert [c["connectorState"] for c in kafkaconnect.list_connectors()["connectors"]] == ["DELETING"]
    assert kafkaconnect.list_connectors()["connectors"] == []
    with pytest.raises(ClientError) as missing:
        kafkaconnect.describe_connector(connectorArn=arn)
    assert missing.value.response["Error"]["Code"] == "NotFoundException"


def test_the_model_limits_are_enforced_server_side(clusters: LocalAws) -> None:
    unchecked = clusters.client("kafkaconnect", config=world_no_checks())
    with pytest.raises(ClientError) as too_many:
        unchecked.list_connectors(maxResults=101)
    assert too_many.value.response["Error"]["Code"] == "ValidationException"
    with pytest.raises(ClientError) as long_name:
        unchecked.create_connector(**create_request("x" * 129, MYSQL, f"b-1.{HOST}:9098"))
    assert long_name.value.response["Error"]["Code"] == "ValidationException"
    # The sensitive configuration is never echoed in a validation message
    too_big = {"provisionedCapacity": {"mcuCount": 9, "workerCount": 1}}
    with pytest.raises(ClientError) as bad:
        unchecked.create_connector(**{**create_request("ok", MYSQL, f"b-1.{HOST}:9098"), "capacity": too_big})
    assert bad.value.response["Error"]["Code"] == "ValidationException"
    assert "mcuCount" in str(bad.value)
    assert SECRET not in str(bad.value)


def world_no_checks() -> Any:
    from botocore.config import Config

    return Config(parameter_validation=False, retries={"mode": "standard", "total_max_attempts": 1})


def test_pages_are_followed_and_only_the_sources_clusters_are_described(clusters: LocalAws) -> None:
    # Given 250 connectors on another cluster and two on the source's, listed last
    for index in range(250):
        clusters.kafkaconnect.create(f"pay-{index:03}", {"connector.class": "x"}, "b-1.payments.example:9098")
    clusters.kafkaconnect.create("cdc-mysql", MYSQL, f"SASL_SSL://B-2.{HOST.upper()}:9098")
    clusters.kafkaconnect.create("lake-sink", SINK, f"b-1.{HOST}:9094,b-9.elsewhere:9094")
    clusters.calls.clear()
    # When the adapter reads for the source
    reads = reader(clusters).read([source()])
    # Then it followed every page (100 a page) and described only the two connectors of its cluster
    counts = clusters.call_counts()
    assert counts["kafkaconnect:ListConnectors"] == 3
    assert counts["kafkaconnect:DescribeConnector"] == 2
    assert sorted(c.name for c in reads.connectors) == ["cdc-mysql", "lake-sink"]
    assert {c.cluster_name for c in reads.connectors} == {"orders"}
    assert reads.read_ok
    assert reads.unread == ()
    assert PAGE_SIZE == 100


def test_no_credential_is_kept_returned_or_logged(
    clusters: LocalAws, caplog: pytest.LogCaptureFixture
) -> None:
    clusters.kafkaconnect.create("cdc-mysql", MYSQL, f"b-1.{HOST}:9098")
    clusters.kafkaconnect.create("lake-sink", SINK, f"b-1.{HOST}:9098")
    caplog.set_level(logging.DEBUG)
    reads = reader(clusters).read([source()])
    derived = derive(reads, [TopicKey("cdc", "inv.shop.orders")], [source()])
    assert SECRET not in repr(reads)
    assert SECRET not in repr(derived)
    assert SECRET not in caplog.text
    assert "database.password" not in repr(reads)
    # And the edges are the ones the configurations give
    assert [(e.dataset_namespace, e.dataset_name) for e in derived.sources] == [
        ("mysql://mysql.internal:3306", "shop.orders")
    ]
    assert [e.table.name for e in derived.sinks] == ["lake/orders"]


def test_connectors_setting_off_or_excluding_reads_nothing_more(clusters: LocalAws) -> None:
    clusters.kafkaconnect.create("cdc-mysql", MYSQL, f"b-1.{HOST}:9098")
    clusters.kafkaconnect.create("lake-sink", SINK, f"b-1.{HOST}:9098")
    clusters.calls.clear()
    assert reader(clusters).read([source(connectors="off")]).connectors == ()
    assert clusters.call_counts("kafkaconnect") == {}
    reads = reader(clusters).read([source(connectors={"include": ["lake-*"]})])
    assert [c.name for c in reads.connectors] == ["lake-sink"]
    assert clusters.call_counts()["kafkaconnect:DescribeConnector"] == 1


def test_a_failed_listing_is_not_read_ok_and_one_failed_describe_is_unread(clusters: LocalAws) -> None:
    clusters.kafkaconnect.create("cdc-mysql", MYSQL, f"b-1.{HOST}:9098")
    clusters.kafkaconnect.create("lake-sink", SINK, f"b-1.{HOST}:9098")
    fast = MskConnect(
        clusters.client("kafkaconnect", config=world_no_checks()),
        clusters.client("kafka", config=world_no_checks()),
    )
    # Given ListConnectors fails
    clusters.faults.add(service="kafkaconnect", operation="ListConnectors", kind="throttle", times=1)
    reads = fast.read([source()])
    assert (reads.read_ok, reads.connectors) == (False, ())
    assert "ListConnectors" in reads.errors[0]
    assert derive(reads, [], [source()]).read_ok is False
    # Given one DescribeConnector fails: that connector is unread (keep its edges), the other is read
    clusters.faults.add(service="kafkaconnect", operation="DescribeConnector", kind="server_error", times=1)
    reads = fast.read([source()])
    assert reads.read_ok
    assert [c.name for c in reads.connectors] == ["lake-sink"]
    assert reads.unread == ("cdc-mysql",)
    assert [(n.kind, n.connector) for n in reads.notes] == [("unreadable", "cdc-mysql")]
    # Given the cluster's brokers cannot be read: not read_ok (whose connectors they are is unknown)
    clusters.faults.add(service="kafka", operation="GetBootstrapBrokers", kind="server_error", times=1)
    assert fast.read([source()]).read_ok is False


def test_a_connector_deleted_between_listing_and_describing_simply_has_no_edges(clusters: LocalAws) -> None:
    arn = clusters.kafkaconnect.create("cdc-mysql", MYSQL, f"b-1.{HOST}:9098")
    clusters.set_readings(deleted_connectors_linger=0)
    original = MskConnect._list

    def list_then_delete(self: MskConnect, stop: Any) -> list[dict[str, Any]]:
        listed = original(self, stop)
        boto3.client("kafkaconnect").delete_connector(connectorArn=arn)
        return listed

    adapter = reader(clusters)
    adapter._list = list_then_delete.__get__(adapter)  # type: ignore[method-assign]
    reads = adapter.read([source()])
    assert (reads.connectors, reads.unread, reads.read_ok) == ((), (), True)


def test_reads_are_paced_and_stop_when_told(clusters: LocalAws) -> None:
    for index in range(3):
        clusters.kafkaconnect.create(f"cdc-{index}", MYSQL, f"b-1.{HOST}:9098")
    taken: list[int] = []

    class CountingLimiter(RateLimiter):
        def acquire(self) -> int:
            taken.append(1)
            return super().acquire()

    limiter = CountingLimiter(1000.0)
    adapter = MskConnect(boto3.client("kafkaconnect"), boto3.client("kafka"), limiter)
    adapter.read([source()])
    assert len(taken) == 5  # brokers, one page, three describes
    # When the deadline has come before describing: every connector is unread, none is lost
    reads = adapter.read([source()], stop=lambda: True)
    assert reads.read_ok
    assert reads.connectors == ()
    assert reads.unread == ("cdc-0", "cdc-1", "cdc-2")
    # When it comes in the middle of the listing: nothing proves absence, so the read is not read_ok
    for index in range(150):
        clusters.kafkaconnect.create(f"more-{index}", {"connector.class": "x"}, "b-1.payments.example:9098")
    cut = adapter.read([source()], stop=lambda: True)
    assert (cut.read_ok, cut.connectors) == (False, ())


def test_broker_sets_ignore_case_scheme_and_spaces() -> None:
    assert broker_set(" SASL_SSL://B-1.X:9098 , b-2.x:9098,,") == {"b-1.x:9098", "b-2.x:9098"}


def test_iam_mode_the_lineage_role_may_list_and_describe_and_schema_sync_may_not(
    clusters: LocalAws, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the stack's roles for a source that reads its connectors (the default)
    env = world.environment([world.source_config(clusterArn=CLUSTER_ARN)])
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    arn = clusters.kafkaconnect.create("cdc-mysql", MYSQL, f"b-1.{HOST}:9098")
    lineage = world.deployed_role(clusters, "lineage-emission", {})
    sync = world.deployed_role(clusters, "schema-sync", {})
    # When the lineage function's role reads: allowed (ListConnectors on "*", DescribeConnector on the ARN)
    reads = MskConnect(
        client_as(clusters, lineage, "kafkaconnect", world_no_checks()),
        client_as(clusters, lineage, "kafka", world_no_checks()),
    ).read([source()])
    assert [c.arn for c in reads.connectors] == [arn]
    assert reads.read_ok
    # And schema-sync's role, which has no such grant, is denied
    with pytest.raises(ClientError) as denied:
        client_as(clusters, sync, "kafkaconnect", world_no_checks()).describe_connector(connectorArn=arn)
    assert denied.value.response["Error"]["Code"] in ("AccessDeniedException", "ForbiddenException")
    assert "kafkaconnect:DescribeConnector" in denied.value.response["Error"]["Message"]


def test_the_control_api_creates_connectors_for_a_separate_process(clusters: LocalAws) -> None:
    # Given the stand-ins served in another process, driven over /_local/ (remote.py's way)
    body = json.dumps({"name": "cdc-mysql", "configuration": MYSQL, "bootstrap_servers": f"b-1.{HOST}:9098"})
    request = urllib.request.Request(
        f"{clusters.endpoint_url}/_local/kafkaconnect/connectors", data=body.encode(), method="POST"
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        arn = json.loads(response.read())["connectorArn"]
    # Then the connector is there for the API
    described = boto3.client("kafkaconnect").describe_connector(connectorArn=arn)
    assert described["connectorName"] == "cdc-mysql"
