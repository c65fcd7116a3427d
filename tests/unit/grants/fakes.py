"""In-memory fakes behind the subscription-grants ports: DataZone's grants, IAM in any account (with IAM's
documented limits), MSK cluster policies with versions, and per-role leases. Each counts its calls by
operation, so tests can say what a run read and wrote."""

from __future__ import annotations

import itertools
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from kafka_lineage.grants.ports import GrantPorts, Rendered
from kafka_lineage.model.failures import Conflict, LeaseBusy, NotFound, QuotaExceeded
from kafka_lineage.model.iam import IamCall, ManagedPolicy, PolicyVersion, RoleRecord
from kafka_lineage.model.subscriptions import (
    Environment,
    GrantAsset,
    GrantRecord,
    ListedAsset,
    Listing,
    Target,
)

DOMAIN = "dzd_4p5kx2n9lqv7ab"  # the event fixtures' domain (tests/events/access)
ACCOUNT = "111122223333"
CONSUMER_ACCOUNT = "444455556666"
CLUSTER = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/analytics-consumer"
ASSET_TYPE = "KafkaTopicAssetType"
NOW = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


def minified(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"))


class FakeDataZone:
    """Grants, listings, targets and environments of one domain."""

    def __init__(self) -> None:
        self.records: dict[str, GrantRecord] = {}
        self.listings: dict[tuple[str, str], Listing] = {}
        self.targets: dict[tuple[str, str], Target] = {}
        self.environments: dict[str, Environment] = {}
        self.calls: Counter[str] = Counter()
        self.updates: list[tuple[str, str, str, str | None]] = []
        self.on_list: Callable[[], None] | None = None
        # An error every read of a grant raises (DataZone refusing the function, say).
        self.refuse_reads: Exception | None = None
        self.fail_status: Exception | None = None
        self._lock = threading.RLock()

    # --- building the world -------------------------------------------------------------------------
    def add_grant(
        self,
        number: int,
        topic: str,
        *,
        roles: Sequence[str] = (ROLE,),
        status: str = "GRANT_PENDING",
        cluster: str = CLUSTER,
        environment: str = "env_sales01",
        project: str = "prj_sales01",
        account: str = ACCOUNT,
        asset_type: str = ASSET_TYPE,
        updated: datetime = NOW,
        asset: str | None = None,
    ) -> str:
        grant_id, listing_id = f"grant{number:04d}", f"listing{number:04d}"
        asset_id = asset or f"asset{number:04d}"
        forms = {
            "MskSourceReferenceFormType": {"cluster_arn": cluster},
            "KafkaSchemaFormType": {
                "kafka_topic": topic,
                "schema_arn": f"arn:aws:glue:eu-west-1:{ACCOUNT}:schema/cdc/{topic}",
            },
        }
        target_id = f"target_{environment}"
        with self._lock:
            self.listings[(listing_id, "1")] = Listing(
                listing_id, "1", (ListedAsset(asset_id, asset_type, forms),)
            )
            self.targets[(environment, target_id)] = Target(target_id, environment, project, tuple(roles))
            self.environments[environment] = Environment(environment, account, "eu-west-1")
            self.records[grant_id] = GrantRecord(
                grant_id, listing_id, "1", target_id, environment, (GrantAsset(asset_id, status),), updated
            )
        return grant_id

    def status_of(self, grant_id: str) -> str:
        return self.records[grant_id].assets[0].status

    def set_state(self, grant_id: str, status: str) -> None:
        record = self.records[grant_id]
        self.records[grant_id] = replace(
            record, assets=tuple(replace(a, status=status) for a in record.assets)
        )

    # --- the port -----------------------------------------------------------------------------------
    def grant(self, grant_id: str) -> GrantRecord | None:
        with self._lock:
            self.calls["GetSubscriptionGrant"] += 1
            if self.refuse_reads is not None:
                raise self.refuse_reads
            return self.records.get(grant_id)

    def grants(self) -> Iterator[GrantRecord]:
        if self.on_list is not None:
            self.on_list()
        with self._lock:
            records = sorted(self.records.values(), key=lambda r: r.grant_id)
            self.calls["ListSubscriptionGrants"] += max(1, -(-len(records) // 50))
        yield from records

    def listing(self, listing_id: str, revision: str) -> Listing:
        with self._lock:
            self.calls["GetListing"] += 1
            if (listing_id, revision) not in self.listings:
                raise NotFound("GetListing", "ResourceNotFoundException", listing_id)
            return self.listings[(listing_id, revision)]

    def target(self, environment_id: str, target_id: str) -> Target:
        with self._lock:
            self.calls["GetSubscriptionTarget"] += 1
            if (environment_id, target_id) not in self.targets:
                raise NotFound("GetSubscriptionTarget", "ResourceNotFoundException", target_id)
            return self.targets[(environment_id, target_id)]

    def environment(self, environment_id: str) -> Environment:
        with self._lock:
            self.calls["GetEnvironment"] += 1
            return self.environments[environment_id]

    def set_status(self, grant_id: str, asset_id: str, status: str, cause: str | None = None) -> None:
        with self._lock:
            self.calls["UpdateSubscriptionGrantStatus"] += 1
            if self.fail_status is not None:
                raise self.fail_status
            record = self.records[grant_id]
            assets = tuple(
                replace(a, status=status, failure=cause) if a.asset_id == asset_id else a
                for a in record.assets
            )
            self.records[grant_id] = replace(record, assets=assets)
            self.updates.append((grant_id, asset_id, status, cause))


@dataclass
class FakePolicy:
    arn: str
    name: str
    path: str
    versions: list[tuple[str, str, bool, str]] = field(default_factory=list)  # id, document, default, created

    def default(self) -> str:
        return next(doc for _, doc, is_default, _ in self.versions if is_default)


@dataclass
class FakeRole:
    arn: str
    inline: dict[str, str] = field(default_factory=dict)
    attached: list[str] = field(default_factory=list)
    boundary: str | None = None


class FakeIam:
    """IAM in every account: roles and managed policies, with IAM's limits (10,240 inline characters per
    role, 6,144 per managed policy, 10 attached, 5 versions; whitespace not counted)."""

    INLINE_LIMIT, MANAGED_LIMIT, ATTACHED_LIMIT, VERSIONS = 10_240, 6_144, 10, 5

    def __init__(self) -> None:
        self.roles: dict[str, FakeRole] = {}
        self.policies: dict[str, FakePolicy] = {}
        self.calls: Counter[str] = Counter()
        self.writes: list[tuple[str, str]] = []
        self.on_write: Callable[[str, IamCall], None] | None = None
        self.fail_write: Exception | None = None
        self._clock = 0
        self._lock = threading.RLock()

    def add_role(self, arn: str, boundary: Mapping[str, Any] | None = None) -> FakeRole:
        role = FakeRole(arn)
        if boundary is not None:
            account = arn.split(":")[4]
            policy = self._create(
                f"arn:aws:iam::{account}:policy/boundaries/ConsumerBoundary",
                "/boundaries/",
                minified(boundary),
            )
            role.boundary = policy.arn
        self.roles[arn] = role
        return role

    def _create(self, arn: str, path: str, document: str) -> FakePolicy:
        self._clock += 1
        policy = FakePolicy(
            arn, arn.rsplit("/", 1)[-1], path, [("v1", document, True, f"2026-11-20T10:00:{self._clock:02d}")]
        )
        self.policies[arn] = policy
        return policy

    def documents(self, arn: str) -> list[dict[str, Any]]:
        """Every document of ours the role holds now (inline and attached)."""
        role = self.roles[arn]
        found = [json.loads(doc) for doc in role.inline.values()]
        return found + [json.loads(self.policies[p].default()) for p in role.attached]

    def resources(self, arn: str) -> set[str]:
        return {r for doc in self.documents(arn) for s in doc["Statement"] for r in s["Resource"]}

    # --- the port -----------------------------------------------------------------------------------
    def read(self, role_arn: str) -> RoleRecord | None:
        with self._lock:
            self.calls["GetRole"] += 1
            role = self.roles.get(role_arn)
            if role is None:
                return None
            self.calls["ListRolePolicies"] += 1
            self.calls["GetRolePolicy"] += len(role.inline)
            self.calls["ListAttachedRolePolicies"] += 1
            managed = []
            for arn in role.attached:
                policy = self.policies[arn]
                self.calls["ListPolicyVersions"] += 1
                self.calls["GetPolicyVersion"] += 1
                versions = tuple(PolicyVersion(v, d, c) for v, _, d, c in policy.versions)
                managed.append(
                    ManagedPolicy(arn, policy.name, policy.path, True, json.loads(policy.default()), versions)
                )
            boundary = None
            if role.boundary:
                self.calls["GetPolicy"] += 1
                self.calls["GetPolicyVersion"] += 1
                boundary = json.loads(self.policies[role.boundary].default())
            inline = {name: json.loads(doc) for name, doc in role.inline.items()}
            return RoleRecord(role_arn, inline, tuple(managed), role.boundary, boundary)

    def account_roles(self, account: str) -> tuple[str, ...]:
        with self._lock:
            self.calls["ListRoles"] += 1
            return tuple(sorted(arn for arn in self.roles if arn.split(":")[4] == account))

    def policy_holders(self, account: str, path: str, prefix: str) -> dict[str, tuple[str, ...]]:
        with self._lock:
            self.calls["ListPolicies"] += 1
            found: dict[str, list[str]] = {}
            for arn, policy in sorted(self.policies.items()):
                ours = policy.path == path and policy.name.startswith(f"{prefix}-")
                if not ours or arn.split(":")[4] != account:
                    continue
                self.calls["ListEntitiesForPolicy"] += 1
                for role in self.roles.values():
                    if arn in role.attached:
                        found.setdefault(role.arn.rsplit("/", 1)[-1], []).append(arn)
            return {name: tuple(arns) for name, arns in found.items()}

    def holds_inline(self, role_arn: str, policy_name: str) -> bool:
        with self._lock:
            self.calls["GetRolePolicy"] += 1
            return policy_name in self.roles[role_arn].inline

    def apply(self, role_arn: str, calls: Sequence[IamCall]) -> None:
        for call in calls:
            if self.on_write is not None:
                self.on_write(role_arn, call)
            with self._lock:
                if self.fail_write is not None:
                    raise self.fail_write
                self.calls[call.operation] += 1
                self.writes.append((role_arn, call.operation))
                getattr(self, f"_{call.operation}")(role_arn, dict(call.params))

    def _PutRolePolicy(self, role_arn: str, p: dict[str, Any]) -> None:
        role = self.roles[role_arn]
        inline = {**role.inline, p["PolicyName"]: minified(json.loads(p["PolicyDocument"]))}
        if sum(len(doc) for doc in inline.values()) > self.INLINE_LIMIT:
            raise QuotaExceeded(
                "PutRolePolicy", "LimitExceeded", "Maximum policy size of 10240 bytes exceeded"
            )
        role.inline = inline

    def _DeleteRolePolicy(self, role_arn: str, p: dict[str, Any]) -> None:
        self.roles[role_arn].inline.pop(p["PolicyName"], None)

    def _CreatePolicy(self, role_arn: str, p: dict[str, Any]) -> None:
        if len(minified(json.loads(p["PolicyDocument"]))) > self.MANAGED_LIMIT:
            raise QuotaExceeded("CreatePolicy", "LimitExceeded", "Cannot exceed quota for PolicySize: 6144")
        if p["PolicyArn"] in self.policies:
            raise Conflict("CreatePolicy", "EntityAlreadyExists", "exists")
        self._create(p["PolicyArn"], p["Path"], p["PolicyDocument"])

    def _CreatePolicyVersion(self, role_arn: str, p: dict[str, Any]) -> None:
        policy = self.policies[p["PolicyArn"]]
        if len(policy.versions) >= self.VERSIONS:
            raise QuotaExceeded(
                "CreatePolicyVersion", "LimitExceeded", "A managed policy can have up to 5 versions"
            )
        if len(minified(json.loads(p["PolicyDocument"]))) > self.MANAGED_LIMIT:
            raise QuotaExceeded(
                "CreatePolicyVersion", "LimitExceeded", "Cannot exceed quota for PolicySize: 6144"
            )
        self._clock += 1
        number = max(int(v[1:]) for v, *_ in policy.versions) + 1
        policy.versions = [(v, d, False, c) for v, d, _, c in policy.versions]
        policy.versions.append(
            (f"v{number}", p["PolicyDocument"], True, f"2026-11-20T10:01:{self._clock:02d}")
        )

    def _DeletePolicyVersion(self, role_arn: str, p: dict[str, Any]) -> None:
        policy = self.policies[p["PolicyArn"]]
        policy.versions = [v for v in policy.versions if v[0] != p["VersionId"] or v[2]]

    def _AttachRolePolicy(self, role_arn: str, p: dict[str, Any]) -> None:
        role = self.roles[role_arn]
        if p["PolicyArn"] not in role.attached:
            if len(role.attached) >= self.ATTACHED_LIMIT:
                raise QuotaExceeded(
                    "AttachRolePolicy", "LimitExceeded", "Cannot exceed quota for PoliciesPerRole: 10"
                )
            role.attached.append(p["PolicyArn"])

    def _DetachRolePolicy(self, role_arn: str, p: dict[str, Any]) -> None:
        role = self.roles[role_arn]
        role.attached = [a for a in role.attached if a != p["PolicyArn"]]

    def _DeletePolicy(self, role_arn: str, p: dict[str, Any]) -> None:
        self.policies.pop(p["PolicyArn"], None)


class FakeClusters:
    """Cluster policies with versions; `interfere` runs once before the first put (another writer)."""

    def __init__(self) -> None:
        self.policies: dict[str, tuple[dict[str, Any], str]] = {}
        self.serverless_clusters: set[str] = set()
        self.calls: Counter[str] = Counter()
        self.interfere: Callable[[], None] | None = None
        self._version = 0

    def put_foreign(self, cluster: str, statement: dict[str, Any]) -> None:
        """Another writer adds a statement (the cluster's owner, a console user)."""
        document, _ = self.policies.get(cluster, ({"Version": "2012-10-17", "Statement": []}, ""))
        self._version += 1
        self.policies[cluster] = (
            {**document, "Statement": [*document["Statement"], statement]},
            f"K{self._version}",
        )

    def serverless(self, cluster_arn: str) -> bool:
        self.calls["DescribeClusterV2"] += 1
        return cluster_arn in self.serverless_clusters

    def read(self, cluster_arn: str) -> Mapping[str, Any] | None:
        self.calls["GetClusterPolicy"] += 1
        found = self.policies.get(cluster_arn)
        return found[0] if found else None

    def update(self, cluster_arn: str, render: Callable[[Mapping[str, Any] | None], Rendered]) -> bool:
        for _ in range(4):
            current = self.read(cluster_arn)
            version = self.policies[cluster_arn][1] if cluster_arn in self.policies else None
            changed, desired = render(current)
            if not changed:
                return False
            if self.interfere is not None:
                interfere, self.interfere = self.interfere, None
                interfere()
            self.calls["PutClusterPolicy"] += 1
            now = self.policies[cluster_arn][1] if cluster_arn in self.policies else None
            if now != version:
                continue  # MSK refuses a stale CurrentVersion: read and merge again
            if desired is None:
                self.policies.pop(cluster_arn, None)
            else:
                self._version += 1
                self.policies[cluster_arn] = (dict(desired), f"K{self._version}")
            return True
        raise Conflict("PutClusterPolicy", "Conflict", "kept changing")


@dataclass(frozen=True)
class FakeHeld:
    released: Mapping[str, int]
    roles: tuple[str, ...]

    def written_since(self, mark: float) -> bool:
        return any(self.released.get(role, -1) > mark for role in self.roles)


class FakeLeases:
    """One lock per role, taken in sorted order; `hold` waits for each at most what the run asks, and at most
    `wait` seconds (the run asks for the engine's 20 s); `waits` records what the run asked. Its clock is a
    counter: `mark()` and every release take the next tick, so `written_since` is exact."""

    def __init__(self, wait: float = 5.0) -> None:
        self.wait = wait
        self.waits: list[float] = []
        self.locks: dict[str, threading.Lock] = {}
        self.taken: list[str] = []
        self.released: dict[str, int] = {}
        self._ticks = itertools.count()
        self._lock = threading.Lock()

    def mark(self) -> float:
        with self._lock:
            return next(self._ticks)

    @contextmanager
    def hold(self, role_arns: Sequence[str], wait_seconds: float) -> Iterator[FakeHeld]:
        held: list[tuple[str, threading.Lock]] = []
        self.waits.append(wait_seconds)
        try:
            for role in sorted(set(role_arns)):
                with self._lock:
                    lock = self.locks.setdefault(role, threading.Lock())
                if not lock.acquire(timeout=min(self.wait, wait_seconds)):
                    raise LeaseBusy(f"role {role} is held by another run")
                held.append((role, lock))
                self.taken.append(role)
            with self._lock:
                snapshot = dict(self.released)
            yield FakeHeld(snapshot, tuple(role for role, _ in held))
        finally:
            for role, lock in reversed(held):
                with self._lock:
                    self.released[role] = next(self._ticks)
                lock.release()


class NoLeases:
    """No lease at all: what overlapping runs would do without one writer per role (every listing is
    taken as stale, so each run lists again where it would under a lease)."""

    @staticmethod
    def mark() -> float:
        return 0.0

    @contextmanager
    def hold(self, role_arns: Sequence[str], wait_seconds: float) -> Iterator[FakeHeld]:
        yield FakeHeld(dict.fromkeys(role_arns, 1), tuple(role_arns))


@dataclass
class FakeWorld:
    datazone: FakeDataZone = field(default_factory=FakeDataZone)
    iam: FakeIam = field(default_factory=FakeIam)
    clusters: FakeClusters = field(default_factory=FakeClusters)
    leases: Any = field(default_factory=FakeLeases)

    def ports(self) -> GrantPorts:
        return GrantPorts(self.datazone, self.iam, self.clusters, self.leases)

    def calls(self) -> Counter[str]:
        return self.datazone.calls + self.iam.calls + self.clusters.calls

    def iam_writes(self) -> int:
        return len(self.iam.writes)
