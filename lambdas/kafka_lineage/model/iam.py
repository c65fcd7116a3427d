"""An IAM role's policies as IAM answers them, and the IAM writes to make, as plain values: the adapter
(`aws.iam_roles`) reads and writes them; the access logic reasons on the same managed policies and versions,
and its `RoleState` and `RolePlan` are made from and into the rest by the subscription-grants run
(`kafka_lineage.grants.convert`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

Document = Mapping[str, Any]


@dataclass(frozen=True)
class PolicyVersion:
    """One version of a customer managed policy (ListPolicyVersions)."""

    version_id: str
    is_default: bool
    created: str  # ISO 8601, as IAM's CreateDate; the oldest is deleted first when five exist

    @property
    def number(self) -> int:
        found = re.match(r"v(\d+)", self.version_id)
        return int(found[1]) if found else 0


@dataclass(frozen=True)
class ManagedPolicy:
    """A customer or AWS managed policy attached to the role, or ours (under the stack's path, named for the
    role) found unattached. `document` is the default version's document; `versions` every version (read for
    ours only)."""

    arn: str
    name: str
    path: str
    attached: bool
    document: Document | None = None
    versions: tuple[PolicyVersion, ...] = ()


@dataclass(frozen=True)
class RoleRecord:
    """A role's inline policies (name -> document), attached managed policies and permissions boundary."""

    role_arn: str
    inline: Mapping[str, Document] = field(default_factory=dict)
    managed: tuple[ManagedPolicy, ...] = ()
    boundary_arn: str | None = None
    boundary: Document | None = None


@dataclass(frozen=True)
class IamCall:
    """One IAM write: the operation's name and its parameters, as botocore's iam model names them
    (PutRolePolicy, DeleteRolePolicy, CreatePolicy, CreatePolicyVersion, DeletePolicyVersion,
    AttachRolePolicy, DetachRolePolicy, DeletePolicy). CreatePolicy's parameters carry `PolicyArn` too (the
    ARN IAM gives it), which the adapter drops from the request and uses to adopt a policy that exists."""

    operation: str
    params: Mapping[str, Any]
