"""The IAM writes that bring a role from what it has to what its grants give: a frozen plan.

Ours are recognised by name and path only (`Naming`): the inline policy `<prefix>`, and managed policies
`<prefix>-<roleName>-<n>` under the stack's path. Everything else on the role is left as it is, and counts
against the role's limits. A role that is already right gets an empty plan; applying a plan and planning
again gives an empty plan.

Order: a policy that gains access another one loses is written first, so access that moves between
policies (the packing shifts topics forward as grants arrive, back as they go) is never briefly missing;
otherwise managed policies by n, the inline policy, then what is no longer needed. New managed policies
are only created when their number grows and removed only when it shrinks, so the attachments never pass
the role's quota on the way.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.access.desired import policy_size
from kafka_lineage.access.evaluate import statements
from kafka_lineage.access.model import Naming, RoleState
from kafka_lineage.access.packing import ROLE_INLINE_LIMIT, Budget, Packed
from kafka_lineage.model.iam import ManagedPolicy, PolicyVersion

MAX_POLICY_VERSIONS = 5


@dataclass(frozen=True)
class PutRolePolicy:
    role_name: str
    policy_name: str
    document: str


@dataclass(frozen=True)
class DeleteRolePolicy:
    role_name: str
    policy_name: str


@dataclass(frozen=True)
class CreatePolicy:
    policy_name: str
    path: str
    document: str
    policy_arn: str  # the ARN IAM will give it (account, path and name fix it), for the writes after


@dataclass(frozen=True)
class CreatePolicyVersion:
    policy_arn: str
    document: str
    set_as_default: bool = True


@dataclass(frozen=True)
class DeletePolicyVersion:
    policy_arn: str
    version_id: str


@dataclass(frozen=True)
class AttachRolePolicy:
    role_name: str
    policy_arn: str


@dataclass(frozen=True)
class DetachRolePolicy:
    role_name: str
    policy_arn: str


@dataclass(frozen=True)
class DeletePolicy:
    policy_arn: str


IamWrite = (
    PutRolePolicy
    | DeleteRolePolicy
    | CreatePolicy
    | CreatePolicyVersion
    | DeletePolicyVersion
    | AttachRolePolicy
    | DetachRolePolicy
    | DeletePolicy
)


@dataclass(frozen=True)
class RolePlan:
    """The writes for one role, in the order they are to be applied; empty when the role is right."""

    role_arn: str
    writes: tuple[IamWrite, ...]

    @property
    def empty(self) -> bool:
        return not self.writes


def text(document: Mapping[str, Any]) -> str:
    """The document as written: minified JSON (what IAM counts, and the same text every time)."""
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


def _same(current: Mapping[str, Any] | None, desired: Mapping[str, Any]) -> bool:
    return current is not None and json.loads(text(current)) == json.loads(text(desired))


def budget(state: RoleState, naming: Naming) -> Budget:
    """What the role's other policies leave for ours."""
    role = state.role
    other_inline = sum(policy_size(doc) for name, doc in state.inline.items() if name != naming.inline_name)
    other_managed = sum(
        1
        for policy in state.managed
        if policy.attached and naming.managed_index(role.name, policy.name, policy.path) is None
    )
    return Budget(
        inline=ROLE_INLINE_LIMIT - other_inline,
        managed_slots=max(0, state.managed_quota - other_managed),
        other_inline=other_inline,
        other_managed=other_managed,
        managed_quota=state.managed_quota,
    )


def owned(state: RoleState, naming: Naming) -> dict[int, ManagedPolicy]:
    """Our managed policies for this role, attached or not, by their n."""
    role = state.role
    found: dict[int, ManagedPolicy] = {}
    for policy in state.managed:
        index = naming.managed_index(role.name, policy.name, policy.path)
        if index is not None:
            found[index] = policy
    return found


