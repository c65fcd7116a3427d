"""Amazon Data Firehose: CreateDeliveryStream, ListDeliveryStreams, DescribeDeliveryStream,
DeleteDeliveryStream, for streams with an MSK source and Apache Iceberg or Amazon S3 destinations.

moto 5.2 has Firehose, but its CreateDeliveryStream drops `MSKSourceConfiguration` (it takes only a Kinesis
source), so a stream's MSK cluster and topic are lost: this stand-in answers every Firehose call instead. A
subclass of moto's backend would have to replace all four operations anyway: moto also pages
ListDeliveryStreams by 50 (AWS: 10) from the first name when
ExclusiveStartDeliveryStreamName names no stream, and describes a destination without the documented defaults
below. What it shares with moto: the ResourceInUse and ResourceNotFound messages. Requests arrive parsed and
validated against botocore's firehose model (server.py); answers are serialized through the model too, so a
member the model lacks fails loudly.

What the service enforces, per the API reference: names unique per account and Region
(ResourceInUseException); `MSKSourceConfiguration` only with DeliveryStreamType `MSKAsSource` and required
with it (InvalidArgumentException); exactly one destination; ListDeliveryStreams pages by
`ExclusiveStartDeliveryStreamName` with `HasMoreDeliveryStreams` (no paginator in botocore 1.44.5),
`Limit` default 10, optional `DeliveryStreamType` filter, names in lexical order.

The description of a destination is its configuration (`S3Configuration` described as
`S3DestinationDescription`, `S3BackupConfiguration` as `S3BackupDescription`), with Firehose's documented
defaults for the required description members the request may leave out (buffering 5 MiB / 300 s,
UNCOMPRESSED, NoEncryption). Streams read CREATING for `readings.delivery_stream_creating_reads`
DescribeDeliveryStream calls, then ACTIVE (moto's state manager counts them: lifecycle.py); a deleted stream
is gone at once (DeleteDeliveryStream's answer is empty).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import count
from typing import Any

from local.standins.errors import ServiceError
from local.standins.lifecycle import DELIVERY_STREAM, Lifecycle, register
from local.standins.readings import Readings

DEFAULT_LIMIT = 10  # ListDeliveryStreams: "The default limit is 10" (API reference)
DESTINATIONS = {
    "IcebergDestinationConfiguration": "IcebergDestinationDescription",
    "ExtendedS3DestinationConfiguration": "ExtendedS3DestinationDescription",
    "S3DestinationConfiguration": "S3DestinationDescription",
}
_S3_DEFAULTS = {
    "BufferingHints": {"SizeInMBs": 5, "IntervalInSeconds": 300},
    "CompressionFormat": "UNCOMPRESSED",
    "EncryptionConfiguration": {"NoEncryptionConfig": "NoEncryption"},
}


@dataclass
class _Stream:
    name: str
    arn: str
    kind: str
    request: dict[str, Any]
    created: datetime
    seq: int
    state: Lifecycle


class Firehose:
    OPERATIONS = frozenset(
        {"CreateDeliveryStream", "ListDeliveryStreams", "DescribeDeliveryStream", "DeleteDeliveryStream"}
    )

    def __init__(self, readings: Callable[[], Readings], region: Callable[[], str]) -> None:
        self._readings = readings
        self._region = region
        self._streams: dict[tuple[str, str, str], _Stream] = {}  # (account, region, name)
        self._sequence = count(1)
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._streams.clear()

    def set_status(self, account: str, name: str, status: str, region: str | None = None) -> None:
        """Test hook: CREATING_FAILED, DELETING ... (the statuses of botocore's DeliveryStreamStatus)."""
        with self._lock:
            self._streams[(account, region or self._region(), name)].state = Lifecycle(
                DELIVERY_STREAM, status, moves=False
            )

    def handle(self, operation: str, params: dict[str, Any], account: str, region: str) -> dict[str, Any]:
        with self._lock:
            register(DELIVERY_STREAM, self._readings().delivery_stream_creating_reads)
            if operation == "CreateDeliveryStream":
                return self._create(params, account, region)
            if operation == "ListDeliveryStreams":
                return self._list(params, account, region)
            stream = self._find(params["DeliveryStreamName"], account, region)
            if operation == "DescribeDeliveryStream":
                return self._describe(stream)
            if operation == "DeleteDeliveryStream":
                del self._streams[(account, region, stream.name)]
                return {}
        raise NotImplementedError(operation)

    def _create(self, params: dict[str, Any], account: str, region: str) -> dict[str, Any]:
        name = params["DeliveryStreamName"]
        if (account, region, name) in self._streams:
            raise ServiceError(
                "ResourceInUseException", f"Firehose {name} under accountId {account} already exists", 400
            )
        kind = params.get("DeliveryStreamType", "DirectPut")
        if (kind == "MSKAsSource") != bool(params.get("MSKSourceConfiguration")):
            raise ServiceError(
                "InvalidArgumentException",
                "MSKSourceConfiguration is required for, and only applicable to, the MSKAsSource stream type",
                400,
            )
        given = [member for member in params if member.endswith("DestinationConfiguration")]
        if len(given) != 1 or given[0] not in DESTINATIONS:
            raise ServiceError(
                "InvalidArgumentException",
                f"exactly one destination is required (this stand-in knows {sorted(DESTINATIONS)}): {given}",
                400,
            )
        arn = f"arn:aws:firehose:{region}:{account}:deliverystream/{name}"
        self._streams[(account, region, name)] = _Stream(
            name, arn, kind, dict(params), datetime.now(UTC), next(self._sequence), Lifecycle(DELIVERY_STREAM)
        )
        return {"DeliveryStreamARN": arn}

    def _list(self, params: dict[str, Any], account: str, region: str) -> dict[str, Any]:
        kind = params.get("DeliveryStreamType")
        after = params.get("ExclusiveStartDeliveryStreamName") or ""
        limit = params.get("Limit") or DEFAULT_LIMIT
        names = sorted(
            s.name
            for (acc, reg, _), s in self._streams.items()
            if acc == account and reg == region and (kind is None or s.kind == kind) and s.name > after
        )
        return {"DeliveryStreamNames": names[:limit], "HasMoreDeliveryStreams": len(names) > limit}

    def _find(self, name: str, account: str, region: str) -> _Stream:
        found = self._streams.get((account, region, name))
        if found is None:
            raise ServiceError(
                "ResourceNotFoundException", f"Firehose {name} under account {account} not found.", 400
            )
        return found

    def _describe(self, stream: _Stream) -> dict[str, Any]:
        request = stream.request
        member = next(m for m in request if m in DESTINATIONS)
        description: dict[str, Any] = {
            "DeliveryStreamName": stream.name,
            "DeliveryStreamARN": stream.arn,
            "DeliveryStreamStatus": stream.state.read(),
            "DeliveryStreamType": stream.kind,
            "VersionId": "1",
            "CreateTimestamp": stream.created,
            "Destinations": [
                {
                    "DestinationId": "destinationId-000000000001",
                    DESTINATIONS[member]: _described(member, request[member]),
                }
            ],
            "HasMoreDestinations": False,
        }
        if request.get("MSKSourceConfiguration"):
            source = dict(request["MSKSourceConfiguration"])
            source["DeliveryStartTimestamp"] = stream.created
            description["Source"] = {"MSKSourceDescription": source}
        return {"DeliveryStreamDescription": description}


def _s3(configuration: Mapping[str, Any]) -> dict[str, Any]:
    return {**_S3_DEFAULTS, **configuration}


def _described(member: str, configuration: Mapping[str, Any]) -> dict[str, Any]:
    described = dict(configuration)
    if member == "IcebergDestinationConfiguration":
        described["S3DestinationDescription"] = _s3(described.pop("S3Configuration"))
    elif member == "ExtendedS3DestinationConfiguration":
        described = _s3(described)
        if "S3BackupConfiguration" in described:
            described["S3BackupDescription"] = _s3(described.pop("S3BackupConfiguration"))
    else:
        described = _s3(described)
    return described
