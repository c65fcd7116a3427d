"""The managed delivery paths of the configured clusters: Amazon MSK Data Delivery channels (kafka
ListChannels, DescribeChannel) and Amazon Data Firehose streams with an MSK source (ListDeliveryStreams,
DescribeDeliveryStream), read into `model.delivery.DeliveryPath`s.

Neither listing has a botocore paginator (botocore 1.44.5 paginators-1.json), so both are paged here:
ListChannels by `NextToken`, ListDeliveryStreams by `ExclusiveStartDeliveryStreamName` while
`HasMoreDeliveryStreams`. Every call goes through the one call layer (`instrument`: pacing, counting,
typed errors).

Cost. A run lists each source cluster's channels once and the account's MSK-sourced delivery streams once.
A description is read again only when the listing shows the path new or changed, or when the one kept is
older than `refresh_seconds` (default a day):
- a channel's topics and destination cannot change in place (UpdateChannel changes only
  DataFreshnessInSeconds, botocore's kafka model): a reconfigured channel is a deleted and recreated one.
  Its listing entry carries its status, creation time and latest cluster operation, and the fingerprint
  of those catches a recreated channel at once;
- ListDeliveryStreams answers names only, so a stream updated in place (UpdateDestination) is seen when its
  kept description is refreshed, or at once by a forced read (`force=True`).
Descriptions are kept in `known` (the caller may persist `known_entries()` and give them back).

Failures never hide the others: a DescribeX that fails makes that path `unread` (its edges are kept); a
listing that fails makes its kind not `read_ok` (absence then proves nothing, so nothing is retracted).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.aws.sessions import ByAccount
from kafka_lineage.config import Source
from kafka_lineage.model.combine import combined
from kafka_lineage.model.delivery import (
    DeliveryPath,
    DeliveryReads,
    DeliveryTopic,
    IcebergDestination,
    KnownPath,
    S3Destination,
)
from kafka_lineage.model.failures import AwsError, Invalid, NotFound, describe_failure
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_firehose import FirehoseClient
    from mypy_boto3_kafka import KafkaClient

CHANNEL_PAGE = 100  # ListChannels MaxResults maximum (botocore kafka MaxResults 1-100)
STREAM_PAGE = 10_000  # ListDeliveryStreams Limit maximum (botocore firehose 1-10000)
KAFKA_OPERATIONS = ("ListChannels", "DescribeChannel")  # what is read of the kafka client here
DEFAULT_RPS = 5.0  # neither service publishes per-operation request quotas for these reads
REFRESH_SECONDS = 86_400.0
# botocore firehose GlueDataCatalogARN: arn:.*:glue:.*:\d{12}:catalog(?:(/[a-z0-9_-]+){1,2})?
CATALOG_ARN = re.compile(
    r"arn:(?P<partition>[a-z-]+):glue:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):catalog(?:/(?P<path>[a-z0-9_-]+(?:/[a-z0-9_-]+)?))?"
)
# An S3 Tables table bucket: arn:aws:s3tables:<region>:<account>:bucket/<name>
TABLE_BUCKET_ARN = re.compile(
    r"arn:[a-z-]+:s3tables:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):bucket/(?P<name>[a-z0-9-]+)"
)
S3_BUCKET_ARN = re.compile(r"arn:[a-z-]+:s3:::(?P<bucket>[^/]+)")
# Firehose's JSONQuery routing (the MetadataExtraction processor): a literal table in the query is static.
_LITERAL = r"{member}\s*:\s*\"(?P<value>[^\"\\]+)\""


def _get(mapping: Mapping[str, Any], *path: str) -> Any:
    value: Any = mapping
    for step in path:
        value = value.get(step) if isinstance(value, Mapping) else None
    return value


def static_prefix(prefix: str) -> str:
    """The part of an object key prefix before its first expression (`!{timestamp:yyyy}`, `{...}`)."""
    cut = min((i for i in (prefix.find("!{"), prefix.find("{")) if i >= 0), default=len(prefix))
    return prefix[:cut]


def iceberg_catalog(catalog_arn: str, warehouse: str = "") -> tuple[str, str, str] | None:
    """(account, region, catalog) of a Glue catalog ARN (`catalog` "" for the root catalog), else of an S3
    Tables bucket ARN as MSK reads a channel's warehouse (`s3tablescatalog/<bucket>`); None when neither."""
    found = CATALOG_ARN.fullmatch(catalog_arn or "")
    if found:
        return found["account"], found["region"], found["path"] or ""
    bucket = TABLE_BUCKET_ARN.fullmatch(warehouse or "")
    if bucket:
        return bucket["account"], bucket["region"], f"s3tablescatalog/{bucket['name']}"
    return None


