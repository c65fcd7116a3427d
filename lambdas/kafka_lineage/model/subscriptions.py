"""What DataZone answers about subscription grants, as plain values: the adapter
(`aws.subscription_grants`) reads them, and the subscription-grants run (`kafka_lineage.grants`) resolves them
into the access logic's grants. Statuses stay DataZone's strings here (botocore SubscriptionGrantStatus)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class GrantAsset:
    """One asset of a grant, as GetSubscriptionGrant lists it."""

    asset_id: str
    status: str
    failure: str | None = None


@dataclass(frozen=True)
class GrantRecord:
    """A subscription grant (GetSubscriptionGrant, or a ListSubscriptionGrants item)."""

    grant_id: str
    listing_id: str
    listing_revision: str
    target_id: str
    environment_id: str | None
    assets: tuple[GrantAsset, ...]
    updated_at: datetime | None = None


@dataclass(frozen=True)
class ListedAsset:
    """One asset a listing publishes: its type and its forms (form name -> content)."""

    asset_id: str
    asset_type: str
    forms: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Listing:
    """A listing revision: one asset, or the assets of a data product."""

    listing_id: str
    revision: str
    assets: tuple[ListedAsset, ...]


@dataclass(frozen=True)
class Target:
    """A subscription target (GetSubscriptionTarget): the subscribing project and the IAM principals."""

    target_id: str
    environment_id: str
    project_id: str
    principals: tuple[str, ...]


@dataclass(frozen=True)
class Environment:
    """A DataZone environment (GetEnvironment): the account and Region its grants are consumed in."""

    environment_id: str
    account: str
    region: str
