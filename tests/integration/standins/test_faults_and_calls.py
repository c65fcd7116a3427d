"""Injected faults reach boto3 as the service's own errors, so botocore's retries treat them as AWS's;
every call is recorded."""

from __future__ import annotations

import time
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from local.standins import LocalAws
from tests.integration.standins.conftest import FakeDataZone

# As kafka_lineage.aws.clients configures it. botocore reads `max_attempts` as retries: 9 attempts in all.
ADAPTIVE_8 = Config(retries={"mode": "adaptive", "max_attempts": 8})


def no_retries() -> Config:
    return Config(retries={"mode": "standard", "total_max_attempts": 1})


@pytest.mark.parametrize(
    ("service", "call", "code", "status"),
    [
        ("glue", lambda c: c.list_registries(), "ThrottlingException", 400),
        ("ssm", lambda c: c.describe_parameters(), "ThrottlingException", 400),
        ("kafka", lambda c: c.list_clusters_v2(), "TooManyRequestsException", 429),
        ("sts", lambda c: c.get_caller_identity(), "Throttling", 400),
    ],
)
def test_throttling_answers_each_services_own_code(
    local_aws: LocalAws, service: str, call: Any, code: str, status: int
) -> None:
    local_aws.faults.add(service=service, kind="throttle")

    with pytest.raises(ClientError) as excinfo:
        call(boto3.client(service, config=no_retries()))

    assert excinfo.value.response["Error"]["Code"] == code
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == status


def test_datazone_throttling_is_429_and_retried(
    local_aws: LocalAws, fake_datazone: FakeDataZone, fast_retries: None
) -> None:
    # Given DataZone throttles the next two DeleteAsset calls
    local_aws.faults.add(service="datazone", operation="DeleteAsset", kind="throttle", times=2)

    # When boto3 deletes with adaptive retries
    boto3.client("datazone", config=ADAPTIVE_8).delete_asset(domainIdentifier="dzd_abc123", identifier="a1")

    # Then botocore recognised the throttling and retried until the third attempt got through
    calls = [c for c in local_aws.calls if c.key == "datazone:DeleteAsset"]
    assert [(c.status, c.error) for c in calls] == [
        (429, "ThrottlingException"),
        (429, "ThrottlingException"),
        (204, None),
    ]
    assert len(fake_datazone.received) == 1


def test_server_errors_are_retried_and_surface_when_they_persist(
    local_aws: LocalAws, fast_retries: None
) -> None:
    glue = boto3.client("glue", config=Config(retries={"mode": "standard", "total_max_attempts": 3}))
    local_aws.faults.add(service="glue", operation="ListRegistries", kind="server_error", times=2)
    glue.list_registries()  # third attempt succeeds
    local_aws.faults.add(service="glue", operation="ListRegistries", kind="server_error", times=3)

    with pytest.raises(ClientError) as excinfo:
        glue.list_registries()

    assert excinfo.value.response["Error"]["Code"] == "InternalServiceException"
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 500
    assert local_aws.call_counts(ok=False)["glue:ListRegistries"] == 5


def test_a_lost_response_was_applied_and_the_retry_applies_it_again(
    local_aws: LocalAws, fast_retries: None
) -> None:
    # Given the next two PutParameter responses get lost
    ssm = boto3.client("ssm", config=ADAPTIVE_8)
    local_aws.faults.add(service="ssm", operation="PutParameter", kind="lost_response", times=2)

    # When a parameter is written (overwrite, as a sync would)
    ssm.put_parameter(Name="/kafka-lineage/x", Value="v", Type="String", Overwrite=True)

    # Then each attempt was applied: botocore retried twice after the lost answers
    assert ssm.get_parameter(Name="/kafka-lineage/x")["Parameter"]["Version"] == 3


