"""What a test double of a boto3 client needs to stand where the adapters expect an instrumented client:
botocore's own paginator over the double's list method (the service model's pagination config, so pages
are asked for exactly as a real client asks), and the typed errors the call layer raises
(kafka_lineage.aws.errors.typed_error). `wired` puts a double behind a real client instead, for what only
the hooks do (pacing, counting)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

import boto3
import botocore.session
from botocore import xform_name
from botocore.awsrequest import AWSResponse
from botocore.config import Config
from botocore.paginate import Paginator

from kafka_lineage.aws.calls import ClientCalls
from kafka_lineage.aws.clients import Clients
from kafka_lineage.aws.errors import typed_error
from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.model.failures import (
    AccessDenied,
    AwsError,
    Conflict,
    Invalid,
    NotFound,
    Throttled,
    Unavailable,
)

if TYPE_CHECKING:
    # A double is typed as anything, so that it goes where a typed client (mypy-boto3) is expected.
    _Base: Any = object
else:
    _Base = object


@cache
def _models(service: str) -> tuple[Any, Any]:
    session = botocore.session.get_session()
    return session.get_service_model(service), session.get_paginator_model(service)


class FakeClient(_Base):
    """Base of the client doubles: `SERVICE` names the botocore model their paginators follow."""

    SERVICE = ""

    def get_paginator(self, name: str) -> Paginator:
        service_model, paginators = _models(self.SERVICE)
        operation = next(op for op in service_model.operation_names if xform_name(op) == name)
        return Paginator(
            getattr(self, name), paginators.get_paginator(operation), service_model.operation_model(operation)
        )


class FakeClients(Clients):
    """A wiring's clients whose own-account clients are the doubles given, by service (`asked`: the
    services asked for, in order); the sessions of assumed roles are real ones."""

    def __init__(self, **doubles: Any) -> None:
        super().__init__()
        self.doubles = doubles
        self.asked: list[str] = []

    def client(self, service: str) -> Any:
        self.asked.append(service)
        return self.doubles[service]


def aws_error(code: str, message: str, operation: str, status: int | None = None) -> AwsError:
    """The error an instrumented client raises for this answer."""
    return typed_error({"Error": {"Code": code, "Message": message}}, operation, status)


def sdk_failure(exception: Exception, operation: str) -> AwsError:
    """What an instrumented client raises when botocore's HTTP exchange fails with `exception` (a read
    timeout after a lost response, say): the call layer's own after-call-error hook, run on it."""
    try:
        ClientCalls.after_call_error(exception=exception, event_name=f"after-call-error.test.{operation}")
    except AwsError as error:
        return error
    raise AssertionError(f"the call layer passed {exception!r} through")


# The HTTP status an AWS service answers each kind with (rest-json services model it; json ones read the
# code from the body whatever the status).
_STATUS = {NotFound: 404, Conflict: 409, Throttled: 429, AccessDenied: 403, Invalid: 400, Unavailable: 500}


class _Body:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self, **_: Any) -> Iterator[bytes]:
        yield self.data


def _json(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.timestamp()
    raise TypeError(f"not JSON: {value!r}")


def wired(fake: Any, service: str, config: Config | None = None) -> Any:
    """A real botocore client of `service` whose requests `fake` answers: its method of the operation is
    called with the request's parameters, and what it returns (or the typed error it raises) is sent back
    as the service's JSON answer. So the call layer's hooks (pacing every attempt, counting, typed errors)
    run on it as on any client. No retries unless `config` says so."""
    session = boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="eu-west-1"
    )
    client = session.client(
        service,
        endpoint_url=f"https://{service}.test",
        config=config or Config(retries={"mode": "standard", "total_max_attempts": 1}),
    )
    pending = threading.local()

    def remember(params: dict[str, Any], model: Any, **_: Any) -> None:
        pending.call = (model.name, dict(params))

    def answer(request: Any, **_: Any) -> AWSResponse:
        operation, params = pending.call
        headers = {"x-amzn-requestid": "test"}
        try:
            body, status = getattr(fake, xform_name(operation))(**params), 200
        except AwsError as error:
            status = next((s for kind, s in _STATUS.items() if isinstance(error, kind)), 400)
            body = {"__type": error.code, "message": error.message}
            headers["x-amzn-errortype"] = error.code
        return AWSResponse(request.url, status, headers, _Body(json.dumps(body, default=_json).encode()))

    client.meta.events.register("before-parameter-build", remember)
    client.meta.events.register("before-send", answer)
    return client


class CountingLimiter(RateLimiter):
    """A limiter that never waits and counts the tokens taken: which calls a client paced."""

    def __init__(self) -> None:
        super().__init__(1000.0)
        self.acquired = 0

    def acquire(self) -> int:
        self.acquired += 1
        return 0
