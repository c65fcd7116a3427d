"""MSK Connect (`kafkaconnect`): the connectors of the configured source clusters, read for lineage.

ListConnectors (paginated) answers each connector's `kafkaCluster.apacheKafkaCluster.bootstrapServers`. A
connector belongs to a source's cluster when one of those brokers (host:port) is one of the cluster's, in
any of GetBootstrapBrokers' strings (IAM, SCRAM, TLS, plaintext, public, VPC connectivity): a broker's
address belongs to one cluster. Only the connectors some source reads (its `connectors` setting) are
described, and of each configuration only the allow-listed keys are kept (`model.connector_keys`):
passwords, JAAS configs and secrets are never held, logged or returned. botocore's DEBUG logging prints
raw response bodies (the configuration included, though its model marks it sensitive), so a filter on
botocore's response logger drops any record that carries a connector configuration.

One failure never hides another's connectors: a DescribeConnector that fails makes that connector
`unread` (keep its edges); a failed listing (connectors, or a cluster's brokers) makes the whole read not
`read_ok` (absence then proves nothing, so nothing is retracted).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import Stopped, instrument, pages_until
from kafka_lineage.aws.pacing import Pacer, RateLimiter
from kafka_lineage.aws.sessions import ByAccount
from kafka_lineage.config import Source
from kafka_lineage.model.combine import combined
from kafka_lineage.model.connector_keys import kept_config
from kafka_lineage.model.connectors import ConnectorConfig, ConnectorNote, ConnectorReads
from kafka_lineage.model.failures import AwsError, NotFound, describe_failure
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_kafka import KafkaClient
    from mypy_boto3_kafkaconnect import KafkaConnectClient

PAGE_SIZE = 100  # ListConnectors maxResults maximum (botocore kafkaconnect MaxResults)
# MSK Connect's API request quotas are not published per operation: stay well under any plausible one.
DEFAULT_RPS = 5.0
KAFKA_OPERATIONS = ("GetBootstrapBrokers",)  # what is read of the kafka client here
CONFIGURATION_MEMBER = "connectorConfiguration"


class _DropConnectorConfigurations(logging.Filter):
    """Drops botocore's DEBUG records of response bodies that hold a connector configuration."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except (TypeError, ValueError):
            text = str(record.msg)
        return CONFIGURATION_MEMBER not in text


def _guard_botocore_logs() -> None:
    for name in ("botocore.parsers", "botocore.endpoint", "botocore.hooks"):
        target = logging.getLogger(name)
        if not any(isinstance(f, _DropConnectorConfigurations) for f in target.filters):
            target.addFilter(_DropConnectorConfigurations())


_guard_botocore_logs()


def broker_set(bootstrap: str) -> frozenset[str]:
    """`SASL_SSL://B-1.x:9098, b-2.x:9098` -> {'b-1.x:9098', 'b-2.x:9098'}: host names are case-blind."""
    found = set()
    for item in bootstrap.split(","):
        address = item.strip().rpartition("://")[2].strip().lower()
        if address:
            found.add(address)
    return frozenset(found)


def brokers_of(answer: Mapping[str, Any]) -> frozenset[str]:
    """Every broker address in a GetBootstrapBrokers answer, whatever the listener."""
    found: set[str] = set()
    for member, value in answer.items():
        if member.startswith("BootstrapBrokerString") and isinstance(value, str):
            found |= broker_set(value)
    return frozenset(found)


