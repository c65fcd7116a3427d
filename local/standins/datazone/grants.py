"""Subscription grants: what an approved subscription asks a subscription target's fulfiller to do.
GetSubscriptionGrant, ListSubscriptionGrants, UpdateSubscriptionGrantStatus, CreateSubscriptionGrant, and
the events DataZone puts on the default bus for them.

When a subscription is approved, DataZone creates a grant for each subscription target of the subscribing
project's environments whose `applicableAssetTypes` names the asset's type (and whose
`subscriptionGrantCreationMode` is not MANUAL), each asset GRANT_PENDING, and puts "Subscription Grant
Requested" on the bus. Revoking (or cancelling) the subscription moves each asset to REVOKE_PENDING and puts
"Subscription Grant Revoke Requested" (unless RevokeSubscription's `retainPermissions`). The fulfiller
reports each asset with UpdateSubscriptionGrantStatus; a GRANTED, GRANT_FAILED, REVOKED or REVOKE_FAILED
report puts "Subscription Grant Completed", "… Failed", "… Revoke Completed" or "… Revoke Failed".

What AWS documents and what is a reading here:
- The status values and the operations are the model's. Which changes UpdateSubscriptionGrantStatus
  accepts is not documented. The stand-in always accepts the path every public fulfiller takes,
  *_PENDING -> *_IN_PROGRESS -> GRANTED | REVOKED | *_FAILED, and always refuses crossing between the
  grant side and the revoke side (a revoke is DataZone's to request) and moving back from a finished
  status to a pending or in-progress one. Readings (local/standins/readings.py) decide the rest: a repeated
  status (`grant_status_repeat_accepted`), a retry after a failure (`grant_status_retry_after_failure`),
  skipping *_IN_PROGRESS (`grant_status_skips_in_progress`), and the refusal's error
  (`grant_status_refusal`).
- The grant's overall `status` is derived from its assets (undocumented): any GRANT_FAILED and any
  REVOKE_FAILED: GRANT_AND_REVOKE_FAILED; else GRANT_FAILED or REVOKE_FAILED if any asset is so; every asset
  GRANTED or REVOKED: COMPLETED; every asset pending: PENDING; else IN_PROGRESS. INACCESSIBLE (a target or
  environment gone) is not modelled.
- No official sample of the grant events exists. The detail carries what the two public fulfillers read and
  nothing more: `metadata.{id (the grant), domain}` and `data.{asset.{listingId, listingVersion, typeName},
  subscriptionTarget.{id, environmentId}, projectId (the subscribing project)}`. A fulfiller reads the
  rest (the grant's assets, the listing's forms, the target's principals) from the API.
"""

from __future__ import annotations

from dataclasses import dataclass

from local.standins.datazone.environments import environment_of, target_of, targets_for
from local.standins.datazone.products import PRODUCT_TYPE_NAME, Listed, listed
from local.standins.datazone.records import EmittedEvent, GrantedAsset, SubscriptionGrant
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import ServiceError, conflict, not_found, validation

SOURCE = "aws.datazone"
REQUESTED = "Subscription Grant Requested"
REVOKE_REQUESTED = "Subscription Grant Revoke Requested"
# The event a fulfiller's report puts on the bus.
REPORTED = {
    "GRANTED": "Subscription Grant Completed",
    "GRANT_FAILED": "Subscription Grant Failed",
    "REVOKED": "Subscription Grant Revoke Completed",
    "REVOKE_FAILED": "Subscription Grant Revoke Failed",
}
# The path every fulfiller takes, always accepted.
_PATH = {
    "GRANT_PENDING": {"GRANT_IN_PROGRESS", "GRANT_FAILED"},
    "GRANT_IN_PROGRESS": {"GRANTED", "GRANT_FAILED"},
    "REVOKE_PENDING": {"REVOKE_IN_PROGRESS", "REVOKE_FAILED"},
    "REVOKE_IN_PROGRESS": {"REVOKED", "REVOKE_FAILED"},
}
_SKIPS = {"GRANT_PENDING": {"GRANTED"}, "REVOKE_PENDING": {"REVOKED"}}
_RETRIES = {
    "GRANT_FAILED": {"GRANT_IN_PROGRESS", "GRANTED"},
    "REVOKE_FAILED": {"REVOKE_IN_PROGRESS", "REVOKED"},
}


@dataclass(frozen=True)
class GrantView:
    """A grant as tests and the demo read it: (asset id, status) of each asset."""

    id: str
    subscription_id: str | None
    target_id: str
    listing_id: str
    status: str
    assets: tuple[tuple[str, str], ...]


def overall_status(assets: list[GrantedAsset]) -> str:
    statuses = {asset.status for asset in assets}
    if {"GRANT_FAILED", "REVOKE_FAILED"} <= statuses:
        return "GRANT_AND_REVOKE_FAILED"
    for failed in ("GRANT_FAILED", "REVOKE_FAILED"):
        if failed in statuses:
            return failed
    if statuses <= {"GRANTED", "REVOKED"}:
        return "COMPLETED"
    if statuses <= {"GRANT_PENDING", "REVOKE_PENDING"}:
        return "PENDING"
    return "IN_PROGRESS"


