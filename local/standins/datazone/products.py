"""Data product listings, and what any listing lists: the assets a subscription to it grants.

A data product groups several assets under one listing (GetListing's `item.dataProductListing`, whose
`items` are the assets' own listings). A subscription to it is granted asset by asset: its grant lists every
asset of the product (GetSubscriptionGrant's `assets`). Products are made through the API (below:
CreateDataProduct, its revisions, publishing) or from Python (`DataZoneBackend.add_data_product`, a
listing without a product behind it); each member must be published.

Readings: whether a product grant's events name the product ("DataProduct") or its assets' type as
`data.asset.typeName` is undocumented (`data_product_event_type_name`); "product" is the harder side for a
fulfiller that filters events by asset type, which then meets such grants only in a reconciling run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from local.standins.datazone import glossaries
from local.standins.datazone.records import DataProductListing
from local.standins.datazone.rules import PUBLISH_ACTION, unit_chain, unmet_by
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import conflict, not_found, validation

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


# ----------------------------------------------------------------------------------- the product APIs
# CreateDataProduct, CreateDataProductRevision, GetDataProduct, DeleteDataProduct, Search (DATA_PRODUCT)
# and CreateListingChangeSet of a DATA_PRODUCT. The server validates each request against botocore's model
# first (names 1-64, items at least one, glossary terms 1-20, clientToken); here: what the model can't say.
# Names are unique in the domain (the API reference's prerequisite); readings: `data_product_name_taken`
# (which error says a name is taken) and
# `data_product_delete_requires_unpublish` (whether DeleteDataProduct refuses a published product).


@dataclass(frozen=True)
class ProductRevision:
    revision: str
    name: str
    description: str | None
    glossary_terms: tuple[str, ...]
    items: tuple[tuple[str, str], ...]  # (asset id, asset revision)
    forms: tuple[Any, ...]
    created_at: datetime


@dataclass
class DataProduct:
    id: str
    owning_project_id: str
    revisions: list[ProductRevision]
    listing_id: str | None = None
    deleted: bool = False

    @property
    def latest(self) -> ProductRevision:
        return self.revisions[-1]


def _items(domain: Domain, project_id: str, params: Params) -> tuple[tuple[str, str], ...]:
    """The items, each a live asset of the product's owning project (aws-facts: items are assets of the
    product's owning project), at the revision named or its latest."""
    items = []
    for item in params.get("items") or ():  # optional: a product may be made empty, items added later
        asset = domain.assets.get(item["identifier"])
        if asset is None or asset.deleted:
            raise not_found(f"Asset {item['identifier']} not found")
        if asset.owning_project_id != project_id:
            raise validation(f"Asset {asset.id} is not owned by project {project_id}")
        revision = item.get("revision") or asset.latest.revision
        if asset.revision(revision) is None:
            raise validation(f"Asset {asset.id} has no revision {revision}")
        items.append((asset.id, revision))
    if len({asset_id for asset_id, _ in items}) != len(items):
        raise validation("items name an asset more than once")
    return tuple(items)


def _revision(store: Store, domain: Domain, number: str, project_id: str, params: Params) -> ProductRevision:
    glossaries.check_asset_terms(domain, params.get("glossaryTerms"))
    return ProductRevision(
        number,
        params["name"],
        params.get("description"),
        tuple(params.get("glossaryTerms") or ()),
        _items(domain, project_id, params),
        tuple(params.get("formsInput") or ()),
        store.now(),
    )


def live_product(domain: Domain, product_id: str) -> DataProduct:
    product = domain.data_products.get(product_id)
    if product is None or product.deleted:
        raise not_found(f"Data product {product_id} not found")
    return product


def _product_output(store: Store, domain: Domain, product: DataProduct, chosen: ProductRevision) -> Response:
    first = product.revisions[0]
    return compact(
        {
            "domainId": domain.id,
            "id": product.id,
            "revision": chosen.revision,
            "owningProjectId": product.owning_project_id,
            "name": chosen.name,
            "status": "CREATED",
            "description": chosen.description,
            "glossaryTerms": list(chosen.glossary_terms) or None,
            "items": [{"itemType": "ASSET", "identifier": a, "revision": r} for a, r in chosen.items] or None,
            "formsOutput": [],
            "createdAt": chosen.created_at,
            "createdBy": store.principal,
            "firstRevisionCreatedAt": first.created_at,
            "firstRevisionCreatedBy": store.principal,
        }
    )


