"""What MSK Connect connectors say about lineage, as plain values (read by the adapter, derived from by
`kafka_lineage.connectors`).

The adapter (`kafka_lineage.aws.connectors`) reads each connector into a `ConnectorConfig`: only the
configuration keys lineage needs, never a credential. `derive` (pure, `kafka_lineage.connectors.derive`)
turns those configs plus the registry's topics into edges:

- `SinkEdge`: topic -> Glue table, decided by an Iceberg sink connector's configuration;
- `SourceEdge`: source database table -> topic (the first hop), decided by a Debezium source connector;
- `ConnectorNote`: what the configuration does not decide (`ambiguous`, `undetermined`) or could not be
  read (`unreadable`). Reported, never guessed.

`Derivation.read_ok` is False when the connectors could not be listed: the consumer must then keep the
connector edges it already has instead of retracting them. `Derivation.unread` names connectors that were
listed but whose configuration could not be read (DescribeConnector failed): keep their edges too. A
connector absent from the listing (deleted) or DELETING has no edges: retract them.

Interface:

    derive(connectors: Sequence[ConnectorConfig] | ConnectorReads, topics: Iterable[TopicKey],
           sources: Sequence[Source]) -> Derivation

`ConnectorReads` is what the adapter (`MskConnect.read`) returns; given one, `derive` carries its
`read_ok`, `unread` and notes into the Derivation. Wiring, in a handler:

    reads = MskConnect(clients.client("kafkaconnect"), clients.client("kafka")).read(settings.sources, stop)
    derivation = derive(reads, topic_keys, settings.sources)

Fields added after the first version (all defaulted): `ConnectorConfig.cluster_arn`,
`SourceEdge.flattened` (the topic's top-level fields are the columns, no `after.` envelope),
`Derivation.unread`, and `ConnectorReads`.

A connector applies to the sources on its cluster: those whose `clusterArn` equals
`ConnectorConfig.cluster_arn` when that is set, else those whose cluster name (the ARN's
`cluster/<name>/<uuid>` segment) equals `ConnectorConfig.cluster_name`; and only if that source's
`connectors` setting includes the connector's name. Its edges use only that source's registry topics.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

NoteKind = Literal["ambiguous", "undetermined", "unreadable"]


@dataclass(frozen=True)
class ConnectorConfig:
    """What the adapter read from DescribeConnector: only the needed keys, never credentials.

    `config` holds whitelisted connector-configuration keys only (see `kafka_lineage.model.connector_keys`).
    `cluster_arn` is the configured source cluster whose bootstrap brokers the connector's match.
    """

    name: str
    arn: str
    cluster_name: str
    bootstrap_servers: tuple[str, ...]
    state: str
    connector_class: str
    config: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    cluster_arn: str = ""


@dataclass(frozen=True)
class SinkEdge:
    """Topic -> Glue table, decided by a sink connector's configuration."""

    key: TopicKey
    table: TableRef
    connector: str
    connector_arn: str
    job_namespace: str
    job_name: str
    # The edge's origin when it is not a connector's: "channel:<name>" or "firehose:<name>" (the managed
    # delivery paths' edges ride the same tier, `kafka_lineage.delivery`).
    via: str = ""

    @property
    def origin(self) -> str:
        return self.via or f"connector:{self.connector}"


@dataclass(frozen=True)
class SourceEdge:
    """Source database table -> topic (the first hop), from a Debezium source connector's configuration.

    `dataset_namespace` / `dataset_name` follow OpenLineage's dataset naming (e.g. `mysql://host:port` and
    `db.table`). `columns` is () when unknown: column lineage then maps each `after.<column>` of the topic.
    `flattened`: the connector unwraps its change events (Debezium's ExtractNewRecordState or
    ExtractNewDocumentState), so the topic's own top-level fields are the columns, not `after.<column>`.
    """

    key: TopicKey
    dataset_namespace: str
    dataset_name: str
    connector: str
    connector_arn: str
    job_namespace: str
    job_name: str
    columns: tuple[str, ...] = ()
    flattened: bool = False


@dataclass(frozen=True)
class ConnectorNote:
    """Something a connector's configuration does not decide, or a connector that could not be read.

    `key` is the topic concerned (None when the note is about the whole connector).
    """

    kind: NoteKind
    connector: str
    reason: str
    key: TopicKey | None = None


@dataclass(frozen=True)
class Derivation:
    """Every edge and note derived from the connectors of one run."""

    sinks: tuple[SinkEdge, ...] = ()
    sources: tuple[SourceEdge, ...] = ()
    notes: tuple[ConnectorNote, ...] = ()
    # False: listing the connectors failed; the consumer must not retract connector edges.
    read_ok: bool = True
    # Connectors listed but not read (DescribeConnector failed): keep their previous edges.
    unread: tuple[str, ...] = ()


@dataclass(frozen=True)
class ConnectorReads:
    """What the adapter read: the configurations of the connectors on the sources' clusters.

    `read_ok` False: a listing failed (the connectors, or a cluster's brokers), so absence proves nothing.
    `unread`: connectors listed whose DescribeConnector failed (each also has an `unreadable` note).
    `errors`: what failed, for the logs and the result.
    """

    connectors: tuple[ConnectorConfig, ...] = ()
    notes: tuple[ConnectorNote, ...] = ()
    unread: tuple[str, ...] = ()
    read_ok: bool = True
    errors: tuple[str, ...] = ()
