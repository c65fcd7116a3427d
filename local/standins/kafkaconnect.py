"""Amazon MSK Connect (`kafkaconnect`; moto has none): CreateConnector, ListConnectors, DescribeConnector,
DeleteConnector.

Requests arrive parsed and validated against botocore's model by the front door (server.py), as for every
stand-in; this module adds what the service itself enforces: connector names unique per account and Region
(ConflictException), connectors found by ARN (NotFoundException), opaque page tokens, `maxResults` up to 100.
DescribeConnector answers the whole configuration, credentials included, as MSK Connect does.

CreateConnector answers CREATING and later reads show RUNNING (the stand-in provisions no workers).
DeleteConnector answers DELETING; the connector then stays listed as DELETING for
`readings.deleted_connectors_linger` further ListConnectors calls that show it, counted by moto's state
manager (lifecycle.py), then is gone (asynchronous deletion; how long the listing shows it is undocumented).
`create()` is the test hook: a connector with any state and servers.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import count
from typing import Any

from local.standins import paging
from local.standins.errors import ServiceError
from local.standins.lifecycle import CONNECTOR_DELETION, DELETING, GONE, Lifecycle, register
from local.standins.readings import Readings

DEFAULT_PAGE = 10  # ListConnectors without maxResults: AWS documents no default; the model allows 1-100.
STATES = (
    "RUNNING",
    "CREATING",
    "UPDATING",
    "DELETING",
    "FAILED",
    "PAUSED",
    "RESTARTING",
    "PAUSING",
    "RESUMING",
)


@dataclass
class _Connector:
    name: str
    arn: str
    configuration: dict[str, str]
    bootstrap_servers: str
    state: str
    created: datetime
    version: str
    request: dict[str, Any] = field(default_factory=dict)  # the rest of CreateConnector's request
    deletion: Lifecycle | None = None  # by DeleteConnector: counts the listings that still show it
    seq: int = 0  # creation order: page tokens point past a sequence number, so removals shift nothing


class KafkaConnect:
    OPERATIONS = frozenset({"CreateConnector", "ListConnectors", "DescribeConnector", "DeleteConnector"})

    def __init__(self, readings: Callable[[], Readings], account: str, region: Callable[[], str]) -> None:
        self._readings = readings
        self._account = account
        self._region = region
        self._connectors: dict[str, _Connector] = {}  # by ARN, in creation order
        self._sequence = count(1)
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._connectors.clear()

    # ---------------------------------------------------------------------------------------- test hook

    def create(
        self,
        name: str,
        configuration: Mapping[str, str],
        bootstrap_servers: str,
        state: str = "RUNNING",
        region: str | None = None,
    ) -> str:
        """Add a connector directly (no CreateConnector request); returns its ARN."""
        if state not in STATES:
            raise ValueError(f"state must be one of {STATES}, not {state!r}")
        if not 1 <= len(name) <= 128:
            raise ValueError("connector names are 1-128 characters (botocore __stringMin1Max128)")
        with self._lock:
            return self._add(
                name, dict(configuration), bootstrap_servers, state, region or self._region(), {}
            )

    def set_state(self, arn: str, state: str) -> None:
        """Move a connector to another state (FAILED, UPDATING ...)."""
        if state not in STATES:
            raise ValueError(f"state must be one of {STATES}, not {state!r}")
        with self._lock:
            self._connectors[arn].state = state

    def update_configuration(self, arn: str, configuration: Mapping[str, str]) -> None:
        """Replace a connector's configuration (what UpdateConnector's connectorConfiguration does)."""
        with self._lock:
            found = self._connectors[arn]
            found.configuration = dict(configuration)
            found.version = _version()

    # ------------------------------------------------------------------------------------------ service

    def handle(self, operation: str, params: dict[str, Any], region: str) -> dict[str, Any]:
        with self._lock:
            register(CONNECTOR_DELETION, self._readings().deleted_connectors_linger)
            if operation == "CreateConnector":
                return self._create(params, region)
            if operation == "ListConnectors":
                return self._list(params, region)
            if operation == "DescribeConnector":
                return self._describe(params)
            if operation == "DeleteConnector":
                return self._delete(params)
        raise NotImplementedError(operation)

    def _add(
        self,
        name: str,
        configuration: dict[str, str],
        servers: str,
        state: str,
        region: str,
        rest: dict[str, Any],
    ) -> str:
        # A name stays taken while its connector is still listed, deleting or not (the stricter reading).
        if any(c.name == name and _region_of(c.arn) == region for c in self._live()):
            raise ServiceError("ConflictException", f"A connector with name {name} already exists.", 409)
        arn = f"arn:aws:kafkaconnect:{region}:{self._account}:connector/{name}/{uuid.uuid4()}"
        self._connectors[arn] = _Connector(
            name,
            arn,
            configuration,
            servers,
            state,
            datetime.now(UTC),
            _version(),
            rest,
            seq=next(self._sequence),
        )
        return arn

    def _live(self) -> list[_Connector]:
        return [c for c in self._connectors.values() if not _gone(c)]

    def _create(self, params: dict[str, Any], region: str) -> dict[str, Any]:
        cluster = params["kafkaCluster"]["apacheKafkaCluster"]
        rest = {
            key: value
            for key, value in params.items()
            if key not in ("connectorName", "connectorConfiguration", "kafkaCluster")
        }
        rest["vpc"] = cluster.get("vpc", {})
        arn = self._add(
            params["connectorName"],
            dict(params["connectorConfiguration"]),
            cluster["bootstrapServers"],
            "RUNNING",
            region,
            rest,
        )
        return {"connectorArn": arn, "connectorName": params["connectorName"], "connectorState": "CREATING"}

    def _list(self, params: dict[str, Any], region: str) -> dict[str, Any]:
        # A deleted connector shows in the reading's number of listings, then is gone.
        for gone in [c for c in self._connectors.values() if _gone(c)]:
            del self._connectors[gone.arn]
        size = params.get("maxResults") or DEFAULT_PAGE
        prefix = params.get("connectorNamePrefix") or ""
        listed = [c for c in self._live() if _region_of(c.arn) == region and c.name.startswith(prefix)]
        query = {"prefix": prefix}
        page, token = paging.page_after(listed, size, params.get("nextToken"), query, _seq, _bad_request)
        answer: dict[str, Any] = {"connectors": [self._summary(c) for c in page]}
        if token is not None:
            answer["nextToken"] = token
        for connector in page:
            if connector.deletion is not None:
                connector.deletion.read()
        return answer

    def _find(self, arn: str) -> _Connector:
        found = self._connectors.get(arn)
        if found is None or _gone(found):
            raise ServiceError("NotFoundException", f"Connector {arn} not found.", 404)
        return found

    def _describe(self, params: dict[str, Any]) -> dict[str, Any]:
        connector = self._find(params["connectorArn"])
        return {**self._summary(connector), "connectorConfiguration": dict(connector.configuration)}

    def _delete(self, params: dict[str, Any]) -> dict[str, Any]:
        connector = self._find(params["connectorArn"])
        if params.get("currentVersion") and params["currentVersion"] != connector.version:
            raise ServiceError("BadRequestException", "The current version does not match.", 400)
        if connector.deletion is None:
            connector.deletion = Lifecycle(CONNECTOR_DELETION, DELETING)
            connector.state = DELETING
            if _gone(connector):
                del self._connectors[connector.arn]
        return {"connectorArn": connector.arn, "connectorState": "DELETING"}

    def _summary(self, connector: _Connector) -> dict[str, Any]:
        rest = connector.request
        summary: dict[str, Any] = {
            "connectorArn": connector.arn,
            "connectorName": connector.name,
            "connectorState": connector.state,
            "creationTime": connector.created,
            "currentVersion": connector.version,
            "kafkaCluster": {
                "apacheKafkaCluster": {
                    "bootstrapServers": connector.bootstrap_servers,
                    "vpc": _vpc(rest.get("vpc", {})),
                }
            },
            "kafkaConnectVersion": rest.get("kafkaConnectVersion", "2.7.1"),
        }
        if rest.get("connectorDescription"):
            summary["connectorDescription"] = rest["connectorDescription"]
        if rest.get("serviceExecutionRoleArn"):
            summary["serviceExecutionRoleArn"] = rest["serviceExecutionRoleArn"]
        if rest.get("kafkaClusterClientAuthentication"):
            summary["kafkaClusterClientAuthentication"] = dict(rest["kafkaClusterClientAuthentication"])
        if rest.get("kafkaClusterEncryptionInTransit"):
            summary["kafkaClusterEncryptionInTransit"] = dict(rest["kafkaClusterEncryptionInTransit"])
        if rest.get("plugins"):
            summary["plugins"] = [{"customPlugin": dict(p["customPlugin"])} for p in rest["plugins"]]
        return summary


def _vpc(vpc: Mapping[str, Any]) -> dict[str, Any]:
    return {key: list(value) for key, value in vpc.items() if key in ("subnets", "securityGroups")}


def _region_of(arn: str) -> str:
    return arn.split(":")[3]


def _version() -> str:
    return uuid.uuid4().hex[:14].upper()


def _seq(connector: _Connector) -> int:
    return connector.seq


def _bad_request(message: str) -> ServiceError:
    return ServiceError("BadRequestException", message, 400)


def _gone(connector: _Connector) -> bool:
    return connector.deletion is not None and connector.deletion.now() == GONE
