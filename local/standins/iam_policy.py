"""IAM identity-policy evaluation, as AWS documents it, for one principal's policies and one request.

Pure: parsed statements in, a decision out. An explicit Deny beats any Allow; otherwise every resource
the request names needs an Allow statement whose action, resource and conditions all match. Wildcards
(`*`, `?`) work as in IAM: actions compare case-insensitively, resources case-sensitively, and a wildcard
never crosses the colons that separate an ARN's first five fields (it may cross them in the resource
part, where `function:name:*` covers versions). Condition operators this module does not know make the
policy invalid, as IAM rejects them when the policy is put (MalformedPolicyDocument): loud, never a
silent allow or deny.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any, Literal

Effect = Literal["Allow", "Deny"]

# Operator -> (value comparison, negated). Negated operators match when no policy value matches.
_OPERATORS: dict[str, tuple[str, bool]] = {
    "StringEquals": ("equals", False),
    "StringNotEquals": ("equals", True),
    "StringEqualsIgnoreCase": ("equals_ignore_case", False),
    "StringNotEqualsIgnoreCase": ("equals_ignore_case", True),
    "StringLike": ("like", False),
    "StringNotLike": ("like", True),
    "ArnEquals": ("arn_like", False),
    "ArnLike": ("arn_like", False),
    "ArnNotEquals": ("arn_like", True),
    "ArnNotLike": ("arn_like", True),
    "Bool": ("bool", False),
    "Null": ("null", False),
}
_SET_QUALIFIERS = ("ForAnyValue", "ForAllValues")


class PolicyError(ValueError):
    """The policy document is not one IAM would accept (or uses a part of the language not modelled)."""


@dataclass(frozen=True)
class Condition:
    operator: str  # the base operator, e.g. StringEquals
    key: str  # lower-cased: condition keys are case-insensitive
    values: tuple[str, ...]
    qualifier: str | None = None  # ForAnyValue | ForAllValues
    if_exists: bool = False


@dataclass(frozen=True)
class Statement:
    effect: Effect
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] | None = None
    resources: tuple[str, ...] = ()
    not_resources: tuple[str, ...] | None = None
    conditions: tuple[Condition, ...] = ()
    sid: str | None = None


@dataclass(frozen=True)
class Request:
    """What IAM authorises: one action on one or more resources (all must be allowed), with context keys."""

    action: str  # service:Action, e.g. glue:GetSchema
    resources: tuple[str, ...] = ("*",)
    context: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    explicit_deny: bool = False
    resource: str | None = None  # the first resource that was not allowed
    statement: str | None = None  # the Sid (or index) of the statement that allowed or denied
    boundary: bool = False  # the principal's permissions boundary decided the denial


# --------------------------------------------------------------------------------------------- parsing


def _strings(value: Any, where: str) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(item, str) for item in items):
        raise PolicyError(f"{where} must be a string or a non-empty list of strings, got {value!r}")
    return tuple(items)


def _condition_values(value: Any, where: str) -> tuple[str, ...]:
    items = value if isinstance(value, list) else [value]
    out = []
    for item in items:
        if isinstance(item, bool):
            out.append("true" if item else "false")
        elif isinstance(item, str | int | float):
            out.append(str(item))
        else:
            raise PolicyError(f"{where}: condition values must be strings, numbers or booleans: {item!r}")
    return tuple(out)


def parse_operator(name: str) -> tuple[str, str | None, bool]:
    """'ForAnyValue:StringLikeIfExists' -> ('StringLike', 'ForAnyValue', True); PolicyError if unknown."""
    qualifier: str | None = None
    base = name
    if ":" in name:
        qualifier, _, base = name.partition(":")
        if qualifier not in _SET_QUALIFIERS:
            raise PolicyError(f"unknown condition set qualifier {qualifier!r} in {name!r}")
    if_exists = base.endswith("IfExists") and base != "IfExists"
    if if_exists:
        base = base.removesuffix("IfExists")
    if base not in _OPERATORS:
        raise PolicyError(
            f"condition operator {name!r} is not modelled by the stand-ins' IAM mode "
            f"(known: {', '.join(sorted(_OPERATORS))}, with ForAnyValue:/ForAllValues: and IfExists)"
        )
    if base == "Null" and (if_exists or qualifier):
        raise PolicyError(f"{name!r}: Null takes neither IfExists nor a set qualifier")
    return base, qualifier, if_exists


def parse_statement(raw: Mapping[str, Any], index: int = 0) -> Statement:
    where = f"Statement[{raw.get('Sid', index)}]"
    effect = raw.get("Effect")
    if effect not in ("Allow", "Deny"):
        raise PolicyError(f"{where}: Effect must be Allow or Deny, got {effect!r}")
    if ("Action" in raw) == ("NotAction" in raw):
        raise PolicyError(f"{where}: exactly one of Action and NotAction")
    if ("Resource" in raw) == ("NotResource" in raw):
        raise PolicyError(f"{where}: exactly one of Resource and NotResource")
    if "Principal" in raw or "NotPrincipal" in raw:
        raise PolicyError(f"{where}: an identity-based policy has no Principal")
    conditions: list[Condition] = []
    block = raw.get("Condition", {})
    if not isinstance(block, Mapping):
        raise PolicyError(f"{where}: Condition must be an object")
    for operator, keys in block.items():
        base, qualifier, if_exists = parse_operator(operator)
        if not isinstance(keys, Mapping) or not keys:
            raise PolicyError(f"{where}: Condition {operator} must map keys to values")
        for key, values in keys.items():
            conditions.append(
                Condition(
                    base, key.lower(), _condition_values(values, f"{where}.{operator}"), qualifier, if_exists
                )
            )
    return Statement(
        effect=effect,
        actions=_strings(raw["Action"], f"{where}.Action") if "Action" in raw else (),
        not_actions=_strings(raw["NotAction"], f"{where}.NotAction") if "NotAction" in raw else None,
        resources=_strings(raw["Resource"], f"{where}.Resource") if "Resource" in raw else (),
        not_resources=(
            _strings(raw["NotResource"], f"{where}.NotResource") if "NotResource" in raw else None
        ),
        conditions=tuple(conditions),
        sid=raw.get("Sid") or f"#{index}",
    )


def parse_policy(document: Mapping[str, Any]) -> tuple[Statement, ...]:
    """An identity-based policy document (already free of CloudFormation intrinsics)."""
    version = document.get("Version", "2008-10-17")
    if version not in ("2012-10-17", "2008-10-17"):
        raise PolicyError(f"unknown policy Version {version!r}")
    raw = document.get("Statement")
    items = raw if isinstance(raw, list) else [raw]
    if not items or not all(isinstance(item, Mapping) for item in items):
        raise PolicyError("Statement must be an object or a non-empty list of objects")
    return tuple(parse_statement(item, index) for index, item in enumerate(items))


# -------------------------------------------------------------------------------------------- matching


@cache
def _glob(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    parts = ("." if c == "?" else ".*" if c == "*" else re.escape(c) for c in pattern)
    return re.compile("".join(parts), re.DOTALL | (re.IGNORECASE if ignore_case else 0))


def like(pattern: str, value: str, ignore_case: bool = False) -> bool:
    """IAM's `*` (any run of characters) and `?` (one character) wildcards."""
    return _glob(pattern, ignore_case).fullmatch(value) is not None


