"""What a domain's catalogue holds: form types, asset types, assets and their revisions, listings.

Plain records; the operations that read and write them live in types.py, assets.py and listings.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from local.standins.smithy.model import SmithyModel


@dataclass
class FormType:
    name: str
    revision: str
    smithy_text: str
    model: SmithyModel
    structure: str  # the model's structure this type validates against
    namespace_label: str  # for messages such as "expected form ns#Type@2"
    owning_project_id: str | None
    description: str | None
    status: str
    created_at: datetime
    managed: bool = False


@dataclass(frozen=True)
class FormEntry:
    type_name: str
    type_revision: str
    required: bool


@dataclass
class AssetType:
    name: str
    revision: str
    description: str | None
    forms: dict[str, FormEntry]
    owning_project_id: str
    created_at: datetime


@dataclass(frozen=True)
class Form:
    form_name: str
    type_name: str
    type_revision: str
    content: str  # as returned in formsOutput
    parsed: Any


@dataclass
class AssetRevision:
    revision: str
    name: str
    description: str | None
    type_revision: str
    forms: list[Form]
    glossary_terms: list[str] | None
    prediction: dict[str, Any] | None
    created_at: datetime


@dataclass
class Asset:
    id: str
    external_identifier: str | None
    type_name: str
    owning_project_id: str
    revisions: list[AssetRevision]
    listing_id: str | None = None
    deleted: bool = False

    @property
    def latest(self) -> AssetRevision:
        return self.revisions[-1]

    def revision(self, number: str) -> AssetRevision | None:
        return next((r for r in self.revisions if r.revision == number), None)


@dataclass(frozen=True)
class ListingRevision:
    listing_revision: str
    asset_revision: str
    status: str  # ACTIVE | INACTIVE, once the change has taken effect
    at: datetime
    due: int = 0  # the change takes effect once the domain's call count reaches this
    pending_status: str = ""  # what the listing shows until then: CREATING, or ACTIVE while unpublishing


@dataclass
class Listing:
    id: str
    asset_id: str
    revisions: list[ListingRevision]

    @property
    def latest(self) -> ListingRevision:
        return self.revisions[-1]

    def in_progress(self, calls: int) -> bool:
        return calls < self.latest.due

    def status(self, calls: int) -> str:
        """What the listing shows now: its latest change's pending status until that change takes effect."""
        return self.latest.pending_status if self.in_progress(calls) else self.latest.status

    def applied(self, calls: int) -> ListingRevision | None:
        """The latest revision whose change has taken effect."""
        return next((r for r in reversed(self.revisions) if r.due <= calls), None)


@dataclass
class Grant:
    grant_id: str
    unit: str
    policy: str
    principal: dict[str, Any]
    detail: dict[str, Any]
    created_at: datetime
    created_by: str


@dataclass
class Governance:
    """A domain's governance: version, key, domain units, grants, project units and members."""

    version: str = "V1"
    kms_key_arn: str | None = None
    root_unit: str = ""
    units: dict[str, str | None] = field(default_factory=dict)  # unit id -> parent id
    project_units: dict[str, str] = field(default_factory=dict)
    grants: list[Grant] = field(default_factory=list)
    members: dict[str, dict[str, str]] = field(default_factory=dict)  # project -> profile id -> designation
    profiles: dict[str, str] = field(default_factory=dict)  # IAM ARN -> user profile id


@dataclass
class Environment:
    """An environment of a project: where subscription targets live (environments.py)."""

    id: str
    project_id: str
    name: str
    description: str | None
    account: str
    region: str
    provider: str
    status: str
    created_at: datetime
    profile_id: str | None = None
    blueprint_id: str | None = None
    configuration_id: str | None = None


@dataclass
class SubscriptionTarget:
    """Where the grants of an environment's project go (environments.py)."""

    id: str
    environment_id: str
    project_id: str
    name: str
    type: str
    config: list[dict[str, str]]
    authorized_principals: list[str]
    manage_access_role: str
    applicable_asset_types: list[str]
    provider: str
    creation_mode: str | None
    created_at: datetime
    updated_at: datetime