def channel_path(described: Mapping[str, Any], cluster_arn: str) -> DeliveryPath:
    """A DescribeChannel answer as a DeliveryPath."""
    topics = tuple(
        DeliveryTopic(
            topic=str(item.get("TopicArn", "")).rpartition("/")[2],
            schema_arn=str(_get(item, "RecordSchema", "GsrArn") or ""),
        )
        for item in described.get("TopicConfigurationList") or []
    )
    base = DeliveryPath(
        kind="channel",
        name=str(described["ChannelName"]),
        arn=str(described["ChannelArn"]),
        cluster_arn=cluster_arn,
        status=str(described.get("Status", "")),
        topics=topics,
    )
    iceberg = described.get("IcebergDestinationConfiguration")
    if iceberg:
        where = iceberg_catalog(
            str(_get(iceberg, "Catalog", "CatalogArn") or ""),
            str(_get(iceberg, "Catalog", "WarehouseLocation") or ""),
        )
        if where is None:
            return replace(base, problem="its Iceberg destination names no Glue catalog or table bucket")
        tables = tuple(
            (str(t.get("DestinationDatabaseName", "")), str(t.get("DestinationTableName", "")))
            for t in iceberg.get("DestinationTableList") or []
        )
        return replace(base, iceberg=IcebergDestination(*where, tables=tables))
    storage = _get(described, "S3DestinationConfiguration", "Storage") or {}
    bucket = S3_BUCKET_ARN.fullmatch(str(storage.get("BucketArn", "")))
    if bucket is None:
        return replace(base, problem="it names neither an Iceberg nor an S3 destination")
    prefix = static_prefix(str(storage.get("OutputPrefix") or ""))
    return replace(base, s3=S3Destination(bucket["bucket"], prefix))


def _routing(processing: Mapping[str, Any] | None) -> tuple[str, tuple[str, str] | None]:
    """Why records are routed per record ("" when they are not), and a static table the JSONQuery names."""
    if not processing or not processing.get("Enabled"):
        return "", None
    for processor in processing.get("Processors") or []:
        parameters = {
            p.get("ParameterName"): p.get("ParameterValue", "") for p in processor.get("Parameters") or []
        }
        if processor.get("Type") == "Lambda":
            return f"by a Lambda function ({parameters.get('LambdaArn', 'unnamed')})", None
        if processor.get("Type") == "MetadataExtraction":
            query = str(parameters.get("MetadataExtractionQuery", ""))
            if "destinationTableName" not in query and "destinationDatabaseName" not in query:
                continue  # the query gives only the operation: the configured table takes every record
            database = re.search(_LITERAL.format(member="destinationDatabaseName"), query)
            table = re.search(_LITERAL.format(member="destinationTableName"), query)
            if database and table:
                return "", (database["value"], table["value"])
            return f"by the JSONQuery {query!r}, which computes each record's table", None
    return "", None


def stream_path(described: Mapping[str, Any]) -> DeliveryPath | None:
    """A DescribeDeliveryStream answer's DeliveryStreamDescription as a DeliveryPath; None without an MSK
    source."""
    source = _get(described, "Source", "MSKSourceDescription")
    if not source:
        return None
    base = DeliveryPath(
        kind="firehose",
        name=str(described["DeliveryStreamName"]),
        arn=str(described.get("DeliveryStreamARN", "")),
        cluster_arn=str(source.get("MSKClusterARN", "")),
        status=str(described.get("DeliveryStreamStatus", "")),
        topics=(DeliveryTopic(str(source.get("TopicName", ""))),),
    )
    destination = (described.get("Destinations") or [{}])[0]
    iceberg = destination.get("IcebergDestinationDescription")
    if iceberg:
        where = iceberg_catalog(str(_get(iceberg, "CatalogConfiguration", "CatalogARN") or ""))
        if where is None:
            return replace(base, problem="its Iceberg destination names no Glue catalog ARN")
        routing, static = _routing(iceberg.get("ProcessingConfiguration"))
        tables = (
            (static,)
            if static
            else tuple(
                (str(t.get("DestinationDatabaseName", "")), str(t.get("DestinationTableName", "")))
                for t in iceberg.get("DestinationTableConfigurationList") or []
            )
        )
        return replace(base, iceberg=IcebergDestination(*where, tables=tables, routing=routing))
    for member in ("ExtendedS3DestinationDescription", "S3DestinationDescription"):
        s3 = destination.get(member)
        bucket = S3_BUCKET_ARN.fullmatch(str((s3 or {}).get("BucketARN", "")))
        if bucket:
            return replace(
                base, s3=S3Destination(bucket["bucket"], static_prefix(str(s3.get("Prefix") or "")))
            )
    kinds = ", ".join(
        sorted(k.removesuffix("DestinationDescription") for k in destination if k != "DestinationId")
    )
    return replace(base, problem=f"its destination ({kinds or 'none'}) is not a table or an S3 bucket")


