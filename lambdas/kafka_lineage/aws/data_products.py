"""DataZone data products (CreateDataProduct, CreateDataProductRevision, GetDataProduct, DeleteDataProduct,
Search in the DATA_PRODUCT scope, CreateListingChangeSet of a DATA_PRODUCT, ListSubscriptions of its
listing), and the product state in SSM (`{MAPPING_PATH}/assets/products/`, packed). No decisions here:
kafka_lineage.sync.products plans, this adapter calls.

Names are unique in the domain (CreateDataProduct's prerequisites). Readings (the API reference is silent;
docs/concepts.md, "Data products"):
- which error says a name is taken (ConflictException or ValidationException): a create refused either way
  (a name taken, or a token replayed with another request) adopts the project's product of that name
  through Search, and re-raises when the project has none (another project's product holds the name); a
  create with the same clientToken answers the first product again;
- whether DeleteDataProduct is refused for a published product: refused, the product is unpublished and
  deleted again;
- a publish that DataZone refuses as invalid is a domain rule's refusal (as for assets).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.catalog import approved_subscriptions, listing_subscribers
from kafka_lineage.aws.catalog_search import SEARCH_PAGE_SIZE, SEARCH_TEXT_LIMIT
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.model.catalog import Deletion
from kafka_lineage.model.failures import Conflict, Invalid, ListingBusy, NotFound, PublishRefused
from kafka_lineage.model.products import Desired, ProductGone, ProductRecord, Written
from kafka_lineage.model.state_layout import PRODUCTS_PATH, read_entries

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient
    from mypy_boto3_ssm import SSMClient


class DataProducts:
    """The project's data products in one domain (the client is paced like the catalog's)."""

    def __init__(
        self,
        datazone: DataZoneClient,
        domain_id: str,
        project_id: str,
        limiter: Pacer | None = None,
        refusing_rules: Callable[[str], tuple[str, ...]] | None = None,
    ) -> None:
        self.datazone = instrument(datazone, limiter)
        self.domain_id = domain_id
        self.project_id = project_id
        # The catalog's lookup of the rules a refused publish names (aws/catalog.py).
        self._rules = refusing_rules or (lambda message: ())

    @staticmethod
    def _content(desired: Desired) -> dict[str, Any]:
        return {
            "name": desired.name,
            "items": [{"itemType": "ASSET", "identifier": item} for item in desired.items],
            **({"description": desired.description} if desired.description else {}),
            **({"glossaryTerms": list(desired.glossary_terms)} if desired.glossary_terms else {}),
        }

    def create(self, desired: Desired, token: str) -> tuple[Written, bool]:
        """CreateDataProduct, the same token for the same product every time: a retried create answers
        the first product. A create refused as a conflict adopts the product of that name (Search), so a
        crash before the state was written never makes a second product. (written, adopted)."""
        try:
            answer = self.datazone.create_data_product(
                domainIdentifier=self.domain_id,
                owningProjectIdentifier=self.project_id,
                clientToken=token,
                **self._content(desired),
            )
            return Written(str(answer["id"]), str(answer["revision"])), False
        except (Conflict, Invalid):
            found = self.find_by_name(desired.name)
            if found is None:
                raise
            return self.get(found), True

    def revise(self, product_id: str, desired: Desired, token: str) -> Written:
        """CreateDataProductRevision: the items (and description, terms) replaced; ProductGone when the
        product no longer exists."""
        try:
            answer = self.datazone.create_data_product_revision(
                domainIdentifier=self.domain_id,
                identifier=product_id,
                clientToken=token,
                **self._content(desired),
            )
        except NotFound as error:
            raise ProductGone(product_id) from error
        return Written(str(answer["id"]), str(answer["revision"]))

    def get(self, product_id: str) -> Written:
        answer = self.datazone.get_data_product(domainIdentifier=self.domain_id, identifier=product_id)
        return Written(str(answer["id"]), str(answer["revision"]))

    def exists(self, product_id: str) -> bool:
        """Whether the product is still there (GetDataProduct): a `verify` run asks, per product."""
        try:
            self.datazone.get_data_product(domainIdentifier=self.domain_id, identifier=product_id)
        except NotFound:
            return False
        return True

    def items(self, product_id: str) -> frozenset[str]:
        """The asset ids the product's latest revision holds (GetDataProduct); none when it is gone."""
        try:
            answer = self.datazone.get_data_product(domainIdentifier=self.domain_id, identifier=product_id)
        except NotFound:
            return frozenset()
        return frozenset(str(item["identifier"]) for item in answer.get("items", []))

    def find_by_name(self, name: str) -> str | None:
        """The id of the project's product of exactly this name (Search, DATA_PRODUCT scope)."""
        pages = self.datazone.get_paginator("search").paginate(
            domainIdentifier=self.domain_id,
            searchScope="DATA_PRODUCT",
            owningProjectIdentifier=self.project_id,
            searchText=name[:SEARCH_TEXT_LIMIT],
            PaginationConfig={"PageSize": SEARCH_PAGE_SIZE},
        )
        for page in pages:
            for item in page.get("items", []):
                product = item.get("dataProductItem") or {}
                if product.get("name") == name and product.get("owningProjectId") == self.project_id:
                    return str(product["id"])
        return None

    def publish(self, product_id: str, revision: str, token: str) -> str:
        """Publish the product's revision (CreateListingChangeSet, DATA_PRODUCT); its listing's id.
        PublishRefused names the domain rule that refused it; ListingBusy when a change of its listing is
        still in progress (the next run publishes)."""
        try:
            answer = self.datazone.create_listing_change_set(
                domainIdentifier=self.domain_id,
                entityIdentifier=product_id,
                entityType="DATA_PRODUCT",
                entityRevision=revision,
                action="PUBLISH",
                clientToken=token,
            )
        except Invalid as error:
            raise PublishRefused(error.message, self._rules(error.message)) from error
        except Conflict as error:
            raise ListingBusy(f"data product {product_id}: its listing has a change in progress") from error
        return str(answer["listingId"])

    def approved_subscribers(self, listing_id: str) -> list[tuple[str, str]]:
        """(project id, subscription id) of each APPROVED subscription to the product's listing."""
        return listing_subscribers(self.datazone, self.domain_id, listing_id)

    def delete(self, product_id: str, listing_id: str) -> Deletion:
        """Delete the product, unless its listing has approved subscriptions (then held: nothing revokes
        or cancels them). A product already gone counts as deleted."""
        if listing_id:
            count = len(approved_subscriptions(self.datazone, self.domain_id, listing_id))
            if count:
                return Deletion(count)
        try:
            self.datazone.delete_data_product(domainIdentifier=self.domain_id, identifier=product_id)
            return Deletion()
        except NotFound:
            return Deletion()
        except (Conflict, Invalid):
            pass  # refused while published (a reading): unpublish, then delete again
        with contextlib.suppress(NotFound):
            self.datazone.create_listing_change_set(
                domainIdentifier=self.domain_id,
                entityIdentifier=product_id,
                entityType="DATA_PRODUCT",
                action="UNPUBLISH",
                clientToken=f"unpublish-{product_id}",
            )
        with contextlib.suppress(NotFound):
            self.datazone.delete_data_product(domainIdentifier=self.domain_id, identifier=product_id)
        return Deletion()


