"""The whole reconciliation: each role's IAM plan, each cluster's policy, each grant's outcome.

A grant to a role in another account needs the cluster's policy as well as the role's own. The cluster
policies are merged first: a cluster whose policy would pass MSK's limit refuses the pending cross-account
grants on it, and the roles are then decided without them. When even the granted ones alone pass the
limit, the cluster's policy is left as it is and the cluster is reported under `withheld`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kafka_lineage.access.arns import ClusterArn, RoleArn
from kafka_lineage.access.cluster_policy import ClusterPolicyPlan, ClusterPolicyTooLarge, consumers, merge
from kafka_lineage.access.decide import AccessDecision, GrantKey, decide
from kafka_lineage.access.model import Grant, GrantStatus, Naming, RoleState
from kafka_lineage.access.settings import AccessSettings


@dataclass(frozen=True)
class Reconciliation:
    """The role decision, the cluster policies to write (only those that change), and the clusters whose
    policy is left as it is, with why."""

    decision: AccessDecision
    cluster_plans: tuple[ClusterPolicyPlan, ...]
    withheld: Mapping[str, str]


def _remote(grant: Grant) -> bool:
    account = ClusterArn.parse(grant.cluster_arn).account
    return any(RoleArn.parse(principal).account != account for principal in grant.principals)


def _merge_all(
    kept: tuple[Grant, ...],
    policies: Mapping[str, Mapping[str, Any] | None],
    settings: AccessSettings,
    naming: Naming,
) -> tuple[dict[str, ClusterPolicyPlan], dict[str, str]]:
    plans: dict[str, ClusterPolicyPlan] = {}
    too_large: dict[str, str] = {}
    clusters = sorted({g.cluster_arn for g in kept if _remote(g)} | set(policies))
    by_account = settings.cluster_policy_principals == "account"
    for cluster in clusters:
        try:
            granted = consumers(cluster, kept, settings)
            plans[cluster] = merge(
                cluster, policies.get(cluster), granted, token=naming.token, by_account=by_account
            )
        except ClusterPolicyTooLarge as error:
            too_large[cluster] = str(error)
    return plans, too_large


def reconcile(
    grants: Iterable[Grant],
    states: Mapping[str, RoleState],
    policies: Mapping[str, Mapping[str, Any] | None],
    settings: AccessSettings,
    naming: Naming,
    *,
    refused_before: Mapping[GrantKey, str] | None = None,
    unreadable: Mapping[str, str] | None = None,
) -> Reconciliation:
    """Decide the roles, then merge the cluster policies (`policies`: each cluster's current policy, None
    when it has none, for every cluster a grant names or that holds statements of ours).
    `refused_before`: grants already refused for a cause found outside (a cluster that cannot be reached);
    `unreadable`: roles that could not be read, with why (their revokes cannot complete)."""
    every = list(grants)
    decision = decide(every, states, settings, naming, refused_before=refused_before, unreadable=unreadable)
    plans, too_large = _merge_all(decision.kept, policies, settings, naming)
    if too_large:
        refused: dict[GrantKey, str] = dict(decision.refused)
        for grant in decision.kept:
            if grant.cluster_arn in too_large and grant.status != GrantStatus.GRANTED and _remote(grant):
                refused[grant.key] = too_large[grant.cluster_arn]
        decision = decide(every, states, settings, naming, refused_before=refused, unreadable=unreadable)
        plans, too_large = _merge_all(decision.kept, policies, settings, naming)
    changed = tuple(plan for _, plan in sorted(plans.items()) if plan.changed)
    return Reconciliation(decision, changed, dict(sorted(too_large.items())))
