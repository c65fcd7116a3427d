"""What schema-sync needs of the world, as ports: the adapters in `kafka_lineage.aws` implement them, the
handler's package builds them (`schema_sync.wiring`), and tests put fakes or stand-ins behind them.

Each port names the calls the logic makes and the values they answer (from `kafka_lineage.model`); an
adapter raises the failures of `kafka_lineage.model.failures` (a registry or schema not found, an asset met
again or gone, a listing change still busy, a lease lost), which the logic catches by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kafka_lineage.config import Source
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.engine.dry import DryRunWrites, dry_bundle
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS, Lease
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetContent, AssetType, CatalogAsset, Deletion
from kafka_lineage.model.cluster_topics import ListedTopic, TopicConfigs
from kafka_lineage.model.products import Desired, ProductRecord, Written
from kafka_lineage.model.quotas import CallRates
from kafka_lineage.model.registry import ListedSchema, SchemaDetails


class SchemaRegistry(Protocol):
    """The Glue Schema Registries of the sources (`aws.registry.SourceRegistries`), each in its account."""

    @property
    def calls(self) -> int:
        """Calls made so far (a listing is one a page): what the run's pacing divides its timings by."""
        ...

    def list_schemas(self, registry_name: str) -> list[ListedSchema]:
        """Every schema of the registry; raises RegistryNotFound."""
        ...

    def snapshot(self, registry_name: str, schema_name: str) -> SchemaDetails:
        """GetSchema and the version history; raises SchemaNotFound."""
        ...

    def definition(self, schema_arn: str, version_number: int) -> str: ...


class AssetCatalog(Protocol):
    """The DataZone catalog (`aws.catalog.Catalog`): the asset type, the assets and their listings."""

    def asset_type(self, name: str, revision: str | None = None) -> AssetType: ...

    def create_asset(
        self, external_identifier: str, content: AssetContent, asset_type: AssetType, token: str
    ) -> CatalogAsset:
        """Raises AssetConflict when an asset with that external identifier exists."""
        ...

    def revise_asset(
        self, asset_id: str, content: AssetContent, asset_type: AssetType, token: str
    ) -> CatalogAsset:
        """Raises AssetGone when the asset no longer exists."""
        ...

    def get_asset(self, asset_id: str) -> CatalogAsset | None: ...

    def publish(self, asset_id: str, revision: str, token: str) -> None:
        """Raises ListingBusy when the listing change did not take effect within the wait, PublishRefused
        when a domain rule refuses it (the asset stays, unpublished)."""
        ...

    def delete_asset(self, asset_id: str, unpublish_token: str = "", subscribed: bool = False) -> Deletion:
        """One DeleteAsset (its listing goes with it); held while the listing has approved subscriptions.
        `subscribed`: the asset was held before (its subscriptions are looked at first)."""
        ...

    def asset_content(self, asset_id: str) -> AssetContent:
        """The asset's latest content as DataZone holds it; raises AssetGone."""
        ...

    def assets_of_type(self, type_name: str) -> Iterable[CatalogAsset]: ...

    def find_by_external_id(self, external_identifier: str, type_name: str) -> CatalogAsset | None: ...


class AssetRecords(Protocol):
    """The schema -> asset records (`aws.asset_records.AssetRecordStore`), saved group by group."""

    @property
    def unreadable(self) -> list[str]:
        """The schema ARNs whose records the last load could not read."""
        ...

    def load(self) -> dict[str, AssetRecord]: ...

    def group_of(self, schema_arn: str) -> str:
        """The record's hash group: a run saving each group's changes at once writes each parameter once."""
        ...

    def parameter_count(self) -> int: ...

    def save(self, changes: Mapping[str, AssetRecord | None]) -> int:
        """Upsert or (None) remove records; the number of SSM writes made."""
        ...


class ClusterTopics(Protocol):
    """The topics of the sources' MSK clusters (`aws.topics.ClusterTopics`), each in its source's account."""

    def list_topics(self, source: Source) -> list[ListedTopic]:
        """Every topic of the source's cluster (ListTopics, a call a page of 100)."""
        ...

    def describe_topic(self, source: Source, topic: str) -> TopicConfigs:
        """The topic's configs (DescribeTopic); raises NotFound when the cluster lists no such topic."""
        ...


