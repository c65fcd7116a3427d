"""The work one decision leaves (a frozen value: a dry run reports it and stops), and applying it.

Each asset of a grant moves through UpdateSubscriptionGrantStatus: GRANT_PENDING -> GRANT_IN_PROGRESS before
anything is written, then GRANTED, or GRANT_FAILED with the cause; revokes likewise through REVOKE_*. A grant
whose writes failed for a transient reason (throttling, 5xx) stays IN_PROGRESS: the failure is reported and
raised, and the next run (a retry, or the schedule) finishes it. A REVOKE_FAILED grant gives nothing already
(it is not standing); it moves to REVOKED once its roles' writes succeed, and is left alone otherwise, so a
permanent failure is not re-announced every hour.

A revoke says REVOKED only when IAM does: every role of the grant was read and its plan written (or the role
is gone). A role that cannot be read or written (decide's `blocked`) makes it REVOKE_FAILED with the role's
cause; so does a revoke whose subscription target was deleted (its roles cannot be named: the reconciling run
finds them from this stack's policies instead, and removes what no standing grant gives).
No role is written for a grant whose move to GRANT_IN_PROGRESS failed: that role's plan waits for the next
run (its other grants stay IN_PROGRESS, reported as transient).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_lineage.access.cluster_policy import ClusterPolicyPlan
from kafka_lineage.access.decide import AccessDecision
from kafka_lineage.access.model import Grant, GrantStatus
from kafka_lineage.access.plan import RolePlan
from kafka_lineage.access.reconcile import Reconciliation
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.grants.convert import calls
from kafka_lineage.grants.ports import GrantPorts, Rendered
from kafka_lineage.grants.result import GrantsResult
from kafka_lineage.grants.world import Unusable, remote
from kafka_lineage.model.failures import (
    AccessDenied,
    AwsError,
    LeaseBusy,
    SourceRoleUnavailable,
    Throttled,
    Unavailable,
    describe_failure,
)

GrantKey = tuple[str, str]
_GRANTING = (GrantStatus.GRANT_PENDING, GrantStatus.GRANT_IN_PROGRESS)
_REVOKING = (GrantStatus.REVOKE_PENDING, GrantStatus.REVOKE_IN_PROGRESS, GrantStatus.REVOKE_FAILED)
_STARTED = {
    GrantStatus.GRANT_PENDING: GrantStatus.GRANT_IN_PROGRESS,
    GrantStatus.REVOKE_PENDING: GrantStatus.REVOKE_IN_PROGRESS,
}
_FAILED = {GrantStatus.GRANTED: GrantStatus.GRANT_FAILED, GrantStatus.REVOKED: GrantStatus.REVOKE_FAILED}
_FAILURES = (GrantStatus.GRANT_FAILED, GrantStatus.REVOKE_FAILED)


class NotStarted(Exception):
    """A grant of the role could not be moved to GRANT_IN_PROGRESS, so the role was not written."""


def transient(error: BaseException) -> bool:
    """A failure a later try may not meet: throttling, 5xx, a connection, a busy lease, an AWS code of no
    known kind, or anything unexpected. A refusal (access denied, invalid, a quota, a role that cannot be
    assumed) is permanent: the grant fails with it as the cause."""
    if isinstance(error, (Throttled, Unavailable, LeaseBusy)) or type(error) is AwsError:
        return True
    return not isinstance(error, (AwsError, SourceRoleUnavailable))


def cluster_policy_hint(error: BaseException) -> str:
    """What a person does when a cluster's policy may not be read or written (AccessDenied): the role that
    writes it is the cluster's source role, or the function's own for a cluster of its own account."""
    if not isinstance(error, AccessDenied):
        return ""
    return (
        "; for a cluster in a source account, deploy that account's source stack with grantAccess: true and "
        "the cluster in its clusters (kafkaLineageSource), and add this function's role (output "
        "SubscriptionGrantsRoleArn) to its trustedRoleArns"
    )


@dataclass(frozen=True)
class Move:
    """One asset of one grant, from its status to `final` (GRANTED, GRANT_FAILED or REVOKED)."""

    grant_id: str
    asset_id: str
    status: GrantStatus
    final: GrantStatus
    cause: str | None = None
    roles: tuple[str, ...] = ()
    cluster_arn: str | None = None
    topic: str | None = None
    remote: bool = False

    @property
    def key(self) -> GrantKey:
        return (self.grant_id, self.asset_id)

    def item(self, **more: Any) -> dict[str, Any]:
        found: dict[str, Any] = {"grantId": self.grant_id, "assetId": self.asset_id}
        if self.topic is not None:
            found.update(topic=self.topic, clusterArn=self.cluster_arn)
        if self.roles:
            found["roles"] = list(self.roles)
        return {**found, **{k: v for k, v in more.items() if v is not None}}


@dataclass(frozen=True)
class Work:
    """Everything one decision asks to write, in order: status moves, role plans, cluster policies."""

    moves: tuple[Move, ...]
    plans: tuple[RolePlan, ...]
    cluster_plans: tuple[ClusterPolicyPlan, ...]
    kept: tuple[Grant, ...]
    withheld: Mapping[str, str]
    warnings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not (self.moves or self.plans or self.cluster_plans)

    def writes(self) -> int:
        started = sum(1 for move in self.moves if move.status in _STARTED)
        return started + len(self.moves) + sum(len(p.writes) for p in self.plans) + len(self.cluster_plans)


def work_of(
    grants: Iterable[Grant],
    unusable: Iterable[Unusable],
    reconciliation: Reconciliation,
    skipped_clusters: Iterable[str] = (),
) -> Work:
    """The moves and writes a reconciliation asks for (cluster plans of `skipped_clusters` left out: their
    policy could not be read, and their grants were refused for it)."""
    decision = reconciliation.decision
    moves = [move for grant in sorted(grants, key=lambda g: g.key) if (move := _grant_move(grant, decision))]
    moves += [
        move for item in sorted(unusable, key=lambda u: u.key) if (move := _unusable_move(item, decision))
    ]
    skipped = set(skipped_clusters)
    return Work(
        moves=tuple(moves),
        plans=tuple(plan for plan in decision.plans if not plan.empty),
        cluster_plans=tuple(p for p in reconciliation.cluster_plans if p.cluster_arn not in skipped),
        kept=decision.kept,
        withheld={**decision.withheld, **reconciliation.withheld},
        warnings=decision.warnings,
    )


def _grant_move(grant: Grant, decision: AccessDecision) -> Move | None:
    final: GrantStatus | None = None
    cause: str | None = None
    if grant.key in decision.refused and grant.status in _GRANTING:
        final, cause = GrantStatus.GRANT_FAILED, decision.refused[grant.key]
    elif grant.key in decision.granted and grant.status in _GRANTING:
        final = GrantStatus.GRANTED
    elif grant.key in decision.revoke_failed and grant.status in _REVOKING:
        if grant.status == GrantStatus.REVOKE_FAILED:
            return None  # said already; the reconciling run tries again each time
        final, cause = GrantStatus.REVOKE_FAILED, decision.revoke_failed[grant.key]
    elif grant.key in decision.revoked and grant.status in _REVOKING:
        final = GrantStatus.REVOKED
    if final is None:
        return None
    return Move(
        *grant.key,
        grant.status,
        final,
        cause,
        roles=grant.principals,
        cluster_arn=grant.cluster_arn,
        topic=grant.topic,
        remote=remote(grant),
    )


def _unusable_move(item: Unusable, decision: AccessDecision) -> Move | None:
    if item.status in _GRANTING:
        return Move(*item.key, item.status, GrantStatus.GRANT_FAILED, item.cause)
    if item.status not in _REVOKING:
        return None
    if item.principals is None:
        cause = (
            f"{item.cause}; this stack cannot tell which roles its revoke concerns: its reconciling run "
            "removes the access no standing grant gives from every role holding this stack's policies "
            "(found from the policies themselves), and `kafka-lineage access` shows what is left"
        )
        blocked: str | None = cause
    else:
        blocked = next((decision.blocked[r] for r in item.principals if r in decision.blocked), None)
    if blocked is not None:
        if item.status == GrantStatus.REVOKE_FAILED:
            return None
        return Move(*item.key, item.status, GrantStatus.REVOKE_FAILED, blocked, roles=item.principals or ())
    return Move(*item.key, item.status, GrantStatus.REVOKED, roles=item.principals or ())


def report_findings(work: Work, result: GrantsResult) -> None:
    """The roles and clusters left as they are, and the warnings, with why (every run reports them)."""
    for resource, why in work.withheld.items():
        result.withhold({"resource": resource, "cause": why})
    for role, warned in work.warnings.items():
        for warning in warned:
            result.warn({"role": role, "warning": warning})


def report_plan(work: Work, result: GrantsResult) -> None:
    """A dry run: the work as it would be done, nothing written."""
    for move in work.moves:
        result.plan(move.item(status=move.final.value, cause=move.cause))
    for plan in work.plans:
        result.plan({"role": plan.role_arn, "writes": [type(w).__name__ for w in plan.writes]})
    for cluster in work.cluster_plans:
        result.plan(
            {
                "clusterArn": cluster.cluster_arn,
                "write": "DeleteClusterPolicy" if cluster.delete else "PutClusterPolicy",
            }
        )


class Applier:
    """Applies one Work: moves each asset to IN_PROGRESS, writes the roles and cluster policies, then each
    asset's final status from how its roles' and cluster's writes went."""

    def __init__(self, ports: GrantPorts, access: AccessSettings, result: GrantsResult) -> None:
        self._ports = ports
        self._access = access
        self._result = result

    def apply(self, work: Work) -> None:
        report_findings(work, self._result)
        moving = [move for move in work.moves if self._start(move)]
        failed = self._not_started(work, moving)
        for plan in work.plans:
            if plan.role_arn in failed:
                continue
            try:
                self._ports.roles.apply(plan.role_arn, calls(plan))
                self._result.count_writes(len(plan.writes))
            except Exception as error:  # one role's failure is its grants' outcome, not the run's end
                failed[plan.role_arn] = error
        for cluster_plan in work.cluster_plans:
            if cluster_plan.cluster_arn in failed:
                continue
            try:
                self._ports.clusters.update(cluster_plan.cluster_arn, self._render(cluster_plan))
                self._result.count_writes()
            except Exception as error:
                failed[cluster_plan.cluster_arn] = error
        for move in moving:
            self._finish(move, failed)

    @staticmethod
    def _not_started(work: Work, moving: list[Move]) -> dict[str, BaseException]:
        """The roles (and clusters) of each grant whose move to GRANT_IN_PROGRESS failed: not written."""
        started = {move.key for move in moving}
        failed: dict[str, BaseException] = {}
        for move in work.moves:
            if move.status == GrantStatus.GRANT_PENDING and move.key not in started:
                why = NotStarted(f"grant {move.grant_id} could not be moved to GRANT_IN_PROGRESS")
                failed.update(dict.fromkeys(move.roles, why))
                if move.remote and move.cluster_arn:
                    failed[move.cluster_arn] = why
        return failed

    @staticmethod
    def _render(plan: ClusterPolicyPlan) -> Callable[[Mapping[str, Any] | None], Rendered]:
        def render(current: Mapping[str, Any] | None) -> Rendered:
            again = plan.again(current)  # on every read: a conflict re-merges
            return again.changed, again.document

        return render

    def _set(self, move: Move, status: GrantStatus, cause: str | None = None) -> bool:
        try:
            self._ports.catalog.set_status(move.grant_id, move.asset_id, status.value, cause)
            self._result.count_writes()
            return True
        except Exception as error:
            doing = f"UpdateSubscriptionGrantStatus to {status.value}"
            self._result.fail(
                move.item(cause=f"{doing}: {describe_failure(error)}"), transient=transient(error)
            )
            return False

    def _start(self, move: Move) -> bool:
        started = _STARTED.get(move.status)
        return started is None or self._set(move, started)

    def _finish(self, move: Move, failed: Mapping[str, BaseException]) -> None:
        if move.final in _FAILURES:
            if self._set(move, move.final, move.cause):
                status = move.final.value if move.final == GrantStatus.REVOKE_FAILED else None
                self._result.fail(move.item(status=status, cause=move.cause))
            return
        blocking = [(who, failed[who]) for who in (*move.roles, move.cluster_arn or "") if who in failed]
        if not move.remote:
            blocking = [(who, error) for who, error in blocking if who != move.cluster_arn]
        if not blocking:
            if self._set(move, move.final):
                (self._result.grant if move.final == GrantStatus.GRANTED else self._result.revoke)(
                    move.item()
                )
            return
        who, error = blocking[0]
        cause = f"writing the access of {who} failed: {describe_failure(error)}"
        if who == move.cluster_arn:
            cause += cluster_policy_hint(error)
        if transient(error) or move.status == GrantStatus.REVOKE_FAILED:
            self._result.fail(move.item(cause=cause), transient=transient(error))  # left for the next run
        elif self._set(move, _FAILED[move.final], cause):
            self._result.fail(move.item(cause=cause))
