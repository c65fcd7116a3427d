"""How fast a reconciling run goes at DataZone's subscription quotas, measured on a virtual clock: every
DataZone call of the fake draws a token from the same `Pacing("datazone")` limiters the adapter's client is
paced by (model/quotas.py: the grant calls at 3 TPS, GetListing at 20), so the run waits exactly as the
call layer would make it wait, and the deadline counts down with those waits."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest

from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.aws.pacing import Pacing
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.grants.requests import parse_request
from kafka_lineage.grants.run import GrantRun
from kafka_lineage.grants.settings import DEADLINE_MARGIN_SECONDS, GrantSettings
from kafka_lineage.model.subscriptions import GrantRecord
from tests.fixtures import CountdownContext, VirtualClock
from tests.unit.grants.fakes import ACCOUNT, DOMAIN, ROLE, FakeDataZone, FakeWorld


class PacedDataZone(FakeDataZone):
    """The fake DataZone, each call paced by its operation's limiter (as the call layer's before-send)."""

    def __init__(self) -> None:
        super().__init__()
        self.pacing = Pacing("datazone")

    def _pace(self, operation: str) -> None:
        limiter = self.pacing.limiter(operation)
        assert limiter is not None
        limiter.acquire()
        limiter.succeeded()

    def grant(self, grant_id: str) -> GrantRecord | None:
        self._pace("GetSubscriptionGrant")
        return super().grant(grant_id)

    def grants(self) -> Iterator[GrantRecord]:
        records = list(super().grants())
        for page in range(0, max(1, len(records)), 50):
            self._pace("ListSubscriptionGrants")
            yield from records[page : page + 50]

    def listing(self, listing_id: str, revision: str) -> Any:
        self._pace("GetListing")
        return super().listing(listing_id, revision)

    def target(self, environment_id: str, target_id: str) -> Any:
        self._pace("GetSubscriptionTarget")
        return super().target(environment_id, target_id)

    def environment(self, environment_id: str) -> Any:
        self._pace("GetEnvironment")
        return super().environment(environment_id)

    def set_status(self, grant_id: str, asset_id: str, status: str, cause: str | None = None) -> None:
        self._pace("UpdateSubscriptionGrantStatus")
        super().set_status(grant_id, asset_id, status, cause)


def seconds_left(context: CountdownContext) -> float:
    return context.get_remaining_time_in_millis() / 1000


def settings() -> GrantSettings:
    access = AccessSettings.parse({"consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/*"]})
    return GrantSettings(domain_id=DOMAIN, mapping_path="/kafka-lineage", access=access)


def test_120_pending_grants_to_one_role_go_at_the_subscription_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given 120 pending grants to one role, DataZone paced at its quotas on a virtual clock
    clock = VirtualClock.install(monkeypatch)
    world = FakeWorld(datazone=PacedDataZone())
    for n in range(1, 121):
        world.datazone.add_grant(n, f"dbserver1.inventory.table_{n:04d}")
    world.iam.add_role(ROLE)
    started = clock.monotonic()
    # When the reconciling run finishes them
    result = GrantRun(settings(), world.ports()).execute(
        parse_request({}), Deadline(lambda: 900.0, DEADLINE_MARGIN_SECONDS)
    )
    took = clock.monotonic() - started
    # Then 240 status updates at 3 TPS (starting at 75% of it, adapting up) set the pace
    print(f"\n120 grants, one role: {took:.0f} s on the virtual clock, {dict(world.datazone.calls)}")
    assert result.granted.total == 120
    assert world.datazone.calls["UpdateSubscriptionGrantStatus"] == 240
    assert 240 / 3.0 <= took <= 240 / 2.25 + 30


def test_a_reconciling_run_over_many_roles_stops_in_time_and_its_follow_ups_finish(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given 40 roles with three pending grants each, and invocations of 60 s on the virtual clock
    clock = VirtualClock.install(monkeypatch)
    world = FakeWorld(datazone=PacedDataZone())
    number = 0
    for r in range(40):
        role = f"arn:aws:iam::{ACCOUNT}:role/reader-{r:02d}"
        world.iam.add_role(role)
        for _ in range(3):
            number += 1
            world.datazone.add_grant(number, f"topic.{number}", roles=(role,), environment=f"env_{r:02d}")
    payload: dict[str, Any] = {}
    invocations = []
    while True:
        context = CountdownContext(60.0, clock=clock.monotonic)
        remaining = partial(seconds_left, context)
        result = GrantRun(settings(), world.ports()).execute(
            parse_request(payload), Deadline(remaining, DEADLINE_MARGIN_SECONDS)
        )
        invocations.append(
            (result.granted.total, round(60.0 - context.get_remaining_time_in_millis() / 1000))
        )
        assert context.get_remaining_time_in_millis() > 0  # every invocation ended before its deadline
        if not result.incomplete:
            break
        assert result.resume_after is not None
        assert len(invocations) < 20
        payload = {"resumeAfter": result.resume_after}
    # Then every grant is granted, across several invocations, none written twice
    print(f"\n40 roles x 3 grants in 60 s invocations: (granted, seconds) per invocation {invocations}")
    assert sum(granted for granted, _ in invocations) == 120
    assert len(invocations) > 1
    assert all(world.datazone.status_of(f"grant{n:04d}") == "GRANTED" for n in range(1, 121))
    assert world.iam.calls["PutRolePolicy"] == 40