def test_lost_responses_beyond_botocores_attempts_give_up_after_applying_every_attempt(
    local_aws: LocalAws, fast_retries: None
) -> None:
    # Given more lost responses (10) than adaptive mode with max_attempts=8 makes attempts (1 + 8 retries)
    ssm = boto3.client("ssm", config=ADAPTIVE_8)
    local_aws.faults.add(service="ssm", operation="PutParameter", kind="lost_response", times=10)

    # When a parameter is written
    with pytest.raises(ClientError) as excinfo:
        ssm.put_parameter(Name="/kafka-lineage/x", Value="v", Type="String", Overwrite=True)

    # Then the client gave up after 9 attempts, each of which the service applied
    assert excinfo.value.response["ResponseMetadata"]["HTTPStatusCode"] == 503
    assert excinfo.value.response["ResponseMetadata"]["RetryAttempts"] == 8
    assert ssm.get_parameter(Name="/kafka-lineage/x")["Parameter"]["Version"] == 9
    lost = [c for c in local_aws.calls if c.fault == "lost_response"]
    assert len(lost) == 9
    assert {c.key for c in lost} == {"ssm:PutParameter"}


def test_after_lets_the_first_calls_through(local_aws: LocalAws) -> None:
    ssm = boto3.client("ssm", config=no_retries())
    local_aws.faults.add(service="ssm", operation="PutParameter", kind="throttle", times=1, after=2)

    ssm.put_parameter(Name="/p/1", Value="v", Type="String")
    ssm.put_parameter(Name="/p/2", Value="v", Type="String")
    with pytest.raises(ClientError):
        ssm.put_parameter(Name="/p/3", Value="v", Type="String")
    ssm.put_parameter(Name="/p/4", Value="v", Type="String")

    assert [c.ok for c in local_aws.calls] == [True, True, False, True]


def test_a_fault_without_operation_hits_any_call_of_its_service_only(local_aws: LocalAws) -> None:
    local_aws.faults.add(service="glue", kind="server_error", times=2)
    glue = boto3.client("glue", config=no_retries())
    ssm = boto3.client("ssm", config=no_retries())

    ssm.describe_parameters()
    for call in (glue.list_registries, glue.get_databases):
        with pytest.raises(ClientError):
            call()
    glue.list_registries()

    assert [(c.key, c.ok) for c in local_aws.calls] == [
        ("ssm:DescribeParameters", True),
        ("glue:ListRegistries", False),
        ("glue:GetDatabases", False),
        ("glue:ListRegistries", True),
    ]


def test_unknown_fault_kind_is_refused(local_aws: LocalAws) -> None:
    with pytest.raises(ValueError, match="unknown fault kind"):
        local_aws.faults.add(service="glue", kind="explode")  # type: ignore[arg-type]


def test_latency_is_added_to_every_request(local_aws: LocalAws) -> None:
    glue = boto3.client("glue")
    glue.list_registries()  # warm up the connection and moto's Glue app
    local_aws.latency_ms = 150

    started = time.monotonic()
    glue.list_registries()
    glue.list_registries()
    elapsed = time.monotonic() - started

    assert elapsed >= 0.3


def test_calls_are_counted_per_service_and_operation(local_aws: LocalAws) -> None:
    glue = boto3.client("glue")
    glue.create_registry(RegistryName="cdc")
    glue.list_schemas(RegistryId={"RegistryName": "cdc"})
    glue.list_schemas(RegistryId={"RegistryName": "cdc"})
    with pytest.raises(ClientError):
        glue.list_schemas(RegistryId={"RegistryName": "missing"})

    assert local_aws.call_counts() == {"glue:CreateRegistry": 1, "glue:ListSchemas": 3}
    assert local_aws.call_counts(ok=False) == {"glue:ListSchemas": 1}
    assert local_aws.calls[-1].error == "EntityNotFoundException"
    local_aws.calls.clear()
    assert local_aws.call_counts() == {}


def test_reset_forgets_state_faults_calls_latency_and_readings(local_aws: LocalAws) -> None:
    glue = boto3.client("glue")
    glue.create_registry(RegistryName="cdc")
    local_aws.faults.add(service="glue", kind="throttle", times=5)
    local_aws.latency_ms = 50
    local_aws.readings.deleted_schemas_linger = 7

    local_aws.reset()

    assert (len(local_aws.faults), len(local_aws.calls), local_aws.latency_ms) == (0, 0, 0)
    assert local_aws.readings.deleted_schemas_linger == 0
    assert boto3.client("glue").list_registries()["Registries"] == []
