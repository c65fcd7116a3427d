"""Helpers for testing the stand-ins themselves: unvalidated clients, signed raw HTTP, a fake DataZone."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

from local.standins import LocalAws

NO_CLIENT_CHECKS = Config(parameter_validation=False, retries={"mode": "standard", "total_max_attempts": 1})


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def signed_request(
    aws: LocalAws,
    service: str,
    method: str,
    path: str,
    body: bytes = b"",
    headers: dict[str, str] | None = None,
) -> RawResponse:
    """Send an HTTP request signed like botocore's, but with whatever body the test wants."""
    request = AWSRequest(method=method, url=aws.endpoint_url + path, data=body, headers=headers or {})
    SigV4Auth(Credentials("testing", "testing"), service, aws.region).add_auth(request)
    prepared = request.prepare()
    raw = urllib.request.Request(
        prepared.url, data=body or None, method=method, headers=dict(prepared.headers)
    )
    try:
        with urllib.request.urlopen(raw, timeout=30) as response:
            return RawResponse(
                response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
            )
    except urllib.error.HTTPError as error:
        return RawResponse(error.code, {k.lower(): v for k, v in error.headers.items()}, error.read())


@dataclass
class FakeDataZone:
    """Stands in for DataZoneBackend: records what the server hands it and answers canned results."""

    answers: dict[str, Any] = field(default_factory=dict)
    received: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def handle(self, operation: str, params: dict[str, Any]) -> dict[str, Any]:
        self.received.append((operation, params))
        answer = self.answers.get(operation, {})
        return answer(params) if callable(answer) else dict(answer)


@pytest.fixture
def fake_datazone(local_aws: LocalAws) -> FakeDataZone:
    fake = FakeDataZone()
    local_aws.standins.datazone = fake
    return fake
