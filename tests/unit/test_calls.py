"""The AWS call layer (kafka_lineage.aws.calls): pacing by botocore hook, call counting, typed errors."""

from __future__ import annotations

import pickle
from typing import Any

import botocore.retries.standard
import botocore.session
import pytest
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, EndpointConnectionError

from kafka_lineage.aws.calls import Repaced, Stopped, calls_of, instrument, pages_until
from kafka_lineage.aws.errors import KIND_OF_CODE, kind_of, typed_error
from kafka_lineage.aws.lineage_api import LineageApi
from kafka_lineage.aws.lineage_graph import DataZoneDownstreamWalker
from kafka_lineage.aws.pacing import Pacing
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.aws.registry import RegistryReader
from kafka_lineage.model.failures import (
    AccessDenied,
    AwsError,
    Conflict,
    Invalid,
    NotFound,
    QuotaExceeded,
    Throttled,
    Unavailable,
    describe_failure,
)
from tests.unit.fake_clients import CountingLimiter, FakeClient, aws_error, wired

SCHEMA_ARN = "arn:aws:glue:eu-west-1:123456789012:schema/cdc/orders"
RETRYING = Config(retries={"mode": "standard", "total_max_attempts": 3})


class Glue(FakeClient):
    """GetSchema failing `fail` times with `code` first; ListSchemas in pages of the size asked."""

    SERVICE = "glue"

    def __init__(self, fail: int = 0, code: str = "ThrottlingException", schemas: int = 0) -> None:
        self.fail, self.code = fail, code
        self.schemas = [f"s{i}" for i in range(schemas)]
        self.requests: list[str] = []

    def get_schema(self, **request: Any) -> dict[str, Any]:
        self.requests.append("GetSchema")
        if self.fail:
            self.fail -= 1
            raise aws_error(self.code, "refused", "GetSchema")
        return {"SchemaArn": SCHEMA_ARN, "SchemaName": "orders", "RegistryName": "cdc"}

    def list_schemas(self, **request: Any) -> dict[str, Any]:
        self.requests.append("ListSchemas")
        start = int(request.get("NextToken") or 0)
        size = request["MaxResults"]
        page: dict[str, Any] = {
            "Schemas": [
                {"SchemaName": name, "SchemaArn": f"{SCHEMA_ARN}-{name}", "RegistryName": "cdc"}
                for name in self.schemas[start : start + size]
            ]
        }
        if start + size < len(self.schemas):
            page["NextToken"] = str(start + size)
        return page

    def list_schema_versions(self, **request: Any) -> dict[str, Any]:
        return {"Schemas": [{"VersionNumber": 1, "SchemaVersionId": "v1", "Status": "AVAILABLE"}]}


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """botocore's retries without their sleeps (the attempts are what is counted)."""
    monkeypatch.setattr(botocore.retries.standard.ExponentialBackoff, "delay_amount", lambda self, ctx: 0)


# ------------------------------------------------------------------------------------------------ pacing


@pytest.mark.usefixtures("no_backoff")
def test_every_attempt_takes_a_token_retries_included_and_counts_once_as_a_call():
    # Given a client whose first two GetSchema attempts are throttled, paced by a counting limiter
    glue = Glue(fail=2)
    client = instrument(wired(glue, "glue", RETRYING), CountingLimiter())
    limiter = calls_of(client).limiter("GetSchema")
    assert isinstance(limiter, CountingLimiter)

    # When one GetSchema is made (botocore retries it twice)
    client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})

    # Then each of the three attempts took a token, and the call counts once
    assert glue.requests == ["GetSchema"] * 3
    assert limiter.acquired == 3
    assert (calls_of(client).count("GetSchema"), calls_of(client).attempts("GetSchema")) == (1, 3)


def test_the_datazone_adapters_that_share_a_client_share_its_limiter():
    # Given the lineage posts and the drift walks on one DataZone client with one limiter
    class DataZone(FakeClient):
        SERVICE = "datazone"

        def post_lineage_event(self, **request: Any) -> dict[str, Any]:
            return {"id": "evt1", "domainId": "dzd_1"}

        def get_lineage_node(self, **request: Any) -> dict[str, Any]:
            return {"domainId": "dzd_1", "id": "n1", "typeName": "amazon.datazone.X", "downstreamNodes": []}

    client, limiter = wired(DataZone(), "datazone"), CountingLimiter()
    events = LineageApi(client, "dzd_1", limiter)
    walker = DataZoneDownstreamWalker(client, "dzd_1", limiter=limiter)

    # When each makes a call
    events.post(b"{}", "token")
    walker("arn:aws:glue:eu-west-1:123456789012:table/db/t")

    # Then both calls took their token from the one limiter
    assert limiter.acquired == 2
    assert calls_of(client).counts() == {"PostLineageEvent": 1, "GetLineageNode": 1}


