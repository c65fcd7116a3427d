"""`python -m local.standins` in its own process, driven over its control API by RemoteAws."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from local.standins.remote import RemoteAws, RemoteError

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"


@pytest.fixture(scope="module")
def remote() -> Iterator[RemoteAws]:
    aws = RemoteAws.spawn()
    yield aws
    aws.stop()


def test_round_trip_through_a_separate_process(remote: RemoteAws) -> None:
    # Given a fresh server process
    remote.reset()
    assert remote.health()
    glue = remote.client("glue", config=Config(retries={"mode": "standard", "total_max_attempts": 1}))

    # When state is seeded and faults, readings and latency set over the control API
    remote.kafka.set_brokers(CLUSTER_ARN, sasl_iam="b-1.x:9098,b-2.x:9098")
    remote.faults.add(service="glue", operation="ListRegistries", kind="throttle")
    remote.set_readings(deleted_schemas_linger=2)
    remote.latency_ms = 100

    # Then boto3 sees them through the other process
    brokers = remote.client("kafka").get_bootstrap_brokers(ClusterArn=CLUSTER_ARN)
    assert brokers["BootstrapBrokerStringSaslIam"] == "b-1.x:9098,b-2.x:9098"
    with pytest.raises(ClientError) as excinfo:
        glue.list_registries()
    assert excinfo.value.response["Error"]["Code"] == "ThrottlingException"
    started = time.monotonic()
    glue.list_registries()
    assert time.monotonic() - started >= 0.1
    assert remote.readings.deleted_schemas_linger == 2
    assert [f["fired"] for f in remote.faults] == [1]
    assert remote.call_counts() == {"kafka:GetBootstrapBrokers": 1, "glue:ListRegistries": 2}
    assert remote.call_counts(ok=False) == {"glue:ListRegistries": 1}
    assert [c.error for c in remote.calls] == [None, "ThrottlingException", None]

    # And reset forgets it all
    remote.reset()
    assert (remote.latency_ms, len(remote.calls), list(remote.faults)) == (0, 0, [])
    assert remote.readings.deleted_schemas_linger == 0


def test_control_api_refuses_bad_input(remote: RemoteAws) -> None:
    with pytest.raises(RemoteError, match="unknown reading"):
        remote.set_readings(no_such_switch=True)
    with pytest.raises(RemoteError, match="unknown fault kind"):
        remote.faults.add(service="glue", kind="explode")  # type: ignore[arg-type]


def test_environment_points_a_process_at_the_server(remote: RemoteAws) -> None:
    env = remote.environment()

    assert env["AWS_ENDPOINT_URL"] == remote.endpoint_url
    assert env["AWS_REGION"] == "eu-west-1"