class MskConnect:
    """Reads connectors through one `kafkaconnect` client (and the `kafka` client for cluster brokers)."""

    def __init__(
        self, kafkaconnect: KafkaConnectClient, kafka: KafkaClient, limiter: Pacer | None = None
    ) -> None:
        self.limiter = limiter or RateLimiter(DEFAULT_RPS)
        # One pace for both: the brokers of each cluster, the listing's pages, each DescribeConnector. Of
        # the kafka client, only the call made here: its other calls are other adapters' to pace.
        self.kafkaconnect = instrument(kafkaconnect, self.limiter)
        self.kafka = instrument(kafka, self.limiter, KAFKA_OPERATIONS)

    def read(self, sources: Sequence[Source], stop: Callable[[], bool] | None = None) -> ConnectorReads:
        """The configurations of the connectors that `sources` read. `stop()` true: no further call starts
        (what was not read is `unread`, or the read is not `read_ok` if the listing was cut short)."""
        readers = [source for source in sources if source.connectors != "off"]
        if not readers:
            return ConnectorReads()
        errors: list[str] = []
        clusters: dict[str, frozenset[str]] = {}
        for cluster_arn in sorted({source.cluster_arn for source in readers}):
            try:
                clusters[cluster_arn] = brokers_of(self.kafka.get_bootstrap_brokers(ClusterArn=cluster_arn))
            except AwsError as error:
                errors.append(f"brokers of {cluster_arn}: {describe_failure(error)}")
        try:
            summaries = self._list(stop)
        except (AwsError, Stopped) as error:
            message = (
                "stopped before the listing ended" if isinstance(error, Stopped) else describe_failure(error)
            )
            logger.warning("MSK Connect connectors not listed", extra={"error": message})
            return ConnectorReads(read_ok=False, errors=(*errors, f"ListConnectors: {message}"))
        configs: list[ConnectorConfig] = []
        notes: list[ConnectorNote] = []
        unread: list[str] = []
        for summary in summaries:
            name = str(summary.get("connectorName", ""))
            arn = str(summary.get("connectorArn", ""))
            servers = broker_set(
                str(summary.get("kafkaCluster", {}).get("apacheKafkaCluster", {}).get("bootstrapServers", ""))
            )
            wanted = [
                cluster_arn
                for cluster_arn, brokers in clusters.items()
                if servers & brokers
                and any(s.cluster_arn == cluster_arn and s.reads_connector(name) for s in readers)
            ]
            if not wanted:
                continue
            if stop is not None and stop():
                unread.append(name)
                notes.append(
                    ConnectorNote("unreadable", name, "not read: the invocation's deadline came first")
                )
                continue
            try:
                described = self.kafkaconnect.describe_connector(connectorArn=arn)
            except NotFound:
                continue  # deleted since the listing: it has no edges any more
            except AwsError as error:
                reason = describe_failure(error)
                logger.warning("MSK Connect connector not read", extra={"connector": name, "error": reason})
                unread.append(name)
                notes.append(ConnectorNote("unreadable", name, reason))
                continue
            configs.extend(self._config(described, name, arn, cluster_arn) for cluster_arn in wanted)
        return ConnectorReads(
            connectors=tuple(configs),
            notes=tuple(notes),
            unread=tuple(unread),
            read_ok=not errors,
            errors=tuple(errors),
        )

    def _list(self, stop: Callable[[], bool] | None) -> list[dict[str, Any]]:
        pages = self.kafkaconnect.get_paginator("list_connectors").paginate(
            PaginationConfig={"PageSize": PAGE_SIZE}
        )
        return [summary for page in pages_until(pages, stop) for summary in page.get("connectors", [])]

    @staticmethod
    def _config(described: Mapping[str, Any], name: str, arn: str, cluster_arn: str) -> ConnectorConfig:
        raw = described.get("connectorConfiguration") or {}
        kept = kept_config(raw)
        bootstrap = str(
            described.get("kafkaCluster", {}).get("apacheKafkaCluster", {}).get("bootstrapServers", "")
        )
        return ConnectorConfig(
            name=str(described.get("connectorName") or name),
            arn=str(described.get("connectorArn") or arn),
            cluster_name=cluster_arn.split("/")[1],
            bootstrap_servers=tuple(sorted(broker_set(bootstrap))),
            state=str(described.get("connectorState", "")),
            connector_class=kept.get("connector.class", ""),
            config=kept,
            cluster_arn=cluster_arn,
        )


class SourceConnectors(ByAccount[MskConnect]):
    """Each source's connectors read in its own account: one `MskConnect` per source key of a source read
    through a role (kafka_lineage.aws.sessions), one for the sources of the functions' own account; the
    answers merged. A listing that fails in one account makes the whole answer `read_ok` False: what the
    other accounts' connectors say is still there, but the absence of an edge proves nothing this run."""

    def read(self, sources: Sequence[Source], stop: Callable[[], bool] | None = None) -> ConnectorReads:
        answers = [reader.read(members, stop) for reader, members in self.readers(sources)]
        return combined(ConnectorReads, answers)