def create_data_product(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        project = store.project(domain, params["owningProjectIdentifier"], not_found)
        for other in domain.data_products.values():
            if not other.deleted and other.latest.name == params["name"]:
                message = f"A data product named {params['name']} already exists in domain {domain.id}"
                if store.reading("data_product_name_taken") == "validation":
                    raise validation(message)
                raise conflict(message)
        product = DataProduct(store.new_id(), project, [_revision(store, domain, "1", project, params)])
        domain.data_products[product.id] = product
        return _product_output(store, domain, product, product.latest)

    return store.idempotent(domain, "CreateDataProduct", params, produce)


def create_data_product_revision(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        product = live_product(domain, params["identifier"])
        number = str(len(product.revisions) + 1)
        product.revisions.append(_revision(store, domain, number, product.owning_project_id, params))
        return _product_output(store, domain, product, product.latest)

    return store.idempotent(domain, "CreateDataProductRevision", params, produce)


def get_data_product(store: Store, domain: Domain, params: Params) -> Response:
    product = live_product(domain, params["identifier"])
    wanted = params.get("revision")
    chosen = next((r for r in product.revisions if r.revision == wanted), None) if wanted else product.latest
    if chosen is None:
        raise not_found(f"Data product {product.id} has no revision {wanted}")
    return _product_output(store, domain, product, chosen)


def delete_data_product(store: Store, domain: Domain, params: Params) -> Response:
    product = live_product(domain, params["identifier"])
    listing = domain.product_listings.get(product.listing_id or "")
    if listing is not None and listing.active:
        if any(s.listing_id == listing.id and s.status == "APPROVED" for s in domain.subscriptions.values()):
            raise conflict(f"Data product {product.id} has approved subscriptions")
        if store.reading("data_product_delete_requires_unpublish"):
            raise conflict(f"Data product {product.id} is published; unpublish it first")
    product.deleted = True
    if listing is not None:
        listing.active = False
    return {}


def search_products(store: Store, domain: Domain, params: Params) -> Response:
    """Search in the DATA_PRODUCT scope: the live products, by owning project and text (name or
    description, case-insensitive), oldest first."""
    project, text = params.get("owningProjectIdentifier"), (params.get("searchText") or "").lower()
    found = [
        p
        for p in domain.data_products.values()
        if not p.deleted
        and (not project or p.owning_project_id == project)
        and (not text or text in p.latest.name.lower() or text in (p.latest.description or "").lower())
    ]
    page, token = paginate(found, params)
    items = [
        {
            "dataProductItem": compact(
                {
                    "domainId": domain.id,
                    "id": p.id,
                    "name": p.latest.name,
                    "owningProjectId": p.owning_project_id,
                    "description": p.latest.description,
                    "createdAt": p.revisions[0].created_at,
                    "createdBy": store.principal,
                }
            )
        }
        for p in page
    ]
    return compact({"items": items, "nextToken": token, "totalMatchCount": len(found)})


def change_product_listing(store: Store, domain: Domain, params: Params) -> Response:
    """CreateListingChangeSet of a DATA_PRODUCT. A publish lists the revision's items by their own
    listings (each must be published) and must satisfy the domain's publishing rules whose scope takes
    data products; the product's one listing keeps its id and takes a new revision. Listing changes of a
    product take effect at once here (an asset's lag: listings.py). The user guide's note on publishing a
    product with unpublished assets is cut short of what happens to them; the stand-in refuses (the harder
    side: schema-sync publishes the assets first)."""
    product = live_product(domain, params["entityIdentifier"])
    listing = domain.product_listings.get(product.listing_id or "")
    if params["action"] == "UNPUBLISH":
        if listing is None:
            raise not_found(f"Data product {product.id} has no listing to unpublish")
        listing.active = False
        return {"listingId": listing.id, "listingRevision": listing.revision, "status": "INACTIVE"}
    wanted = params.get("entityRevision") or product.latest.revision
    chosen = next((r for r in product.revisions if r.revision == wanted), None)
    if chosen is None:
        raise validation(f"Data product {product.id} has no revision {wanted}")
    enforce_product_rules(store, domain, product, chosen)
    members = []
    for asset_id, _ in chosen.items:
        asset = domain.assets.get(asset_id)
        asset_listing = domain.listings.get(asset.listing_id or "") if asset is not None else None
        if asset_listing is None or asset_listing.latest.status != "ACTIVE":
            raise validation(f"Asset {asset_id} of data product {product.id} is not published")
        members.append((asset_id, asset_listing.id))
    if listing is None:
        listing = DataProductListing(
            store.new_id(), product.id, chosen.name, product.owning_project_id, members, store.now()
        )
        domain.product_listings[listing.id] = listing
        product.listing_id = listing.id
    elif (listing.members, listing.name, listing.active) != (members, chosen.name, True):
        listing.members, listing.name, listing.active = members, chosen.name, True
        listing.revision = str(int(listing.revision) + 1)
    return {"listingId": listing.id, "listingRevision": listing.revision, "status": "ACTIVE"}


def enforce_product_rules(
    store: Store, domain: Domain, product: DataProduct, chosen: ProductRevision
) -> None:
    """Refuse a publish that a publishing rule taking data products (`scope.dataProduct`) is not met by:
    required glossary terms on the product, or required forms (the product carries the forms it was given)."""
    units = unit_chain(domain, product.owning_project_id)
    for rule in domain.rules.values():
        if rule.action != PUBLISH_ACTION or not rule.scope.get("dataProduct"):
            continue
        if not (rule.targets(units) and rule.takes_project(product.owning_project_id)):
            continue
        unmet = unmet_by(store, rule, chosen.glossary_terms, ())
        if unmet is None:
            continue
        if store.reading("rule_refusal_names_rule"):
            raise validation(
                f"Data product {product.id} revision {chosen.revision} cannot be published: it does not "
                f"satisfy rule '{rule.name}' ({rule.id}) of domain unit {rule.domain_unit}: {unmet}"
            )
        raise validation("The data product does not meet the publishing requirements of its domain unit")
