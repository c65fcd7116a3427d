"""Roles that still hold access this stack wrote, but that `access.consumerRoles` no longer admits: what
`kafka-lineage access` and `kafka-lineage doctor` name, each with the IAM commands that remove it.

The function writes only the roles `consumerRoles` admits. Narrow the setting, and what it wrote to a role
it no longer admits stays: that role can still read its topics, and no run of the function touches it
again. So this reads IAM itself, in the caller's account (IAM is per account), with the function's own
names for its policies (`Naming`: the inline policy's name, the managed policies' path and names) and its
own reader of a role (`IamRoles`), never restating either:

- our managed policies: ListPolicies (Scope Local, PathPrefix the stack's IAM path, OnlyAttached), those
  the stack's names recognise, then ListEntitiesForPolicy (EntityFilter Role) and GetRole for each role's
  ARN (IAM answers the role's name and id only). This finds every role holding one, whatever DataZone says;
- our inline policy: IAM cannot list the roles that hold an inline policy of a given name (only
  GetAccountAuthorizationDetails answers it, by reading every policy of every role in the account, a
  permission audits rarely grant), so the candidates are the roles the domain's grants name (the caller
  passes them), each read whole.

A role is named when, read, it holds our inline policy or one of our managed policies; a role that cannot be
read is named too, as not read, since it may. The commands remove
exactly those: DeleteRolePolicy; DetachRolePolicy, then each non-default version (IAM refuses to delete a
policy that has some), then DeletePolicy.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.access.arns import RoleArn
from kafka_lineage.access.model import Naming
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.aws.iam_roles import IamRoles
from kafka_lineage.model.failures import AwsError, NotFound
from kafka_lineage.model.iam import ManagedPolicy, RoleRecord


@dataclass(frozen=True)
class Unadmitted:
    """A role of the caller's account that holds our policies and that `consumerRoles` does not admit."""

    role: str
    inline: str | None  # our inline policy's name, when the role has it
    managed: tuple[ManagedPolicy, ...] = ()  # ours, attached
    unread: str | None = None  # the role could not be read (AWS's error code): what it holds is unknown

    def commands(self) -> list[str]:
        """The AWS CLI commands that remove what this stack wrote to the role, in order."""
        name = RoleArn.parse(self.role).name
        found = []
        if self.inline is not None:
            found.append(f"aws iam delete-role-policy --role-name {name} --policy-name {self.inline}")
        for policy in self.managed:
            found.append(f"aws iam detach-role-policy --role-name {name} --policy-arn {policy.arn}")
            found += [
                f"aws iam delete-policy-version --policy-arn {policy.arn} --version-id {version.version_id}"
                for version in policy.versions
                if not version.is_default
            ]
            found.append(f"aws iam delete-policy --policy-arn {policy.arn}")
        return found

    def to_json(self) -> dict[str, Any]:
        if self.unread is not None:
            name = RoleArn.parse(self.role).name
            checks = [
                f"aws iam list-role-policies --role-name {name}",
                f"aws iam list-attached-role-policies --role-name {name}",
            ]
            return {"role": self.role, "policies": f"not read ({self.unread})", "clean": checks}
        policies = ([self.inline] if self.inline else []) + [policy.arn for policy in self.managed]
        return {"role": self.role, "policies": policies, "clean": self.commands()}


def held(record: RoleRecord, naming: Naming) -> Unadmitted | None:
    """What of the stack's the role holds (recognised by name and path only, as the function does)."""
    name = RoleArn.parse(record.role_arn).name
    inline = naming.inline_name if naming.inline_name in record.inline else None
    managed = tuple(
        policy
        for policy in record.managed
        if policy.attached and naming.managed_index(name, policy.name, policy.path) is not None
    )
    return Unadmitted(record.role_arn, inline, managed) if inline or managed else None


def managed_holders(iam: Any, naming: Naming) -> Iterator[str]:
    """The names of the roles our managed policies are attached to, in the client's account."""
    listing = iam.get_paginator("list_policies")
    pages = listing.paginate(Scope="Local", PathPrefix=naming.path, OnlyAttached=True)
    for page in pages:
        for policy in page.get("Policies", []):
            # Ours are `<prefix>-<roleName>-<n>`; managed_index confirms it once the role is known.
            if not str(policy.get("PolicyName", "")).startswith(f"{naming.prefix}-"):
                continue
            entities = iam.get_paginator("list_entities_for_policy").paginate(
                PolicyArn=policy["Arn"], EntityFilter="Role"
            )
            for listed in entities:
                for role in listed.get("PolicyRoles", []):
                    yield str(role["RoleName"])


def find(
    iam: Any,
    access: AccessSettings,
    naming: Naming,
    account: str,
    candidates: Iterable[str] = (),
    read: Mapping[str, RoleRecord | None] | None = None,
) -> list[Unadmitted]:
    """The roles of `account` that hold our policies and that `access` does not admit: those our managed
    policies are attached to, and those of `candidates` (role ARNs: the roles the grants name) that hold
    our inline policy. `read`: records the caller read already (not read again). `iam` is the account's
    IAM client (instrumented: AWS errors arrive typed)."""
    records = dict(read or {})
    roles = IamRoles(lambda _account: iam, naming.path)
    arns = {arn for arn in candidates if _in(arn, account)}
    for name in sorted(set(managed_holders(iam, naming))):
        try:
            arns.add(str(iam.get_role(RoleName=name)["Role"]["Arn"]))
        except NotFound:
            continue  # deleted since the listing
    found = []
    for arn in sorted(arns):
        if access.admits_role(arn):
            continue  # the function keeps its access as the grants say
        try:
            record = records[arn] if arn in records else roles.read(arn)
        except AwsError as error:  # not readable with these credentials: named, never taken as clean
            found.append(Unadmitted(arn, None, unread=error.code))
            continue
        holding = held(record, naming) if record is not None else None
        if holding is not None:
            found.append(holding)
    return found


def _in(arn: str, account: str) -> bool:
    try:
        return RoleArn.parse(arn).account == account
    except ValueError:
        return False