def action_matches(pattern: str, action: str) -> bool:
    return like(pattern, action, ignore_case=True)


def resource_matches(pattern: str, resource: str) -> bool:
    """An ARN pattern against an ARN, field by field: wildcards stay inside the first five fields."""
    if pattern == "*":
        return True
    if resource == "*":  # an action without a resource type is granted only by Resource "*"
        return False
    pattern_parts = pattern.split(":", 5)
    resource_parts = resource.split(":", 5)
    if len(pattern_parts) != 6 or len(resource_parts) != 6:
        return like(pattern, resource)
    return all(like(p, r) for p, r in zip(pattern_parts, resource_parts, strict=True))


def _compare(kind: str, policy_value: str, value: str) -> bool:
    if kind == "equals":
        return policy_value == value
    if kind == "equals_ignore_case":
        return policy_value.lower() == value.lower()
    if kind == "like":
        return like(policy_value, value)
    if kind == "arn_like":
        return resource_matches(policy_value, value)
    if kind == "bool":
        return policy_value.lower() == value.lower()
    raise AssertionError(kind)


def condition_matches(condition: Condition, context: Mapping[str, tuple[str, ...]]) -> bool:
    found = {key.lower(): values for key, values in context.items()}.get(condition.key)
    kind, negated = _OPERATORS[condition.operator]
    if kind == "null":
        wants_absent = [value.lower() == "true" for value in condition.values]
        return (not found) in wants_absent
    if not found:
        if condition.if_exists:
            return True
        if condition.qualifier == "ForAllValues":
            return True  # vacuously true over an empty set, as IAM documents
        if condition.qualifier == "ForAnyValue":
            return False
        return negated  # a missing key never equals anything, so it "does not equal" everything

    def one(value: str) -> bool:
        hit = any(_compare(kind, policy_value, value) for policy_value in condition.values)
        return not hit if negated else hit

    if condition.qualifier == "ForAnyValue":
        return any(one(value) for value in found)
    # ForAllValues, and a plain operator over a (normally single-valued) key: every value must pass.
    return all(one(value) for value in found)


