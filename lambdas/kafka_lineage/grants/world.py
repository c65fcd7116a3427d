"""From DataZone's answers to the access logic's grants, and which grants one decision must see.

`Resolver` turns a grant record into `access.model.Grant`s, one per asset of the stack's asset type
(a data product's listing may hold several), reading its listing, target and environment once per run.
An asset that cannot become a Grant (no cluster ARN or topic in its forms, an environment without an
account) is `Unusable`, with a cause a person can act on.

`Scope` finds what one decision must see for some roles: every grant that names one of them, the other
roles those grants name, and, for a grant to a role in another account than its cluster, every such grant
on that cluster (they share the cluster's policy), until nothing new comes in. Deciding that set alone
gives the roles the same plans as deciding the whole domain: the access logic couples roles only through
grants they share and cluster policies.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kafka_lineage.access.arns import ClusterArn, RoleArn, role_accounts
from kafka_lineage.access.model import Grant, GrantStatus
from kafka_lineage.grants.convert import status
from kafka_lineage.grants.ports import GrantCatalog
from kafka_lineage.model.failures import NotFound
from kafka_lineage.model.subscriptions import Environment, GrantRecord, Listing, Target

# The forms of the stack's asset type that name a topic's cluster and topic (smithy/).
CLUSTER_FORM, CLUSTER_MEMBER = "MskSourceReferenceFormType", "cluster_arn"
TOPIC_FORM, TOPIC_MEMBER = "KafkaSchemaFormType", "kafka_topic"
# Statuses that ask for work: a grant or a revoke not finished yet.
ACTIVE = frozenset(
    {
        GrantStatus.GRANT_PENDING,
        GrantStatus.GRANT_IN_PROGRESS,
        GrantStatus.REVOKE_PENDING,
        GrantStatus.REVOKE_IN_PROGRESS,
    }
)


@dataclass(frozen=True)
class Unusable:
    """An asset of the stack's type that no Grant can be made of, and why."""

    grant_id: str
    asset_id: str
    status: GrantStatus
    cause: str
    principals: tuple[str, ...] | None = None  # the roles its target names; None: the target is gone

    @property
    def key(self) -> tuple[str, str]:
        return (self.grant_id, self.asset_id)


@dataclass(frozen=True)
class Resolved:
    """One grant record, resolved: its Grants (assets of our type), the unusable ones, the roles it names,
    and whether any of its assets is of our type at all."""

    record: GrantRecord
    grants: tuple[Grant, ...] = ()
    unusable: tuple[Unusable, ...] = ()
    ours: bool = False
    principals: tuple[str, ...] = ()


def member(forms: Mapping[str, Any], form: str, name: str) -> str | None:
    """A member of a listing's form. DataZone's `forms` is JSON keyed by form name; a form's content is
    read as an object or as a JSON string of one (both are met)."""
    content = forms.get(form)
    if isinstance(content, str):
        try:
            content = json.loads(content)
        except json.JSONDecodeError:
            return None
    value = content.get(name) if isinstance(content, Mapping) else None
    return value if isinstance(value, str) and value else None


KeyT = TypeVar("KeyT")
ValueT = TypeVar("ValueT")


def _read_once(read: dict[KeyT, ValueT | None], key: KeyT, reader: Callable[[], ValueT]) -> ValueT | None:
    """What `reader` answers for `key`, asked once a run (`read` keeps it); None when it is gone."""
    if key not in read:
        try:
            read[key] = reader()
        except NotFound:
            read[key] = None
    return read[key]


