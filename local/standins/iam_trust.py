"""Cross-account roles for IAM mode: roles a function may assume (a source account's reader role), read from a
synthesized template, and their trust policies evaluated as STS AssumeRole evaluates them.

AssumeRole across accounts needs both sides: the caller's identity policy allows sts:AssumeRole on the role
(iam_policy.evaluate), and the role's trust policy allows the caller. A trust statement applies when its
Principal names the caller: the caller's role ARN (a role session is its role), its account's root ARN or
its account id, or "*". Its Action must match sts:AssumeRole and its Condition must hold for the request's
context (sts:ExternalId: what the caller sent, absent when it sent none). An explicit Deny wins.

Not moto's trust check (moto/iam/access_control.py `_check_role_trust_relationship`): it runs only under
moto's own request auth and for roles in moto's IAM backend (these roles come from a template), matches a
Principal only as the caller's literal ARN (no account root, no account id), knows StringEquals alone, and
lets a condition on a key the request lacks pass (an AssumeRole without ExternalId would be trusted).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from local.standins.iam_policy import Decision, PolicyError, Request, Statement, evaluate, parse_policy
from local.standins.iam_roles import Role, _physical, _Resolver


@dataclass(frozen=True)
class AssumableRole:
    """A role of another stack (a source account's), with its grants and its trust policy."""

    role: Role
    trust: tuple[dict[str, Any], ...]  # the resolved trust policy statements

    @property
    def arn(self) -> str:
        return self.role.arn


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _names_caller(principal: Any, caller_role_arn: str, caller_account: str) -> bool:
    if principal == "*":
        return True
    if not isinstance(principal, Mapping):
        return False
    partition = caller_role_arn.split(":")[1] if caller_role_arn.count(":") >= 4 else "aws"
    accepted = {caller_role_arn, f"arn:{partition}:iam::{caller_account}:root", caller_account}
    return any(str(item) in accepted or item == "*" for item in _as_list(principal.get("AWS", [])))


def trust_decision(
    trust: Sequence[Mapping[str, Any]], role_arn: str, caller_role_arn: str, external_id: str | None
) -> Decision:
    """Does the trust policy let the caller (a role session) assume `role_arn` with this external id?"""
    caller_account = caller_role_arn.split(":")[4] if caller_role_arn.count(":") >= 5 else ""
    statements: list[Statement] = []
    for raw in trust:
        if not _names_caller(raw.get("Principal"), caller_role_arn, caller_account):
            continue
        bare = {key: value for key, value in raw.items() if key not in ("Principal", "NotPrincipal")}
        bare["Resource"] = role_arn  # a trust policy's resource is the role itself
        statements += parse_policy({"Version": "2012-10-17", "Statement": [bare]})
    context = {"sts:ExternalId": (external_id,)} if external_id is not None else {}
    return evaluate(statements, Request("sts:AssumeRole", (role_arn,), context))


def assumable_roles_from_template(
    template: Mapping[str, Any], region: str, account: str, stack_name: str
) -> dict[str, AssumableRole]:
    """Role ARN -> AssumableRole, for every role of the template that AWS principals may assume."""
    resolver = _Resolver(template, region, account, stack_name)
    resources = resolver.resources
    documents: dict[str, list[dict[str, Any]]] = {}
    for resource in resources.values():
        properties = resource.get("Properties", {})
        if resource.get("Type") == "AWS::IAM::Policy":
            for role_ref in properties.get("Roles", []):
                role_id = role_ref.get("Ref") if isinstance(role_ref, Mapping) else None
                if role_id:
                    documents.setdefault(role_id, []).append(resolver.resolve(properties["PolicyDocument"]))
    found: dict[str, AssumableRole] = {}
    for logical_id, resource in resources.items():
        properties = resource.get("Properties", {})
        if resource.get("Type") != "AWS::IAM::Role":
            continue
        trust = resolver.resolve(properties.get("AssumeRolePolicyDocument", {}))
        statements = tuple(_as_list(trust.get("Statement", [])))
        if not any(isinstance(s.get("Principal"), Mapping) and "AWS" in s["Principal"] for s in statements):
            continue  # a service's role (EventBridge's, say): no function assumes it
        if properties.get("ManagedPolicyArns"):
            raise PolicyError(
                f"{logical_id}: managed policies are not modelled; the stack uses inline grants"
            )
        name = str(properties.get("RoleName") or _physical(stack_name, logical_id))
        arn = f"arn:aws:iam::{account}:role/{name}"
        docs = [resolver.resolve(p["PolicyDocument"]) for p in properties.get("Policies", [])]
        docs += documents.get(logical_id, [])
        role = Role(
            name=name,
            role_name=name,
            arn=arn,
            function_name="",
            function_arn="",
            handler="",
            statements=tuple(s for doc in docs for s in parse_policy(doc)),
            documents=tuple(docs),
        )
        found[arn] = AssumableRole(role, statements)
    return found