def statement_applies(
    statement: Statement, request: Request, resource: str, with_conditions: bool = True
) -> bool:
    if statement.not_actions is not None:
        if any(action_matches(p, request.action) for p in statement.not_actions):
            return False
    elif not any(action_matches(p, request.action) for p in statement.actions):
        return False
    if statement.not_resources is not None:
        if any(resource_matches(p, resource) for p in statement.not_resources):
            return False
    elif not any(resource_matches(p, resource) for p in statement.resources):
        return False
    return not with_conditions or all(condition_matches(c, request.context) for c in statement.conditions)


def evaluate(statements: Iterable[Statement], request: Request, with_conditions: bool = True) -> Decision:
    """IAM's decision for one principal's identity-based policies (no SCPs, boundaries or sessions).

    `with_conditions=False` asks whether some Allow grants the action and resource, whatever its
    conditions (EventBridge tells a request it may not make at all from an entry whose source is not
    allowed). Deny statements always keep their conditions."""
    ordered: Sequence[Statement] = tuple(statements)
    resources = request.resources or ("*",)
    allowed_by: str | None = None
    for resource in resources:
        for statement in ordered:
            if statement.effect == "Deny" and statement_applies(statement, request, resource):
                return Decision(False, explicit_deny=True, resource=resource, statement=statement.sid)
    for resource in resources:
        allow = next(
            (
                s
                for s in ordered
                if s.effect == "Allow" and statement_applies(s, request, resource, with_conditions)
            ),
            None,
        )
        if allow is None:
            return Decision(False, resource=resource)
        allowed_by = allowed_by or allow.sid
    return Decision(True, statement=allowed_by)


def evaluate_bounded(
    statements: Iterable[Statement],
    boundary: Iterable[Statement] | None,
    request: Request,
    with_conditions: bool = True,
) -> Decision:
    """IAM's decision for a principal with a permissions boundary: the identity policies must allow the
    request and the boundary must allow it too; an explicit Deny in either denies ("Permissions boundaries
    for IAM entities", IAM User Guide: the effective permissions are the intersection)."""
    boundary = tuple(boundary) if boundary is not None else None
    if boundary is not None:
        bounded = evaluate(boundary, request, with_conditions)
        if bounded.explicit_deny:
            return replace(bounded, boundary=True)
    decision = evaluate(statements, request, with_conditions)
    if not decision.allowed or boundary is None:
        return decision
    return decision if bounded.allowed else replace(bounded, boundary=True)


def denial_message(principal_arn: str, request: Request, decision: Decision) -> str:
    """AWS's AccessDenied text for a denial by an identity policy or a permissions boundary."""
    target = f" on resource: {decision.resource}" if decision.resource not in (None, "*") else ""
    if decision.boundary:
        reason = (
            "with an explicit deny in a permissions boundary"
            if decision.explicit_deny
            else f"because no permissions boundary allows the {request.action} action"
        )
    elif decision.explicit_deny:
        reason = "with an explicit deny in an identity-based policy"
    else:
        reason = f"because no identity-based policy allows the {request.action} action"
    return f"User: {principal_arn} is not authorized to perform: {request.action}{target} {reason}"


__all__ = [
    "Condition",
    "Decision",
    "PolicyError",
    "Request",
    "Statement",
    "action_matches",
    "condition_matches",
    "denial_message",
    "evaluate",
    "evaluate_bounded",
    "like",
    "parse_policy",
    "resource_matches",
]
