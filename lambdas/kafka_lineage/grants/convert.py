"""Between the values the adapters speak (`model.iam`, `model.subscriptions`) and the access logic's:
a role as IAM answered it -> `access.model.RoleState`; a `RolePlan` -> the IAM calls that make it; a grant
asset's DataZone status -> `GrantStatus`."""

from __future__ import annotations

from kafka_lineage.access.model import GrantStatus, RoleState
from kafka_lineage.access.plan import (
    AttachRolePolicy,
    CreatePolicy,
    CreatePolicyVersion,
    DeletePolicy,
    DeletePolicyVersion,
    DeleteRolePolicy,
    DetachRolePolicy,
    IamWrite,
    PutRolePolicy,
    RolePlan,
)
from kafka_lineage.model.iam import IamCall, RoleRecord

DESCRIPTION = "kafka-lineage: access a DataZone subscription grant gives to this role (managed, do not edit)"


def role_state(record: RoleRecord) -> RoleState:
    return RoleState(
        role_arn=record.role_arn,
        inline=dict(record.inline),
        managed=record.managed,
        boundary_arn=record.boundary_arn,
        boundary=record.boundary,
    )


def call(write: IamWrite) -> IamCall:
    """The IAM call of one planned write (botocore iam member names)."""
    match write:
        case PutRolePolicy(role, name, document):
            return IamCall(
                "PutRolePolicy", {"RoleName": role, "PolicyName": name, "PolicyDocument": document}
            )
        case DeleteRolePolicy(role, name):
            return IamCall("DeleteRolePolicy", {"RoleName": role, "PolicyName": name})
        case CreatePolicy(name, path, document, arn):
            params = {"PolicyName": name, "Path": path, "PolicyDocument": document, "PolicyArn": arn}
            return IamCall("CreatePolicy", {**params, "Description": DESCRIPTION})
        case CreatePolicyVersion(arn, document, default):
            return IamCall(
                "CreatePolicyVersion", {"PolicyArn": arn, "PolicyDocument": document, "SetAsDefault": default}
            )
        case DeletePolicyVersion(arn, version):
            return IamCall("DeletePolicyVersion", {"PolicyArn": arn, "VersionId": version})
        case AttachRolePolicy(role, arn):
            return IamCall("AttachRolePolicy", {"RoleName": role, "PolicyArn": arn})
        case DetachRolePolicy(role, arn):
            return IamCall("DetachRolePolicy", {"RoleName": role, "PolicyArn": arn})
        case DeletePolicy(arn):
            return IamCall("DeletePolicy", {"PolicyArn": arn})
    raise TypeError(f"unknown IAM write {write!r}")  # pragma: no cover - the union is closed


def calls(plan: RolePlan) -> tuple[IamCall, ...]:
    return tuple(call(write) for write in plan.writes)


def status(value: str) -> GrantStatus:
    """DataZone's status string; ValueError for one botocore's model does not list."""
    return GrantStatus(value)
