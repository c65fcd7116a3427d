"""The subscription-grants run, told as its story: read -> decide -> apply (or stop: a dry run) -> report.

- **An event** names a grant: only its id and domain are taken; the grant, its listing, target and
  environment are read from DataZone. Another domain's event, or a grant on assets of another type, is
  ignored and reported, and nothing is written.
- **A reconciling run** (`{}` or the schedule) lists every grant, groups the roles into the sets one decision
  must see together (`world.scope_of`), and settles each group in turn: grants still pending or in progress
  are finished, and every role's access is rendered again from the grants that stand (a policy deleted by
  hand comes back, a revoked grant's access goes). It counts grants stuck for over an hour (GrantsStuck).
  It starts a group only while the deadline leaves time for the longest group so far; otherwise it stops,
  `incomplete`, and the handler hands `resumeAfter` (the last group finished) to a follow-up invocation.
- **Settling a group**: read the grants (a fresh listing), the roles' IAM state and the cluster policies;
  decide (`access.reconcile`); nothing to do -> nothing written, no lease taken. Work to do -> hold the
  lease of every role in the group, read again under it, decide again, apply. A group that grows under
  the lease (a grant came in naming another role) is leased again, wider.

What it costs (measured in tests/unit/grants): one grant from its event to GRANTED, in a domain of a few
grants, is 11 DataZone and IAM calls. The access logic needs every grant naming the roles, and
ListSubscriptionGrants has no filter by role (50 a page at 3 TPS): an event lists the domain once (about
N/50 calls in a domain of N grants), and a reconciling run lists it once for all its groups. A group is
listed again under its leases only when another run wrote one of its roles after the listing began
(`RoleLeases.hold(...).written_since`): the lease's previous generation says when.
Roles are also found from this stack's policies (`grants.holders`, each reconciling run): a role whose every
grant was deleted, or whose grant's listing or target is gone, is rendered again and loses what no standing
grant gives. Known limit: a managed policy of ours left unattached by a stopped run is adopted when it is
needed again, never deleted otherwise.

One writer per role: why a lease, and not an SQS FIFO queue grouped by role. A FIFO queue orders the
events of one role, but the reconciling run writes every role too, outside the queue, and an event names a
grant, not its roles (they are read from the subscription target), so events could not be grouped by role
before they are read. The per-role SSM lease (`aws.lease`, `{MAPPING_PATH}/config/lease/
subscription-grants-<hash of the role ARN>`) covers both: whoever writes a role holds its lease, and reads
the role (and, when another run wrote it since its listing, the grants) again once it holds it, so no run
renders a role from a listing older than the last write. A run that cannot get a lease within the wait (the
engine's one wait, kafka_lineage.engine.lease) is `Deferred`, like the other runs: its result says
`deferred: busy` and the handler hands its event on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from kafka_lineage.access.decide import not_admitted
from kafka_lineage.access.model import Grant, GrantStatus, RoleState
from kafka_lineage.access.reconcile import reconcile
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.lease import Deferred, wait_within
from kafka_lineage.grants.apply import (
    Applier,
    Move,
    Work,
    cluster_policy_hint,
    report_findings,
    report_plan,
    transient,
    work_of,
)
from kafka_lineage.grants.convert import role_state
from kafka_lineage.grants.holders import accounts_of, sweep
from kafka_lineage.grants.ports import GrantPorts
from kafka_lineage.grants.requests import GrantEvent, GrantRequest
from kafka_lineage.grants.result import GrantsResult
from kafka_lineage.grants.settings import STUCK_SECONDS, GrantSettings
from kafka_lineage.grants.world import ACTIVE, Resolver, Scope, Unusable, remote, scope_of
from kafka_lineage.model import clock
from kafka_lineage.model.failures import LeaseBusy, describe_failure
from kafka_lineage.model.subscriptions import GrantRecord
from kafka_lineage.observability import logger

_GRANTING = (GrantStatus.GRANT_PENDING, GrantStatus.GRANT_IN_PROGRESS)
# A group whose roles grow under the lease is leased again, wider, at most this many times.
LEASE_ROUNDS = 3


@dataclass(frozen=True)
class Listing:
    """Every grant of the domain, and when (on the leases' clock) the listing started."""

    records: tuple[GrantRecord, ...]
    mark: float


def _utcnow() -> datetime:
    return datetime.now(UTC)


class GrantRun:
    """subscription-grants' run (the run contract, engine/run.py): `execute(request, deadline)`. A dry
    run's ports refuse every write (`GrantPorts.dry_run`): it decides, and reports the plan."""

    def __init__(
        self, settings: GrantSettings, ports: GrantPorts, now: Callable[[], datetime] = _utcnow
    ) -> None:
        self._settings = settings
        self._ports = ports
        self._deadline = Deadline.never()  # the invocation's, given to `execute`
        self._now = now
        self._longest = 0.0  # the longest group settled so far, in seconds

    def execute(self, request: GrantRequest, deadline: Deadline) -> GrantsResult:
        self._deadline = deadline
        result = GrantsResult(dry_run=request.dry_run, trigger=request.trigger)
        for reason in request.malformed:
            result.reject(reason)
        resolver = Resolver(self._ports.catalog, self._settings.asset_type_name)
        for event in request.events:
            self._guarded(partial(self._event, event, resolver, result), result, grantId=event.grant_id)
        if request.reconcile:
            self._guarded(lambda: self._reconcile(request.resume_after, resolver, result), result)
        return result

    # ------------------------------------------------------------------------------------------ the story
    def _event(self, event: GrantEvent, resolver: Resolver, result: GrantsResult) -> None:
        if event.domain != self._settings.domain_id:
            reason = f"the event is for domain {event.domain}, not this stack's {self._settings.domain_id}"
            result.ignore({"grantId": event.grant_id, "reason": reason})
            return
        record = self._ports.catalog.grant(event.grant_id)
        if record is None:
            result.ignore({"grantId": event.grant_id, "reason": "the grant does not exist (any more)"})
            return
        resolved = resolver.resolve(record)
        if not resolved.ours:
            reason = f"listing {record.listing_id} holds no asset of type {self._settings.asset_type_name}"
            result.ignore({"grantId": event.grant_id, "reason": reason})
            return
        if not resolved.grants and not resolved.unusable:
            reason = "the grant lists none of its listing's assets yet; the reconciling run finishes it"
            result.ignore({"grantId": event.grant_id, "reason": reason})
            return
        active = any(asset.status in ACTIVE for asset in record.assets)
        self._settle(set(resolved.principals), resolved.unusable, resolver, result, leased=active)

    def _reconcile(self, resume_after: str | None, resolver: Resolver, result: GrantsResult) -> None:
        listing = self._list()
        holders = self._holders(listing.records, resolver, result)  # each invocation: its groups need them
        scopes = self._scopes(listing.records, resolver, result, holders)
        last: str | None = None
        for scope in scopes:
            if resume_after is not None and scope.key <= resume_after:
                continue
            if self._late():
                result.incomplete, result.resume_after = True, last
                logger.warning("reconciling run stopped before its deadline", extra={"resumeAfter": last})
                return
            started = clock.monotonic()
            settle = partial(
                self._settle,
                scope.roles,
                scope.unusable.values(),
                resolver,
                result,
                leased=False,
                first=listing,
            )
            self._guarded(settle, result, group=scope.key)
            self._longest = max(self._longest, clock.monotonic() - started)
            last = scope.key

    def _holders(self, records: Sequence[GrantRecord], resolver: Resolver, result: GrantsResult) -> set[str]:
        """The admitted roles holding this stack's policies (`grants.holders`); the roles left behind and the
        accounts that could not be swept are reported."""
        grants: list[Grant] = []
        principals: set[str] = set()
        accounts = set(self._settings.cluster_accounts)
        for record in records:
            resolved = resolver.resolve(record)
            if resolved.ours:
                grants += resolved.grants
                principals.update(resolved.principals)
                accounts.update(g.account for g in resolved.grants)
                accounts.update(g.cluster.account for g in resolved.grants)
            elif resolver.listing(record) is None and (target := resolver.target(record)) is not None:
                principals.update(target.principals)  # its listing is gone: its roles may hold access
        access = self._settings.access
        accounts |= accounts_of(access, principals)
        swept = sweep(self._ports.roles, accounts, principals, grants, access, self._settings.naming)
        for item in swept.left:
            result.withhold({"resource": item.role_arn, "cause": item.cause, "clean": list(item.clean)})
        for where, error in swept.failed.items():
            cause = f"finding the roles holding this stack's access in {where}: {describe_failure(error)}"
            if transient(error):
                result.fail({"resource": where, "cause": cause}, transient=True)
            else:  # a setting or a permission to fix: said every run, not counted as a failed grant
                result.withhold({"resource": where, "cause": cause})
        return set(swept.holders)

    def _scopes(
        self, records: Sequence[GrantRecord], resolver: Resolver, result: GrantsResult, holders: set[str]
    ) -> list[Scope]:
        """Every group of roles one decision settles, in order; grants naming no role in a group of their own,
        and each holder of this stack's policies. Counts the grants stuck for over an hour on the way."""
        roles: set[str] = set(holders)
        orphans = Scope()
        stuck_before = self._now() - timedelta(seconds=STUCK_SECONDS)
        for record in records:
            resolved = resolver.resolve(record)
            if not resolved.ours:
                continue
            if record.updated_at is not None and record.updated_at < stuck_before:
                result.stuck += sum(1 for asset in record.assets if asset.status in ACTIVE)
            roles.update(resolved.principals)
            if not resolved.principals:
                orphans.unusable.update((item.key, item) for item in resolved.unusable)
        scopes = [orphans] if orphans.unusable else []
        done: set[str] = set()
        for role in sorted(roles):
            if role not in done:
                scope = scope_of({role}, records, resolver)
                done |= scope.roles
                scopes.append(scope)
        return sorted(scopes, key=lambda s: s.key)

    def _settle(
        self,
        roles: set[str],
        unusable: Iterable[Unusable],
        resolver: Resolver,
        result: GrantsResult,
        *,
        leased: bool,
        first: Listing | None = None,
    ) -> None:
        """Read, decide, and apply one group of roles (under their leases when there is work).

        Under the leases the grants are listed again only when another run may have written one of the
        roles since the listing in hand was taken (`written_since`): a reconciling run lists the domain
        once, not once per group, and no decision is made from a listing older than a role's last write."""
        extra = {item.key: item for item in unusable}
        listing = first
        for _ in range(LEASE_ROUNDS):
            held = sorted(roles) if leased else []  # a dry run's leases hold nothing (GrantPorts.dry_run)
            with self._ports.leases.hold(held, self._lease_wait()) if held else nullcontext() as leases:
                if listing is None or (leases is not None and leases.written_since(listing.mark)):
                    listing = self._list()
                scope = scope_of(roles, listing.records, resolver)
                scope.unusable.update(extra)
                if held and not scope.roles <= set(held):
                    roles = scope.roles  # a grant came in naming another role: lease it too
                    continue
                work = self._decide(scope)
                if result.dry_run:  # the plan alone
                    report_plan(work, result)
                    return
                if work.empty:
                    report_findings(work, result)
                    result.count_unchanged(len(scope.grants))
                    return
                if not held and (scope.roles or roles):
                    leased, roles = True, scope.roles | roles  # work to do: again, under the leases
                    continue
                # (held, or no role at all: grants that name none only change status)
                Applier(self._ports, self._settings.access, result).apply(work)
                return
        raise LeaseBusy(
            f"the roles of this grant kept changing while their leases were taken: {sorted(roles)}"
        )

    def _lease_wait(self) -> float:
        return wait_within(self._deadline, self._settings.lease_wait_seconds)

    def _list(self) -> Listing:
        mark = self._ports.leases.mark()  # before the first page: a write after it is not in the listing
        return Listing(tuple(self._ports.catalog.grants()), mark)

    # ------------------------------------------------------------------------------------------ decide
    def _decide(self, scope: Scope) -> Work:
        grants = sorted(scope.grants.values(), key=lambda g: g.key)
        if self._settings.access_error is not None:
            return self._refuse_all(grants, scope, self._settings.access_error)
        refused: dict[tuple[str, str], str] = {}
        unreadable: dict[str, str] = {}
        states = self._states(scope, grants, refused, unreadable)
        policies, skipped = self._policies(scope, grants, refused)
        reconciliation = reconcile(
            grants,
            states,
            policies,
            self._settings.access,
            self._settings.naming,
            refused_before=refused,
            unreadable=unreadable,
        )
        return work_of(grants, scope.unusable.values(), reconciliation, skipped)

    def _states(
        self,
        scope: Scope,
        grants: list[Grant],
        refused: dict[tuple[str, str], str],
        unreadable: dict[str, str],
    ) -> dict[str, RoleState]:
        """Each admitted role's IAM state; a role that cannot be read (a refusal, not throttling) goes to
        `unreadable` with why, and its pending grants are refused."""
        states: dict[str, RoleState] = {}
        for role in sorted(scope.roles):
            cause = not_admitted(role, self._settings.access)
            if cause is not None:
                unreadable[role] = cause  # not read: the function's IAM does not reach it; its grants refused
                continue
            try:
                state = self._ports.roles.read(role)
            except Exception as error:
                if transient(error):
                    raise
                cause = f"role {role} could not be read: {describe_failure(error)}"
                unreadable[role] = cause
                refused.update(
                    {g.key: cause for g in grants if role in g.principals and g.status in _GRANTING}
                )
                continue
            if state is not None:
                states[role] = role_state(state)
        return states

    def _policies(
        self, scope: Scope, grants: list[Grant], refused: dict[tuple[str, str], str]
    ) -> tuple[dict[str, Mapping[str, Any] | None], set[str]]:
        policies: dict[str, Mapping[str, Any] | None] = {}
        skipped: set[str] = set()
        for cluster in sorted(scope.clusters):
            cause: str | None = None
            try:
                if self._ports.clusters.serverless(cluster):
                    cause = (
                        f"cluster {cluster} is MSK Serverless, which has no cluster policy: a role in "
                        "another account cannot be given access to it (grant a role in the cluster's account)"
                    )
                else:
                    policies[cluster] = self._ports.clusters.read(cluster)
            except Exception as error:
                if transient(error):
                    raise
                cause = f"the cluster policy of {cluster} could not be read: {describe_failure(error)}"
                cause += cluster_policy_hint(error)
            if cause is not None:
                skipped.add(cluster)
                refused.update(
                    {
                        g.key: cause
                        for g in grants
                        if g.cluster_arn == cluster and remote(g) and g.status in _GRANTING
                    }
                )
        return policies, skipped

    @staticmethod
    def _refuse_all(grants: list[Grant], scope: Scope, cause: str) -> Work:
        """ACCESS is malformed: pending grants fail with its message; nothing else is touched (the roles'
        access is not re-rendered from settings that could not be read)."""
        moves = [
            Move(*g.key, g.status, GrantStatus.GRANT_FAILED, cause, g.principals, g.cluster_arn, g.topic)
            for g in grants
            if g.status in _GRANTING
        ]
        moves += [
            Move(*u.key, u.status, GrantStatus.GRANT_FAILED, u.cause)
            for u in scope.unusable.values()
            if u.status in _GRANTING
        ]
        return Work(tuple(moves), (), (), (), {})

    # ------------------------------------------------------------------------------------------ helpers
    def _late(self) -> bool:
        """True when the deadline leaves no time for another group as long as the longest so far."""
        return self._deadline.ending(self._longest)

    def _guarded(self, step: Callable[[], None], result: GrantsResult, **where: str) -> None:
        """Run one step; its failure is reported (and raised at the end when transient), the others go on."""
        try:
            step()
        except LeaseBusy as error:  # the engine's lease outcome: nothing more written, the event handed on
            result.defer(Deferred("busy", str(error)))
            logger.warning("role lease busy", extra={"error": str(error), **where})
        except Exception as error:
            logger.exception("subscription-grants step failed", extra=where)
            result.fail({**where, "cause": describe_failure(error)}, transient=transient(error))
