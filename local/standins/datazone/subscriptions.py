"""Subscriptions to listings: CreateSubscriptionRequest, AcceptSubscriptionRequest, ListSubscriptions,
GetSubscription, RevokeSubscription, CancelSubscription.

A request names one principal (here: a project) and one listing; accepting it makes an APPROVED
subscription and asks for its grants (grants.py: one per subscription target of the subscriber that takes
the asset's type); revoking (the listing's owner) or cancelling (the subscriber) ends it and asks for the
grants' revokes (RevokeSubscription's `retainPermissions` keeps them: no revoke is asked). A listing with an
APPROVED subscription cannot be deleted, and so neither can its asset ("Delete an Amazon DataZone asset",
DataZone user guide: "You can't delete an asset listing that has existing subscribers").
"""

from __future__ import annotations

from typing import Any

from local.standins.datazone.grants import request_grants, revoke_grants
from local.standins.datazone.products import subscribed_product
from local.standins.datazone.records import Subscription, SubscriptionRequest
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import conflict, not_found, validation


def approved(domain: Domain, listing_id: str) -> list[Subscription]:
    return [s for s in domain.subscriptions.values() if s.listing_id == listing_id and s.status == "APPROVED"]


def _listing_of(domain: Domain, listing_id: str) -> Any:
    """An asset's listing, or a data product's (products.py): both answer `status` and `latest`."""
    listing = domain.listings.get(listing_id) or domain.product_listings.get(listing_id)
    if listing is None:
        raise not_found(f"Listing {listing_id} not found")
    return listing


def _subscribed_listing(domain: Domain, listing_id: str, revision: str) -> dict[str, Any]:
    product = domain.product_listings.get(listing_id)
    if product is not None:
        return subscribed_product(domain, product)
    listing = domain.listings.get(listing_id)
    asset = domain.assets.get(listing.asset_id) if listing else None
    shown = asset.revision(revision) if asset else None
    return compact(
        {
            "id": listing_id,
            "revision": revision,
            "name": (shown.name if shown else listing_id)[:64],
            "description": (shown.description if shown else None) or "",
            "item": {
                "assetListing": compact(
                    {
                        "entityId": asset.id if asset else None,
                        "entityRevision": shown.revision if shown else None,
                        "entityType": asset.type_name if asset else None,
                    }
                )
            },
            "ownerProjectId": asset.owning_project_id if asset else "",
        }
    )


def _request_output(store: Store, domain: Domain, request: SubscriptionRequest) -> Response:
    listing = domain.listings.get(request.listing_id) or domain.product_listings.get(request.listing_id)
    revision = listing.latest.asset_revision if listing else ""
    return compact(
        {
            "id": request.id,
            "createdBy": store.principal,
            "domainId": domain.id,
            "status": request.status,
            "createdAt": request.created_at,
            "updatedAt": request.updated_at,
            "requestReason": request.reason,
            "subscribedPrincipals": [{"project": {"id": request.project_id}}],
            "subscribedListings": [_subscribed_listing(domain, request.listing_id, revision)],
            "existingSubscriptionId": request.subscription_id,
        }
    )


def _subscription_output(store: Store, domain: Domain, subscription: Subscription) -> Response:
    return {
        "id": subscription.id,
        "createdBy": store.principal,
        "updatedBy": store.principal,
        "domainId": domain.id,
        "status": subscription.status,
        "createdAt": subscription.created_at,
        "updatedAt": subscription.updated_at,
        "subscribedPrincipal": {"project": {"id": subscription.project_id}},
        "subscribedListing": _subscribed_listing(
            domain, subscription.listing_id, subscription.listing_revision
        ),
        "subscriptionRequestId": subscription.request_id,
    }


def create_subscription_request(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        principal = params["subscribedPrincipals"][0]
        project = (principal.get("project") or {}).get("identifier")
        if not project:
            raise validation(
                "The stand-in takes subscriptions by projects only (subscribedPrincipals[0].project)"
            )
        store.project(domain, project, not_found)
        listing_id = params["subscribedListings"][0]["identifier"]
        listing = _listing_of(domain, listing_id)
        if listing.status(domain.calls) != "ACTIVE":
            raise validation(f"Listing {listing_id} is not published: nobody can subscribe to it")
        now = store.now()
        request = SubscriptionRequest(
            store.new_id(), project, listing_id, params["requestReason"], "PENDING", now, now
        )
        domain.subscription_requests[request.id] = request
        return _request_output(store, domain, request)

    return store.idempotent(domain, "CreateSubscriptionRequest", params, produce)


def accept_subscription_request(store: Store, domain: Domain, params: Params) -> Response:
    request = domain.subscription_requests.get(params["identifier"])
    if request is None:
        raise not_found(f"Subscription request {params['identifier']} not found")
    if request.status != "PENDING":
        raise conflict(f"Subscription request {request.id} is {request.status}, not PENDING")
    listing = _listing_of(domain, request.listing_id)
    now = store.now()
    subscription = Subscription(
        store.new_id(),
        request.id,
        listing.id,
        listing.latest.asset_revision,
        request.project_id,
        "APPROVED",
        now,
        now,
    )
    domain.subscriptions[subscription.id] = subscription
    request.status, request.updated_at, request.subscription_id = "ACCEPTED", now, subscription.id
    request_grants(store, domain, subscription.id)
    return _request_output(store, domain, request)


def list_subscriptions(store: Store, domain: Domain, params: Params) -> Response:
    found = list(domain.subscriptions.values())
    for member, attribute in (
        ("subscribedListingId", "listing_id"),
        ("status", "status"),
        ("owningProjectId", "project_id"),
        ("subscriptionRequestIdentifier", "request_id"),
    ):
        if params.get(member):
            found = [s for s in found if getattr(s, attribute) == params[member]]
    if params.get("approverProjectId"):
        owners = {
            lid
            for lid, listing in domain.listings.items()
            if domain.assets[listing.asset_id].owning_project_id == params["approverProjectId"]
        } | {
            lid
            for lid, product in domain.product_listings.items()
            if product.owning_project_id == params["approverProjectId"]
        }
        found = [s for s in found if s.listing_id in owners]
    key = "updated_at" if params.get("sortBy") == "UPDATED_AT" else "created_at"
    found.sort(key=lambda s: getattr(s, key), reverse=params.get("sortOrder") == "DESCENDING")
    page, token = paginate(found, params)
    return compact({"items": [_subscription_output(store, domain, s) for s in page], "nextToken": token})


def _subscription(domain: Domain, identifier: str) -> Subscription:
    subscription = domain.subscriptions.get(identifier)
    if subscription is None:
        raise not_found(f"Subscription {identifier} not found")
    return subscription


def get_subscription(store: Store, domain: Domain, params: Params) -> Response:
    return _subscription_output(store, domain, _subscription(domain, params["identifier"]))


def _end(store: Store, domain: Domain, params: Params, status: str) -> Response:
    subscription = _subscription(domain, params["identifier"])
    if subscription.status != "APPROVED":
        raise conflict(f"Subscription {subscription.id} is {subscription.status}, not APPROVED")
    subscription.status, subscription.updated_at = status, store.now()
    if not params.get("retainPermissions"):
        revoke_grants(store, domain, subscription.id)
    return _subscription_output(store, domain, subscription)


def revoke_subscription(store: Store, domain: Domain, params: Params) -> Response:
    return _end(store, domain, params, "REVOKED")


def cancel_subscription(store: Store, domain: Domain, params: Params) -> Response:
    return _end(store, domain, params, "CANCELLED")
