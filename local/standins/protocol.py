"""The AWS wire protocols on moto's machinery: which operation a request is, its parameters, and how results
and errors go back.

moto ships the server side of each protocol, driven by botocore's models: `moto.core.routing` (REST URI
templates to operations), `moto.core.parse` (request parsers) and `moto.core.serialize` (response
serializers). This module adds only what a strict stand-in needs on top:
- the service from the SigV4 credential scope (one front door serves every service);
- parsing that keeps a value that does not fit its shape as sent, so that `validation` reports it by member
  path (SerializationException) as AWS does, where moto's parsers would fail or coerce it; a body that is
  not JSON is a SerializationException (moto reads it as a message);
- a stand-in answer with a member the model lacks fails loudly (moto drops it silently);
- errors in each protocol's shape with the code unprefixed and `message` in lower case, as the services
  send them (moto's error serializer looks the code up among the model's error shapes and writes `Message`).
Requests are parsed into the input shape's member names (URI, query, header and body members merged,
timestamps as timezone-aware datetimes, blobs as bytes), which is what `validation` checks and what the
stand-ins receive. rest-xml requests (S3) pass through unparsed: no stand-in speaks it.

moto's router matches a REST operation on its required query string and header members too (that is how it
tells apart operations sharing a path), so a REST request lacking one routes to no operation: an unknown
operation to the stand-ins, passed on to moto otherwise. AWS does not say which error it answers; botocore
always sends required members, so only hand-made requests meet it.
"""

from __future__ import annotations

import binascii
import functools
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any
from urllib.parse import parse_qs, urlencode
from xml.sax.saxutils import escape

from botocore.exceptions import DataNotFoundError, UnknownServiceError
from botocore.model import OperationModel, ServiceModel, Shape
from botocore.utils import parse_timestamp
from moto.core import parse as moto_parse
from moto.core.request import Request as MotoRequest
from moto.core.routing import RestRouter
from moto.core.serialize import get_serializer_class
from moto.core.utils import get_service_model
from werkzeug.datastructures import Headers, MultiDict
from werkzeug.exceptions import NotFound

from local.standins.errors import ServiceError

# SigV4 signing names that are not the service's botocore name (and IAM prefix): CloudWatch signs as
# "monitoring" (botocore cloudwatch metadata signingName/endpointPrefix).
SIGNING_NAMES = {"monitoring": "cloudwatch"}
_CREDENTIAL_SCOPE = re.compile(r"Credential=[^/,\s]+/\d{8}/([^/]+)/([^/]+)/aws4_request")


@functools.cache
def service_model(service: str) -> ServiceModel | None:
    """moto's facade over botocore's model (the shapes moto's router, parsers and serializers read)."""
    try:
        model: ServiceModel = get_service_model(service)
    except (UnknownServiceError, DataNotFoundError):
        return None
    return model


@dataclass
class Request:
    """One HTTP request as the front door received it."""

    method: str
    path: str  # raw, still percent-encoded
    query: dict[str, list[str]]
    headers: dict[str, str]  # names lower-cased
    body: bytes


@dataclass
class Route:
    """The service and operation a request is for. `operation` is None when the model doesn't know it."""

    service: str  # the SigV4 signing name, e.g. "glue"
    region: str
    model: ServiceModel | None
    operation: OperationModel | None
    operation_name: str
    uri_params: dict[str, str] = field(default_factory=dict)

    @property
    def protocol(self) -> str:
        """The protocol botocore speaks to the service (the first it supports of the model's `protocols`)."""
        return self.model.resolved_protocol if self.model is not None else "json"


@dataclass
class Response:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def route(request: Request) -> Route | None:
    """Service from the SigV4 credential scope; operation from X-Amz-Target, Action or the URI template."""
    match = _CREDENTIAL_SCOPE.search(request.headers.get("authorization", ""))
    if match is None:
        return None
    region, service = match.group(1), match.group(2)
    service = SIGNING_NAMES.get(service, service)
    model = service_model(service)
    if model is None:
        return Route(service, region, None, None, "")
    protocol = model.resolved_protocol
    name = ""
    uri_params: dict[str, str] = {}
    if protocol == "json":
        name = request.headers.get("x-amz-target", "").rpartition(".")[2]
    elif protocol in ("query", "ec2"):
        form = parse_qs(request.body.decode("utf-8", "replace")) if request.body else request.query
        name = (form.get("Action") or [""])[0]
    else:
        try:
            matched, uri_params = _rest_router(service).match(_moto_request(request))
            name = matched.name
        except NotFound:
            pass
    operation = model.operation_model(name) if name in model.operation_names else None
    return Route(service, region, model, operation, name, uri_params)


@functools.cache
def _rest_router(service: str) -> RestRouter:
    model = service_model(service)
    assert model is not None
    return RestRouter(model)