def _grant_output(store: Store, domain: Domain, grant: SubscriptionGrant) -> Response:
    assets = [
        compact(
            {
                "assetId": asset.asset_id,
                "assetRevision": asset.asset_revision,
                "status": asset.status,
                "targetName": asset.target_name,
                "failureCause": (
                    {"message": asset.failure_message} if asset.failure_message is not None else None
                ),
                "grantedTimestamp": asset.granted_at,
                "failureTimestamp": asset.failed_at,
            }
        )
        for asset in grant.assets
    ]
    return compact(
        {
            "id": grant.id,
            "createdBy": store.principal,
            "updatedBy": store.principal,
            "domainId": domain.id,
            "createdAt": grant.created_at,
            "updatedAt": grant.updated_at,
            "environmentId": grant.environment_id,
            "subscriptionTargetId": grant.target_id,
            "grantedEntity": {"listing": {"id": grant.listing_id, "revision": grant.listing_revision}},
            "status": overall_status(grant.assets),
            "assets": assets,
            "subscriptionId": grant.subscription_id,
        }
    )


def _emit(store: Store, domain: Domain, grant: SubscriptionGrant, detail_type: str) -> None:
    found = listed(domain, grant.listing_id, grant.listing_revision)
    taken = domain.subscription_targets[grant.target_id].applicable_asset_types
    type_name = next((t for _, _, t in found.assets if t in taken), found.assets[0][2])
    if found.product and store.reading("data_product_event_type_name") == "product":
        type_name = PRODUCT_TYPE_NAME
    detail = {
        "metadata": {"id": grant.id, "domain": domain.id},
        "data": {
            "asset": {
                "listingId": grant.listing_id,
                "listingVersion": grant.listing_revision,
                "typeName": type_name,
            },
            "subscriptionTarget": {"id": grant.target_id, "environmentId": grant.environment_id},
            "projectId": grant.project_id,
        },
    }
    store.emit(domain, EmittedEvent(detail_type, detail))


def _new_grant(
    store: Store,
    domain: Domain,
    target_id: str,
    found: Listed,
    subscription_id: str | None,
    target_names: dict[str, str] | None = None,
) -> SubscriptionGrant:
    target = domain.subscription_targets[target_id]
    now = store.now()
    grant = SubscriptionGrant(
        id=store.new_id(),
        target_id=target.id,
        environment_id=target.environment_id,
        project_id=target.project_id,
        listing_id=found.listing_id,
        listing_revision=found.listing_revision,
        subscription_id=subscription_id,
        assets=[
            GrantedAsset(asset_id, revision, "GRANT_PENDING", target_name=(target_names or {}).get(asset_id))
            for asset_id, revision, _ in found.assets
        ],
        created_at=now,
        updated_at=now,
    )
    domain.subscription_grants[grant.id] = grant
    _emit(store, domain, grant, REQUESTED)
    return grant


def request_grants(store: Store, domain: Domain, subscription_id: str) -> list[SubscriptionGrant]:
    """On approval: a grant per subscription target of the subscriber that takes the assets' type (for a
    data product: the type of any of its assets; the grant lists them all)."""
    subscription = domain.subscriptions[subscription_id]
    found = listed(domain, subscription.listing_id)
    return [
        _new_grant(store, domain, target.id, found, subscription.id)
        for target in targets_for(domain, subscription.project_id, found.type_names)
    ]


def revoke_grants(store: Store, domain: Domain, subscription_id: str) -> None:
    """On revocation or cancellation: every asset not yet revoked waits for its revoke (REVOKE_PENDING),
    whether or not it was ever granted; the fulfiller decides what there is to take away."""
    now = store.now()
    for grant in list(domain.subscription_grants.values()):
        if grant.subscription_id != subscription_id:
            continue
        moved = [asset for asset in grant.assets if asset.status != "REVOKED"]
        for asset in moved:
            asset.status = "REVOKE_PENDING"
        if moved:
            grant.updated_at = now
            _emit(store, domain, grant, REVOKE_REQUESTED)


def _grant_of(domain: Domain, identifier: str) -> SubscriptionGrant:
    grant = domain.subscription_grants.get(identifier)
    if grant is None:
        raise not_found(f"Subscription grant {identifier} not found")
    return grant


def get_subscription_grant(store: Store, domain: Domain, params: Params) -> Response:
    return _grant_output(store, domain, _grant_of(domain, params["identifier"]))


