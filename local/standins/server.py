"""The front door: one local HTTP endpoint for every AWS service the project calls.

Each request is routed by its SigV4 credential scope (service) and the protocol's operation marker, parsed
and validated against botocore's model, then answered by a stand-in (DataZone; Glue ListSchemas,
ListSchemaVersions, DeleteSchemaVersions, tables of federated catalogs, the lineage graph; Kafka
GetBootstrapBrokers, channels and cluster policies; MSK Connect; Firehose) or forwarded to moto's own
server app in this process, which keeps SSM, STS, EventBridge and Glue state. Faults, latency and the call
log apply to both. `/_local/...` is a small control API for the separate-process mode (see remote.py).
"""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs

from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server
from werkzeug.wrappers import Request as WsgiRequest

from local.standins import protocol, ssm_names
from local.standins.cloudwatch import CloudWatchMetrics
from local.standins.errors import ServiceError
from local.standins.faults import Call, CallLog, Faults
from local.standins.firehose import Firehose
from local.standins.glue_catalogs import OPERATIONS as GLUE_CATALOG_OPERATIONS
from local.standins.glue_catalogs import GlueCatalogs, is_federated
from local.standins.glue_lineage import OPERATIONS as GLUE_LINEAGE_OPERATIONS
from local.standins.glue_lineage import GlueLineage
from local.standins.glue_registry import GlueSchemaRegistry
from local.standins.iam import DEFAULT_KEY, Iam, access_key_of, moto_key_account
from local.standins.iam_limits import IamLimits
from local.standins.kafka import TOPIC_OPERATIONS, KafkaBrokers
from local.standins.kafka_channels import KafkaChannels
from local.standins.kafka_policies import ClusterPolicies
from local.standins.kafkaconnect import KafkaConnect
from local.standins.quotas import Quotas
from local.standins.readings import Readings
from local.standins.validation import validate

log = logging.getLogger(__name__)

StartResponse = Callable[..., Any]


def new_datazone(readings: Readings, account: str = "123456789012", region: str = "eu-west-1") -> Any | None:
    """The DataZone stand-in (local/standins/datazone/), or None while that package does not exist. Its
    events go to the default bus of moto's EventBridge in the domain's account and Region."""
    try:
        from local.standins.datazone import DataZoneBackend  # type: ignore[import-not-found,unused-ignore]
    except ModuleNotFoundError as error:
        if error.name == "local.standins.datazone":
            return None
        raise
    return DataZoneBackend(
        readings=readings, account=account, region=region, sink=eventbridge_sink(account, region)
    )


def eventbridge_sink(account: str, region: str) -> Callable[[Any], None]:
    """Put a service's event (detail_type, detail, resources) on moto's default bus, as AWS puts its own
    (no PutEvents call, so neither IAM mode nor the call log sees it). Delivery is best effort: a failure is
    logged, and the event is lost."""

    def put(event: Any) -> None:
        from moto.events.models import events_backends

        try:
            events_backends[account][region].put_events(
                [
                    {
                        "Source": event.source,
                        "DetailType": event.detail_type,
                        "Detail": json.dumps(event.detail),
                        "Resources": list(event.resources),
                    }
                ]
            )
        except Exception:
            log.exception("the %s event was lost", event.detail_type)

    return put


def reset_moto() -> None:
    from moto.moto_api._internal.models import moto_api_backend

    moto_api_backend.reset()


