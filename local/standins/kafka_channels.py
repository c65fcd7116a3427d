"""Amazon MSK Data Delivery channels (moto has none): CreateChannel, ListChannels, DescribeChannel,
UpdateChannel, DeleteChannel.

Requests arrive parsed and validated against botocore's kafka model by the front door (server.py); this
module adds what the service itself enforces, per the MSK developer guide ("Manage Channels") and the API
model:
- a channel belongs to a cluster the caller's account has (`KafkaBrokers` knows the clusters): else
  NotFoundException;
- names are unique per cluster (ConflictException); exactly one destination, Iceberg or S3
  (BadRequestException); UpdateChannel takes exactly one of the two updates, of the channel's own
  destination type, and (botocore's model) changes only DataFreshnessInSeconds;
- ARNs follow the guide's examples: `arn:aws:kafka:<r>:<a>:channel/<cluster name>/<cluster uuid>/<name>`;
- ListChannels pages with `MaxResults` (1-100) and an opaque `NextToken`; `TopicNameFilter` keeps the
  channels whose source topic has that name. botocore 1.44.5 has no paginator for it.

CreateChannel answers at once and the channel reads CREATING for `readings.channel_creating_reads` reads
(each listing that shows it, each DescribeChannel), then ACTIVE: moto's state manager counts them
(lifecycle.py). DeleteChannel moves it to DELETING; it stays listed for `readings.deleted_channels_linger`
listings, counted the same way, then is gone (asynchronous deletion; how long is undocumented).
`create()` is the test hook: a channel in any status, without a request.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from itertools import count
from typing import Any

from local.standins import paging
from local.standins.errors import ServiceError
from local.standins.lifecycle import CHANNEL, CHANNEL_DELETION, DELETING, GONE, Lifecycle, register
from local.standins.readings import Readings

DEFAULT_PAGE = 10  # ListChannels without MaxResults: AWS documents no default; the model allows 1-100.
STATUSES = ("CREATING", "ACTIVE", "UPDATING", "DELETING", "FAILED", "SUSPENDING", "SUSPENDED")
_DESCRIBED = (
    "EncryptionConfiguration",
    "IcebergDestinationConfiguration",
    "S3DestinationConfiguration",
    "LoggingInfo",
    "Tags",
)


@dataclass
class _Channel:
    arn: str
    name: str
    cluster_arn: str
    state: Lifecycle
    request: dict[str, Any]
    created: datetime
    seq: int
    deleted: bool = False  # by DeleteChannel: `state` then counts the listings that still show it
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def destination(self) -> str:
        return "ICEBERG" if self.request.get("IcebergDestinationConfiguration") else "S3"


class KafkaChannels:
    OPERATIONS = frozenset(
        {"CreateChannel", "ListChannels", "DescribeChannel", "UpdateChannel", "DeleteChannel"}
    )

    def __init__(
        self, readings: Callable[[], Readings], cluster_known: Callable[[str, str | None], bool]
    ) -> None:
        self._readings = readings
        self._cluster_known = cluster_known
        self._channels: dict[str, _Channel] = {}
        self._standard: set[str] = set()  # clusters of standard (not Express) brokers
        self._sequence = count(1)
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._channels.clear()
            self._standard.clear()

    def mark_standard(self, cluster_arn: str) -> None:
        """Test hook: a cluster of standard brokers (channels exist on Express brokers only)."""
        with self._lock:
            self._standard.add(cluster_arn)

    # ---------------------------------------------------------------------------------------- test hooks

    def create(self, cluster_arn: str, name: str, request: Mapping[str, Any], status: str = "ACTIVE") -> str:
        """Add a channel directly, `request` as CreateChannel's members (TopicConfigurationList, one
        destination); returns its ARN. The request is not validated against the model here: send a real
        CreateChannel for that."""
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {status!r}")
        with self._lock:
            return self._add(cluster_arn, name, dict(request), Lifecycle(CHANNEL, status, moves=False))

    def set_status(self, arn: str, status: str) -> None:
        if status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {status!r}")
        with self._lock:
            self._channels[arn].state = Lifecycle(CHANNEL, status, moves=False)

    # ------------------------------------------------------------------------------------------ service

    def handle(self, operation: str, params: dict[str, Any], account: str | None = None) -> dict[str, Any]:
        cluster_arn = params["ClusterArn"]
        if not self._cluster_known(cluster_arn, account):
            raise ServiceError(
                "NotFoundException", f"The specified cluster was not found: {cluster_arn}", 404
            )
        with self._lock:
            register(CHANNEL, self._readings().channel_creating_reads)
            register(CHANNEL_DELETION, self._readings().deleted_channels_linger)
            if cluster_arn in self._standard:
                if operation == "ListChannels" and self._readings().channels_on_standard_brokers == "empty":
                    return {"Channels": []}
                raise ServiceError(
                    "BadRequestException",
                    "Channels are supported on clusters with Express brokers only.",
                    400,
                )
            if operation == "CreateChannel":
                return self._create(params)
            if operation == "ListChannels":
                return self._list(params)
            channel = self._find(cluster_arn, params["ChannelArn"])
            if operation == "DescribeChannel":
                return self._describe(channel)
            if operation == "UpdateChannel":
                return self._update(channel, params)
            if operation == "DeleteChannel":
                return self._delete(channel)
        raise NotImplementedError(operation)

    def _add(self, cluster_arn: str, name: str, request: dict[str, Any], state: Lifecycle) -> str:
        self._drop_gone()
        if any(c.cluster_arn == cluster_arn and c.name == name for c in self._channels.values()):
            raise ServiceError(
                "ConflictException", f"A channel named {name} already exists on the cluster.", 409
            )
        destinations = [
            k for k in ("IcebergDestinationConfiguration", "S3DestinationConfiguration") if request.get(k)
        ]
        if len(destinations) != 1:
            raise ServiceError(
                "BadRequestException",
                "Specify exactly one of icebergDestinationConfiguration and s3DestinationConfiguration.",
                400,
            )
        head, _, path = cluster_arn.partition(":cluster/")
        arn = f"{head}:channel/{path}/{name}"
        self._channels[arn] = _Channel(
            arn, name, cluster_arn, state, request, datetime.now(UTC), next(self._sequence)
        )
        return arn

    def _create(self, params: dict[str, Any]) -> dict[str, Any]:
        request = {key: value for key, value in params.items() if key not in ("ClusterArn", "ChannelName")}
        arn = self._add(params["ClusterArn"], params["ChannelName"], request, Lifecycle(CHANNEL))
        return {"ChannelArn": arn, "ClusterOperationArn": _operation_arn(params["ClusterArn"])}

    def _drop_gone(self) -> None:
        for gone in [c for c in self._channels.values() if c.state.now() == GONE]:
            del self._channels[gone.arn]

    def _list(self, params: dict[str, Any]) -> dict[str, Any]:
        self._drop_gone()
        cluster_arn = params["ClusterArn"]
        wanted = params.get("TopicNameFilter")
        size = params.get("MaxResults") or DEFAULT_PAGE
        listed = [
            c
            for c in self._channels.values()
            if c.cluster_arn == cluster_arn and (wanted is None or wanted in _topic_names(c))
        ]
        query = {"ClusterArn": cluster_arn}
        page, token = paging.page_after(listed, size, params.get("NextToken"), query, _seq, _bad_request)
        answer: dict[str, Any] = {"Channels": [self._summary(c, c.state.read()) for c in page]}
        if token is not None:
            answer["NextToken"] = token
        return answer

    def _find(self, cluster_arn: str, arn: str) -> _Channel:
        found = self._channels.get(arn)
        if found is None or found.cluster_arn != cluster_arn or found.state.now() == GONE:
            raise ServiceError("NotFoundException", f"The channel {arn} was not found.", 404)
        return found

    def _summary(self, channel: _Channel, status: str) -> dict[str, Any]:
        return {
            "ChannelArn": channel.arn,
            "ChannelName": channel.name,
            "Status": status,
            "CreationTime": channel.created,
            "DestinationType": channel.destination,
        }

    def _describe(self, channel: _Channel) -> dict[str, Any]:
        status = channel.state.now() if channel.deleted else channel.state.read()  # listings count deletion
        answer = {
            **self._summary(channel, status),
            "TopicConfigurationList": channel.request["TopicConfigurationList"],
        }
        for member in _DESCRIBED:
            if channel.request.get(member):
                answer[member] = channel.request[member]
        if status in ("FAILED", "SUSPENDED"):
            answer["StateInfo"] = {"Code": "DELIVERY_FAILED", "Message": "The channel stopped delivering."}
        return answer

    def _update(self, channel: _Channel, params: dict[str, Any]) -> dict[str, Any]:
        given = [k for k in ("IcebergDestinationUpdate", "S3DestinationUpdate") if params.get(k)]
        if len(given) != 1:
            raise ServiceError(
                "BadRequestException",
                "Specify exactly one of icebergDestinationUpdate and s3DestinationUpdate.",
                400,
            )
        member = given[0].replace("Update", "Configuration")
        if not channel.request.get(member):
            raise ServiceError(
                "BadRequestException", "The update does not match the channel's destination type.", 400
            )
        channel.request[member] = {**channel.request[member], **params[given[0]]}
        return {"ChannelArn": channel.arn, "ClusterOperationArn": _operation_arn(channel.cluster_arn)}

    def _delete(self, channel: _Channel) -> dict[str, Any]:
        if not channel.deleted:
            channel.deleted = True
            channel.state = Lifecycle(CHANNEL_DELETION, DELETING)
            if channel.state.now() == GONE:
                del self._channels[channel.arn]
        return {"ChannelArn": channel.arn, "ClusterOperationArn": _operation_arn(channel.cluster_arn)}


def _topic_names(channel: _Channel) -> set[str]:
    # arn:aws:kafka:<r>:<a>:topic/<cluster name>/<cluster uuid>/<topic name>
    return {
        str(item["TopicArn"]).rpartition("/")[2] for item in channel.request.get("TopicConfigurationList", [])
    }


def _operation_arn(cluster_arn: str) -> str:
    head, _, path = cluster_arn.partition(":cluster/")
    return f"{head}:cluster-operation/{path}/{next(_OPERATIONS)}"


_OPERATIONS = count(1)


def _seq(channel: _Channel) -> int:
    return channel.seq


def _bad_request(message: str) -> ServiceError:
    return ServiceError("BadRequestException", message, 400)
