"""What the data products' logic needs of the world: DataZone's products (`aws.data_products.DataProducts`),
their state (`aws.data_products.ProductStates`) and the asset records as the run left them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import Deletion
from kafka_lineage.products.model import Desired, ProductRecord, Written


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
