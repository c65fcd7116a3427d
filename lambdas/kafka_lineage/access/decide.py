"""From every grant and the roles' IAM state to the IAM plans and each grant's outcome: the one decision
a subscription-grant run makes before it writes.

A grant gives its access to each of its roles, or to none: a grant refused for one of its roles gives
nothing to the others either, so what DataZone shows (GRANT_FAILED) is what IAM holds. A refusal can only
shrink another role's access, so the decision repeats until no new refusal appears.

Readings chosen:
- The guards judge grants that are not GRANTED yet; they fail with the cause. A GRANTED grant is not
  failed afterwards (DataZone's way back from GRANTED is a revoke). A role that `access.consumerRoles` no
  longer admits is reported under `withheld`; its access is taken away only if its state was read (the
  run does not read it: the function's IAM no longer reaches it, so it is `blocked`).
- When a role's access does not fit even without its pending grants, its policies are left as they are
  and the role is reported under `withheld` (IAM would refuse the writes).
- Taking access away needs no guard: a revoke always renders the smaller access.
- A revoke is only as true as IAM: it is `revoked` when each of its roles is gone from IAM, or was read
  and gets a plan (the applier then finishes it only once that plan is written). A role that cannot be
  read or written (`access.consumerRoles` no longer admits it, it could not be read, or its policies are
  left as they are) is `blocked`, and the revoke goes to `revoke_failed` with the role's cause, unless
  another standing grant gives that role the same topic on the same cluster.
- A grant whose project id, environment id or role name holds the separator that follows its placeholder
  in `access.consumerGroups` is refused (its groups could fall inside another subscriber's).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kafka_lineage.access.arns import RoleArn
from kafka_lineage.access.desired import RoleAccess, role_access, statements
from kafka_lineage.access.guards import boundary_refusal, condition_warnings, role_refusal
from kafka_lineage.access.model import Grant, GrantStatus, Naming, RoleState
from kafka_lineage.access.packing import NoRoom, Packed, pack
from kafka_lineage.access.plan import RolePlan, budget, plan_role
from kafka_lineage.access.settings import AccessSettings

GrantKey = tuple[str, str]


@dataclass(frozen=True)
class AccessDecision:
    """The grants that stand and were not refused (`kept`, what cluster policies are rendered from), the
    plans (one per role whose state was read, sorted by ARN), the grants refused with their cause, their
    keys, and the roles whose access is withheld or left as it is, with why."""

    kept: tuple[Grant, ...]
    plans: tuple[RolePlan, ...]
    refused: Mapping[GrantKey, str]
    granted: tuple[GrantKey, ...]
    revoked: tuple[GrantKey, ...]
    withheld: Mapping[str, str]
    revoke_failed: Mapping[GrantKey, str] = field(default_factory=dict)
    blocked: Mapping[str, str] = field(default_factory=dict)
    warnings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def _invalid(grant: Grant, settings: AccessSettings) -> str | None:
    """Why a grant cannot be written at all: a topic or principal no ARN can carry, or values whose
    consumer groups could fall inside another subscriber's."""
    try:
        grant.cluster.topic(grant.topic)
        roles = [RoleArn.parse(principal) for principal in grant.principals]
    except ValueError as error:
        return f"grant {grant.grant_id} cannot be fulfilled: {error}"
    if not grant.principals:
        return (
            f"grant {grant.grant_id} names no IAM role (the subscription target has no authorized principal)"
        )
    for role in roles:
        overlap = settings.group_overlap(
            project_id=grant.project_id, environment_id=grant.environment_id, role_name=role.name
        )
        if overlap is not None:
            return f"grant {grant.grant_id} cannot be fulfilled: {overlap}"
    return None


@dataclass
class _Round:
    refused: dict[GrantKey, str]
    withheld: dict[str, str]
    packed: dict[str, Packed]
    warnings: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _refuse_pending(grants: Iterable[Grant], role_arn: str, cause: str, into: dict[GrantKey, str]) -> bool:
    refused = False
    for grant in grants:
        if role_arn in grant.principals and grant.status != GrantStatus.GRANTED and grant.key not in into:
            into[grant.key] = cause
            refused = True
    return refused


def _judge(
    role_arn: str,
    state: RoleState | None,
    live: list[Grant],
    settings: AccessSettings,
    naming: Naming,
    current: _Round,
) -> bool:
    """Judge one role against the grants still live; True when it refused a grant (another round).

    consumerRoles is judged first: the function's role may read only the roles it admits (the stack grants
    IAM on those alone), so another role is not read (`state` None) and its cause names the setting."""
    cause = role_refusal(role_arn, settings)
    if cause is not None:
        if any(role_arn in grant.principals for grant in live if grant.status == GrantStatus.GRANTED):
            current.withheld[role_arn] = cause
        if state is not None:
            current.packed[role_arn] = Packed(None, ())
        return _refuse_pending(live, role_arn, cause, current.refused)
    if state is None:
        return _refuse_pending(live, role_arn, f"role {role_arn} was not found in IAM", current.refused)
    access: RoleAccess = role_access(role_arn, live, settings)
    cause = boundary_refusal(state, access, naming) if not access.empty else None
    if cause is not None and _refuse_pending(live, role_arn, cause, current.refused):
        return True
    warned = condition_warnings(state, access, naming) if not access.empty else ()
    if warned:
        current.warnings[role_arn] = warned
    try:
        current.packed[role_arn] = pack(statements(access), budget(state, naming))
    except NoRoom as error:
        if _refuse_pending(live, role_arn, f"role {role_arn}: {error}", current.refused):
            return True
        current.withheld[role_arn] = f"role {role_arn}: {error}; its policies are left as they are"
    return False


