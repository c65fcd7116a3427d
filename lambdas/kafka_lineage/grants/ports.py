"""The ports of the subscription-grants run: what it reads of DataZone, IAM and MSK, and how it writes.

The adapters (`kafka_lineage.aws.subscription_grants`, `.iam_roles`, `.cluster_policies`, the role leases)
implement them; tests put in-memory fakes behind them. Values here are what DataZone answers, read once:
the run resolves them into `access.model.Grant`s (`grants/world.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from kafka_lineage.access.cluster_policy import ClusterPolicyPlan
from kafka_lineage.access.model import GrantStatus, RoleState
from kafka_lineage.access.plan import RolePlan


@dataclass(frozen=True)
class GrantAsset:
    """One asset of a grant, as GetSubscriptionGrant lists it."""

    asset_id: str
    status: GrantStatus
    failure: str | None = None


@dataclass(frozen=True)
class GrantRecord:
    """A subscription grant (GetSubscriptionGrant / ListSubscriptionGrants item)."""

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
    forms: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


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


class GrantCatalog(Protocol):
    """DataZone's subscription grants in the configured domain."""

    def grant(self, grant_id: str) -> GrantRecord | None:
        """The grant, or None when it does not exist (any more)."""
        ...

    def grants(self) -> Iterator[GrantRecord]:
        """Every grant of the domain (ListSubscriptionGrants, every page: it has no status filter)."""
        ...

    def listing(self, listing_id: str, revision: str) -> Listing:
        """A listing revision (GetListing; a revision does not change, so adapters may keep it)."""
        ...

    def target(self, environment_id: str, target_id: str) -> Target:
        """A subscription target (GetSubscriptionTarget)."""
        ...

    def environment(self, environment_id: str) -> Environment:
        """An environment (GetEnvironment)."""
        ...

    def set_status(self, grant_id: str, asset_id: str, status: GrantStatus, cause: str | None = None) -> None:
        """UpdateSubscriptionGrantStatus for one asset of a grant (`cause`: the failureCause message)."""
        ...


class RoleStore(Protocol):
    """IAM roles, in whichever account each lives (the adapter reaches other accounts)."""

    def read(self, role_arn: str) -> RoleState | None:
        """The role's IAM state, or None when IAM has no such role."""
        ...

    def apply(self, plan: RolePlan) -> None:
        """Apply the plan's writes in order (idempotent: a retry after a partial apply converges)."""
        ...


class ClusterPolicies(Protocol):
    """MSK cluster policies, in the cluster's account."""

    def serverless(self, cluster_arn: str) -> bool:
        """True for an MSK Serverless cluster (DescribeClusterV2), which has no cluster policy."""
        ...

    def read(self, cluster_arn: str) -> Mapping[str, Any] | None:
        """The cluster's policy document, or None when it has none."""
        ...

    def update(
        self, cluster_arn: str, render: Callable[[Mapping[str, Any] | None], ClusterPolicyPlan]
    ) -> ClusterPolicyPlan:
        """Read the policy, `render` the plan from it, and write the plan when it changes anything; on a
        version conflict read, render and write again (bounded). Returns the plan written (or found)."""
        ...


class RoleLeases(Protocol):
    """One writer per IAM role: `hold(roles)` holds every role's lease for the block, or raises
    `kafka_lineage.model.failures.LeaseBusy` when another invocation holds one of them past the wait."""

    def hold(self, role_arns: Sequence[str]) -> AbstractContextManager[None]: ...


@dataclass(frozen=True)
class GrantPorts:
    """Everything the run reaches outside itself."""

    catalog: GrantCatalog
    roles: RoleStore
    clusters: ClusterPolicies
    leases: RoleLeases
