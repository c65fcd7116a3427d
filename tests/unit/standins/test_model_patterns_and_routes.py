"""The pure parts of the front door: Java-style model patterns, request routing, the fault schedule."""

from __future__ import annotations

import re
from urllib.parse import quote

import botocore.session
import pytest

from local.standins import protocol
from local.standins.errors import ServiceError
from local.standins.faults import Faults
from local.standins.validation import java_pattern, problems_in, validate

SERVICES = ("datazone", "glue", "ssm", "events", "sts", "kafka", "sqs")


def test_every_pattern_of_the_projects_services_can_be_checked() -> None:
    session = botocore.session.get_session()
    unchecked = []
    for service in SERVICES:
        model = session.get_service_model(service)
        for name in model.shape_names:
            pattern = model.shape_for(name).metadata.get("pattern")
            if pattern and java_pattern(pattern) is None:
                unchecked.append((service, pattern))
    assert unchecked == []


@pytest.mark.parametrize(
    ("pattern", "accepted", "refused"),
    [
        # UTF-16 surrogate-pair range in Java means "any supplementary character"
        (r"[\u0020-\uD7FF\uE000-\uFFFD\uD800\uDC00-\uDBFF\uDFFF\r\n\t]*", "tab\té \U0001f600", "bell\x07"),
        (r"[\p{L}\p{Z}\p{N}_.:/=+\-@]*", "Zürich 9:00", "semi;colon"),
        (r"\p{Alpha}+", "abc", "äbc"),  # Java's POSIX classes are ASCII only
        (r"[\w-\/.@+=,]{1,10}", "a-b/c.d", "a b"),  # Java reads \w- in a class as \w and '-'
        (r"[a-zA-Z0-9-_$#.]+", "cdc$#.-_", "cdc events"),
    ],
)
def test_java_patterns_mean_what_they_mean_in_java(pattern: str, accepted: str, refused: str) -> None:
    compiled = java_pattern(pattern)

    assert compiled is not None
    assert compiled.fullmatch(accepted)
    assert compiled.fullmatch(refused) is None


def _request(method: str, path: str, query: str = "", **headers: str) -> protocol.Request:
    scope = "Credential=testing/20240501/eu-west-1/{service}/aws4_request"
    return protocol.Request(
        method=method,
        path=path,
        query={k: [v] for k, v in (item.split("=") for item in query.split("&") if item)},
        headers={"authorization": "AWS4-HMAC-SHA256 " + scope.format(**headers), **headers},
        body=b"",
    )


@pytest.mark.parametrize("service", ["datazone", "kafka"])
def test_every_rest_operation_routes_back_to_itself(service: str) -> None:
    # Given a request built from each operation's own URI template, labels filled in, with the query and
    # header members the model requires (botocore always sends them; moto's router matches on them)
    model = botocore.session.get_session().get_service_model(service)
    for name in model.operation_names:
        operation = model.operation_model(name)
        http = operation.http
        path, _, query = http["requestUri"].partition("?")
        path = re.sub(r"\{[^}]+\}", "x1", path)
        keys = [item.partition("=")[0] for item in query.split("&") if item]
        headers: dict[str, str] = {}
        shape = operation.input_shape
        for member in shape.required_members if shape is not None else ():
            serialization = shape.members[member].serialization
            if serialization.get("location") == "querystring":
                keys.append(serialization.get("name", member))
            elif serialization.get("location") == "header":
                headers[serialization.get("name", member).lower()] = "1"
        query = "&".join(f"{key}=1" for key in keys)

        # When routed
        route = protocol.route(_request(http["method"], path, query, service=service, **headers))

        # Then it is that operation (two templates that differ only in a label's name would be ambiguous)
        assert route is not None
        assert route.operation_name == name, http


def test_json_and_query_operations_come_from_target_and_action() -> None:
    glue = protocol.route(_request("POST", "/", service="glue", **{"x-amz-target": "AWSGlue.ListSchemas"}))
    unknown = protocol.route(_request("POST", "/", service="glue", **{"x-amz-target": "AWSGlue.Nope"}))
    request = _request("POST", "/", service="sts")
    request.body = b"Action=GetCallerIdentity&Version=2011-06-15"
    sts = protocol.route(request)

    assert glue is not None
    assert (glue.service, glue.region, glue.operation_name) == ("glue", "eu-west-1", "ListSchemas")
    assert unknown is not None
    assert unknown.operation is None
    assert sts is not None
    assert sts.operation_name == "GetCallerIdentity"


def test_unsigned_requests_have_no_route() -> None:
    assert protocol.route(protocol.Request("GET", "/", {}, {}, b"")) is None


def test_query_protocol_parameters_are_parsed_per_the_model() -> None:
    request = _request("POST", "/", service="sts")
    request.body = (
        b"Action=AssumeRole&Version=2011-06-15&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fr"
        b"&RoleSessionName=s&DurationSeconds=900&Tags.member.1.Key=k&Tags.member.1.Value=v"
    )
    route = protocol.route(request)
    assert route is not None

    params = protocol.parse(route, request)

    assert params == {
        "RoleArn": "arn:aws:iam::123456789012:role/r",
        "RoleSessionName": "s",
        "DurationSeconds": 900,
        "Tags": [{"Key": "k", "Value": "v"}],
    }
    assert route.operation is not None
    assert problems_in(route.operation.input_shape, {**params, "DurationSeconds": 899})


def test_faults_fire_after_k_calls_for_n_calls() -> None:
    faults = Faults()
    faults.add(service="ssm", operation="PutParameter", kind="throttle", times=2, after=1)

    fired = [faults.take("ssm", "PutParameter") is not None for _ in range(5)]

    assert fired == [False, True, True, False, False]
    assert faults.take("ssm", "GetParameter") is None


def test_a_label_with_encoded_slashes_routes_and_arrives_decoded() -> None:
    # Given DescribeClusterV2 for a cluster ARN, whose slashes botocore percent-encodes in the path
    arn = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc$#.-_/1a2b3c4d-5"
    request = _request("GET", "/api/v2/clusters/" + quote(arn, safe=""), service="kafka")

    # When routed and parsed
    route = protocol.route(request)
    assert route is not None
    params = protocol.parse(route, request)

    # Then it is that operation, and the stand-in gets the ARN as sent
    assert route.operation_name == "DescribeClusterV2"
    assert params == {"ClusterArn": arn}


def test_text_members_that_do_not_fit_their_shape_are_kept_for_validation() -> None:
    # Given a rest-json request whose query integer is not a number and a json body whose integer is text
    listing = _request("GET", "/v2/domains/dzd_abc/lineage/events", "maxResults=ten", service="datazone")
    glue = _request("POST", "/", service="glue", **{"x-amz-target": "AWSGlue.ListSchemas"})
    glue.body = b'{"MaxResults": "10"}'

    # When parsed
    routes = [route for route in (protocol.route(listing), protocol.route(glue)) if route is not None]
    assert len(routes) == 2
    parsed = [protocol.parse(routes[0], listing), protocol.parse(routes[1], glue)]

    # Then both values arrive as sent, and validation answers SerializationException naming the member
    assert parsed == [{"domainIdentifier": "dzd_abc", "maxResults": "ten"}, {"MaxResults": "10"}]
    for route, params in zip(routes, parsed, strict=True):
        assert route.operation is not None
        with pytest.raises(ServiceError) as refused:
            validate(route.operation.input_shape, params)
        assert refused.value.code == "SerializationException"
        assert "axResults" in refused.value.message
