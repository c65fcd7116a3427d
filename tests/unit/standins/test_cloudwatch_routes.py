"""CloudWatch through the stand-ins' front door: botocore speaks the first protocol it supports of the
model's `protocols` (JSON for CloudWatch, whose model names smithy-rpc-v2-cbor first) and signs as
`monitoring`; the route names the service by its IAM prefix, `cloudwatch`, so calls are counted and
authorised as `cloudwatch:ListMetrics`."""

from __future__ import annotations

from local.standins import protocol


def request(scope_service: str, target: str) -> protocol.Request:
    authorization = (
        f"AWS4-HMAC-SHA256 Credential=testing/20261203/eu-west-1/{scope_service}/aws4_request, "
        "SignedHeaders=host;x-amz-date;x-amz-target, Signature=0"
    )
    return protocol.Request(
        "POST",
        "/",
        {},
        {"authorization": authorization, "x-amz-target": target},
        b'{"Namespace":"AWS/Kafka"}',
    )


def test_a_cloudwatch_request_is_routed_by_its_iam_prefix_and_the_protocol_botocore_speaks() -> None:
    route = protocol.route(request("monitoring", "GraniteServiceVersion20100801.ListMetrics"))
    assert route is not None
    assert (route.service, route.operation_name, route.protocol) == ("cloudwatch", "ListMetrics", "json")
    assert protocol.parse(route, request("monitoring", "GraniteServiceVersion20100801.ListMetrics")) == {
        "Namespace": "AWS/Kafka"
    }


def test_services_that_name_one_protocol_keep_it() -> None:
    route = protocol.route(request("glue", "AWSGlue.ListSchemas"))
    assert route is not None
    assert (route.service, route.operation_name, route.protocol) == ("glue", "ListSchemas", "json")
