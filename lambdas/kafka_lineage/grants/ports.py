"""The ports of the subscription-grants run: what it reads of DataZone, IAM and MSK, and how it writes.

The adapters (`kafka_lineage.aws.subscription_grants`, `.iam_roles`, `.cluster_policies`, the role leases)
implement them; tests put in-memory fakes behind them. The values they carry live in `kafka_lineage.model`
(`subscriptions`, `iam`), which both sides import; `grants/convert.py` turns them into the access logic's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from typing import Any, Protocol

from kafka_lineage.engine.dry import dry_bundle
from kafka_lineage.model.iam import IamCall, RoleRecord
from kafka_lineage.model.subscriptions import Environment, GrantRecord, Listing, Target

# A cluster policy's rendering from its current document: (changed, the document to hold; None: delete it).
Rendered = tuple[bool, Mapping[str, Any] | None]


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

    def set_status(self, grant_id: str, asset_id: str, status: str, cause: str | None = None) -> None:
        """UpdateSubscriptionGrantStatus for one asset of a grant (`cause`: the failureCause message)."""
        ...


class RoleStore(Protocol):
    """IAM roles, in whichever account each lives (the adapter reaches other accounts)."""

    def read(self, role_arn: str) -> RoleRecord | None:
        """The role's policies and boundary, or None when IAM has no such role."""
        ...

    def apply(self, role_arn: str, calls: Sequence[IamCall]) -> None:
        """Make the writes in order, in the role's account (idempotent: a retry after a partial apply
        converges: deleting what is gone succeeds, creating what exists adopts it)."""
        ...

    def account_roles(self, account: str) -> tuple[str, ...]:
        """Every role's ARN in the account."""
        ...

    def policy_holders(self, account: str, path: str, prefix: str) -> Mapping[str, tuple[str, ...]]:
        """The roles of the account (by name) holding a managed policy `prefix-…` under `path`, with
        those policies' ARNs."""
        ...

    def holds_inline(self, role_arn: str, policy_name: str) -> bool:
        """True when the role has that inline policy."""
        ...


class ClusterPolicies(Protocol):
    """MSK cluster policies, in the cluster's account."""

    def serverless(self, cluster_arn: str) -> bool:
        """True for an MSK Serverless cluster (DescribeClusterV2), which has no cluster policy."""
        ...

    def read(self, cluster_arn: str) -> Mapping[str, Any] | None:
        """The cluster's policy document, or None when it has none."""
        ...

    def update(self, cluster_arn: str, render: Callable[[Mapping[str, Any] | None], Rendered]) -> bool:
        """Read the policy, `render` it, and write (or delete) it when that changes anything; on a version
        conflict read, render and write again (bounded). True when it wrote."""
        ...


class HeldLeases(Protocol):
    def written_since(self, mark: float) -> bool:
        """True when another run may have written one of the roles after `mark` (taken by `mark()`)."""
        ...


class RoleLeases(Protocol):
    """One writer per IAM role: `hold(roles, wait_seconds)` holds every role's lease for the block, or
    raises `kafka_lineage.model.failures.LeaseBusy` when another invocation holds one of them past the wait
    (the run's: the engine's one wait, never past its deadline)."""

    def mark(self) -> float:
        """A moment on the leases' clock, taken before listing the grants."""
        ...

    def hold(self, role_arns: Sequence[str], wait_seconds: float) -> AbstractContextManager[HeldLeases]: ...


@dataclass(frozen=True)
class GrantPorts:
    """Everything the run reaches outside itself."""

    catalog: GrantCatalog
    roles: RoleStore
    clusters: ClusterPolicies
    leases: RoleLeases

    def dry_run(self) -> GrantPorts:
        """These ports for a dry run (engine/dry.py): every writer refuses, and the leases hold nothing
        (nothing is written under them); the reads are as they are."""
        dry = dry_bundle(self, GRANT_WRITERS)
        return replace(dry, leases=_NoLeases(self.leases))


# Which methods of each port write (engine/dry.py: a dry run's writers refuse): said once, here.
GRANT_WRITERS: dict[str, frozenset[str]] = {
    "catalog": frozenset({"set_status"}),
    "roles": frozenset({"apply"}),
    "clusters": frozenset({"update"}),
}


class _NoLeases:
    """A dry run's role leases: it writes nothing, so it holds none (and none was written since)."""

    def __init__(self, leases: RoleLeases) -> None:
        self._leases = leases

    def mark(self) -> float:
        return self._leases.mark()

    @contextmanager
    def hold(self, role_arns: Sequence[str], wait_seconds: float) -> Iterator[HeldLeases]:
        yield _NothingWritten()


class _NothingWritten:
    def written_since(self, mark: float) -> bool:
        return False