@dataclass
class _Read:
    paths: list[DeliveryPath] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Listed:
    """One channel or stream as its listing showed it: what it takes to reuse its description or read it."""

    key: str  # its entry in `known`
    fingerprint: str  # what the listing says of it: a change means it is described again
    unread: str  # its name in `unread` when it is not read
    call: str  # the describe call, as the errors name it
    describe: Callable[[], Mapping[str, Any]]
    logged: tuple[str, dict[str, str]]  # the warning logged when it cannot be described, and its extra
    to_path: Callable[[Mapping[str, Any]], DeliveryPath | None]


class DeliveryPaths:
    """Channels and delivery streams read through one `kafka` and one `firehose` client of one account."""

    def __init__(
        self,
        kafka: KafkaClient,
        firehose: FirehoseClient,
        limiter: RateLimiter | None = None,
        known: dict[str, KnownPath] | None = None,
        refresh_seconds: float = REFRESH_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.limiter = limiter or RateLimiter(DEFAULT_RPS)
        # Of the kafka client, only the calls made here: its other calls are other adapters' to pace.
        self.kafka = instrument(kafka, self.limiter, KAFKA_OPERATIONS)
        self.firehose = instrument(firehose, self.limiter)
        # Shared with the caller when given: a warm Lambda instance keeps its descriptions across invocations.
        self.known: dict[str, KnownPath] = known if known is not None else {}
        self.refresh_seconds = refresh_seconds
        self.clock = clock

    def read(
        self, sources: Sequence[Source], stop: Callable[[], bool] | None = None, force: bool = False
    ) -> DeliveryReads:
        channels = self._channels([s for s in sources if s.channels != "off"], stop, force)
        streams = self._streams([s for s in sources if s.firehose != "off"], stop, force)
        return DeliveryReads(
            paths=(*channels[0].paths, *streams[0].paths),
            unread=(*channels[0].unread, *streams[0].unread),
            channels_ok=channels[1],
            firehose_ok=streams[1],
            errors=(*channels[0].errors, *streams[0].errors),
        )

    def _path(
        self, read: _Read, listed: _Listed, stop: Callable[[], bool] | None, force: bool
    ) -> DeliveryPath | None:
        """The listed path: its description kept from an earlier read while the listing's fingerprint is
        unchanged and the description young, else described again (and kept). None when it leads nowhere,
        when `stop` came first (noted unread), or when it was not described (`_described`)."""
        if not self._stale(listed.key, listed.fingerprint, force):
            return self.known[listed.key].path
        if stop is not None and stop():
            read.unread.append(listed.unread)
            return None
        described = self._described(read, listed)
        if described is None:
            return None
        path = listed.to_path(described)
        self.known[listed.key] = KnownPath(listed.fingerprint, self.clock(), path)
        return path

    def _described(self, read: _Read, listed: _Listed) -> Mapping[str, Any] | None:
        """What the listed path's describe call answers. None when it was deleted since the listing
        (forgotten: no edges any more) or could not be read (noted unread in `read`, with the failure of
        the call; logged)."""
        try:
            return listed.describe()
        except NotFound:
            self.known.pop(listed.key, None)
            return None
        except AwsError as error:
            reason = describe_failure(error)
            message, extra = listed.logged
            logger.warning(message, extra={**extra, "error": reason})
            read.unread.append(listed.unread)
            read.errors.append(f"{listed.call}: {reason}")
            return None

    def _stale(self, key: str, fingerprint: str, force: bool) -> bool:
        kept = self.known.get(key)
        return (
            force
            or kept is None
            or kept.fingerprint != fingerprint
            or self.clock() - kept.described_at >= self.refresh_seconds
        )

    # ---- channels -------------------------------------------------------------------------------------

    def _channels(
        self, readers: Sequence[Source], stop: Callable[[], bool] | None, force: bool
    ) -> tuple[_Read, bool]:
        read, ok = _Read(), True
        for cluster_arn in sorted({s.cluster_arn for s in readers}):
            try:
                summaries = self._list_channels(cluster_arn, stop)
            except (Invalid, NotFound) as error:
                # Channels exist on Express brokers only; what ListChannels answers for a cluster of
                # standard brokers is undocumented. A request refused as invalid, or for a cluster that does
                # not exist, lists nothing (no channel can exist there), logged, not failed.
                logger.info("MSK channels not listed", extra={"cluster": cluster_arn, "error": str(error)})
                continue
            except AwsError as error:
                reason = describe_failure(error)
                logger.warning("MSK channels not listed", extra={"cluster": cluster_arn, "error": reason})
                read.errors.append(f"ListChannels {cluster_arn}: {reason}")
                ok = False
                continue
            if summaries is None:  # stopped before the listing ended
                read.errors.append(f"ListChannels {cluster_arn}: stopped before the listing ended")
                ok = False
                continue
            for summary in summaries:
                name = str(summary.get("ChannelName", ""))
                if not any(s.cluster_arn == cluster_arn and s.reads_channel(name) for s in readers):
                    continue
                self._channel(read, cluster_arn, summary, stop, force)
        return read, ok

    def _list_channels(
        self, cluster_arn: str, stop: Callable[[], bool] | None
    ) -> list[dict[str, Any]] | None:
        found: list[dict[str, Any]] = []
        token = ""
        while True:
            if stop is not None and stop():
                return None
            page = self.kafka.list_channels(
                ClusterArn=cluster_arn, MaxResults=CHANNEL_PAGE, **({"NextToken": token} if token else {})
            )
            found.extend(dict(c) for c in page.get("Channels", []))
            token = str(page.get("NextToken") or "")
            if not token:
                return found

    def _channel(
        self,
        read: _Read,
        cluster_arn: str,
        summary: Mapping[str, Any],
        stop: Callable[[], bool] | None,
        force: bool,
    ) -> None:
        arn = str(summary.get("ChannelArn", ""))
        fingerprint = "|".join(
            str(summary.get(m, ""))
            for m in ("Status", "ClusterOperationArn", "CreationTime", "DestinationType")
        )
        origin = f"channel:{summary.get('ChannelName', '')}"
        listed = _Listed(
            key=f"channel:{arn}",
            fingerprint=fingerprint,
            unread=origin,
            call=f"DescribeChannel {arn}",
            describe=partial(self.kafka.describe_channel, ClusterArn=cluster_arn, ChannelArn=arn),
            logged=("MSK channel not read", {"channel": origin}),
            to_path=partial(channel_path, cluster_arn=cluster_arn),
        )
        path = self._path(read, listed, stop, force)
        if path is not None:
            read.paths.append(path)

    # ---- delivery streams -----------------------------------------------------------------------------

    def _streams(
        self, readers: Sequence[Source], stop: Callable[[], bool] | None, force: bool
    ) -> tuple[_Read, bool]:
        read = _Read()
        if not readers:
            return read, True
        try:
            names = self._list_streams(stop)
        except AwsError as error:
            reason = describe_failure(error)
            logger.warning("Firehose streams not listed", extra={"error": reason})
            read.errors.append(f"ListDeliveryStreams: {reason}")
            return read, False
        if names is None:
            read.errors.append("ListDeliveryStreams: stopped before the listing ended")
            return read, False
        clusters = {s.cluster_arn for s in readers}
        for name in names:
            listed = _Listed(
                key=f"firehose:{name}",
                fingerprint=name,  # a stream's listing says nothing more of it
                unread=f"firehose:{name}",
                call=f"DescribeDeliveryStream {name}",
                describe=partial(self.firehose.describe_delivery_stream, DeliveryStreamName=name),
                logged=("Firehose stream not read", {"stream": name}),
                to_path=lambda described: stream_path(described["DeliveryStreamDescription"]),
            )
            path = self._path(read, listed, stop, force)
            if path is not None and path.cluster_arn in clusters and _reads_stream(readers, path):
                read.paths.append(path)
        return read, True

    def _list_streams(self, stop: Callable[[], bool] | None) -> list[str] | None:
        names: list[str] = []
        while True:
            if stop is not None and stop():
                return None
            start = {"ExclusiveStartDeliveryStreamName": names[-1]} if names else {}
            page = self.firehose.list_delivery_streams(
                Limit=STREAM_PAGE, DeliveryStreamType="MSKAsSource", **start
            )
            names.extend(str(n) for n in page.get("DeliveryStreamNames", []))
            if not page.get("HasMoreDeliveryStreams") or not page.get("DeliveryStreamNames"):
                return names


def _reads_stream(readers: Iterable[Source], path: DeliveryPath) -> bool:
    return any(s.cluster_arn == path.cluster_arn and s.reads_stream(path.name) for s in readers)


class SourceDeliveryPaths(ByAccount[DeliveryPaths]):
    """Each source's paths read in its own account (one `DeliveryPaths` per source key of a source read
    through a role, one for the functions' own account), the answers merged."""

    def read(
        self, sources: Sequence[Source], stop: Callable[[], bool] | None = None, force: bool = False
    ) -> DeliveryReads:
        answers = [reader.read(members, stop, force) for reader, members in self.readers(sources)]
        return combined(DeliveryReads, answers)