class Standins:
    """All state the front door answers from besides moto's: stand-ins, readings, faults, calls, latency."""

    def __init__(self, readings: Readings, region: str, account: str) -> None:
        self.region = region
        self.account = account
        self._initial_readings = dataclasses.replace(readings)
        self.readings = dataclasses.replace(readings)
        self.faults = Faults()
        self.quotas = Quotas()  # off until enabled (tests that ask for it, the bench)
        self.calls = CallLog()
        self.latency_ms = 0.0
        self.kafka = KafkaBrokers(lambda: self.readings)
        self.channels = KafkaChannels(lambda: self.readings, self.kafka.knows)
        self.cluster_policies = ClusterPolicies(lambda: self.readings, self._knows_cluster)
        self.firehose = Firehose(lambda: self.readings, lambda: self.region)
        self.cloudwatch = CloudWatchMetrics()
        self.glue_catalogs = GlueCatalogs(lambda: self.readings)
        self.glue_lineage = GlueLineage(lambda: self.readings)
        self.kafkaconnect = KafkaConnect(lambda: self.readings, account, lambda: self.region)
        self.glue = GlueSchemaRegistry(lambda: self.readings, account, lambda: self.region)
        self._glues: dict[str, GlueSchemaRegistry] = {account: self.glue}
        # DataZone stays in this (the governance) account
        self.datazone = new_datazone(self.readings, account, region)
        self.iam = Iam(region, account)
        self.iam_limits = IamLimits()  # the quotas moto does not enforce (iam_limits.py)
        self.lock = threading.RLock()  # one request at a time touches the stand-ins (and moto's Glue)

    def reset(self) -> None:
        with self.lock:
            reset_moto()
            self.readings = dataclasses.replace(self._initial_readings)
            self.faults.clear()
            self.quotas.disable()
            self.calls.clear()
            self.latency_ms = 0.0
            self.kafka.reset()
            self.channels.reset()
            self.cluster_policies.reset()
            self.firehose.reset()
            self.cloudwatch.reset()
            self.glue_catalogs.reset()
            self.glue_lineage.reset()
            self.kafkaconnect.reset()
            for glue in self._glues.values():
                glue.reset()
            self.datazone = new_datazone(self.readings, self.account, self.region)
            self.iam.reset()
            self.iam_limits = IamLimits()

    def _knows_cluster(self, cluster_arn: str, account: str | None) -> bool:
        """A cluster registered with set_brokers, or one created in moto's MSK (in the caller's account)."""
        if self.kafka.knows(cluster_arn, account):
            return True
        from moto.kafka.models import kafka_backends

        parts = cluster_arn.split(":")
        if len(parts) < 6 or (account is not None and parts[4] != account):
            return False
        try:
            return cluster_arn in kafka_backends[parts[4]][parts[3]].clusters
        except KeyError:
            return False

    def glue_in(self, account: str) -> GlueSchemaRegistry:
        """The registry stand-in of one account (moto keeps each account's Glue apart; so does this)."""
        with self.lock:
            found = self._glues.get(account)
            if found is None:
                found = GlueSchemaRegistry(lambda: self.readings, account, lambda: self.region)
                self._glues[account] = found
            return found

    def caller_account(self, headers: dict[str, str]) -> str:
        """The account a request is made in, told by its access key as AWS tells it: the stand-ins' own for
        the default key; an IAM-mode role's account for its keys (a source role assumed across accounts);
        for keys moto's STS AssumeRole issued, the assumed role's account (moto keys its state so)."""
        key = access_key_of(headers.get("authorization", ""))
        if key is None or key == DEFAULT_KEY:
            return self.account
        role = self.iam.role_of(key)
        if role is not None:
            return role.account
        return moto_key_account(key) or self.account

    def set_readings(self, **changes: Any) -> Readings:
        fields = {f.name: f for f in dataclasses.fields(Readings)}
        for name, value in changes.items():
            if name not in fields:
                raise ValueError(f"unknown reading {name!r}; known: {sorted(fields)}")
            kind = type(getattr(self.readings, name))
            if type(value) is not kind:
                raise ValueError(f"reading {name} takes a {kind.__name__}, got {value!r}")
            setattr(self.readings, name, value)
        return self.readings