GROUP_BITS = 1


class ProductStates:
    """The product state: one `ProductRecord` per product name, packed under `assets/products/`."""

    def __init__(self, ssm: SSMClient, mapping_path: str, write_limiter: Pacer | None = None) -> None:
        # Two hash groups: a few dozen products fit a parameter or two, read in one page.
        path = f"{mapping_path.rstrip('/')}/{PRODUCTS_PATH}"
        self.store = PackedStore(ssm, path, write_limiter=write_limiter, group_bits=GROUP_BITS)
        self.unreadable: list[str] = []

    def load(self) -> dict[str, ProductRecord]:
        records, self.unreadable = read_entries(self.store.load(), ProductRecord.from_entry)
        return records

    def save(self, changes: Mapping[str, ProductRecord | None]) -> int:
        """Upsert or (None) remove records; the number of SSM writes made."""
        return self.store.save(
            {name: (record.to_entry() if record is not None else None) for name, record in changes.items()}
        )


class AssetSubscribers(Protocol):
    def approved_subscribers(self, asset_id: str) -> list[tuple[str, str]]: ...


class WithProductSubscribers:
    """Who subscribes to a topic's asset (a drift's `subscribers`): the asset's own approved subscriptions
    (aws/catalog.py), and those of each published data product that holds the asset. The product state is
    read once, and each product's items once, per run; only a drift checked asks."""

    def __init__(self, assets: AssetSubscribers, products: DataProducts, states: ProductStates) -> None:
        self.assets = assets
        self.products = products
        self.states = states
        self._records: dict[str, ProductRecord] | None = None
        self._items: dict[str, frozenset[str]] = {}

    def approved_subscribers(self, asset_id: str) -> list[tuple[str, str]]:
        found = list(self.assets.approved_subscribers(asset_id))
        if self._records is None:
            self._records = self.states.load()
        for record in sorted(self._records.values(), key=lambda r: r.name):
            if not record.listing_id:
                continue
            if record.product_id not in self._items:
                self._items[record.product_id] = self.products.items(record.product_id)
            if asset_id in self._items[record.product_id]:
                found.extend(self.products.approved_subscribers(record.listing_id))
        return list(dict.fromkeys(found))