def list_subscription_grants(store: Store, domain: Domain, params: Params) -> Response:
    found = list(domain.subscription_grants.values())
    for member, attribute in (
        ("environmentId", "environment_id"),
        ("subscriptionTargetId", "target_id"),
        ("subscribedListingId", "listing_id"),
        ("subscriptionId", "subscription_id"),
        ("owningProjectId", "project_id"),
    ):
        if params.get(member):
            found = [g for g in found if getattr(g, attribute) == params[member]]
    if any(params.get(m) for m in ("owningIamPrincipalArn", "owningUserId", "owningGroupId")):
        found = []  # the stand-in's subscriptions are projects' only: no grant is owned by a principal
    key = "updated_at" if params.get("sortBy") == "UPDATED_AT" else "created_at"
    found.sort(key=lambda g: getattr(g, key), reverse=params.get("sortOrder") == "DESCENDING")
    page, token = paginate(found, params)
    return compact({"items": [_grant_output(store, domain, g) for g in page], "nextToken": token})


def allowed_change(store: Store, current: str, new: str) -> bool:
    """Whether UpdateSubscriptionGrantStatus may move an asset from `current` to `new` (see the module)."""
    if current == new:
        return bool(store.reading("grant_status_repeat_accepted"))
    if new in _PATH.get(current, ()):
        return True
    if new in _SKIPS.get(current, ()):
        return bool(store.reading("grant_status_skips_in_progress"))
    if new in _RETRIES.get(current, ()):
        return bool(store.reading("grant_status_retry_after_failure"))
    return False


def _refusal(store: Store, message: str) -> ServiceError:
    return validation(message) if store.reading("grant_status_refusal") == "validation" else conflict(message)


def update_subscription_grant_status(store: Store, domain: Domain, params: Params) -> Response:
    grant = _grant_of(domain, params["identifier"])
    asset = next((a for a in grant.assets if a.asset_id == params["assetIdentifier"]), None)
    if asset is None:
        raise not_found(f"Asset {params['assetIdentifier']} is not part of subscription grant {grant.id}")
    new = params["status"]
    if not allowed_change(store, asset.status, new):
        raise _refusal(
            store,
            f"Cannot change the status of asset {asset.asset_id} in subscription grant {grant.id} "
            f"from {asset.status} to {new}",
        )
    repeated = asset.status == new
    now = store.now()
    asset.status = new
    if params.get("targetName") is not None:
        asset.target_name = params["targetName"]
    if new.endswith("_FAILED"):
        cause = params.get("failureCause") or {}
        asset.failure_message = cause.get("message")
        asset.failed_at = now
    elif new.endswith("_IN_PROGRESS") or new in ("GRANTED", "REVOKED"):
        asset.failure_message, asset.failed_at = None, None
    if new == "GRANTED":
        asset.granted_at = now
    grant.updated_at = now
    if new in REPORTED and not repeated:
        _emit(store, domain, grant, REPORTED[new])
    return _grant_output(store, domain, grant)


def create_subscription_grant(store: Store, domain: Domain, params: Params) -> Response:
    """A grant asked for by hand (for targets in MANUAL mode, or again): the environment's project needs an
    APPROVED subscription to the listing (the stricter reading: the API reference does not say). Without
    `subscriptionTargetIdentifier` (optional in botocore's model, "Required: Yes" on the API reference's
    page) the environment's first target that takes the listing's type is used."""

    def produce() -> Response:
        environment = environment_of(domain, params["environmentIdentifier"])
        listing_ref = params["grantedEntity"].get("listing") or {}
        found = listed(domain, listing_ref.get("identifier", ""), listing_ref.get("revision"))
        if found.listing_revision != listing_ref.get("revision"):
            raise not_found(f"Listing {found.listing_id} has no revision {listing_ref.get('revision')}")
        if params.get("subscriptionTargetIdentifier"):
            target = target_of(domain, params["subscriptionTargetIdentifier"], environment.id)
        else:
            candidates = [
                t
                for t in domain.subscription_targets.values()
                if t.environment_id == environment.id and found.type_names & set(t.applicable_asset_types)
            ]
            if not candidates:
                raise validation(f"Environment {environment.id} has no subscription target for this listing")
            target = candidates[0]
        if not found.type_names & set(target.applicable_asset_types):
            raise validation(f"Subscription target {target.id} takes none of {sorted(found.type_names)}")
        subscription = next(
            (
                s
                for s in domain.subscriptions.values()
                if s.listing_id == found.listing_id
                and s.project_id == environment.project_id
                and s.status == "APPROVED"
            ),
            None,
        )
        if subscription is None:
            raise validation(
                f"Project {environment.project_id} has no approved subscription to listing {found.listing_id}"
            )
        names = {item["assetId"]: item["targetName"] for item in params.get("assetTargetNames") or []}
        grant = _new_grant(store, domain, target.id, found, subscription.id, names)
        return _grant_output(store, domain, grant)

    return store.idempotent(domain, "CreateSubscriptionGrant", params, produce)


def grant_views(domain: Domain) -> list[GrantView]:
    return [
        GrantView(
            g.id,
            g.subscription_id,
            g.target_id,
            g.listing_id,
            overall_status(g.assets),
            tuple((a.asset_id, a.status) for a in g.assets),
        )
        for g in domain.subscription_grants.values()
    ]