@dataclass
class GrantedAsset:
    """One asset of a subscription grant and where fulfilling it stands (grants.py)."""

    asset_id: str
    asset_revision: str
    status: str
    target_name: str | None = None
    failure_message: str | None = None
    granted_at: datetime | None = None
    failed_at: datetime | None = None


@dataclass
class SubscriptionGrant:
    """A grant of a listing to one subscription target (grants.py)."""

    id: str
    target_id: str
    environment_id: str
    project_id: str  # the subscribing project
    listing_id: str
    listing_revision: str
    subscription_id: str | None
    assets: list[GrantedAsset]
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class EmittedEvent:
    """An event DataZone put on the default bus of the domain's account (grants.py)."""

    detail_type: str
    detail: dict[str, Any]
    resources: tuple[str, ...] = ()
    source: str = "aws.datazone"


@dataclass
class DataProductListing:
    """A published data product: one listing for several assets, each published on its own (products.py)."""

    id: str
    product_id: str
    name: str
    owning_project_id: str
    members: list[tuple[str, str]]  # (asset id, asset listing id), in the product's order
    created_at: datetime
    revision: str = "1"
    active: bool = True  # False once unpublished or its product deleted

    @property
    def latest(self) -> ListingRevision:
        """As an asset listing's: the product's latest revision (subscriptions read it so)."""
        status = "ACTIVE" if self.active else "INACTIVE"
        return ListingRevision(self.revision, self.revision, status, self.created_at)

    def status(self, calls: int) -> str:
        return "ACTIVE" if self.active else "INACTIVE"


# Governance (rules.py, glossaries.py) and subscriptions (subscriptions.py): records the Domain holds.


@dataclass
class Glossary:
    id: str
    name: str
    owning_project_id: str
    description: str | None
    status: str


@dataclass
class GlossaryTerm:
    id: str
    glossary_id: str
    name: str
    status: str
    short_description: str | None


@dataclass
class Rule:
    id: str
    name: str
    rule_type: str
    target: dict[str, Any]
    action: str
    scope: dict[str, Any]
    detail: dict[str, Any]
    description: str | None
    created_at: datetime
    revision: str = "1"

    @property
    def domain_unit(self) -> str:
        return str(self.target.get("domainUnitTarget", {}).get("domainUnitId", ""))

    def takes_project(self, project_id: str) -> bool:
        projects = self.scope.get("project") or {"selectionMode": "ALL"}
        return projects["selectionMode"] == "ALL" or project_id in projects.get("specificProjects", [])

    def takes_asset_type(self, asset_type: str) -> bool:
        # A scope naming data products and no asset type is read as a rule for data products alone.
        default = "NONE" if self.scope.get("dataProduct") else "ALL"
        types = self.scope.get("assetType") or {"selectionMode": default}
        return types["selectionMode"] == "ALL" or asset_type in types.get("specificAssetTypes", [])

    def targets(self, units: list[str]) -> bool:
        """Whether the rule's target takes in a project of the first of `units` (its unit, then the unit's
        parents up to the root): its own unit, or a parent's with includeChildDomainUnits."""
        if not units:
            return True  # a domain without domain units modelled: every rule's target holds the project
        if self.domain_unit == units[0]:
            return True
        cascades = bool(self.target.get("domainUnitTarget", {}).get("includeChildDomainUnits"))
        return cascades and self.domain_unit in units[1:]

    def covers(self, project_id: str, asset_type: str, units: list[str]) -> bool:
        """Whether the rule's target and scope take in this project's assets of this type."""
        return self.targets(units) and self.takes_project(project_id) and self.takes_asset_type(asset_type)


@dataclass
class SubscriptionRequest:
    id: str
    project_id: str  # the subscribing project
    listing_id: str
    reason: str
    status: str  # PENDING | ACCEPTED | REJECTED
    created_at: datetime
    updated_at: datetime
    subscription_id: str | None = None


@dataclass
class Subscription:
    id: str
    request_id: str
    listing_id: str
    listing_revision: str
    project_id: str
    status: str  # APPROVED | REVOKED | CANCELLED
    created_at: datetime
    updated_at: datetime