def _moto_request(request: Request) -> MotoRequest:
    query = urlencode(request.query, doseq=True)
    built = MotoRequest.from_primitives(
        request.method, f"http://localhost{request.path}?{query}", request.headers, request.body
    )
    # The router matches the path as sent: a label such as a cluster ARN carries percent-encoded slashes.
    built.environ["RAW_URI"] = request.path
    return built


# ------------------------------------------------------------------------------------ request parsing

_UNFIT = (ValueError, TypeError, AttributeError, binascii.Error)


def _kept_as_sent(parse: Callable[..., Any]) -> Callable[..., Any]:
    """A value the shape's parser cannot take is kept as sent, for `validation` to report (see the module)."""

    def lenient(self: Any, shape: Shape, value: Any, *prefix: str) -> Any:
        try:
            return parse(self, shape, value, *prefix)
        except _UNFIT:
            return value.get(prefix[0], moto_parse.UNDEFINED) if prefix else value

    return lenient


def _timestamp(value: Any) -> Any:
    """Timezone-aware (moto's parsers make naive UTC datetimes), or the value as sent if it is not one."""
    try:
        return parse_timestamp(value).astimezone(UTC)
    except _UNFIT:
        return value


def _json_body(body: bytes | str) -> Any:
    if not body or not body.strip():
        return {}
    try:
        return json.loads(body)
    except ValueError as error:
        raise ServiceError(
            "SerializationException", f"Request body is not valid JSON: {error}", 400
        ) from error


def _boolean(text: Any) -> Any:
    """moto reads any text but "true" as False; the stand-ins keep it, for validation to report."""
    return {"true": True, "false": False}.get(text, text) if isinstance(text, str) else text


def _unfit_json(shape: Shape, node: Any) -> bool:
    """Whether a JSON value is not the object or array its shape is (a number's kind is validation's)."""
    wanted = {"structure": Mapping, "map": Mapping, "list": list}.get(shape.type_name)
    document = getattr(shape, "is_document_type", False)
    return node is not None and wanted is not None and not document and not isinstance(node, wanted)


class _JsonParser(moto_parse.JSONParser):
    """JSON values are typed on the wire: a number, list or object of the wrong kind stays as sent."""

    def _parse_body_as_json(self, body_contents: bytes | str) -> Any:
        return _json_body(body_contents)

    def _parse_shape(self, shape: Shape, node: Any) -> Any:
        return node if _unfit_json(shape, node) else super()._parse_shape(shape, node)

    def _default_handle(self, shape: Shape, value: Any) -> Any:
        return value

    _parse_integer = _parse_long = _parse_float = _parse_double = _default_handle
    _parse_blob = _kept_as_sent(moto_parse.JSONParser._parse_blob)


class _RestJsonParser(moto_parse.RestJSONParser):
    """Text members (URI, query string, headers) are converted to their shape; body members as in JSON."""

    _text = False

    def _parse_non_payload_attrs(self, *args: Any) -> None:
        self._text = True
        try:
            super()._parse_non_payload_attrs(*args)
        finally:
            self._text = False

    def _parse_body_as_json(self, body_contents: bytes | str) -> Any:
        body = _json_body(body_contents)
        if not isinstance(body, dict):
            raise ServiceError("SerializationException", "Request body must be a JSON object", 400)
        return body

    def _parse_shape(self, shape: Shape, node: Any) -> Any:
        return node if not self._text and _unfit_json(shape, node) else super()._parse_shape(shape, node)

    def _parse_integer(self, shape: Shape, value: Any) -> Any:
        return super()._parse_integer(shape, value) if self._text else value

    def _parse_float(self, shape: Shape, value: Any) -> Any:
        return super()._parse_float(shape, value) if self._text else value

    def _parse_boolean(self, shape: Shape, value: Any) -> Any:
        return _boolean(value) if self._text else value

    _parse_integer = _parse_long = _kept_as_sent(_parse_integer)
    _parse_float = _parse_double = _kept_as_sent(_parse_float)
    _parse_blob = _kept_as_sent(moto_parse.RestJSONParser._parse_blob)


class _QueryParser(moto_parse.QueryParser):
    def _parse_boolean(self, shape: Shape, query_params: Any, prefix: str = "") -> Any:
        return _boolean(query_params.get(prefix, moto_parse.UNDEFINED))

    _parse_integer = _parse_long = _kept_as_sent(moto_parse.QueryParser._parse_integer)
    _parse_float = _parse_double = _kept_as_sent(moto_parse.QueryParser._parse_float)
    _parse_blob = _kept_as_sent(moto_parse.QueryParser._parse_blob)


class _Ec2Parser(_QueryParser, moto_parse.EC2QueryParser):
    pass


_PARSERS: dict[str, type[moto_parse.RequestParser]] = {
    "json": _JsonParser,
    "rest-json": _RestJsonParser,
    "query": _QueryParser,
    "ec2": _Ec2Parser,
}