def test_a_limiter_for_some_operations_paces_only_those():
    # Given a packed store whose write limiter paces SSM writes only
    class Ssm(FakeClient):
        SERVICE = "ssm"

        def get_parameters_by_path(self, **request: Any) -> dict[str, Any]:
            return {"Parameters": []}

        def put_parameter(self, **request: Any) -> dict[str, Any]:
            return {"Version": 1}

    limiter = CountingLimiter()
    store = PackedStore(wired(Ssm(), "ssm"), "/kafka-lineage/assets", write_limiter=limiter)

    # When it loads (a read) and saves one entry (a write)
    store.load()
    store.save({"key": {"a": 1}})

    # Then only the write took a token
    assert limiter.acquired == 1


# ------------------------------------------------------------------------------------ instrumenting once


def test_a_client_is_paced_once_and_pacing_it_by_another_limiter_is_refused():
    # Given a client paced by one limiter, and instrumented again by the same one (another adapter's)
    glue = Glue()
    client = wired(glue, "glue")
    first, second = CountingLimiter(), CountingLimiter()
    assert instrument(client, first) is client
    state = calls_of(client)
    instrument(instrument(client, first))

    # When another limiter would pace it (all its calls, or one operation), then that is refused
    with pytest.raises(Repaced):
        instrument(client, second)
    with pytest.raises(Repaced):
        instrument(client, Pacing("glue"))
    instrument(client, second, operations=("GetSchema",))  # one operation: its own limiter, once
    with pytest.raises(Repaced):
        instrument(client, first, operations=("GetSchema",))

    # And a call is counted once and paced once, by the limiter its operation was given
    client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})
    assert calls_of(client) is state
    assert state.count() == 1
    assert (first.acquired, second.acquired) == (0, 1)


def test_pages_are_counted_as_calls_and_a_reader_reports_its_own():
    # Given a registry of 5 schemas listed 2 a page, and a reader made after another call on its client
    glue = Glue(schemas=5)
    client = wired(glue, "glue")
    instrument(client).get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})
    reader = RegistryReader(client)

    # When it lists with that page size
    listed = list(
        pages_until(
            client.get_paginator("list_schemas").paginate(
                RegistryId={"RegistryName": "cdc"}, PaginationConfig={"PageSize": 2}
            ),
            None,
        )
    )

    # Then three pages were three calls, and the reader counts them (not the call made before it existed)
    assert len(listed) == 3
    assert calls_of(client).count("ListSchemas") == 3
    assert reader.calls == 3


def test_a_listing_stops_before_the_next_page_once_told_but_never_after_its_last():
    glue = Glue(schemas=5)
    client = wired(glue, "glue")
    pages = client.get_paginator("list_schemas").paginate(
        RegistryId={"RegistryName": "cdc"}, PaginationConfig={"PageSize": 2}
    )
    # Given a deadline that comes after the first page
    read: list[Any] = []
    listing = pages_until(pages, stop=lambda: bool(read))
    read.append(next(listing))
    with pytest.raises(Stopped):
        next(listing)
    # Then no second page was asked for
    assert glue.requests == ["ListSchemas"]

    # And a listing whose last page came is complete, whatever the deadline says then
    glue.requests.clear()
    whole = client.get_paginator("list_schemas").paginate(
        RegistryId={"RegistryName": "cdc"}, PaginationConfig={"PageSize": 10}
    )
    assert len(list(pages_until(whole, stop=lambda: True))) == 1


# ------------------------------------------------------------------------------------------- typed errors


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("EntityNotFoundException", NotFound),
        ("ParameterAlreadyExists", Conflict),
        ("ThrottlingException", Throttled),
        ("AccessDeniedException", AccessDenied),
        ("ValidationException", Invalid),
        ("InternalServiceException", Unavailable),
    ],
)
def test_an_error_code_is_raised_as_its_kind_keeping_the_code(code: str, kind: type[AwsError]):
    # Given a client whose GetSchema is refused with the code
    client = instrument(wired(Glue(fail=1, code=code), "glue"))

    # When it is called
    with pytest.raises(kind) as raised:
        client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})

    # Then the error is the kind, still a botocore ClientError, with the code and the operation
    error = raised.value
    assert (error.code, error.operation, error.message) == (code, "GetSchema", "refused")
    assert isinstance(error, ClientError)
    assert error.response["Error"]["Code"] == code
    assert str(error) == describe_failure(error) == f"GetSchema: {code}: refused"
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), copy.code) == (type(error), code)


def test_an_unknown_code_is_the_base_aws_error():
    client = instrument(wired(Glue(fail=1, code="BrandNewException"), "glue"))
    with pytest.raises(AwsError) as raised:
        client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})
    assert not isinstance(
        raised.value, NotFound | Conflict | Throttled | AccessDenied | Invalid | Unavailable
    )
    assert raised.value.code == "BrandNewException"


@pytest.mark.parametrize(
    ("status", "kind"),
    [(400, AwsError), (403, AccessDenied), (404, NotFound), (429, Throttled), (503, Unavailable)],
)
def test_an_unknown_code_takes_the_kind_of_its_http_status(status: int, kind: type[AwsError]):
    assert kind_of("BrandNewException", status) is kind
    assert type(typed_error({"Error": {"Code": "BrandNewException"}}, "Op", status)).__mro__[2] is kind