class FrontDoor:
    """The WSGI application."""

    def __init__(self, standins: Standins) -> None:
        from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

        self.standins = standins
        self.moto = DomainDispatcherApplication(create_backend_app)

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        body = WsgiRequest(environ).get_data()
        path = environ.get("PATH_INFO", "")
        if path.startswith("/_local/"):
            response = self._control(environ["REQUEST_METHOD"], path[len("/_local/") :], environ, body)
        else:
            response = self._serve(environ, body)
        headers = [
            (k, v) for k, v in response.headers if k.lower() not in ("content-length", "transfer-encoding")
        ]
        headers.append(("Content-Length", str(len(response.body))))
        start_response(f"{response.status} {HTTP_STATUS_CODES.get(response.status, '')}".strip(), headers)
        return [response.body]

    # ------------------------------------------------------------------------------------------ AWS requests

    def _serve(self, environ: dict[str, Any], body: bytes) -> protocol.Response:
        s = self.standins
        if s.latency_ms > 0:
            time.sleep(s.latency_ms / 1000)
        raw_uri = environ.get("RAW_URI") or environ.get("PATH_INFO", "/")
        request = protocol.Request(
            method=environ["REQUEST_METHOD"],
            path=raw_uri.partition("?")[0],
            query=parse_qs(environ.get("QUERY_STRING", ""), keep_blank_values=True),
            headers={k.lower(): v for k, v in WsgiRequest(environ).headers.items()},
            body=body,
        )
        route = protocol.route(request)
        service = route.service if route else "unsigned"
        operation = route.operation_name if route else ""
        fault = s.faults.take(service, operation)
        # The account's rate quotas (quotas.py; off unless enabled), after the injected faults.
        over = None
        if fault is None and route is not None and s.quotas.enabled:
            over = s.quotas.take(service, operation, s.caller_account(request.headers))
        if fault is not None and fault.kind != "lost_response":
            response = protocol.error_response(route, fault.error())
        elif over is not None:
            response = protocol.error_response(route, over)
        else:
            response = self._answer(route, request, environ) if route else self._forward(environ, body)
            if fault is not None:  # lost_response: applied above, but the answer never arrives
                response = protocol.error_response(route, fault.error())
        s.calls.record(
            Call(
                service,
                operation,
                response.status < 400,
                response.status,
                _error_code(response) if response.status >= 400 else None,
                fault.kind if fault else ("quota" if over is not None else None),
            )
        )
        return response

    def _answer(
        self, route: protocol.Route, request: protocol.Request, environ: dict[str, Any]
    ) -> protocol.Response:
        s = self.standins
        account = s.caller_account(request.headers)
        try:
            params = protocol.parse(route, request)
            if route.operation is not None:
                validate(route.operation.input_shape, params)
            if route.service == "ssm":
                ssm_names.check_request(
                    route.operation_name,
                    params,
                    region=route.region,
                    account=account,
                    readings=s.readings,
                    current_tier=lambda name: _ssm_tier(account, route.region, name),
                )
            # IAM mode (iam.py): a request signed by a role's key must be allowed by its policies.
            gated = s.iam.gate(
                route, request.headers, params, lambda body: self._forward(environ, body, account)
            )
            if gated is not None:
                return gated
            handler = self._standin(route, account, params)
            if handler is not None:
                with s.lock:
                    return protocol.result_response(route, handler(params))
            if route.service == "ssm" and route.operation_name == "PutParameter":
                with s.lock:  # SSM creates-if-absent atomically (Overwrite=False); moto checks, then writes
                    return self._forward(environ, request.body, account)
            if route.service == "iam":
                with s.lock:  # the quotas read moto's IAM, then moto writes
                    s.iam_limits.check(route.operation_name, params, account)
                    return self._forward(environ, request.body, account)
            if route.service != "glue":
                # Not under the lock: moto serves concurrent requests itself; some wait (SQS long polling).
                return self._forward(environ, request.body, account)
            glue = s.glue_in(account)
            with s.lock:  # the registry stand-in reads what moto's Glue holds
                removed = glue.before(route.operation_name, params, route.region)
                response = self._forward(environ, request.body, account)
                if response.status < 400:
                    glue.after(route.operation_name, params, route.region, removed)
                return response
        except ServiceError as error:
            return protocol.error_response(route, error)
        except Exception as error:
            log.exception("stand-in failed on %s:%s", route.service, route.operation_name)
            return protocol.error_response(
                route, ServiceError("InternalFailure", f"stand-in failed: {error!r}", 500)
            )

    def _standin(
        self, route: protocol.Route, account: str, params: dict[str, Any]
    ) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
        s = self.standins
        name = route.operation_name
        if route.service == "datazone":
            if route.operation is None:
                raise ServiceError(
                    "UnknownOperationException", "No DataZone operation matches this request", 404
                )
            datazone = s.datazone
            if datazone is None:
                raise ServiceError(
                    "InternalFailure", "The DataZone stand-in (local/standins/datazone/) is missing", 500
                )
            return lambda params: datazone.handle(name, params)
        if route.service == "glue" and name in GLUE_CATALOG_OPERATIONS and is_federated(params):
            return lambda params: s.glue_catalogs.handle(name, params, account)
        if route.service == "glue" and name in GLUE_LINEAGE_OPERATIONS:
            return lambda params: s.glue_lineage.handle(name, params, account, route.region)
        if route.service == "glue" and name in GlueSchemaRegistry.OPERATIONS:
            glue = s.glue_in(account)
            return lambda params: glue.handle(name, params, route.region)
        if route.service == "kafka" and (name == "GetBootstrapBrokers" or name in TOPIC_OPERATIONS):
            return lambda params: s.kafka.handle(name, params, account)
        if (
            route.service == "kafka"
            and name == "DescribeClusterV2"
            and s.kafka.knows(str(params.get("ClusterArn", "")), account)
        ):
            return lambda params: s.kafka.handle(name, params, account)  # moto answers its own clusters
        if route.service == "kafka" and name in ClusterPolicies.OPERATIONS:
            return lambda params: s.cluster_policies.handle(name, params, account)
        if route.service == "kafka" and name in KafkaChannels.OPERATIONS:
            return lambda params: s.channels.handle(name, params, account)
        if route.service == "firehose":
            if name not in Firehose.OPERATIONS:
                raise ServiceError("UnknownOperationException", f"The Firehose stand-in lacks {name!r}", 400)
            return lambda params: s.firehose.handle(name, params, account, route.region)
        if route.service == "cloudwatch" and name in CloudWatchMetrics.OPERATIONS:
            return lambda params: s.cloudwatch.handle(name, params, account, route.region)
        if route.service == "kafkaconnect":
            if name not in KafkaConnect.OPERATIONS:
                raise ServiceError(
                    "UnknownOperationException", f"The MSK Connect stand-in lacks {name!r}", 404
                )
            return lambda params: s.kafkaconnect.handle(name, params, route.region)
        return None

    def _forward(self, environ: dict[str, Any], body: bytes, account: str | None = None) -> protocol.Response:
        env = dict(environ)
        env["wsgi.input"] = io.BytesIO(body)
        env["CONTENT_LENGTH"] = str(len(body))
        env.pop("HTTP_TRANSFER_ENCODING", None)
        env["HTTP_X_MOTO_ACCOUNT_ID"] = account or self.standins.account
        started: list[Any] = []

        def start_response(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> None:
            started[:] = [status, headers]

        chunks = self.moto(env, start_response)
        try:
            content = b"".join(chunks)
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
        return protocol.Response(int(started[0].split()[0]), list(started[1]), content)

    # ------------------------------------------------------------------------------------------- control API

    def _control(self, method: str, path: str, environ: dict[str, Any], body: bytes) -> protocol.Response:
        s = self.standins
        try:
            data = json.loads(body) if body.strip() else {}
            query = {k: v[-1] for k, v in parse_qs(environ.get("QUERY_STRING", "")).items()}
            result: Any
            if (method, path) == ("GET", "health"):
                result = {"ok": True}
            elif (method, path) == ("POST", "reset"):
                s.reset()
                result = {"ok": True}
            elif path == "quotas":
                if method == "PUT":
                    s.quotas.enable(float(data.get("neighbour", 0.0)), bool(data.get("undocumented", True)))
                elif method == "DELETE":
                    s.quotas.disable()
                result = s.quotas.state()
            elif path == "latency":
                if method == "PUT":
                    s.latency_ms = float(data["ms"])
                result = {"ms": s.latency_ms}
            elif path == "faults":
                if method == "POST":
                    s.faults.add(**data)
                elif method == "DELETE":
                    s.faults.clear()
                result = [dataclasses.asdict(f) for f in s.faults]
            elif path == "calls":
                if method == "DELETE":
                    s.calls.clear()
                result = [dataclasses.asdict(c) for c in s.calls]
            elif (method, path) == ("GET", "call-counts"):
                ok = {"true": True, "false": False}.get(query.get("ok", ""))
                result = dict(s.calls.counts(query.get("service"), ok))
            elif (method, path) == ("POST", "kafka/brokers"):
                s.kafka.set_brokers(data.pop("cluster_arn"), **data)
                result = {"ok": True}
            elif (method, path) == ("POST", "kafka/policy-race"):
                s.cluster_policies.race(data.pop("cluster_arn"), **data)
                result = {"ok": True}
            elif (method, path) == ("POST", "kafka/topics"):
                result = {"topicArn": s.kafka.create_topic(**data)}
            elif (method, path) == ("POST", "kafkaconnect/connectors"):
                result = {"connectorArn": s.kafkaconnect.create(**data)}
            elif path == "readings":
                if method == "PATCH":
                    s.set_readings(**data)
                result = dataclasses.asdict(s.readings)
            else:
                return _json_response(404, {"error": f"no control endpoint {method} /_local/{path}"})
            return _json_response(200, result)
        except (ValueError, KeyError, TypeError) as error:
            return _json_response(400, {"error": f"{type(error).__name__}: {error}"})


def _json_response(status: int, payload: Any) -> protocol.Response:
    return protocol.Response(status, [("Content-Type", "application/json")], json.dumps(payload).encode())


def _ssm_tier(account: str, region: str, name: str) -> str | None:
    from moto.ssm.models import ssm_backends

    versions = ssm_backends[account][region]._parameters.get(name)
    return versions[-1].tier if versions else None


def _error_code(response: protocol.Response) -> str | None:
    for key, value in response.headers:
        if key.lower() == "x-amzn-errortype":
            return value.partition(":")[0]
    try:
        payload = json.loads(response.body)
        if isinstance(payload, dict) and payload.get("__type"):
            return str(payload["__type"]).rpartition("#")[2]
    except ValueError:
        pass
    match = re.search(rb"<Code>([^<]+)</Code>", response.body)
    return match.group(1).decode() if match else None


class _QuietHandler(WSGIRequestHandler):
    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


class ServerThread:
    """The front door served on host:port (0 = a free port) by a background thread."""

    def __init__(self, app: FrontDoor, host: str = "127.0.0.1", port: int = 0) -> None:
        self._server: BaseWSGIServer = make_server(
            host, port, app, threaded=True, request_handler=_QuietHandler
        )
        self.url = f"http://{host}:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="local-aws", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)
