"""What lineage-emission needs of the world, as ports: the adapters in `kafka_lineage.aws` implement them,
the handler's package builds them (`lineage_emission.wiring`), and tests put fakes or stand-ins behind them.

Each port names the calls the logic makes and the values they answer (from `kafka_lineage.model`). What lies
downstream of a table is the drift logic's own port (`kafka_lineage.drift.DownstreamWalker`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

from kafka_lineage.config import Source
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.connectors import ConnectorReads
from kafka_lineage.model.consumers import ConsumerReads
from kafka_lineage.model.delivery import DeliveryReads
from kafka_lineage.model.lineage_events import EventSummary
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.table_mapping import MappingParameter
from kafka_lineage.model.tables import TableReads, TableRef


class AssetRecordReader(Protocol):
    """The schema -> asset records schema-sync keeps (`aws.asset_records.AssetRecordStore`), read only."""

    @property
    def unreadable(self) -> list[str]:
        """The schema ARNs whose records the last load could not read."""
        ...

    def load(self) -> dict[str, AssetRecord]: ...


class TableMappingReader(Protocol):
    """The explicit topic -> table mappings' parameters (`aws.table_mappings.TableMappings`)."""

    def load(self) -> list[MappingParameter]: ...


class TableReader(Protocol):
    """The Glue Data Catalog tables (`aws.tables.SourceTables`), each in its source's account."""

    def read(self, wanted: Iterable[TableRef], stop: Callable[[], bool] | None = None) -> TableReads: ...


class VersionReader(Protocol):
    """A schema version's definition (`aws.tables.SourceSchemaVersions`)."""

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition: ...


class EventStore(Protocol):
    """DataZone's lineage events (`aws.lineage_api.LineageApi`): post (the caller's token), delete, check."""

    def post(self, body: bytes, token: str) -> str: ...

    def delete(self, event_id: str) -> bool: ...

    def status(self, event_id: str) -> str | None: ...

    def list_events(self, after: datetime, before: datetime) -> Iterable[EventSummary]: ...


class GlueGraphs(Protocol):
    """The Glue Data Catalog's lineage graphs (`aws.glue_lineage.GlueLineageGraphs`): PostLineageEvent into
    the graph of the account of `graph` (a source key; "" the functions' own account). Raises when Glue did
    not accept the event (accepted means validated and stored; the graph follows asynchronously)."""

    def post(self, graph: str, body: bytes) -> None: ...


class StateStore(Protocol):
    """Per-key entries of a packed store (`aws.packed_store.PackedStore`): the emission state, the drift
    summaries. Saved group by group (`model.state_layout.hash_group` of `group_bits` bits)."""

    @property
    def group_bits(self) -> int: ...

    def load(self) -> dict[str, dict[str, Any]]: ...

    def save(self, changes: Mapping[str, dict[str, Any] | None]) -> int:
        """Upsert or (None) remove entries; the number of SSM writes made."""
        ...


class ConnectorReader(Protocol):
    """MSK Connect (`aws.connectors.SourceConnectors`): never raises; what it could not read is in the
    answer (`read_ok`, `unread`, `errors`)."""

    def read(self, sources: Sequence[Source], stop: Callable[[], bool] | None = None) -> ConnectorReads: ...


class DeliveryReader(Protocol):
    """MSK Data Delivery channels and Firehose streams of the sources' clusters
    (`aws.delivery.SourceDeliveryPaths`): never raises; what it could not read is in the answer (`unread`,
    `channels_ok` / `firehose_ok`, `errors`). `force` reads every description again."""

    def read(
        self, sources: Sequence[Source], stop: Callable[[], bool] | None = None, force: bool = False
    ) -> DeliveryReads: ...


class ConsumerReader(Protocol):
    """The consumer groups of the sources' clusters, from MSK's consumer-lag metrics in CloudWatch
    (`aws.consumer_groups.SourceConsumerGroups`): never raises; a cluster it could not list is `unread`."""

    def read(self, sources: Sequence[Source], stop: Callable[[], bool] | None = None) -> ConsumerReads: ...


class SubscriberReader(Protocol):
    """The approved subscriptions to a topic's asset (`aws.catalog.Catalog.approved_subscribers`: DataZone
    ListSubscriptions on the asset's listing, status APPROVED), as (project id, subscription id)."""

    def approved_subscribers(self, asset_id: str) -> list[tuple[str, str]]: ...


class Announcer(Protocol):
    """Where schema drift is announced (`aws.bus.DriftEvents`); raises when the event was not accepted."""

    def announce(self, detail: Mapping[str, Any]) -> None: ...
