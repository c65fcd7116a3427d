"""Integration tests run against the local stand-ins: one server per test session (per xdist worker), state
reset before every test, boto3 pointed at it only while a test that asks for `local_aws` runs.

IAM mode is on: the `deployed` fixture (local.deployed.DeployedFunctions) runs each function (schema-sync,
lineage-emission, the asset-type custom resource, subscription-grants) as built by its composition root,
under its own role, synthesized from the stack for the configuration the test gives it, and every AWS
call it makes is authorised against that role. Seeding and assertions use the unrestricted test key.

REVOKE_GRANTS_VARIABLE (e.g. `schema-sync=datazone:CreateAsset`, comma-separated) takes grants out of the
roles for a whole run: a test that needs a grant then fails with AccessDenied."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.retries import bucket, standard

from local.deployed import DeployedFunctions
from local.standins import LocalAws
from local.standins.iam_roles import Role
from tests.fixtures import VirtualClock

REVOKE_GRANTS_VARIABLE = "KAFKA_LINEAGE_TEST_REVOKE_GRANTS"
# One attempt: a refusal is seen as it is, not retried.
ONE_TRY = Config(retries={"mode": "standard", "total_max_attempts": 1})


def client_as(aws: LocalAws, role: Role, service: str, config: Config = ONE_TRY) -> Any:
    """A boto3 client of the stand-ins signing as `role` (its IAM-mode credentials)."""
    credentials = aws.iam.credentials_for(role)
    return boto3.session.Session().client(
        service,
        endpoint_url=aws.endpoint_url,
        region_name=aws.region,
        aws_access_key_id=credentials["AWS_ACCESS_KEY_ID"],
        aws_secret_access_key=credentials["AWS_SECRET_ACCESS_KEY"],
        aws_session_token=credentials["AWS_SESSION_TOKEN"],
        config=config,
    )


def revoke_from_environment(aws: LocalAws) -> None:
    for item in filter(None, os.environ.get(REVOKE_GRANTS_VARIABLE, "").split(",")):
        function, _, action = item.partition("=")
        aws.iam.revoke(function.strip(), action.strip())


@pytest.fixture(scope="session")
def _local_aws_server() -> Iterator[LocalAws]:
    aws = LocalAws().serve()
    yield aws
    aws.shutdown()


@pytest.fixture
def local_aws(_local_aws_server: LocalAws) -> Iterator[LocalAws]:
    """The stand-ins, empty, with AWS_ENDPOINT_URL and fake credentials set for this test, in IAM mode."""
    aws = _local_aws_server
    aws.reset()
    aws.activate()
    aws.iam.enable()
    revoke_from_environment(aws)
    try:
        yield aws
    finally:
        aws.deactivate()


@pytest.fixture
def deployed(local_aws: LocalAws) -> DeployedFunctions:
    """The stack's functions on the stand-ins, each run under its deployed role:
    `deployed.invoke("schema-sync", event, context)`."""
    return DeployedFunctions(local_aws)


@pytest.fixture
def fast_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore's retries without their waits: no backoff sleep (up to 20 s an attempt) and no adaptive-mode
    client-side rate limiting, so tests of retry behaviour stay quick. What is retried, and how often, is
    unchanged."""
    monkeypatch.setattr(standard.ExponentialBackoff, "delay_amount", lambda self, context: 0.0)
    monkeypatch.setattr(bucket.TokenBucket, "acquire", lambda self, amount=1, block=True: True)


@pytest.fixture
def quotas(local_aws: LocalAws, monkeypatch: pytest.MonkeyPatch) -> Callable[..., VirtualClock]:
    """Opt-in rate quotas: `clock = quotas(neighbour=0.5)` makes the stand-ins enforce AWS's per-operation
    request rates (local/standins/quotas.py), `neighbour` of each taken by another tool, on a virtual clock
    that the functions read too (their pacing, deadlines and waits), so what is throttled does not depend on
    this machine's speed. Off again when the test ends (the next test's reset)."""

    def enforce(neighbour: float = 0.0, undocumented: bool = True) -> VirtualClock:
        clock = VirtualClock.install(monkeypatch)
        local_aws.quotas.enable(neighbour, undocumented, clock=clock.monotonic)
        return clock

    return enforce
