"""A small IAM policy evaluator: would these policies allow or deny an action on a resource?

Written here rather than taken from a library (PyPI, late 2026): policyuniverse (last release 2023)
parses and expands policies but decides nothing; parliament lints; policyglass has had no release since
2022; iam-ape summarises a whole `GetAccountAuthorizationDetails` dump; the full simulator is Node.js
(@cloud-copilot/iam-simulate); the 2026 newcomers (aws-why, sibyl-aws) are command-line tools. None would
belong in the functions' layer for this. IAM's own SimulatePrincipalPolicy is not answered by moto, which
the outside tests use. The part needed is small: Allow and Deny, Action/NotAction, Resource/NotResource with
IAM's wildcards (`*` any run, `?` one character), actions compared case-insensitively
(IAM User Guide, "Policy evaluation logic" and the Action, NotAction, Resource, NotResource elements).

Readings chosen where a policy says more than this evaluator reads:
- Conditions are judged on the keys whose value is known for every call a granted role makes (`CONTEXT`):
  `aws:SecureTransport` is true, since MSK's IAM access control works over TLS only (the IAM listeners,
  ports 9098 and 9198) and the Glue API over HTTPS only. The operators read are `Bool` and `BoolIfExists`.
  A condition block holds when each of its tests holds (IAM ANDs them) and fails as soon as one fails.
- A statement whose condition fails does not apply. An Allow whose condition cannot be judged (another key
  or operator) does not count as allowing (pessimistic). A Deny whose condition cannot be judged does not
  count as denying either: it is returned by `conditional_denials`, which the guards report as a warning
  naming the condition, not as a refusal (a guard such as `aws:RequestedRegion` or `aws:SourceVpc` would
  otherwise fail every grant on the role).
- A resource pattern with a policy variable (`${...}`) matches anything in a Deny and nothing in an Allow.
- The resource asked about may itself be a pattern (a consumer-group ARN with `*`): a Deny counts when it
  could match any resource the pattern names, an Allow only when it surely covers all of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any


class Decision(StrEnum):
    ALLOWED = "allowed"
    DENIED = "denied"  # an explicit Deny
    NOT_ALLOWED = "not allowed"  # no Allow (an implicit deny)


@dataclass(frozen=True)
class Verdict:
    decision: Decision
    sid: str | None = None  # the deciding statement's Sid, when it has one


def _list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(item) for item in value)


def statements(document: Mapping[str, Any] | None) -> tuple[Mapping[str, Any], ...]:
    if not document:
        return ()
    found = document.get("Statement", ())
    return (found,) if isinstance(found, Mapping) else tuple(found)


_WILDCARDS = frozenset("*?")
# Condition keys (lower case: IAM compares them case-insensitively) known for every granted call.
CONTEXT = {"aws:securetransport": "true"}
_BOOL_OPERATORS = ("bool", "boolifexists")


def condition_holds(condition: Any) -> bool | None:
    """Whether a statement's Condition holds for a granted call: True, False, or None when it cannot be
    judged (a key or operator outside `CONTEXT` and `Bool`)."""
    if not isinstance(condition, Mapping):
        return None
    judged: bool | None = True
    for operator, tests in condition.items():
        if str(operator).lower() not in _BOOL_OPERATORS or not isinstance(tests, Mapping):
            judged = None
            continue
        for key, wanted in tests.items():
            known = CONTEXT.get(str(key).lower())
            if known is None:
                judged = None
            elif known not in (value.lower() for value in _list(wanted)):
                return False
    return judged


@cache
def _regex(pattern: str) -> re.Pattern[str]:
    parts = (".*" if char == "*" else "." if char == "?" else re.escape(char) for char in pattern)
    return re.compile("".join(parts), re.DOTALL)


def _intersects(left: str, right: str) -> bool:
    """True when some string matches both glob patterns (`*` any run, `?` one character)."""
    if not _WILDCARDS.intersection(right):
        return _regex(left).fullmatch(right) is not None
    if not _WILDCARDS.intersection(left):
        return _regex(right).fullmatch(left) is not None

    @cache
    def meet(i: int, j: int) -> bool:
        if i == len(left) or j == len(right):
            return all(c == "*" for c in left[i:]) and all(c == "*" for c in right[j:])
        a, b = left[i], right[j]
        if a == "*":
            return meet(i + 1, j) or meet(i, j + 1)
        if b == "*":
            return meet(i, j + 1) or meet(i + 1, j)
        return (a == "?" or b in ("?", a)) and meet(i + 1, j + 1)

    return meet(0, 0)


def _covers(outer: str, inner: str) -> bool:
    """True when every string matching `inner` surely matches `outer` (sound, not complete: `inner`'s `*`
    must meet a `*` of `outer`, its `?` a `?` or `*`)."""
    if not _WILDCARDS.intersection(inner):
        return _regex(outer).fullmatch(inner) is not None

    @cache
    def cover(i: int, j: int) -> bool:
        if i == len(outer):
            return j == len(inner)
        if outer[i] == "*":
            return cover(i + 1, j) or (j < len(inner) and cover(i, j + 1))
        if j == len(inner) or inner[j] == "*":
            return False
        if outer[i] == "?":
            return cover(i + 1, j + 1)
        return outer[i] == inner[j] and cover(i + 1, j + 1)

    return cover(0, 0)


def _action_matches(pattern: str, action: str) -> bool:
    return _intersects(pattern.lower(), action.lower())


def _resource_may_match(pattern: str, resource: str) -> bool:
    """Could `pattern` match some resource that `resource` names (for a Deny)."""
    if "${" in pattern:
        return True
    return _intersects(pattern, resource)


def _resource_surely_matches(pattern: str, resource: str) -> bool:
    """Does `pattern` match every resource that `resource` names (for an Allow)."""
    if "${" in pattern:
        return False
    return _covers(pattern, resource)


def _applies_to_action(statement: Mapping[str, Any], action: str) -> bool:
    if "NotAction" in statement:
        return not any(_action_matches(pattern, action) for pattern in _list(statement["NotAction"]))
    return any(_action_matches(pattern, action) for pattern in _list(statement.get("Action")))


def _denies_resource(statement: Mapping[str, Any], resource: str) -> bool:
    if "NotResource" in statement:
        # The Deny spares only what its NotResource surely covers.
        return not any(_resource_surely_matches(p, resource) for p in _list(statement["NotResource"]))
    return any(_resource_may_match(pattern, resource) for pattern in _list(statement.get("Resource")))


def _allows_resource(statement: Mapping[str, Any], resource: str) -> bool:
    if "NotResource" in statement:
        # The Allow covers the resource only when none of it could fall under NotResource.
        return not any(_resource_may_match(p, resource) for p in _list(statement["NotResource"]))
    return any(_resource_surely_matches(pattern, resource) for pattern in _list(statement.get("Resource")))


def _denials(
    policies: Iterable[Mapping[str, Any] | None], action: str, resource: str
) -> Iterable[tuple[Mapping[str, Any], bool | None]]:
    """Each Deny that names `action` on `resource`, with whether its condition holds (True without one)."""
    for document in policies:
        for statement in statements(document):
            if str(statement.get("Effect", "")).lower() != "deny":
                continue
            if _applies_to_action(statement, action) and _denies_resource(statement, resource):
                yield statement, condition_holds(statement["Condition"]) if "Condition" in statement else True


def denying(policies: Iterable[Mapping[str, Any] | None], action: str, resource: str) -> str | None:
    """The Sid (or "" when it has none) of the first Deny in `policies` that denies `action` on `resource`
    (unconditionally, or under a condition that holds), or None."""
    for statement, holds in _denials(policies, action, resource):
        if holds:
            return str(statement.get("Sid", ""))
    return None


def conditional_denials(
    policies: Iterable[Mapping[str, Any] | None], action: str, resource: str
) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """(Sid or "", condition) of each Deny of `action` on `resource` whose condition cannot be judged."""
    return tuple(
        (str(statement.get("Sid", "")), statement["Condition"])
        for statement, holds in _denials(policies, action, resource)
        if holds is None
    )


def allowing(policies: Iterable[Mapping[str, Any] | None], action: str, resource: str) -> str | None:
    """The Sid (or "") of the first Allow in `policies` that surely covers `action` on `resource`, without a
    condition or under one that holds, or None."""
    for document in policies:
        for statement in statements(document):
            if str(statement.get("Effect", "")).lower() != "allow":
                continue
            if "Condition" in statement and not condition_holds(statement["Condition"]):
                continue
            if _applies_to_action(statement, action) and _allows_resource(statement, resource):
                return str(statement.get("Sid", ""))
    return None


def evaluate(document: Mapping[str, Any] | None, action: str, resource: str) -> Verdict:
    """One policy's verdict on `action` on `resource`: an explicit Deny wins, then an Allow, else not
    allowed."""
    denied = denying((document,), action, resource)
    if denied is not None:
        return Verdict(Decision.DENIED, denied or None)
    allowed = allowing((document,), action, resource)
    if allowed is not None:
        return Verdict(Decision.ALLOWED, allowed or None)
    return Verdict(Decision.NOT_ALLOWED)