def decide(
    grants: Iterable[Grant],
    states: Mapping[str, RoleState],
    settings: AccessSettings,
    naming: Naming,
    *,
    refused_before: Mapping[GrantKey, str] | None = None,
    unreadable: Mapping[str, str] | None = None,
) -> AccessDecision:
    """Every role's plan and every grant's outcome. `states` holds each role named by a grant, and each
    role that holds our policies, as IAM has it now (a role missing from it was not found, unless it is in
    `unreadable`: the roles that could not be read, with why).
    `refused_before`: grants already refused for a cause found elsewhere (a cluster policy)."""
    every = sorted(grants, key=lambda g: g.key)
    standing = [grant for grant in every if grant.stands]
    refused: dict[GrantKey, str] = dict(refused_before or {})
    for grant in standing:
        cause = _invalid(grant, settings)
        if cause is not None:
            refused[grant.key] = cause
    roles = sorted({p for g in standing if g.key not in refused for p in g.principals} | set(states))
    while True:
        current = _Round(refused, {}, {})
        live = [grant for grant in standing if grant.key not in refused]
        # Every role is judged in each round (no short cut), so each round's refusals are complete.
        judged = [_judge(role, states.get(role), live, settings, naming, current) for role in roles]
        if not any(judged):
            break
    plans = tuple(
        plan_role(states[role], current.packed[role], naming) for role in roles if role in current.packed
    )
    kept = tuple(grant for grant in standing if grant.key not in refused)
    blocked = _blocked(every, states, settings, current, unreadable or {})
    revoke_failed = _revoke_failures(every, kept, blocked)
    return AccessDecision(
        kept=kept,
        plans=plans,
        refused=dict(sorted(refused.items())),
        granted=tuple(grant.key for grant in kept),
        revoked=tuple(g.key for g in every if not g.stands and g.key not in revoke_failed),
        withheld=dict(sorted({**_holding(blocked, every), **current.withheld}.items())),
        revoke_failed=revoke_failed,
        blocked=blocked,
        warnings=dict(sorted(current.warnings.items())),
    )


def _blocked(
    grants: list[Grant],
    states: Mapping[str, RoleState],
    settings: AccessSettings,
    current: _Round,
    unreadable: Mapping[str, str],
) -> dict[str, str]:
    """The roles whose access this decision cannot read or write, with a cause a person can act on."""
    blocked: dict[str, str] = {}
    roles = {p for grant in grants for p in grant.principals} | set(states) | set(unreadable)
    for role in sorted(roles):
        if role in unreadable:
            blocked[role] = unreadable[role]
            continue
        cause = not_admitted(role, settings)
        if cause is not None and role not in states:
            blocked[role] = cause
        elif role in states and role not in current.packed:
            blocked[role] = current.withheld.get(role, f"role {role}: its policies are left as they are")
    return blocked


def not_admitted(role: str, settings: AccessSettings) -> str | None:
    """Why this stack can no longer read or write a role `access.consumerRoles` does not admit (its
    function's IAM is synthesized from that setting), or None when it admits it."""
    refusal = role_refusal(role, settings)
    if refusal is None:
        return None
    return (
        f"{refusal}: this stack may no longer read or write it, so the access it wrote there stays until the "
        "role is admitted again (the next reconciling run then removes it) or its policies of this stack "
        "are removed by hand"
    )


def _holding(blocked: Mapping[str, str], grants: list[Grant]) -> dict[str, str]:
    """The blocked roles that may hold access: named by a grant granted or being revoked."""
    holding = {
        p
        for g in grants
        if g.status not in (GrantStatus.GRANT_PENDING, GrantStatus.GRANT_FAILED)
        for p in g.principals
    }
    return {role: cause for role, cause in blocked.items() if role in holding}


def _revoke_failures(
    grants: list[Grant], kept: tuple[Grant, ...], blocked: Mapping[str, str]
) -> dict[GrantKey, str]:
    """Revokes that cannot be true yet: a role of the grant is blocked, and no standing grant gives that
    role the same topic on the same cluster."""
    failed: dict[GrantKey, str] = {}
    for grant in grants:
        if grant.stands:
            continue
        for role in grant.principals:
            covered = any(
                role in other.principals
                and (other.cluster_arn, other.topic) == (grant.cluster_arn, grant.topic)
                for other in kept
            )
            if role in blocked and not covered:
                failed[grant.key] = (
                    f"the access grant {grant.grant_id} gave cannot be removed: {blocked[role]}"
                )
                break
    return dict(sorted(failed.items()))
