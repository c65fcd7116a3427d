"""The AWS wire protocols, driven by botocore's service models: which operation a request is, its parameters,
and how results and errors go back.

Requests are parsed into the input shape's member names (URI, query, header and body members merged,
timestamps as datetimes, blobs as bytes), which is what `validation` checks and what the stand-ins receive.
botocore ships only the client side of each protocol (serialize requests, parse responses); this is the
mirror image, for the protocols the project's services speak (json, rest-json, query; rest-xml and ec2 for
errors only).
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qs, unquote
from xml.sax.saxutils import escape

import botocore.session
from botocore.model import OperationModel, ServiceModel, Shape

from local.standins.errors import ServiceError

_SESSION = botocore.session.get_session()
_SESSION_LOCK = threading.Lock()  # botocore sessions are not thread-safe
# SigV4 signing names that are not the service's botocore name (and IAM prefix): CloudWatch signs as
# "monitoring" (botocore cloudwatch metadata signingName/endpointPrefix).
SIGNING_NAMES = {"monitoring": "cloudwatch"}
_CREDENTIAL_SCOPE = re.compile(r"Credential=[^/,\s]+/\d{8}/([^/]+)/([^/]+)/aws4_request")


@functools.cache
def service_model(service: str) -> ServiceModel | None:
    with _SESSION_LOCK:
        if service not in _SESSION.get_available_services():
            return None
        return _SESSION.get_service_model(service)


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
        found = _match_uri(model, request)
        if found is not None:
            name, uri_params = found
    operation = model.operation_model(name) if name in model.operation_names else None
    return Route(service, region, model, operation, name, uri_params)


@functools.cache
def _uri_templates(model: ServiceModel) -> list[tuple[re.Pattern[str], str, str, list[str], list[str], int]]:
    """Per operation: (path regex, method, name, label names, required query keys, literal length)."""
    templates = []
    for name in model.operation_names:
        http = model.operation_model(name).http
        path, _, query = http["requestUri"].partition("?")
        labels: list[str] = []
        pattern = ""
        for part in re.split(r"(\{[^}]+\})", path):
            if part.startswith("{"):
                label = part[1:-1]
                labels.append(label.rstrip("+"))
                pattern += "(.+)" if label.endswith("+") else "([^/]+)"
            else:
                pattern += re.escape(part)
        literal = len(re.sub(r"\{[^}]+\}", "", path))
        required = [item.partition("=")[0] for item in query.split("&") if item]
        templates.append((re.compile(pattern), http["method"], name, labels, required, literal))
    return templates


def _match_uri(model: ServiceModel, request: Request) -> tuple[str, dict[str, str]] | None:
    best: tuple[int, int, str, dict[str, str]] | None = None
    for regex, method, name, labels, required, literal in _uri_templates(model):
        if method != request.method or any(key not in request.query for key in required):
            continue
        match = regex.fullmatch(request.path)
        if match is None:
            continue
        # The most specific template wins: most literal characters, then fewest labels.
        rank = (literal + 1000 * len(required), -len(labels))
        if best is None or rank > best[:2]:
            params = {label: unquote(value) for label, value in zip(labels, match.groups(), strict=True)}
            best = (*rank, name, params)
    return (best[2], best[3]) if best is not None else None


# ------------------------------------------------------------------------------------ request parsing


def parse(route_: Route, request: Request) -> dict[str, Any]:
    """The request's parameters under the input shape's member names. Values that don't fit their shape
    are kept as sent, so that validation reports them."""
    operation = route_.operation
    if operation is None or operation.input_shape is None:
        return {}
    shape = operation.input_shape
    protocol = route_.protocol
    if protocol == "json":
        return _from_json(shape, _json_body(request.body)) or {}
    if protocol in ("query", "ec2"):
        form = {
            key: values[-1] for key, values in parse_qs(request.body.decode(), keep_blank_values=True).items()
        }
        return _from_query(shape, form, "") or {}
    if protocol == "rest-json":
        return _parse_rest_json(shape, route_.uri_params, request)
    return {}  # rest-xml: no stand-in speaks it; such requests pass through unparsed


def _json_body(body: bytes) -> Any:
    if not body.strip():
        return {}
    try:
        return json.loads(body)
    except ValueError as error:
        raise ServiceError(
            "SerializationException", f"Request body is not valid JSON: {error}", 400
        ) from error


def _parse_rest_json(shape: Shape, uri_params: dict[str, str], request: Request) -> dict[str, Any]:
    members: dict[str, Shape] = shape.members
    payload = shape.serialization.get("payload")
    params: dict[str, Any] = {}
    claimed_query: set[str] = set()
    for name, member in members.items():
        location = member.serialization.get("location")
        wire = member.serialization.get("name", name)
        if location == "querystring" and member.type_name != "map":
            claimed_query.add(wire)
    for name, member in members.items():
        location = member.serialization.get("location")
        wire = member.serialization.get("name", name)
        value: Any = None
        if location == "uri":
            value = _from_text(member, uri_params[wire]) if wire in uri_params else None
        elif location == "querystring":
            if member.type_name == "map":
                rest = {k: v for k, v in request.query.items() if k not in claimed_query}
                value_shape: Shape = member.value
                value = {
                    k: [_from_text(value_shape.member, x) for x in v]
                    if value_shape.type_name == "list"
                    else _from_text(value_shape, v[-1])
                    for k, v in rest.items()
                } or None
            elif wire in request.query:
                values = request.query[wire]
                if member.type_name == "list":
                    value = [_from_text(member.member, x) for x in values]
                else:
                    value = _from_text(member, values[-1])
        elif location == "header":
            text = request.headers.get(wire.lower())
            if text is not None:
                if member.type_name == "list":
                    value = [_from_text(member.member, x.strip()) for x in text.split(",")]
                else:
                    value = _from_text(member, text, header=True)
        elif location == "headers":
            prefix = wire.lower()
            value = {
                k[len(prefix) :]: v for k, v in request.headers.items() if k.lower().startswith(prefix)
            } or None
        elif name == payload:
            if member.type_name == "blob":
                value = request.body
            elif member.type_name == "string":
                value = request.body.decode("utf-8")
            elif request.body.strip():
                value = _from_json(member, _json_body(request.body))
        if value is not None:
            params[name] = value
    if payload is None:
        body = _json_body(request.body)
        if not isinstance(body, dict):
            raise ServiceError("SerializationException", "Request body must be a JSON object", 400)
        for name, member in members.items():
            wire = member.serialization.get("name", name)
            if "location" not in member.serialization and wire in body:
                params[name] = _from_json(member, body[wire])
    return params


def _from_json(shape: Shape, value: Any) -> Any:
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        out = {}
        for name, member in shape.members.items():
            wire = member.serialization.get("name", name)
            if wire in value and value[wire] is not None:
                out[name] = _from_json(member, value[wire])
        return out
    if kind == "list" and isinstance(value, list):
        return [_from_json(shape.member, item) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: _from_json(shape.value, item) for key, item in value.items()}
    if kind == "timestamp":
        return _timestamp(value)
    if kind == "blob" and isinstance(value, str):
        return _base64(value)
    return value


def _from_text(shape: Shape, text: str, header: bool = False) -> Any:
    kind = shape.type_name
    try:
        if kind in ("integer", "long"):
            return int(text)
        if kind in ("float", "double"):
            return float(text)
    except ValueError:
        return text
    if kind == "boolean":
        return {"true": True, "false": False}.get(text, text)
    if kind == "timestamp":
        return _timestamp(text)
    if kind == "blob":
        return _base64(text)
    if kind == "string" and header and shape.serialization.get("jsonvalue"):
        return base64.b64decode(text).decode("utf-8")
    return text


def _from_query(shape: Shape, form: dict[str, str], key: str) -> Any:
    kind = shape.type_name
    if kind == "structure":
        if key and not any(k.startswith(key + ".") for k in form):
            return None
        out = {}
        for name, member in shape.members.items():
            wire = member.serialization.get("name", name)
            value = _from_query(member, form, f"{key}.{wire}" if key else wire)
            if value is not None:
                out[name] = value
        return out
    if kind in ("list", "map"):
        if form.get(key) == "":
            return [] if kind == "list" else {}
        flat = shape.serialization.get("flattened")
        if kind == "list":
            base = key if flat else f"{key}.{shape.member.serialization.get('name', 'member')}"
            items: list[Any] = []
            while (item := _from_query(shape.member, form, f"{base}.{len(items) + 1}")) is not None:
                items.append(item)
            return items or None
        base = key if flat else f"{key}.entry"
        key_name = shape.key.serialization.get("name", "key")
        value_name = shape.value.serialization.get("name", "value")
        entries: dict[str, Any] = {}
        index = 1
        while f"{base}.{index}.{key_name}" in form:
            entries[form[f"{base}.{index}.{key_name}"]] = _from_query(
                shape.value,
                form,
                f"{base}.{index}.{value_name}",
            )
            index += 1
        return entries or None
    return _from_text(shape, form[key]) if key in form else None


def _timestamp(value: Any) -> Any:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, tz=UTC)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            pass
        try:
            return parsedate_to_datetime(value)
        except (TypeError, ValueError):
            pass
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except ValueError:
            return value
    return value


def _base64(text: str) -> Any:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return text


# ------------------------------------------------------------------------------ response serialization


def result_response(route_: Route, result: dict[str, Any]) -> Response:
    """Serialize a stand-in's result (a dict under the output shape's member names) as the service does."""
    assert route_.operation is not None
    assert route_.model is not None
    operation = route_.operation
    shape = operation.output_shape
    status = int(operation.http.get("responseCode", 200))
    protocol = route_.protocol
    if shape is None:
        _reject_unknown(None, result, operation.name)
        return Response(status, [("Content-Type", "application/json")], b"" if status == 204 else b"{}")
    if protocol == "json":
        version = route_.model.metadata.get("jsonVersion", "1.0")
        body = json.dumps(_to_json(shape, result, operation.name)).encode()
        return Response(status, [("Content-Type", f"application/x-amz-json-{version}")], body)
    if protocol != "rest-json":
        raise NotImplementedError(f"stand-in results over the {protocol} protocol")
    _reject_unknown(shape, result, operation.name)
    headers: list[tuple[str, str]] = []
    body_members: dict[str, Any] = {}
    payload = shape.serialization.get("payload")
    raw_body: bytes | None = None
    content_type = "application/json"
    for name, member in shape.members.items():
        value = result.get(name)
        if value is None:
            continue
        location = member.serialization.get("location")
        wire = member.serialization.get("name", name)
        if location == "header":
            headers.append((wire, _header_text(member, value)))
        elif location == "headers":
            headers.extend((wire + key, str(item)) for key, item in value.items())
        elif location == "statusCode":
            status = int(value)
        elif name == payload:
            if member.type_name == "blob":
                raw_body = bytes(value)
                content_type = "application/octet-stream"
            elif member.type_name == "string":
                raw_body = value.encode()
                content_type = "text/plain"
            else:
                raw_body = json.dumps(_to_json(member, value, operation.name)).encode()
        else:
            body_members[name] = value
    if raw_body is None:
        raw_body = (
            b"" if status == 204 else json.dumps(_to_json(shape, body_members, operation.name)).encode()
        )
    return Response(status, [("Content-Type", content_type), *headers], raw_body)


def _reject_unknown(shape: Shape | None, value: dict[str, Any], where: str) -> None:
    """A stand-in that returns a member the model lacks is a bug in the stand-in: fail loudly (500)."""
    known = shape.members if shape is not None else {}
    unknown = sorted(k for k, v in value.items() if k not in known and v is not None)
    if unknown:
        raise TypeError(f"stand-in returned members the model of {where} does not declare: {unknown}")


def _to_json(shape: Shape, value: Any, where: str) -> Any:
    kind = shape.type_name
    if kind == "structure":
        _reject_unknown(shape, value, where)
        out = {}
        for name, member in shape.members.items():
            if value.get(name) is not None and "location" not in member.serialization:
                out[member.serialization.get("name", name)] = _to_json(member, value[name], where)
        return out
    if kind == "list":
        return [_to_json(shape.member, item, where) for item in value]
    if kind == "map":
        return {key: _to_json(shape.value, item, where) for key, item in value.items()}
    if kind == "timestamp" and isinstance(value, datetime):
        return _format_timestamp(value, shape.serialization.get("timestampFormat", "unixTimestamp"))
    if kind == "blob" and isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    return value


def _format_timestamp(value: datetime, style: str) -> Any:
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    if style == "iso8601":
        return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if style == "rfc822":
        return format_datetime(value.astimezone(UTC), usegmt=True)
    return value.timestamp()


def _header_text(shape: Shape, value: Any) -> str:
    if shape.type_name == "timestamp" and isinstance(value, datetime):
        return str(_format_timestamp(value, shape.serialization.get("timestampFormat", "rfc822")))
    if shape.type_name == "boolean":
        return "true" if value else "false"
    if shape.type_name == "list":
        return ",".join(str(item) for item in value)
    if shape.serialization.get("jsonvalue"):
        return base64.b64encode(json.dumps(value).encode()).decode()
    return str(value)


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
