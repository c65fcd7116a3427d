"""Builders for the access tests: grants, role states, and an in-memory IAM that applies a plan the way
IAM's documented calls behave (enough to check that a plan, once applied, plans nothing more)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from kafka_lineage.access.model import Grant, GrantStatus, Naming, RoleState
from kafka_lineage.access.plan import (
    AttachRolePolicy,
    CreatePolicy,
    CreatePolicyVersion,
    DeletePolicy,
    DeletePolicyVersion,
    DeleteRolePolicy,
    DetachRolePolicy,
    PutRolePolicy,
    RolePlan,
)
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.model.iam import ManagedPolicy, PolicyVersion

FIXTURES = Path(__file__).resolve().parents[2] / "events" / "access"
ACCOUNT = "111122223333"
CONSUMER_ACCOUNT = "444455556666"
CLUSTER = f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
OTHER_CLUSTER = (
    f"arn:aws:kafka:eu-west-1:{ACCOUNT}:cluster/orders.prod-1/aa11bb22-cc33-dd44-ee55-ff6677889900-3"
)
ROLE = f"arn:aws:iam::{ACCOUNT}:role/analytics-consumer"
PATH_ROLE = f"arn:aws:iam::{ACCOUNT}:role/teams/streaming/orders-reader"
NAMING = Naming()


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / name).read_text())
    return loaded


def settings(**overrides: Any) -> AccessSettings:
    raw: dict[str, Any] = {
        "consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/*", f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/*"],
        "consumerGroups": "{projectId}-*",
    }
    return AccessSettings.parse(raw | overrides)


def grant(
    topic: str,
    *,
    number: int = 1,
    roles: tuple[str, ...] = (ROLE,),
    cluster: str = CLUSTER,
    project: str = "prj_sales01",
    status: GrantStatus = GrantStatus.GRANTED,
    revoke: bool = False,
) -> Grant:
    return Grant(
        grant_id=f"grant{number:04d}",
        listing_id=f"listing{number:04d}",
        asset_id=f"asset{number:04d}",
        cluster_arn=cluster,
        topic=topic,
        project_id=project,
        environment_id="env_sales01",
        account=ACCOUNT,
        region="eu-west-1",
        principals=roles,
        status=status,
        revoke=revoke,
    )


def topic_grants(count: int, **kwargs: Any) -> list[Grant]:
    """`count` grants, each on its own topic with a realistic CDC name."""
    return [grant(f"dbserver1.inventory.table_{n:04d}", number=n, **kwargs) for n in range(1, count + 1)]


def iam_size(document: str) -> int:
    """IAM's own count: the characters of the document that are not whitespace."""
    return sum(1 for char in document if not char.isspace())


class FakeIam:
    """One account's roles and policies after a plan is applied, as IAM's calls document them."""

    def __init__(self, state: RoleState) -> None:
        self.state = state
        self.policies: dict[str, ManagedPolicy] = {p.arn: p for p in state.managed}
        self.inline: dict[str, Any] = dict(state.inline)
        self.clock = 0

    def _now(self) -> str:
        self.clock += 1
        return f"2026-12-03T12:{self.clock // 60:02d}:{self.clock % 60:02d}Z"

    def apply(self, plan: RolePlan, watch: Any = None) -> RoleState:
        """Apply the plan's writes in order; `watch` sees the role's allowed pairs after each write."""
        for write in plan.writes:
            self._apply(write)
            if watch is not None:
                watch(write, self.allowed())
        return replace(self.state, inline=dict(self.inline), managed=tuple(self.policies.values()))

    def allowed(self) -> set[tuple[str, str]]:
        """The (action, resource) pairs the role's inline and attached policies allow right now."""
        documents = list(self.inline.values()) + [p.document for p in self.policies.values() if p.attached]
        pairs: set[tuple[str, str]] = set()
        for document in documents:
            for statement in (document or {}).get("Statement", []):
                actions = (
                    statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
                )
                resources = statement["Resource"]
                resources = resources if isinstance(resources, list) else [resources]
                pairs.update((a, r) for a in actions for r in resources if statement["Effect"] == "Allow")
        return pairs

    def _apply(self, write: Any) -> None:
        if isinstance(write, PutRolePolicy):
            self.inline[write.policy_name] = json.loads(write.document)
            total = sum(iam_size(json.dumps(doc)) for doc in self.inline.values())
            assert total <= 10_240, f"LimitExceeded: inline policies total {total} characters"
        elif isinstance(write, DeleteRolePolicy):
            del self.inline[write.policy_name]
        elif isinstance(write, CreatePolicy):
            assert iam_size(write.document) <= 6_144, "LimitExceeded: managed policy size"
            assert write.policy_arn not in self.policies, "EntityAlreadyExists"
            version = PolicyVersion("v1", True, self._now())
            self.policies[write.policy_arn] = ManagedPolicy(
                write.policy_arn, write.policy_name, write.path, False, json.loads(write.document), (version,)
            )
        elif isinstance(write, CreatePolicyVersion):
            policy = self.policies[write.policy_arn]
            assert len(policy.versions) < 5, "LimitExceeded: five versions"
            assert iam_size(write.document) <= 6_144, "LimitExceeded: managed policy size"
            number = max(v.number for v in policy.versions) + 1
            versions = tuple(replace(v, is_default=False) for v in policy.versions)
            versions += (PolicyVersion(f"v{number}", True, self._now()),)
            self.policies[write.policy_arn] = replace(
                policy, document=json.loads(write.document), versions=versions
            )
        elif isinstance(write, DeletePolicyVersion):
            policy = self.policies[write.policy_arn]
            (version,) = [v for v in policy.versions if v.version_id == write.version_id]
            assert not version.is_default, "DeleteConflict: the default version"
            self.policies[write.policy_arn] = replace(
                policy, versions=tuple(v for v in policy.versions if v is not version)
            )
        elif isinstance(write, AttachRolePolicy):
            attached = sum(1 for p in self.policies.values() if p.attached)
            assert attached < self.state.managed_quota, "LimitExceeded: managed policies per role"
            self.policies[write.policy_arn] = replace(self.policies[write.policy_arn], attached=True)
        elif isinstance(write, DetachRolePolicy):
            self.policies[write.policy_arn] = replace(self.policies[write.policy_arn], attached=False)
        elif isinstance(write, DeletePolicy):
            policy = self.policies[write.policy_arn]
            assert not policy.attached, "DeleteConflict: attached"
            assert len(policy.versions) == 1, "DeleteConflict: other versions"
            del self.policies[write.policy_arn]
        else:  # pragma: no cover - every write is one of the above
            raise AssertionError(write)
