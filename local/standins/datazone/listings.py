"""Listings: publishing and unpublishing an asset (CreateListingChangeSet) and reading a listing
(GetListing). Listing changes are asynchronous: each takes effect `listing_change_calls` calls later.
`ListingView` is the Python-side view tests and the demo read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from local.standins.datazone.assets import live_asset
from local.standins.datazone.products import change_product_listing, product_listing_output
from local.standins.datazone.records import Listing, ListingRevision
from local.standins.datazone.rules import enforce_publish
from local.standins.datazone.state import Domain, Store
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import conflict, not_found, validation

LISTING_NAME_MAX = 64  # GetListing's ListingName is at most 64 characters


@dataclass(frozen=True)
class ListingView:
    id: str
    asset_id: str
    asset_revision: str
    listing_revision: str
    status: str


def create_listing_change_set(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        if params["entityType"] == "DATA_PRODUCT":
            return change_product_listing(store, domain, params)
        asset = live_asset(domain, params["entityIdentifier"])
        listing = domain.listings.get(asset.listing_id) if asset.listing_id else None
        now = store.now()
        # Listing changes are asynchronous: each takes effect `listing_change_calls` calls later. Not moto's
        # state manager (lifecycle.py): the lag runs on the domain's count of all DataZone calls, not reads
        # of this listing, and each revision keeps its own due point (`applied` reads the history by it).
        lag = int(store.reading("listing_change_calls"))
        due = domain.calls + lag + 1 if lag else domain.calls
        if listing is not None and listing.in_progress(domain.calls):
            raise conflict(f"Listing {listing.id} of asset {asset.id} has a change in progress")
        if params["action"] == "PUBLISH":
            revision = params.get("entityRevision") or asset.latest.revision
            chosen = asset.revision(revision)
            if chosen is None:
                raise validation(f"Asset {asset.id} has no revision {revision}")
            enforce_publish(store, domain, asset, chosen)
            change = ListingRevision("1", revision, "ACTIVE", now, due, "CREATING")
            if listing is None:
                listing = Listing(store.new_id(), asset.id, [change])
                domain.listings[listing.id] = listing
                asset.listing_id = listing.id
            elif (listing.latest.status, listing.latest.asset_revision) != ("ACTIVE", revision):
                listing.revisions.append(replace(change, listing_revision=str(len(listing.revisions) + 1)))
        else:
            if listing is None:
                return _unpublish_unlisted(store, asset.id)
            if listing.latest.status == "ACTIVE":
                number = str(len(listing.revisions) + 1)
                listing.revisions.append(
                    ListingRevision(number, listing.latest.asset_revision, "INACTIVE", now, due, "ACTIVE")
                )
        return {
            "listingId": listing.id,
            "listingRevision": listing.latest.listing_revision,
            "status": listing.status(domain.calls),
        }

    return store.idempotent(domain, "CreateListingChangeSet", params, produce)


def _unpublish_unlisted(store: Store, asset_id: str) -> Response:
    """UNPUBLISH of an asset that was never published: undocumented (reading `unpublish_unlisted`)."""
    answer = store.reading("unpublish_unlisted")
    if answer == "conflict":
        raise conflict(f"Asset {asset_id} is not published")
    if answer == "validation":
        raise validation(f"Asset {asset_id} has no listing to unpublish")
    if answer == "accepted":
        # Nothing to withdraw: an answer for a listing that does not exist. ListingId's pattern allows the
        # asset id; the stand-in hands that back.
        return {"listingId": asset_id, "listingRevision": "1", "status": "INACTIVE"}
    raise not_found(f"Asset {asset_id} has no listing to unpublish")


def get_listing(store: Store, domain: Domain, params: Params) -> Response:
    product = domain.product_listings.get(params["identifier"])
    if product is not None:
        if params.get("listingRevision") not in (None, product.revision):
            raise not_found(f"Listing {product.id} has no revision {params['listingRevision']}")
        return product_listing_output(store, domain, product)
    listing = domain.listings.get(params["identifier"])
    if listing is None:
        raise not_found(f"Listing {params['identifier']} not found")
    chosen = listing.latest
    if params.get("listingRevision"):
        found = next((r for r in listing.revisions if r.listing_revision == params["listingRevision"]), None)
        if found is None:
            raise not_found(f"Listing {listing.id} has no revision {params['listingRevision']}")
        chosen = found
    asset = domain.assets[listing.asset_id]
    revision = asset.revision(chosen.asset_revision) or asset.latest
    return compact(
        {
            "domainId": domain.id,
            "id": listing.id,
            "listingRevision": chosen.listing_revision,
            "createdAt": listing.revisions[0].at,
            "updatedAt": chosen.at,
            "createdBy": store.principal,
            "updatedBy": store.principal,
            "item": {
                "assetListing": compact(
                    {
                        "assetId": asset.id,
                        "assetRevision": revision.revision,
                        "assetType": asset.type_name,
                        "createdAt": revision.created_at,
                        # A JSON object: form name -> content (the shape is undocumented).
                        "forms": json.dumps({f.form_name: f.parsed for f in revision.forms}),
                        "owningProjectId": asset.owning_project_id,
                    }
                )
            },
            "name": revision.name[:LISTING_NAME_MAX],
            "description": revision.description,
            "status": listing.status(domain.calls) if chosen is listing.latest else chosen.status,
        }
    )


def listing_views(domain: Domain) -> list[ListingView]:
    return [
        ListingView(
            lst.id,
            lst.asset_id,
            lst.latest.asset_revision,
            lst.latest.listing_revision,
            lst.status(domain.calls),
        )
        for lst in domain.listings.values()
    ]


def settle(domain: Domain) -> None:
    """Let every listing change in progress take effect now (as time passing would)."""
    for listing in domain.listings.values():
        listing.revisions = [replace(r, due=min(r.due, domain.calls)) for r in listing.revisions]