class Resolver:
    """Resolves grant records for one run; listings, targets and environments are read once each."""

    def __init__(self, catalog: GrantCatalog, asset_type: str) -> None:
        self._catalog = catalog
        self._asset_type = asset_type
        self._listings: dict[tuple[str, str], Listing | None] = {}
        self._targets: dict[tuple[str, str], Target | None] = {}
        self._environments: dict[str, Environment] = {}
        self._resolved: dict[tuple[str, tuple[Any, ...]], Resolved] = {}

    def listing(self, record: GrantRecord) -> Listing | None:
        key = (record.listing_id, record.listing_revision)
        return _read_once(self._listings, key, lambda: self._catalog.listing(*key))

    def target(self, record: GrantRecord) -> Target | None:
        """The grant's subscription target; None when the grant names no environment or the target is gone."""
        if record.environment_id is None:
            return None
        key = (record.environment_id, record.target_id)
        return _read_once(self._targets, key, lambda: self._catalog.target(*key))

    def environment(self, environment_id: str) -> Environment:
        if environment_id not in self._environments:
            self._environments[environment_id] = self._catalog.environment(environment_id)
        return self._environments[environment_id]

    def ours(self, record: GrantRecord) -> bool:
        listing = self.listing(record)
        return listing is not None and any(a.asset_type == self._asset_type for a in listing.assets)

    def resolve(self, record: GrantRecord) -> Resolved:
        """The record's Grants (reads its listing, then, for assets of our type, target and environment)."""
        key = (record.grant_id, (record.listing_revision, record.assets))
        if key not in self._resolved:
            self._resolved[key] = self._resolve(record)
        return self._resolved[key]

    def _resolve(self, record: GrantRecord) -> Resolved:
        listing = self.listing(record)
        listed = {
            a.asset_id: a for a in (listing.assets if listing else ()) if a.asset_type == self._asset_type
        }
        assets = [asset for asset in record.assets if asset.asset_id in listed]
        if not assets:
            # A listing of our type whose grant lists none of its assets (yet): ours, with nothing to do.
            return Resolved(record, ours=bool(listed))
        target = self.target(record)
        if target is None or record.environment_id is None:
            cause = (
                f"grant {record.grant_id}: its subscription target {record.target_id} (environment "
                f"{record.environment_id or 'not named'}) was not found, so no IAM role can be named"
            )
            missing = tuple(Unusable(record.grant_id, a.asset_id, status(a.status), cause) for a in assets)
            return Resolved(record, (), missing, True)
        try:
            environment = self.environment(record.environment_id)
        except NotFound:
            environment = Environment(record.environment_id, "", "")
        grants: list[Grant] = []
        unusable: list[Unusable] = []
        for asset in assets:
            forms = listed[asset.asset_id].forms
            cluster, topic = (
                member(forms, CLUSTER_FORM, CLUSTER_MEMBER),
                member(forms, TOPIC_FORM, TOPIC_MEMBER),
            )
            try:
                if cluster is None or topic is None:
                    raise ValueError(
                        f"asset {asset.asset_id} of listing {record.listing_id} has no "
                        f"{CLUSTER_FORM}.{CLUSTER_MEMBER} or {TOPIC_FORM}.{TOPIC_MEMBER} to grant access to"
                    )
                grants.append(
                    Grant(
                        grant_id=record.grant_id,
                        listing_id=record.listing_id,
                        asset_id=asset.asset_id,
                        cluster_arn=cluster,
                        topic=topic,
                        project_id=target.project_id,
                        environment_id=record.environment_id,
                        account=environment.account,
                        region=environment.region,
                        principals=target.principals,
                        status=status(asset.status),
                    )
                )
            except ValueError as error:
                cause = f"grant {record.grant_id}: {error}"
                principals = tuple(sorted(set(target.principals)))
                unusable.append(
                    Unusable(record.grant_id, asset.asset_id, status(asset.status), cause, principals)
                )
        return Resolved(record, tuple(grants), tuple(unusable), True, tuple(sorted(set(target.principals))))


def remote(grant: Grant) -> bool:
    """True when a role of the grant is in another account than the cluster (the cluster policy is needed)."""
    try:
        account = ClusterArn.parse(grant.cluster_arn).account
        return any(RoleArn.parse(principal).account != account for principal in grant.principals)
    except ValueError:
        return False


@dataclass
class Scope:
    """The grants and roles one decision must see, and the clusters whose policy it renders."""

    roles: set[str] = field(default_factory=set)
    grants: dict[tuple[str, str], Grant] = field(default_factory=dict)
    unusable: dict[tuple[str, str], Unusable] = field(default_factory=dict)
    clusters: set[str] = field(default_factory=set)

    @property
    def key(self) -> str:
        """What names the scope in a run's order and its `resumeAfter`: its first role (or grant)."""
        return min(self.roles) if self.roles else min((g for g, _ in self.unusable), default="")


def scope_of(roles: Iterable[str], records: Iterable[GrantRecord], resolver: Resolver) -> Scope:
    """Every grant naming `roles`, closed over the roles those grants name and over the grants to other
    accounts that share a cluster policy with them. A record is read (listing, environment) only when its
    target names a role of the scope, or when it could share such a cluster policy."""
    scope = Scope(roles=set(roles))
    records = list(records)
    targets = {r.grant_id: resolver.target(r) for r in records}
    while True:
        before = (len(scope.roles), len(scope.grants), len(scope.clusters))
        for record in records:
            target = targets[record.grant_id]
            principals = set(target.principals) if target else set()
            named = principals & scope.roles
            sharing = any(role_accounts(principals) - {ClusterArn.parse(c).account} for c in scope.clusters)
            if not named and not sharing:
                continue
            resolved = resolver.resolve(record)
            if not resolved.ours:
                continue
            for grant in resolved.grants:
                if named or (remote(grant) and grant.cluster_arn in scope.clusters):
                    scope.grants[grant.key] = grant
                    scope.roles.update(grant.principals)
                    if remote(grant):
                        scope.clusters.add(grant.cluster_arn)
            if named:
                scope.unusable.update((u.key, u) for u in resolved.unusable)
        if (len(scope.roles), len(scope.grants), len(scope.clusters)) == before:
            return scope