def plan_role(state: RoleState, packed: Packed, naming: Naming) -> RolePlan:
    """The writes that make the role hold exactly `packed` as our policies."""
    role = state.role
    ours = owned(state, naming)
    steps: list[_Step] = []
    for index, desired in enumerate(packed.managed, start=1):
        current = ours.get(index)
        before = _pairs(current.document) if current is not None and current.attached else frozenset()
        writes = _managed_writes(state, naming, index, current, desired)
        steps.append(_Step(tuple(writes), before, _pairs(desired)))
    current_inline = state.inline.get(naming.inline_name)
    if packed.inline is not None and not _same(current_inline, packed.inline):
        put = PutRolePolicy(role.name, naming.inline_name, text(packed.inline))
        steps.append(_Step((put,), _pairs(current_inline), _pairs(packed.inline)))
    for index in sorted(ours):
        if index > len(packed.managed):
            before = _pairs(ours[index].document) if ours[index].attached else frozenset()
            steps.append(_Step(tuple(_removal(role.name, ours[index])), before, frozenset()))
    if packed.inline is None and naming.inline_name in state.inline:
        delete = DeleteRolePolicy(role.name, naming.inline_name)
        steps.append(_Step((delete,), _pairs(current_inline), frozenset()))
    return RolePlan(state.role_arn, tuple(write for step in _ordered(steps) for write in step.writes))


Pair = tuple[str, str]


@dataclass(frozen=True)
class _Step:
    """The writes for one policy of ours, and the (action, resource) pairs it allows before and after."""

    writes: tuple[IamWrite, ...]
    before: frozenset[Pair]
    after: frozenset[Pair]

    @property
    def gains(self) -> frozenset[Pair]:
        return self.after - self.before

    @property
    def losses(self) -> frozenset[Pair]:
        return self.before - self.after


def _pairs(document: Mapping[str, Any] | None) -> frozenset[Pair]:
    """The (action, resource) pairs the Allow statements of a document of ours list."""
    found: set[Pair] = set()
    for statement in statements(document):
        if statement.get("Effect") == "Allow":
            actions, resources = statement.get("Action", ()), statement.get("Resource", ())
            for action in [actions] if isinstance(actions, str) else actions:
                found.update(
                    (str(action), str(r)) for r in ([resources] if isinstance(resources, str) else resources)
                )
    return frozenset(found)


def _ordered(steps: list[_Step]) -> list[_Step]:
    """The steps with writes, each written after every step that gains what it loses, so access that moves
    from one policy to another is added before it is taken away; ties (and a cycle, which the packing's
    one-way shifts do not make) keep the given order: managed policies by n, the inline one, removals."""
    remaining = [step for step in steps if step.writes]
    ordered: list[_Step] = []
    while remaining:
        ready = [
            step
            for step in remaining
            if not any(other is not step and other.gains & step.losses for other in remaining)
        ]
        chosen = (ready or remaining)[0]
        ordered.append(chosen)
        remaining.remove(chosen)
    return ordered


def _managed_writes(
    state: RoleState, naming: Naming, index: int, current: ManagedPolicy | None, desired: Mapping[str, Any]
) -> list[IamWrite]:
    role = state.role
    if current is None:
        name = naming.managed_name(role.name, index)
        arn = role.policy_arn(naming.path, name)
        return [CreatePolicy(name, naming.path, text(desired), arn), AttachRolePolicy(role.name, arn)]
    writes: list[IamWrite] = []
    if not _same(current.document, desired):
        oldest = _oldest_to_drop(current.versions)
        if oldest is not None:
            writes.append(DeletePolicyVersion(current.arn, oldest.version_id))
        writes.append(CreatePolicyVersion(current.arn, text(desired)))
    if not current.attached:
        writes.append(AttachRolePolicy(role.name, current.arn))
    return writes


def _oldest_to_drop(versions: tuple[PolicyVersion, ...]) -> PolicyVersion | None:
    """With IAM's five versions taken, the oldest that is not the default (a new version needs room)."""
    if len(versions) < MAX_POLICY_VERSIONS:
        return None
    candidates = [version for version in versions if not version.is_default]
    return min(candidates, key=lambda v: (v.created, v.number)) if candidates else None


def _removal(role_name: str, policy: ManagedPolicy) -> list[IamWrite]:
    """Detach, then delete the versions that are not the default, then the policy (IAM's DeletePolicy
    refuses a policy that is attached or has other versions)."""
    writes: list[IamWrite] = []
    if policy.attached:
        writes.append(DetachRolePolicy(role_name, policy.arn))
    for version in sorted(policy.versions, key=lambda v: (v.created, v.number)):
        if not version.is_default:
            writes.append(DeletePolicyVersion(policy.arn, version.version_id))
    writes.append(DeletePolicy(policy.arn))
    return writes
