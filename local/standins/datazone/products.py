"""Data product listings, and what any listing lists: the assets a subscription to it grants.

A data product groups several assets under one listing (GetListing's `item.dataProductListing`, whose
`items` are the assets' own listings). A subscription to it is granted asset by asset: its grant lists every
asset of the product (GetSubscriptionGrant's `assets`). The stand-in creates products from Python only
(`DataZoneBackend.add_data_product`: the product APIs are not modelled); each member must be published.

Readings: whether a product grant's events name the product ("DataProduct") or its assets' type as
`data.asset.typeName` is undocumented (`data_product_event_type_name`); "product" is the harder side for a
fulfiller that filters events by asset type, which then meets such grants only in a reconciling run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from local.standins.datazone.records import DataProductListing
from local.standins.datazone.state import Domain, Store
from local.standins.datazone.wire import Response, compact
from local.standins.errors import not_found

PRODUCT_TYPE_NAME = "DataProduct"


@dataclass(frozen=True)
class Listed:
    """What a listing revision lists: (asset id, asset revision, asset type) of each asset."""

    listing_id: str
    listing_revision: str
    assets: tuple[tuple[str, str, str], ...]
    product: bool

    @property
    def type_names(self) -> set[str]:
        return {type_name for _, _, type_name in self.assets}


def listed(domain: Domain, listing_id: str, revision: str | None = None) -> Listed:
    """The assets a listing (of an asset or a data product) lists, at `revision` (default: the latest)."""
    product = domain.product_listings.get(listing_id)
    if product is not None:
        members = []
        for asset_id, member_listing in product.members:
            asset_listing = domain.listings[member_listing]
            members.append((asset_id, asset_listing.latest.asset_revision, domain.assets[asset_id].type_name))
        return Listed(product.id, product.revision, tuple(members), True)
    listing = domain.listings.get(listing_id)
    if listing is None:
        raise not_found(f"Listing {listing_id} not found")
    chosen = next((r for r in listing.revisions if r.listing_revision == revision), listing.latest)
    type_name = domain.assets[listing.asset_id].type_name
    return Listed(
        listing.id, chosen.listing_revision, ((listing.asset_id, chosen.asset_revision, type_name),), False
    )


def add_data_product(
    store: Store, domain: Domain, name: str, project_id: str, asset_ids: list[str]
) -> DataProductListing:
    store.project(domain, project_id, not_found)
    members = []
    for asset_id in asset_ids:
        asset = domain.assets.get(asset_id)
        listing = domain.listings.get(asset.listing_id or "") if asset is not None else None
        if listing is None or listing.status(domain.calls) != "ACTIVE":
            raise ValueError(f"asset {asset_id} is not published; a data product lists published assets")
        members.append((asset_id, listing.id))
    if not members:
        raise ValueError("a data product lists at least one asset")
    product = DataProductListing(store.new_id(), store.new_id(), name, project_id, members, store.now())
    domain.product_listings[product.id] = product
    return product


def product_listing_output(store: Store, domain: Domain, product: DataProductListing) -> Response:
    """GetListing's answer for a data product listing."""
    items = [
        {"listingId": listing_id, "listingRevision": domain.listings[listing_id].latest.listing_revision}
        for _, listing_id in product.members
    ]
    return compact(
        {
            "domainId": domain.id,
            "id": product.id,
            "listingRevision": product.revision,
            "createdAt": product.created_at,
            "updatedAt": product.created_at,
            "createdBy": store.principal,
            "updatedBy": store.principal,
            "item": {
                "dataProductListing": {
                    "dataProductId": product.product_id,
                    "dataProductRevision": product.revision,
                    "createdAt": product.created_at,
                    "forms": json.dumps({}),
                    "owningProjectId": product.owning_project_id,
                    "items": items,
                }
            },
            "name": product.name[:64],
            "status": "ACTIVE",
        }
    )


def subscribed_product(domain: Domain, product: DataProductListing) -> Response:
    """A subscription's `subscribedListing` for a data product listing."""
    return {
        "id": product.id,
        "revision": product.revision,
        "name": product.name[:64],
        "description": "",
        "item": {
            "productListing": {
                "entityId": product.product_id,
                "entityRevision": product.revision,
                "name": product.name,
                "assetListings": [
                    {
                        "entityId": asset_id,
                        "entityRevision": domain.listings[listing_id].latest.asset_revision,
                        "entityType": domain.assets[asset_id].type_name,
                    }
                    for asset_id, listing_id in product.members
                ],
            }
        },
        "ownerProjectId": product.owning_project_id,
    }