def parse(route_: Route, request: Request) -> dict[str, Any]:
    """The request's parameters under the input shape's member names. Values that don't fit their shape
    are kept as sent, so that validation reports them."""
    operation = route_.operation
    parser_class = _PARSERS.get(route_.protocol)
    if operation is None or operation.input_shape is None or parser_class is None:
        return {}
    form = request.query
    if route_.protocol in ("query", "ec2"):
        form = parse_qs(request.body.decode(), keep_blank_values=True)
    values: MultiDict[str, str] = MultiDict([(k, v) for k, items in form.items() for v in items])
    parsed = parser_class(operation, timestamp_parser=_timestamp).parse(
        {
            "method": request.method,
            "values": values,
            "headers": Headers(request.headers),
            "body": request.body,
            "url_path": request.path,
            "url_params": route_.uri_params,
        }
    )
    if not isinstance(parsed, dict):
        raise ServiceError("SerializationException", "Request body must be a JSON object", 400)
    return {key: value for key, value in parsed.items() if value is not None}


# ------------------------------------------------------------------------------ response serialization


def result_response(route_: Route, result: dict[str, Any]) -> Response:
    """Serialize a stand-in's result (a dict under the output shape's member names) as the service does."""
    assert route_.operation is not None
    assert route_.model is not None
    operation = route_.operation
    protocol = route_.protocol
    if protocol not in ("json", "rest-json"):
        raise NotImplementedError(f"stand-in results over the {protocol} protocol")
    shape = operation.output_shape
    _reject_unknown(shape, result, operation.name)
    serializer = get_serializer_class(route_.model.service_name, protocol)(operation)
    answer = serializer.serialize(result)
    status = int(answer["status_code"])
    for name, member in shape.members.items() if shape is not None else ():
        if member.serialization.get("location") == "statusCode" and result.get(name) is not None:
            status = int(result[name])  # moto's serializers leave statusCode members out (Lambda Invoke)
    body = answer["body"]
    body = body.encode() if isinstance(body, str) else bytes(body)
    if status == 204:
        body = b""
    headers = {"Content-Type": "application/json", **answer["headers"]}
    if protocol == "json":  # the model's protocol may be another one botocore also speaks (CloudWatch)
        headers["Content-Type"] = f"application/x-amz-json-{route_.model.metadata.get('jsonVersion', '1.0')}"
    return Response(status, list(headers.items()), body)


def _reject_unknown(shape: Shape | None, value: Any, where: str) -> None:
    """A stand-in that returns a member the model lacks is a bug in the stand-in: fail loudly (500)."""
    if shape is None or shape.type_name == "structure":
        if not isinstance(value, dict) or getattr(shape, "is_document_type", False):
            return
        known = shape.members if shape is not None else {}
        unknown = sorted(k for k, v in value.items() if k not in known and v is not None)
        if unknown:
            raise TypeError(f"stand-in returned members the model of {where} does not declare: {unknown}")
        for name, member in known.items():
            if value.get(name) is not None:
                _reject_unknown(member, value[name], where)
    elif shape.type_name == "list" and isinstance(value, list):
        for item in value:
            _reject_unknown(shape.member, item, where)
    elif shape.type_name == "map" and isinstance(value, dict):
        for item in value.values():
            _reject_unknown(shape.value, item, where)


def error_response(route_: Route | None, error: ServiceError) -> Response:
    """An error in the service's own wire format, so botocore raises the right ClientError code."""
    protocol = route_.protocol if route_ is not None else "json"
    headers = [("x-amzn-ErrorType", error.code), ("x-amzn-RequestId", "00000000-0000-0000-0000-000000000000")]
    if protocol == "json":
        version = route_.model.metadata.get("jsonVersion", "1.0") if route_ and route_.model else "1.1"
        body = json.dumps({"__type": error.code, "message": error.message}).encode()
        return Response(error.status, [("Content-Type", f"application/x-amz-json-{version}"), *headers], body)
    if protocol == "rest-json":
        body = json.dumps({"message": error.message}).encode()
        return Response(error.status, [("Content-Type", "application/json"), *headers], body)
    inner = f"<Code>{escape(error.code)}</Code><Message>{escape(error.message)}</Message>"
    if protocol == "query":
        fault = "Receiver" if error.status >= 500 else "Sender"
        error_xml = f"<Error><Type>{fault}</Type>{inner}</Error>"
        xml = f"<ErrorResponse>{error_xml}<RequestId>0</RequestId></ErrorResponse>"
    elif protocol == "ec2":
        xml = f"<Response><Errors><Error>{inner}</Error></Errors><RequestID>0</RequestID></Response>"
    else:
        xml = f"<Error>{inner}<RequestId>0</RequestId></Error>"
    return Response(error.status, [("Content-Type", "text/xml"), *headers], xml.encode())
