"""Access this stack wrote that it may no longer take away: roles holding its policies (or named by grants
that may have given them access) which `access.consumerRoles` no longer admits. The function's IAM is
synthesized from that setting, so it can neither read nor write such a role: the access stays until a person
removes it, or admits the role again (the next reconciling run then removes what no standing grant gives).

`left_behind` is pure: the subscription-grants run reports its answer under `withheld`, and the command
line (`kafka-lineage access`, `doctor`) can call it with what it reads, e.g.

    holders = {name: arns for name, arns in IamRoles(...).policy_holders(account, naming.path,
               naming.prefix).items()}                  # role name -> our managed policies attached
    for item in left_behind(roles_of_account, holders, grants, settings, naming):
        print(item.role_arn, item.cause, *item.clean, sep="\\n")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kafka_lineage.access.arns import RoleArn
from kafka_lineage.access.guards import role_refusal
from kafka_lineage.access.model import Grant, GrantStatus, Naming
from kafka_lineage.access.settings import AccessSettings

# A grant in these statuses may have written access to its roles.
MAY_HAVE_WRITTEN = frozenset(
    {
        GrantStatus.GRANT_IN_PROGRESS,
        GrantStatus.GRANTED,
        GrantStatus.REVOKE_PENDING,
        GrantStatus.REVOKE_IN_PROGRESS,
        GrantStatus.REVOKE_FAILED,
    }
)


@dataclass(frozen=True)
class LeftBehind:
    """A role that holds (or may hold) this stack's access and that `access.consumerRoles` no longer
    admits: what is known of it (`policies`: our managed policies attached; `grants`: the grants naming it),
    why it is left, and the AWS CLI commands that clean it (run them in the role's account)."""

    role_arn: str
    policies: tuple[str, ...]
    grants: tuple[str, ...]
    cause: str
    clean: tuple[str, ...]


def clean_commands(
    role_name: str, inline: str | None, managed: Sequence[tuple[str, Sequence[str] | None]]
) -> tuple[str, ...]:
    """The AWS CLI commands that remove this stack's access from a role, in an order IAM accepts: its inline
    policy (`None`: it does not hold it), then each managed policy (ARN, its non-default version ids; `None`
    where they were not read) detached, its non-default versions deleted (IAM refuses to delete a policy
    that has some), and deleted. One definition for the run's `withheld` entries and the command line."""
    commands = []
    if inline is not None:
        commands.append(f"aws iam delete-role-policy --role-name {role_name} --policy-name {inline}")
    for arn, versions in managed:
        commands.append(f"aws iam detach-role-policy --role-name {role_name} --policy-arn {arn}")
        if versions is None:
            commands.append(
                f"aws iam delete-policy --policy-arn {arn}  # delete its non-default versions first, if any"
            )
            continue
        commands += [f"aws iam delete-policy-version --policy-arn {arn} --version-id {v}" for v in versions]
        commands.append(f"aws iam delete-policy --policy-arn {arn}")
    return tuple(commands)


def _clean(role_name: str, policies: Sequence[str], naming: Naming) -> tuple[str, ...]:
    # What the role holds is not read here: its inline policy may be there, its versions are unknown.
    inline = f"{naming.inline_name}  # if present (NoSuchEntity otherwise)"
    return clean_commands(role_name, inline, [(arn, None) for arn in policies])


def left_behind(
    roles: Iterable[str],
    holders: Mapping[str, Sequence[str]],
    grants: Iterable[Grant],
    settings: AccessSettings,
    naming: Naming,
) -> tuple[LeftBehind, ...]:
    """The roles not admitted by `access.consumerRoles` that hold this stack's managed policies (`holders`,
    by role name, from `policy_holders`; `roles`: the role ARNs of that account, to name them), or that
    grants which may have written access name. Sorted by ARN."""
    by_name: dict[str, str] = {}
    for arn in roles:
        by_name.setdefault(RoleArn.parse(arn).name, arn)
    found: dict[str, tuple[set[str], set[str]]] = {}
    for name, attached in holders.items():
        holder = by_name.get(name)
        if holder is not None and role_refusal(holder, settings) is not None:
            found.setdefault(holder, (set(), set()))[0].update(attached)
    for grant in grants:
        if grant.status not in MAY_HAVE_WRITTEN:
            continue
        for principal in grant.principals:
            if role_refusal(principal, settings) is not None:
                found.setdefault(principal, (set(), set()))[1].add(grant.grant_id)
    items: list[LeftBehind] = []
    for arn, (policies, named) in sorted(found.items()):
        refusal = role_refusal(arn, settings) or ""
        cause = (
            f"{refusal}: this stack can no longer read or write it, so the access it wrote there stays. "
            "Admit it again in access.consumerRoles (the next reconciling run removes what no standing grant "
            "gives), "
            f"or remove this stack's policies from it by hand (inline {naming.inline_name}, managed "
            f"{naming.prefix}-{RoleArn.parse(arn).name}-<n> under {naming.path})"
        )
        ordered = tuple(sorted(policies))
        items.append(
            LeftBehind(
                arn, ordered, tuple(sorted(named)), cause, _clean(RoleArn.parse(arn).name, ordered, naming)
            )
        )
    return tuple(items)
