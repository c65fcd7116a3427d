"""From every grant and the roles' IAM state to the IAM plans and each grant's outcome: the one decision
a subscription-grant run makes before it writes.

A grant gives its access to each of its roles, or to none: a grant refused for one of its roles gives
nothing to the others either, so what DataZone shows (GRANT_FAILED) is what IAM holds. A refusal can only
shrink another role's access, so the decision repeats until no new refusal appears.

Readings chosen:
- The guards judge grants that are not GRANTED yet; they fail with the cause. A GRANTED grant is not
  failed afterwards (DataZone's way back from GRANTED is a revoke), with one exception: a role that
  `access.consumerRoles` no longer admits loses the access, reported under `withheld`.
- When a role's access does not fit even without its pending grants, its policies are left as they are
  and the role is reported under `withheld` (IAM would refuse the writes).
- Taking access away needs no guard: a revoke always renders the smaller access.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kafka_lineage.access.arns import RoleArn
from kafka_lineage.access.desired import RoleAccess, role_access, statements
from kafka_lineage.access.guards import boundary_refusal, role_refusal
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


def _invalid(grant: Grant) -> str | None:
    """Why a grant cannot be written at all: a topic or principal no ARN can carry."""
    try:
        grant.cluster.topic(grant.topic)
        for principal in grant.principals:
            RoleArn.parse(principal)
    except ValueError as error:
        return f"grant {grant.grant_id} cannot be fulfilled: {error}"
    if not grant.principals:
        return (
            f"grant {grant.grant_id} names no IAM role (the subscription target has no authorized principal)"
        )
    return None


@dataclass
class _Round:
    refused: dict[GrantKey, str]
    withheld: dict[str, str]
    packed: dict[str, Packed]


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
) -> AccessDecision:
    """Every role's plan and every grant's outcome. `states` holds each role named by a grant, and each
    role that holds our policies, as IAM has it now (a role missing from it was not found).
    `refused_before`: grants already refused for a cause found elsewhere (a cluster policy)."""
    every = sorted(grants, key=lambda g: g.key)
    standing = [grant for grant in every if grant.stands]
    refused: dict[GrantKey, str] = dict(refused_before or {})
    for grant in standing:
        cause = _invalid(grant)
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
    return AccessDecision(
        kept=tuple(grant for grant in standing if grant.key not in refused),
        plans=plans,
        refused=dict(sorted(refused.items())),
        granted=tuple(grant.key for grant in standing if grant.key not in refused),
        revoked=tuple(grant.key for grant in every if not grant.stands),
        withheld=dict(sorted(current.withheld.items())),
    )