class TopicAnnouncer(Protocol):
    """The "Topic Asset Changed" events (`aws.bus.TopicEvents`)."""

    def put(self, details: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Put one event per detail; the details that were not put."""
        ...


class PackedEntries(Protocol):
    """Entries of a packed store (`aws.packed_store.PackedStore`), read only: the drift summaries."""

    def load(self) -> dict[str, dict[str, Any]]: ...


class DriftSummaryReader(Protocol):
    """The drift summaries lineage-emission keeps (`sync.drift.DriftSummaries`, over `PackedEntries`)."""

    # The keys of the entries the last `load` could not read (the result warns about each).
    unreadable: list[str]

    def load(self) -> dict[str, DriftSummary]: ...


@dataclass
class SyncAdapters:
    """The ports one run uses (the handler's package builds them: `schema_sync.wiring`)."""

    registry: SchemaRegistry
    catalog: AssetCatalog
    asset_records: AssetRecords
    events: TopicAnnouncer
    namespace_of: Callable[[Source], str]  # the topic namespace of a source (its `namespace` or the brokers)
    rates: CallRates  # the pace of each stage's calls, for the chunk estimates
    # The single-writer lease on the asset records (the engine's lease policy): taken before the run's first
    # write (a run that finds nothing to write takes none), then the records are read again, so every save
    # builds on what the previous holder left; checked before every save.
    lease: Lease | None = None
    lease_wait_seconds: float = LEASE_WAIT_SECONDS  # then the run is `deferred: busy` (the handler hands on)
    # The drift summaries lineage-emission keeps; read once per run that builds asset content.
    drift: DriftSummaryReader | None = None
    # The clusters' topics (the asset's topic form, withoutTopic and withoutSchema); None: not read.
    topics: ClusterTopics | None = None
    # The data products' ports (kafka_lineage.sync.products); None: no `dataProducts` configured.
    products: ProductAdapters | None = None

    def dry_run(self) -> SyncAdapters:
        """These ports for a dry run (engine/dry.py): every writer refuses, the reads are as they are."""
        writes = DryRunWrites()
        dry = dry_bundle(self, SYNC_WRITERS, writes)
        if self.products is not None:
            dry = replace(dry, products=dry_bundle(self.products, PRODUCT_WRITERS, writes))
        return dry


# ---------------------------------------------------------------- the data products' step (sync.products)
class ProductCatalog(Protocol):
    def create(self, desired: Desired, token: str) -> tuple[Written, bool]:
        """(the product, adopted): a conflict adopts the project's product of that name."""
        ...

    def revise(self, product_id: str, desired: Desired, token: str) -> Written:
        """Raises ProductGone when the product no longer exists."""
        ...

    def publish(self, product_id: str, revision: str, token: str) -> str:
        """The listing id; raises PublishRefused (a domain rule) or ListingBusy."""
        ...

    def exists(self, product_id: str) -> bool:
        """Whether the product is still there (a `verify` run asks)."""
        ...

    def delete(self, product_id: str, listing_id: str) -> Deletion:
        """Held (Deletion.held) while the product's listing has approved subscriptions."""
        ...


class ProductStore(Protocol):
    @property
    def unreadable(self) -> list[str]: ...

    def load(self) -> dict[str, ProductRecord]: ...

    def save(self, changes: Mapping[str, ProductRecord | None]) -> int: ...


@dataclass
class ProductAdapters:
    """The ports of the data products' step of a schema-sync run (schema_sync.wiring builds them)."""

    catalog: ProductCatalog
    states: ProductStore
    # The asset records as last loaded or saved, without a call (aws.asset_records.AssetRecordStore.current).
    records: Callable[[], Mapping[str, AssetRecord]]
    domain_id: str
    project_id: str


# Which methods of each port write (engine/dry.py: a dry run's writers refuse): said once, here.
SYNC_WRITERS: dict[str, frozenset[str]] = {
    "catalog": frozenset({"create_asset", "revise_asset", "publish", "delete_asset"}),
    "asset_records": frozenset({"save"}),
    "events": frozenset({"put"}),
    "lease": frozenset({"acquire"}),
}
PRODUCT_WRITERS: dict[str, frozenset[str]] = {
    "catalog": frozenset({"create", "revise", "publish", "delete"}),
    "states": frozenset({"save"}),
}
