"""Why a role may not receive its access, as a cause a person can act on (None: it may).

- The role must match `access.consumerRoles` (by its full ARN).
- Its permissions boundary must allow, and none of its other policies deny, each action on each resource
  the access needs (`evaluate`, with its pessimistic readings of conditions and variables). SageMaker
  Unified Studio and DataZone project roles carry boundaries that deny `kafka-cluster:*` and
  `glue:GetSchema*`, whatever is attached: their grants fail here, before anything is written.
- An identity policy whose document was not read (None) is not searched for a Deny: the adapter reads
  the role's inline and attached policies; SCPs and resource control policies are out of its reach.
- A Deny under a condition the evaluator cannot judge (`evaluate.condition_holds`) is not a refusal: it is
  a warning naming the policy, the statement and the condition (`condition_warnings`), reported with the
  grant, since whether it applies depends on how the consumer calls.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from kafka_lineage.access.desired import RoleAccess
from kafka_lineage.access.evaluate import allowing, conditional_denials, denying
from kafka_lineage.access.model import Naming, RoleState
from kafka_lineage.access.settings import AccessSettings


def role_refusal(role_arn: str, settings: AccessSettings) -> str | None:
    """The cause when the role is not one that `access.consumerRoles` admits."""
    if settings.admits_role(role_arn):
        return None
    if not settings.consumer_roles:
        return f"role {role_arn} may not receive grants: access.consumerRoles is empty, so it admits no role"
    return (
        f"role {role_arn} does not match access.consumerRoles ({', '.join(settings.consumer_roles)}); "
        "a role with a path is matched by its full ARN"
    )


def _others(state: RoleState, naming: Naming) -> list[tuple[str, Mapping[str, Any] | None]]:
    """The role's identity policies that are not ours, by name, in a fixed order."""
    role_name = state.role.name
    found: list[tuple[str, Mapping[str, Any] | None]] = [
        (f"inline policy {name}", document)
        for name, document in sorted(state.inline.items())
        if name != naming.inline_name
    ]
    found += [
        (f"managed policy {policy.arn}", policy.document)
        for policy in sorted(state.managed, key=lambda p: p.arn)
        if policy.attached and naming.managed_index(role_name, policy.name, policy.path) is None
    ]
    return found


def _sid(sid: str) -> str:
    return f" (statement {sid})" if sid else ""


def boundary_refusal(state: RoleState, access: RoleAccess, naming: Naming) -> str | None:
    """The cause when the role's boundary, or one of its other policies, would keep it from the access."""
    if state.boundary_arn is not None and state.boundary is None:
        return f"the permissions boundary {state.boundary_arn} of role {state.role_arn} could not be read"
    others = _others(state, naming)
    for action, resource in access.needs():
        if state.boundary_arn is not None:
            denied = denying((state.boundary,), action, resource)
            if denied is not None:
                return (
                    f"the permissions boundary {state.boundary_arn} of role {state.role_arn} denies {action} "
                    f"on {resource}{_sid(denied)}"
                )
            if allowing((state.boundary,), action, resource) is None:
                return (
                    f"the permissions boundary {state.boundary_arn} of role {state.role_arn} does not allow "
                    f"{action} on {resource}"
                )
        for name, document in others:
            denied = denying((document,), action, resource)
            if denied is not None:
                return f"the {name} of role {state.role_arn} denies {action} on {resource}{_sid(denied)}"
    return None


def condition_warnings(state: RoleState, access: RoleAccess, naming: Naming) -> tuple[str, ...]:
    """One warning per Deny in the role's boundary or other policies that names some of the access under a
    condition that cannot be judged, naming the policy, the statement and the condition."""
    policies: list[tuple[str, Mapping[str, Any] | None]] = []
    if state.boundary_arn is not None:
        policies.append((f"permissions boundary {state.boundary_arn}", state.boundary))
    policies += _others(state, naming)
    found: dict[tuple[str, str], str] = {}
    for action, resource in access.needs():
        for name, document in policies:
            for sid, condition in conditional_denials((document,), action, resource):
                key = (name, sid or json.dumps(condition, sort_keys=True))
                found.setdefault(
                    key,
                    f"the {name} of role {state.role_arn} denies {action} on {resource}{_sid(sid)} under the "
                    f"condition {json.dumps(condition, sort_keys=True)}, which cannot be judged before the "
                    "call: granted anyway; the role's calls must not meet that condition",
                )
    return tuple(found[key] for key in sorted(found))
