"""IAM roles for the subscription-grants function (the `RoleStore` port): a role's policies read into a
`model.iam.RoleRecord`, and the planned writes made, in the role's own account.

Reads (botocore iam member names): GetRole (`Role.Arn`, `Role.PermissionsBoundary.PermissionsBoundaryArn`);
ListRolePolicies + GetRolePolicy for each inline policy; ListAttachedRolePolicies; for each attached policy
under our path ListPolicyVersions + GetPolicyVersion (ours need their versions: IAM keeps five), for any other
attached policy and the boundary GetPolicy (`DefaultVersionId`) + GetPolicyVersion. A role found under the
same name at another path is another role: None. A boundary that may not be read is left unread (the access
logic then refuses the grant, naming the boundary). Another stack's policies (under the same path, with
another name prefix) and any other attached policy are read by their default version alone; one that may not
be read (AccessDenied: another stack's role, say) is left unread rather than failing the role: the access
logic then finds no Deny in it (reading a document is only for the guards).

Finding roles from the policies themselves (the reconciling run; `roles`, `policy_holders`, `holds_inline`):
ListRoles (every role of the account, 1,000 a page); ListPolicies (Scope Local, our path, attached ones)
and ListEntitiesForPolicy (roles) for each policy named with our prefix; GetRolePolicy for our inline name.

Writes are idempotent, so a retry after a partial apply converges: NoSuchEntity on a delete or detach is
success; EntityAlreadyExists on CreatePolicy adopts the policy (a new default version with our document
when its document differs, after deleting its oldest other version if all five are taken); a
CreatePolicyVersion that meets the five-version limit deletes the oldest non-default version and tries once
more; a DeletePolicy that meets versions left behind deletes them and tries once more.

Logs name roles and policies and never carry a policy document (another role's policies are its owner's).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from kafka_lineage.model.failures import AccessDenied, Conflict, NotFound, QuotaExceeded
from kafka_lineage.model.iam import (
    Document,
    IamCall,
    ManagedPolicy,
    PolicyVersion,
    RoleRecord,
)
from kafka_lineage.observability import logger

_ROLE = re.compile(r"arn:[\w-]+:iam::(?P<account>\d{12}):role/(?:.*/)?(?P<name>[^/]+)")
_POLICY = re.compile(r"arn:[\w-]+:iam::(?:\d{12}|aws):policy(?P<path>/(?:.*/)?)(?P<name>[^/]+)")
_METHODS = {
    "PutRolePolicy": "put_role_policy",
    "DeleteRolePolicy": "delete_role_policy",
    "CreatePolicy": "create_policy",
    "CreatePolicyVersion": "create_policy_version",
    "DeletePolicyVersion": "delete_policy_version",
    "AttachRolePolicy": "attach_role_policy",
    "DetachRolePolicy": "detach_role_policy",
    "DeletePolicy": "delete_policy",
}
_DELETES = frozenset({"DeleteRolePolicy", "DeletePolicyVersion", "DetachRolePolicy", "DeletePolicy"})
MAX_VERSIONS = 5


def role_parts(role_arn: str) -> tuple[str, str]:
    """(account, role name) of a role ARN; the name is the last path segment."""
    found = _ROLE.fullmatch(role_arn)
    if found is None:
        raise ValueError(f"{role_arn!r} is not an IAM role ARN")
    return found["account"], found["name"]


def document(value: Any) -> Document:
    """A policy document as botocore hands it: parsed already (its iam after-call hook), or URL-encoded
    JSON text as IAM sends it."""
    if isinstance(value, Mapping):
        return value
    parsed = json.loads(unquote(str(value)))
    if not isinstance(parsed, dict):
        raise ValueError("a policy document is not a JSON object")
    return parsed


class IamRoles:
    """Roles in any account: `iam_for(account)` gives that account's IAM client (the function's own, or one
    under the consumer account's role), instrumented by the call layer."""

    def __init__(self, iam_for: Callable[[str], Any], path: str, prefix: str | None = None) -> None:
        self._iam_for = iam_for
        self._path = path
        self._prefix = prefix  # our managed policies' name prefix; None: any name under our path

    def _ours(self, path: str, name: str) -> bool:
        return path == self._path and (self._prefix is None or name.startswith(f"{self._prefix}-"))

    # ------------------------------------------------------------------------------------------ read
    def read(self, role_arn: str) -> RoleRecord | None:
        account, name = role_parts(role_arn)
        iam = self._iam_for(account)
        try:
            role = iam.get_role(RoleName=name)["Role"]
        except NotFound:
            return None
        if role.get("Arn") != role_arn:
            return None
        inline: dict[str, Document] = {}
        for page in iam.get_paginator("list_role_policies").paginate(RoleName=name):
            for policy_name in page.get("PolicyNames", []):
                try:
                    got = iam.get_role_policy(RoleName=name, PolicyName=policy_name)
                except NotFound:
                    continue  # deleted since the listing
                inline[policy_name] = document(got["PolicyDocument"])
        managed: list[ManagedPolicy] = []
        for page in iam.get_paginator("list_attached_role_policies").paginate(RoleName=name):
            for attached in page.get("AttachedPolicies", []):
                managed.append(self._managed(iam, str(attached["PolicyArn"])))
        boundary_arn = (role.get("PermissionsBoundary") or {}).get("PermissionsBoundaryArn")
        boundary = None
        if boundary_arn:
            try:
                boundary = self._default_document(iam, boundary_arn)
            except AccessDenied:
                logger.warning(
                    "permissions boundary not readable", extra={"role": role_arn, "boundary": boundary_arn}
                )
        return RoleRecord(role_arn, inline, tuple(managed), boundary_arn, boundary)

    def _managed(self, iam: Any, arn: str) -> ManagedPolicy:
        found = _POLICY.fullmatch(arn)
        path, name = (found["path"], found["name"]) if found else ("/", arn.rsplit("/", 1)[-1])
        if not self._ours(path, name):
            return ManagedPolicy(arn, name, path, True, self._foreign_document(iam, arn))
        try:
            versions = self._versions(iam, arn)
        except AccessDenied:
            # Another stack's, under our path (this function may list only its own versions).
            return ManagedPolicy(arn, name, path, True, self._foreign_document(iam, arn))
        default = next((v for v in versions if v.is_default), None)
        text = None
        if default is not None:
            text = iam.get_policy_version(PolicyArn=arn, VersionId=default.version_id)["PolicyVersion"]
            text = document(text["Document"])
        return ManagedPolicy(arn, name, path, True, text, versions)

    @staticmethod
    def _versions(iam: Any, arn: str) -> tuple[PolicyVersion, ...]:
        versions: list[PolicyVersion] = []
        for page in iam.get_paginator("list_policy_versions").paginate(PolicyArn=arn):
            for version in page.get("Versions", []):
                created = version.get("CreateDate")
                stamp = created.isoformat() if hasattr(created, "isoformat") else str(created or "")
                versions.append(
                    PolicyVersion(str(version["VersionId"]), bool(version.get("IsDefaultVersion")), stamp)
                )
        return tuple(versions)

    @classmethod
    def _foreign_document(cls, iam: Any, arn: str) -> Document | None:
        try:
            return cls._default_document(iam, arn)
        except AccessDenied:
            logger.warning("attached policy not readable: left unread", extra={"policy": arn})
            return None

    @staticmethod
    def _default_document(iam: Any, arn: str) -> Document | None:
        try:
            policy = iam.get_policy(PolicyArn=arn)["Policy"]
            version = iam.get_policy_version(PolicyArn=arn, VersionId=policy["DefaultVersionId"])
        except NotFound:
            return None
        return document(version["PolicyVersion"]["Document"])

    # ------------------------------------------------------------------------------------------ holders
    def account_roles(self, account: str) -> tuple[str, ...]:
        """Every role's ARN in `account` (ListRoles)."""
        iam = self._iam_for(account)
        found: list[str] = []
        for page in iam.get_paginator("list_roles").paginate(PaginationConfig={"PageSize": 1000}):
            found += [str(role["Arn"]) for role in page.get("Roles", [])]
        return tuple(sorted(found))

    def policy_holders(self, account: str, path: str, prefix: str) -> dict[str, tuple[str, ...]]:
        """The roles of `account` (by name) to which a managed policy named `prefix-…` under `path` is
        attached, with those policies' ARNs."""
        iam = self._iam_for(account)
        holders: dict[str, list[str]] = {}
        pages = iam.get_paginator("list_policies").paginate(Scope="Local", PathPrefix=path, OnlyAttached=True)
        for page in pages:
            for policy in page.get("Policies", []):
                name, arn = str(policy["PolicyName"]), str(policy["Arn"])
                if policy.get("Path") != path or not name.startswith(f"{prefix}-"):
                    continue
                entities = iam.get_paginator("list_entities_for_policy").paginate(
                    PolicyArn=arn, EntityFilter="Role"
                )
                for entity_page in entities:
                    for role in entity_page.get("PolicyRoles", []):
                        holders.setdefault(str(role["RoleName"]), []).append(arn)
        return {name: tuple(sorted(arns)) for name, arns in sorted(holders.items())}

    def holds_inline(self, role_arn: str, policy_name: str) -> bool:
        """True when the role has the inline policy `policy_name` (GetRolePolicy)."""
        account, name = role_parts(role_arn)
        try:
            self._iam_for(account).get_role_policy(RoleName=name, PolicyName=policy_name)
        except NotFound:
            return False
        return True

    # ------------------------------------------------------------------------------------------ write
    def apply(self, role_arn: str, calls: Sequence[IamCall]) -> None:
        account, name = role_parts(role_arn)
        iam = self._iam_for(account)
        for call in calls:
            params = dict(call.params)
            logger.info(
                "IAM write",
                extra={
                    "operation": call.operation,
                    "role": name,
                    "policy": params.get("PolicyName") or params.get("PolicyArn"),
                },
            )
            try:
                if call.operation == "CreatePolicy":
                    self._create(iam, params)
                else:
                    getattr(iam, _METHODS[call.operation])(**params)
            except NotFound:
                if call.operation not in _DELETES:
                    raise
            except QuotaExceeded:
                if call.operation != "CreatePolicyVersion":
                    raise
                self._make_room(iam, str(params["PolicyArn"]))
                iam.create_policy_version(**params)
            except Conflict as error:
                if call.operation != "DeletePolicy" or error.code != "DeleteConflict":
                    raise
                self._drop_versions(iam, str(params["PolicyArn"]), keep=0)
                iam.delete_policy(**params)

    def _create(self, iam: Any, params: dict[str, Any]) -> None:
        arn = str(params.pop("PolicyArn"))
        try:
            iam.create_policy(**params)
            return
        except Conflict as error:
            if error.code != "EntityAlreadyExists":
                raise
        # Ours already (a run stopped between CreatePolicy and AttachRolePolicy): adopt it.
        current = self._default_document_of_ours(iam, arn)
        desired = json.loads(params["PolicyDocument"])
        if current != desired:
            self._make_room(iam, arn)
            iam.create_policy_version(
                PolicyArn=arn, PolicyDocument=params["PolicyDocument"], SetAsDefault=True
            )
        logger.info("IAM policy adopted", extra={"policy": arn})

    def _default_document_of_ours(self, iam: Any, arn: str) -> Document | None:
        versions = self._versions(iam, arn)
        default = next((v for v in versions if v.is_default), None)
        if default is None:
            return None
        return document(
            iam.get_policy_version(PolicyArn=arn, VersionId=default.version_id)["PolicyVersion"]["Document"]
        )

    def _make_room(self, iam: Any, arn: str) -> None:
        """Delete the oldest non-default version when all five are taken."""
        self._drop_versions(iam, arn, keep=MAX_VERSIONS - 1)

    def _drop_versions(self, iam: Any, arn: str, keep: int) -> None:
        """Delete the oldest non-default versions until at most `keep` are left (the default counted)."""
        versions = self._versions(iam, arn)
        others = sorted((v for v in versions if not v.is_default), key=lambda v: (v.created, v.version_id))
        excess = len(versions) - keep
        for version in others[: max(0, excess)]:
            try:
                iam.delete_policy_version(PolicyArn=arn, VersionId=version.version_id)
            except NotFound:
                continue
