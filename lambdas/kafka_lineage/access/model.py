"""The values the access logic decides from: grants, a role's current IAM state, and how our policies are
named. The adapters read them from DataZone and IAM; nothing here calls AWS."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from kafka_lineage.access.arns import ClusterArn, RoleArn
from kafka_lineage.model.iam import Document, ManagedPolicy

# DataZone identifiers (botocore datazone SubscriptionGrantId, AssetId, ListingId, ProjectId, EnvironmentId).
DATAZONE_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")


class GrantStatus(StrEnum):
    """An asset's status in a subscription grant (botocore datazone SubscriptionGrantStatus)."""

    GRANT_PENDING = "GRANT_PENDING"
    GRANT_IN_PROGRESS = "GRANT_IN_PROGRESS"
    GRANTED = "GRANTED"
    GRANT_FAILED = "GRANT_FAILED"
    REVOKE_PENDING = "REVOKE_PENDING"
    REVOKE_IN_PROGRESS = "REVOKE_IN_PROGRESS"
    REVOKED = "REVOKED"
    REVOKE_FAILED = "REVOKE_FAILED"


# A grant stands while it is granted or being granted. A failed grant gives nothing; a revoke that failed
# was still asked for, so it gives nothing either (the revoke is retried by taking the access away).
STANDING = frozenset({GrantStatus.GRANT_PENDING, GrantStatus.GRANT_IN_PROGRESS, GrantStatus.GRANTED})


@dataclass(frozen=True)
class Grant:
    """One asset (a Kafka topic) of one subscription grant, and the roles it is for."""

    grant_id: str
    listing_id: str
    asset_id: str
    cluster_arn: str
    topic: str
    project_id: str
    environment_id: str
    account: str
    region: str
    principals: tuple[str, ...]
    status: GrantStatus
    revoke: bool = False

    def __post_init__(self) -> None:
        for what, value in (
            ("grant id", self.grant_id),
            ("listing id", self.listing_id),
            ("asset id", self.asset_id),
            ("project id", self.project_id),
            ("environment id", self.environment_id),
        ):
            if not DATAZONE_ID.fullmatch(value):
                raise ValueError(f"{what} {value!r} is not a DataZone identifier ({DATAZONE_ID.pattern})")
        if not re.fullmatch(r"\d{12}", self.account):
            raise ValueError(f"account {self.account!r} is not a 12-digit AWS account id")
        object.__setattr__(self, "principals", tuple(sorted(set(self.principals))))

    @property
    def key(self) -> tuple[str, str]:
        """What names this grant's asset for DataZone's status updates: (grant id, asset id)."""
        return (self.grant_id, self.asset_id)

    @property
    def stands(self) -> bool:
        """True while this grant gives access: granted or being granted, and no revoke asked."""
        return not self.revoke and self.status in STANDING

    @property
    def cluster(self) -> ClusterArn:
        return ClusterArn.parse(self.cluster_arn)


@dataclass(frozen=True)
class RoleState:
    """What IAM says of one role now: its inline policies (name -> document), the managed policies attached
    to it, ours that exist whether attached or not, and its permissions boundary."""

    role_arn: str
    inline: Mapping[str, Document] = field(default_factory=dict)
    managed: tuple[ManagedPolicy, ...] = ()
    boundary_arn: str | None = None
    boundary: Document | None = None
    # The account's "managed policies per role" quota (10 by default, raisable).
    managed_quota: int = 10

    @property
    def role(self) -> RoleArn:
        return RoleArn.parse(self.role_arn)


# Every stack's policy names begin with it (a consumer account's role may write any stack's: `-*` after it).
BASE_PREFIX = "KafkaLineageAccess"


@dataclass(frozen=True)
class Naming:
    """How our policies are named, the one way we recognise them: the inline policy `prefix`, and managed
    policies `prefix-<roleName>-<n>` under the stack's IAM `path`."""

    path: str = "/kafka-lineage/"
    prefix: str = BASE_PREFIX

    def __post_init__(self) -> None:
        # botocore iam policyPathType; the prefix leaves room for a 64-character role name and `-<n>`
        # within IAM's 128-character policy names (policyNameType `[\w+=,.@-]+`).
        if not re.fullmatch(r"/(?:[A-Za-z0-9.,+@=_-]+/)*", self.path) or len(self.path) > 512:
            raise ValueError(f"IAM path {self.path!r} must begin and end with / (IAM policyPathType)")
        if not re.fullmatch(r"[\w+=,.@-]{1,60}", self.prefix):
            raise ValueError(f"policy name prefix {self.prefix!r} must be 1-60 of [\\w+=,.@-]")

    @classmethod
    def for_stack(cls, domain_id: str, asset_type_name: str) -> Naming:
        """The naming of one stack: `KafkaLineageAccess-<token>`, the token a hash of the domain and the
        asset type the stack grants (what identifies its grants). Two stacks in one account (dev and prod, or
        two domains) that grant the same role so write two policies, and neither overwrites the other's:
        IAM policy names are unique per account, whatever their path."""
        token = hashlib.sha256(f"{domain_id}/{asset_type_name}".encode()).hexdigest()[:8]
        return cls(prefix=f"{BASE_PREFIX}-{token}")

    @property
    def token(self) -> str:
        """The stack's token (`Naming.for_stack`), "" for the base naming: what the cluster-policy Sids
        carry, so each stack recognises its own statements and no other's."""
        return self.prefix[len(BASE_PREFIX) + 1 :] if self.prefix.startswith(f"{BASE_PREFIX}-") else ""

    @property
    def inline_name(self) -> str:
        return self.prefix

    def owns_policy(self, name: str, path: str) -> bool:
        """True for a managed policy of this stack (any role's): `prefix-<roleName>-<n>` under our path."""
        return (
            path == self.path
            and re.fullmatch(rf"{re.escape(self.prefix)}-.+-[1-9]\d{{0,2}}", name) is not None
        )

    def managed_name(self, role_name: str, index: int) -> str:
        return f"{self.prefix}-{role_name}-{index}"

    def managed_index(self, role_name: str, name: str, path: str) -> int | None:
        """The n of our managed policy `prefix-<roleName>-<n>` under our path, or None if it is not ours."""
        if path != self.path:
            return None
        found = re.fullmatch(rf"{re.escape(self.prefix)}-{re.escape(role_name)}-([1-9]\d{{0,2}})", name)
        return int(found[1]) if found else None