def test_a_connection_failure_is_unavailable():
    # Given a client whose endpoint cannot be reached
    def unreachable(request: Any, **_: Any) -> None:
        raise EndpointConnectionError(endpoint_url=request.url)

    client = instrument(wired(Glue(), "glue"))
    client.meta.events.register_first("before-send", unreachable)

    # When it is called
    with pytest.raises(Unavailable) as raised:
        client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})

    # Then the failure is Unavailable (and the BotoCoreError botocore raised), named after it
    assert raised.value.code == "EndpointConnectionError"
    assert isinstance(raised.value, BotoCoreError)
    assert isinstance(raised.value.__cause__, EndpointConnectionError)


# The operations the functions call, by service (what the adapters and the custom resource ask).
CALLED = {
    "glue": ["ListSchemas", "ListSchemaVersions", "GetSchema", "GetSchemaVersion", "GetTables", "GetTable"],
    "datazone": [
        "GetAssetType",
        "GetFormType",
        "CreateAsset",
        "CreateAssetRevision",
        "GetAsset",
        "CreateListingChangeSet",
        "DeleteAsset",
        "GetListing",
        "Search",
        "PostLineageEvent",
        "DeleteLineageEvent",
        "GetLineageEvent",
        "ListLineageEvents",
        "GetLineageNode",
        "CreateAssetType",
        "DeleteAssetType",
        "CreateFormType",
        "GetSubscriptionGrant",
        "ListSubscriptionGrants",
        "UpdateSubscriptionGrantStatus",
        "GetSubscriptionTarget",
        "GetEnvironment",
    ],
    "ssm": ["GetParametersByPath", "PutParameter", "DeleteParameter", "DeleteParameters"],
    "events": ["PutEvents"],
    "kafka": [
        "GetBootstrapBrokers",
        "DescribeClusterV2",
        "GetClusterPolicy",
        "PutClusterPolicy",
        "DeleteClusterPolicy",
    ],
    "iam": [
        "GetRole",
        "ListRolePolicies",
        "GetRolePolicy",
        "ListAttachedRolePolicies",
        "GetPolicy",
        "GetPolicyVersion",
        "ListPolicyVersions",
        "PutRolePolicy",
        "DeleteRolePolicy",
        "CreatePolicy",
        "CreatePolicyVersion",
        "DeletePolicyVersion",
        "AttachRolePolicy",
        "DetachRolePolicy",
        "DeletePolicy",
    ],
    "kafkaconnect": ["ListConnectors", "DescribeConnector"],
    "sts": ["AssumeRole"],
    "lambda": ["Invoke"],
}
_STATUS_KIND = {401: AccessDenied, 403: AccessDenied, 404: NotFound, 409: Conflict, 429: Throttled}


def _error_shapes(service: str) -> list[Any]:
    return list(botocore.session.get_session().get_service_model(service).error_shapes)


@pytest.mark.parametrize("service", sorted(CALLED))
def test_every_error_the_called_operations_declare_has_a_kind(service: str):
    # Given the errors botocore's model declares for each operation called
    model = botocore.session.get_session().get_service_model(service)
    declared = {
        shape.error_code: shape.metadata.get("error", {}).get("httpStatusCode")
        for operation in CALLED[service]
        for shape in model.operation_model(operation).error_shapes
    }
    # Then each has a kind other than the base one
    unkinded = sorted(code for code, status in declared.items() if kind_of(code, status) is AwsError)
    assert unkinded == []


@pytest.mark.parametrize("service", sorted(CALLED))
def test_the_table_agrees_with_the_http_status_the_models_give(service: str):
    # Given every error shape of the service that the table names and whose model gives a telling status
    for shape in _error_shapes(service):
        status = shape.metadata.get("error", {}).get("httpStatusCode")
        kind = KIND_OF_CODE.get(shape.error_code)
        if kind is None or status is None:
            continue
        # Then the table's kind is the status's
        if status >= 500:
            assert kind is Unavailable, (shape.error_code, status)
        elif status in _STATUS_KIND and kind is not QuotaExceeded:
            # (IAM answers its LimitExceeded, a quota on an amount, with 409: QuotaExceeded, never retried)
            assert kind is _STATUS_KIND[status], (shape.error_code, status)


def test_every_code_in_the_table_is_a_code_of_a_called_service_or_of_botocore_retries():
    modelled = {shape.error_code for service in CALLED for shape in _error_shapes(service)}
    retries = {
        *botocore.retries.standard.ThrottledRetryableChecker._THROTTLED_ERROR_CODES,
        *botocore.retries.standard.TransientRetryableChecker._TRANSIENT_ERROR_CODES,
    }
    # Common errors every AWS service may answer (AWS API reference, "Common Errors").
    common = {
        "AccessDenied",
        "ExpiredToken",
        "IncompleteSignature",
        "InternalFailure",
        "InvalidClientTokenId",
        "InvalidSignatureException",
        "MissingAuthenticationToken",
        "ServiceUnavailable",
        "SignatureDoesNotMatch",
        "UnrecognizedClientException",
        "ValidationError",
    }
    assert sorted(set(KIND_OF_CODE) - modelled - retries - common) == []
