"""Finding the roles that hold this stack's access from its policies themselves, not only from the grants:
a grant deleted, or whose listing or subscription target is gone, names no role any more, yet the access it
gave stays in IAM. A reconciling run sweeps each account it knows of:

- the managed policies this stack names (`<prefix>-<roleName>-<n>` under its path) and the roles they are
  attached to (ListPolicies, ListEntitiesForPolicy);
- the inline policy this stack names on each role that `access.consumerRoles` admits and no grant names
  (ListRoles, then GetRolePolicy for each such role: the costly part, one call per role).

Admitted holders are settled with the others (their access is rendered again from the grants that stand, so
what no grant gives goes). The others are `left_behind` (access.leftovers): reported, never written.

Accounts swept: those `access.consumerRoles` names explicitly, and those of every role the domain's grants of
this stack's type name (standing or not) or whose listing is gone. An account that only a `*` pattern names
and that no grant names any more is not swept (known limit: nothing points to it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass, field

from kafka_lineage.access.arns import RoleArn, role_accounts
from kafka_lineage.access.leftovers import LeftBehind, left_behind
from kafka_lineage.access.model import Grant, Naming
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.grants.ports import RoleStore


@dataclass(frozen=True)
class Sweep:
    """What a sweep found: admitted roles holding this stack's policies, roles left behind, and the accounts
    that could not be swept, with the error."""

    holders: frozenset[str] = frozenset()
    left: tuple[LeftBehind, ...] = ()
    failed: dict[str, BaseException] = field(default_factory=dict)


def accounts_of(settings: AccessSettings, principals: Iterable[str]) -> set[str]:
    """The accounts to sweep: those the patterns name, and those of the roles grants name."""
    return ({pattern.split(":")[4] for pattern in settings.consumer_roles} - {"*"}) | role_accounts(
        principals
    )


def _account(arn: str) -> str:
    return RoleArn.parse(arn).account


def sweep(
    store: RoleStore,
    accounts: Iterable[str],
    known: Collection[str],
    grants: Iterable[Grant],
    settings: AccessSettings,
    naming: Naming,
) -> Sweep:
    """Sweep each account (`known`: the roles grants name, read anyway: no GetRolePolicy for them). One
    account's failure is its own: the others are swept."""
    grants = list(grants)
    holders: set[str] = set()
    left: list[LeftBehind] = []
    failed: dict[str, BaseException] = {}
    for account in sorted(accounts):
        try:
            roles = store.account_roles(account)
            managed = store.policy_holders(account, naming.path, naming.prefix)
        except Exception as error:  # reported by the run; the other accounts go on
            failed[account] = error
            continue
        by_name = {RoleArn.parse(arn).name: arn for arn in roles}
        admitted = {arn for arn in roles if settings.admits_role(arn)}
        found = {by_name[name] for name in managed if by_name.get(name) in admitted}
        for arn in sorted(admitted - set(known) - found):
            try:
                if store.holds_inline(arn, naming.inline_name):
                    found.add(arn)
            except Exception as error:
                failed[arn] = error
        holders |= found
        mine = [g for g in grants if any(_account(p) == account for p in g.principals if _is_role(p))]
        left += [
            item
            for item in left_behind(roles, managed, mine, settings, naming)
            if _account(item.role_arn) == account
        ]
    return Sweep(frozenset(holders), tuple(left), failed)


def _is_role(arn: str) -> bool:
    try:
        RoleArn.parse(arn)
    except ValueError:
        return False
    return True
