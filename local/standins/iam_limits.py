"""IAM's size and count quotas that moto 5.2.5 does not enforce, checked before an IAM request reaches moto.

IAM User Guide, "IAM and AWS STS quotas": a role's inline policies total at most 10,240 characters; a
managed policy is at most 6,144 characters; a role has at most 10 managed policies attached (20 with a
quota increase); "IAM doesn't count white space when calculating the size of a policy against these
quotas". moto already refuses a sixth policy version (LimitExceeded) and malformed documents
(MalformedPolicyDocument); it sizes nothing and counts no attachments.

The errors are IAM's own: LimitExceeded (HTTP 409) with the messages IAM answers ("Maximum policy size of
10240 bytes exceeded for role <name>", "Cannot exceed quota for PolicySize: 6144", "Cannot exceed quota
for PoliciesPerRole: 10").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from local.standins.errors import ServiceError

INLINE_PER_ROLE = 10_240
MANAGED_POLICY = 6_144
_WHITESPACE = re.compile(r"\s")


def policy_size(document: str) -> int:
    """A policy's size as IAM counts it against its quotas: characters other than white space."""
    return len(_WHITESPACE.sub("", document))


def limit_exceeded(message: str) -> ServiceError:
    return ServiceError("LimitExceeded", message, 409)


@dataclass
class IamLimits:
    """The quotas; `attached_per_role` may be raised to 20, as a quota increase does."""

    attached_per_role: int = 10

    def check(self, operation: str, params: dict[str, Any], account: str) -> None:
        """Raise IAM's LimitExceeded when this request would break a quota (moto answers the rest)."""
        if operation == "PutRolePolicy":
            self._inline(params, account)
        elif operation in ("CreatePolicy", "CreatePolicyVersion"):
            size = policy_size(str(params.get("PolicyDocument", "")))
            if size > MANAGED_POLICY:
                raise limit_exceeded(f"Cannot exceed quota for PolicySize: {MANAGED_POLICY}")
        elif operation == "AttachRolePolicy":
            role = _moto_role(account, str(params.get("RoleName", "")))
            if role is None:
                return
            attached = set(role.managed_policies)
            if params.get("PolicyArn") not in attached and len(attached) >= self.attached_per_role:
                raise limit_exceeded(f"Cannot exceed quota for PoliciesPerRole: {self.attached_per_role}")

    def _inline(self, params: dict[str, Any], account: str) -> None:
        name = str(params.get("RoleName", ""))
        role = _moto_role(account, name)
        if role is None:
            return  # moto answers NoSuchEntity
        others = {key: doc for key, doc in role.policies.items() if key != params.get("PolicyName")}
        total = sum(policy_size(_text(doc)) for doc in others.values())
        total += policy_size(str(params.get("PolicyDocument", "")))
        if total > INLINE_PER_ROLE:
            raise limit_exceeded(f"Maximum policy size of {INLINE_PER_ROLE} bytes exceeded for role {name}")


def _text(document: Any) -> str:
    if isinstance(document, str):
        return document
    import json

    return json.dumps(document)


def _moto_role(account: str, name: str) -> Any:
    from moto.iam.models import iam_backends

    try:
        return iam_backends[account]["aws"].get_role(name)
    except Exception:  # moto's NotFoundException: moto itself answers the request with it
        return None
