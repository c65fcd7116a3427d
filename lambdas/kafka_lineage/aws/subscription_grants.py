"""DataZone's subscription grants, for the subscription-grants function (the `GrantCatalog` port).

Members as botocore's datazone model names them: GetSubscriptionGrant and ListSubscriptionGrants items
(`id`, `subscriptionTargetId`, `environmentId`, `grantedEntity.listing.{id, revision}`, `assets[{assetId,
status, failureCause.message}]`, `updatedAt`); GetListing (`item.assetListing.{assetId, assetType, forms}`,
or `item.dataProductListing.items[{listingId, listingRevision}]`, each an asset listing of its own);
GetSubscriptionTarget (`authorizedPrincipals`, `projectId`, `environmentId`); GetEnvironment
(`awsAccountId`, `awsAccountRegion`); UpdateSubscriptionGrantStatus (`assetIdentifier`, `status`,
`failureCause.message`).

ListSubscriptionGrants has no status filter; it is read through its paginator, 50 a page (its maximum).
Every call is paced by the operation's quota (model/quotas.py: the subscription calls at 3 TPS).
A listing revision does not change, so one adapter (one invocation) reads each at most once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.model.failures import NotFound
from kafka_lineage.model.subscriptions import (
    Environment,
    GrantAsset,
    GrantRecord,
    ListedAsset,
    Listing,
    Target,
)

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient

PAGE_SIZE = 50  # botocore datazone MaxResults: 1-50
# DataZone's failureCause.message has no documented maximum; a cause is kept readable and bounded.
MAX_CAUSE = 2000
# A data product listing names its assets' listings; a listing nested deeper is not followed.
_NESTED = 1


def _record(item: Mapping[str, Any]) -> GrantRecord:
    listing = (item.get("grantedEntity") or {}).get("listing") or {}
    assets = tuple(
        GrantAsset(
            asset_id=str(asset["assetId"]),
            status=str(asset["status"]),
            failure=(asset.get("failureCause") or {}).get("message"),
        )
        for asset in item.get("assets") or ()
    )
    updated = item.get("updatedAt")
    return GrantRecord(
        grant_id=str(item["id"]),
        listing_id=str(listing.get("id", "")),
        listing_revision=str(listing.get("revision", "")),
        target_id=str(item.get("subscriptionTargetId", "")),
        environment_id=item.get("environmentId") or None,
        assets=assets,
        updated_at=updated if isinstance(updated, datetime) else None,
    )


def _forms(text: Any) -> dict[str, Any]:
    if not isinstance(text, str) or not text:
        return {}
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


class SubscriptionGrants:
    """The grants of one domain, read and updated through one DataZone client."""

    def __init__(self, datazone: DataZoneClient, domain_id: str, pacing: Pacer | None = None) -> None:
        self._client = instrument(datazone, pacing)
        self._domain = domain_id
        self._listings: dict[tuple[str, str], Listing] = {}
        self._lock = threading.Lock()

    def grant(self, grant_id: str) -> GrantRecord | None:
        try:
            found = self._client.get_subscription_grant(domainIdentifier=self._domain, identifier=grant_id)
        except NotFound:
            return None
        return _record(found)

    def grants(self) -> Iterator[GrantRecord]:
        paginator = self._client.get_paginator("list_subscription_grants")
        for page in paginator.paginate(
            domainIdentifier=self._domain, PaginationConfig={"PageSize": PAGE_SIZE}
        ):
            for item in page.get("items", []):
                yield _record(item)

    def listing(self, listing_id: str, revision: str) -> Listing:
        key = (listing_id, revision)
        with self._lock:
            found = self._listings.get(key)
        if found is None:
            found = Listing(listing_id, revision, tuple(self._assets(listing_id, revision, 0)))
            with self._lock:
                self._listings[key] = found
        return found

    def _assets(self, listing_id: str, revision: str, depth: int) -> list[ListedAsset]:
        asked: dict[str, Any] = {"domainIdentifier": self._domain, "identifier": listing_id}
        if revision:
            asked["listingRevision"] = revision
        item = self._client.get_listing(**asked).get("item") or {}
        asset = item.get("assetListing")
        if asset:
            return [
                ListedAsset(
                    str(asset.get("assetId", "")), str(asset.get("assetType", "")), _forms(asset.get("forms"))
                )
            ]
        product = item.get("dataProductListing")
        found: list[ListedAsset] = []
        if product and depth < _NESTED:
            for member in product.get("items") or ():
                if member.get("listingId"):
                    found += self._assets(member["listingId"], member.get("listingRevision", ""), depth + 1)
        return found

    def target(self, environment_id: str, target_id: str) -> Target:
        found = self._client.get_subscription_target(
            domainIdentifier=self._domain, environmentIdentifier=environment_id, identifier=target_id
        )
        return Target(
            target_id=target_id,
            environment_id=str(found.get("environmentId") or environment_id),
            project_id=str(found["projectId"]),
            principals=tuple(found.get("authorizedPrincipals") or ()),
        )

    def environment(self, environment_id: str) -> Environment:
        found = self._client.get_environment(domainIdentifier=self._domain, identifier=environment_id)
        return Environment(
            environment_id=environment_id,
            account=str(found.get("awsAccountId") or ""),
            region=str(found.get("awsAccountRegion") or ""),
        )

    def set_status(self, grant_id: str, asset_id: str, status: str, cause: str | None = None) -> None:
        asked: dict[str, Any] = {
            "domainIdentifier": self._domain,
            "identifier": grant_id,
            "assetIdentifier": asset_id,
            "status": status,
        }
        if cause:
            asked["failureCause"] = {"message": cause[:MAX_CAUSE]}
        self._client.update_subscription_grant_status(**asked)
