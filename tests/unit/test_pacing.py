"""Per-operation adaptive pacing (kafka_lineage.aws.pacing) on the virtual clock, against the stand-ins'
quota buckets (local.standins.quotas), and the call layer's handling of throttling and quota errors."""

from __future__ import annotations

import heapq
import itertools
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

import pytest
from botocore.config import Config

from kafka_lineage.aws.calls import calls_of, instrument
from kafka_lineage.aws.pacing import (
    DECREASE,
    START_SHARE,
    AdaptiveLimiter,
    Pacing,
    StageRates,
)
from kafka_lineage.model.failures import QuotaExceeded, Throttled, describe_failure
from kafka_lineage.model.quotas import DOCUMENTED, quota_of
from local.standins.quotas import Quotas
from tests.fixtures import VirtualClock
from tests.unit.fake_clients import FakeClient, aws_error, wired

RETRYING = Config(retries={"mode": "standard", "total_max_attempts": 4})
SCHEMA_ARN = "arn:aws:glue:eu-west-1:123456789012:schema/cdc/orders"


def drive(limiter: AdaptiveLimiter, quotas: Quotas, clock: VirtualClock, seconds: float) -> tuple[int, int]:
    """Send CreateAsset requests paced by `limiter` for `seconds` of virtual time (a throttled one is sent
    again, as the call layer does): (accepted, throttled)."""
    start, accepted, throttled = clock.monotonic(), 0, 0
    while clock.monotonic() - start < seconds:
        limiter.acquire()
        if quotas.take("datazone", "CreateAsset", "123456789012") is None:
            accepted += 1
            limiter.succeeded()
        else:
            throttled += 1
            limiter.throttled()
    return accepted, throttled


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> VirtualClock:
    return VirtualClock.install(monkeypatch)


# ---------------------------------------------------------------------------------------- the limiter


def test_a_limiter_starts_below_its_ceiling_and_climbs_to_it_while_calls_succeed(clock: VirtualClock):
    # Given a limiter of a 20 TPS quota
    limiter = AdaptiveLimiter(20.0)
    assert limiter.per_second == pytest.approx(20.0 * START_SHARE)

    # When calls succeed for 10 seconds
    quotas = Quotas()
    quotas.enable(clock=clock.monotonic)
    accepted, throttled = drive(limiter, quotas, clock, 10.0)

    # Then it reached its ceiling and no more, unthrottled
    assert limiter.per_second == pytest.approx(20.0)
    assert throttled == 0
    assert accepted > 150


def test_a_throttle_cuts_the_rate_once_per_overrun(clock: VirtualClock):
    # Given a limiter at 10 requests a second, and three requests sent at that rate
    limiter = AdaptiveLimiter(20.0, start=10.0)
    tickets = [limiter.acquire() for _ in range(3)]

    # When all three are throttled (in flight together), then one sent after the decrease is throttled too
    for ticket in tickets:
        limiter.throttled(ticket)
    after_burst = limiter.per_second
    limiter.throttled(limiter.acquire())

    # Then the three were one overrun, cut once; the later one, sent at the new rate, cut once more
    assert after_burst == pytest.approx(10.0 * DECREASE)
    assert limiter.per_second == pytest.approx(10.0 * DECREASE * DECREASE)
    assert limiter.throttles == 4


def test_a_limiter_never_goes_below_its_floor(clock: VirtualClock):
    limiter = AdaptiveLimiter(20.0)
    for _ in range(100):
        limiter.throttled(limiter.acquire())
    assert limiter.per_second == pytest.approx(20.0 * 0.05)


def test_the_floor_is_a_share_of_the_quota_however_high_the_ceiling():
    # Given CreateAsset paced at a TUNING rate ten times its 20 TPS quota
    limiter = Pacing("datazone", 200.0).limiter("CreateAsset")

    # Then it may climb to 200, and may fall to 5% of the quota, below what the quota lets through
    assert limiter is not None
    assert limiter.ceiling == pytest.approx(200.0)
    assert limiter.floor == pytest.approx(1.0)


@pytest.mark.parametrize("neighbour", [0.0, 0.5])
def test_against_the_quota_it_uses_what_the_neighbour_leaves_and_is_rarely_throttled(
    clock: VirtualClock, neighbour: float
):
    # Given the stand-ins' CreateAsset quota (20 TPS), a neighbour taking `neighbour` of it
    quotas = Quotas()
    quotas.enable(neighbour, clock=clock.monotonic)
    left = 20.0 * (1 - neighbour)

    # When a limiter paces CreateAsset for five minutes
    accepted, throttled = drive(AdaptiveLimiter(20.0), quotas, clock, 300.0)

    # Then it got at least 0.9 of what is left, with at most 2% of its requests throttled
    assert accepted / 300.0 >= 0.9 * left
    assert throttled <= 0.02 * (accepted + throttled)
    if neighbour == 0:
        assert throttled == 0  # it starts below the quota and never goes above it


@dataclass
class Window:
    """The pessimistic reading of how AWS counts (it documents token buckets for some services, and nothing
    for DataZone's): every request, refused ones too, counts against the quota for a second."""

    per_second: int
    clock: VirtualClock
    sent: deque[float]

    def take(self, *_: str) -> str | None:
        now = self.clock.monotonic()
        while self.sent and self.sent[0] <= now - 1.0:
            self.sent.popleft()
        self.sent.append(now)
        return None if len(self.sent) <= self.per_second else "throttled"


def drive_concurrently(
    limiter: AdaptiveLimiter, server: Quotas | Window, clock: VirtualClock, items: int, workers: int = 32
) -> tuple[int, int, float]:
    """`items` CreateAsset calls by `workers` threads, each answered 20 ms after it is sent, as the call layer
    makes them: paced by `limiter`, a throttled attempt retried at once with its ticket, and given up after
    8 attempts (the clients' retries). Events in time order on the virtual clock: (failed, throttled, s)."""
    latency, attempts_allowed = 0.02, 8
    start, order = clock.monotonic(), itertools.count()
    events: list[tuple[float, int, int, tuple[Any, int] | None]] = []
    waiting = list(range(items))
    attempts: dict[int, int] = {}
    failed = throttled = 0
    for _ in range(min(workers, items)):
        heapq.heappush(events, (start, next(order), waiting.pop(), None))
    while events:
        at, _, item, answer = heapq.heappop(events)
        clock.sleep(max(0.0, at - clock.monotonic()))
        if answer is None:  # a worker sends the item's attempt
            ticket = limiter.acquire()
            refused = server.take("datazone", "CreateAsset", "123456789012")
            heapq.heappush(events, (clock.monotonic() + latency, next(order), item, (refused, ticket)))
            continue
        refused, ticket = answer
        following: int | None = item
        if refused is None:
            limiter.succeeded()
            following = waiting.pop() if waiting else None
        else:
            throttled += 1
            limiter.throttled(ticket)
            attempts[item] = attempts.get(item, 1) + 1
            if attempts[item] > attempts_allowed:
                failed += 1
                following = waiting.pop() if waiting else None
        if following is not None:
            heapq.heappush(events, (clock.monotonic(), next(order), following, None))
    return failed, throttled, clock.monotonic() - start


@pytest.mark.parametrize("neighbour", [0.0, 0.5])
def test_a_ceiling_ten_times_the_quota_finds_the_quota_and_no_item_runs_out_of_attempts(
    clock: VirtualClock, neighbour: float
):
    # Given CreateAsset paced at a TUNING rate ten times its quota (the bench's raised rates), 32 workers,
    # and the stand-ins' token bucket at the quota, `neighbour` of it taken by another tool
    quotas = Quotas()
    quotas.enable(neighbour, clock=clock.monotonic)
    limiter = Pacing("datazone", 200.0).limiter("CreateAsset")
    assert limiter is not None
    left = 20.0 * (1 - neighbour)

    # When 1,000 items are called
    failed, throttled, seconds = drive_concurrently(limiter, quotas, clock, 1_000)

    # Then none failed, fewer than one in five was throttled, and the quota's floor was kept to within 5%
    # (a time cooldown between decreases failed 3 and 16 of them, with 378 and 756 throttles)
    assert failed <= (0 if neighbour == 0 else 2)
    assert throttled < 0.2 * 1_000
    assert seconds <= 1.05 * 1_000 / left


@pytest.mark.parametrize(("ceiling", "least_share"), [(200.0, 0.7), (20.0, 0.85)])
def test_against_a_server_that_counts_refused_requests_it_neither_stalls_nor_runs_out_of_attempts(
    clock: VirtualClock, ceiling: float, least_share: float
):
    # Given a server that counts every request of the last second against a 20 TPS quota (the pessimistic
    # reading), and CreateAsset paced at the quota or ten times it
    server = Window(20, clock, deque())
    limiter = Pacing("datazone", ceiling).limiter("CreateAsset")
    assert limiter is not None

    # When 1,000 items are called by 32 workers
    failed, _, seconds = drive_concurrently(limiter, server, clock, 1_000)

    # Then every item was done, at no less than `least_share` of the quota
    assert failed == 0
    assert 1_000 / seconds >= least_share * 20.0


# ----------------------------------------------------------------------------------------- the table


def test_each_operation_has_its_own_limiter_and_ssm_reads_share_one():
    # Given the DataZone and SSM pacing at the defaults
    datazone, ssm = Pacing("datazone", 20.0), Pacing("ssm", 2.0, ceiling_of=("parameter-writes",))

    # Then CreateAsset and the publish are paced apart, each at its quota; subscriptions at theirs
    assert datazone.limiter("CreateAsset") is not datazone.limiter("CreateListingChangeSet")
    create = datazone.limiter("CreateAsset")
    assert create is not None
    assert create.ceiling == 20.0
    cancel = datazone.limiter("CancelSubscription")
    assert cancel is not None
    assert cancel.ceiling == pytest.approx(3.0)
    # SSM's reads share their documented 40 TPS, which the write ceiling does not touch
    assert ssm.limiter("GetParameter") is ssm.limiter("GetParametersByPath")
    read = ssm.limiter("GetParameter")
    assert read is not None
    assert read.ceiling == 40.0
    write = ssm.limiter("PutParameter")
    assert write is not None
    assert write.ceiling == 2.0
    assert write is ssm.limiter("DeleteParameters")
    # an operation of no quota is not paced
    assert Pacing("events").limiter("PutEvents") is None


def test_a_stages_pace_is_its_slowest_operation_at_the_ceilings_and_its_calls_in_a_row_at_the_rates_now(
    clock: VirtualClock,
):
    # Given a write stage of CreateAsset and CreateListingChangeSet, each its own quota (ceilings 20/s)
    datazone = Pacing("datazone", 20.0)
    rates = StageRates(
        {"write": [(lambda: datazone, op) for op in ("CreateAsset", "CreateListingChangeSet")]}
    )
    start = 20.0 * START_SHARE

    # Then at the ceilings a write takes 1/20 s (the two quotas in parallel, not 2/20), and the cautious
    # guess is both calls one after the other at the rates the limiters start at
    cautious, fastest = rates.seconds_per("write")
    assert fastest == pytest.approx(1 / 20)
    assert cautious == pytest.approx(2 / start)

    # When CreateListingChangeSet is throttled, then the cautious guess slows with it, the least time does not
    limiter = datazone.limiter("CreateListingChangeSet")
    assert limiter is not None
    limiter.throttled()
    cautious, fastest = rates.seconds_per("write")
    assert cautious == pytest.approx(1 / start + 1 / (start * DECREASE))
    assert fastest == pytest.approx(1 / 20)
    # And a stage of no paced operation costs nothing
    assert StageRates({}).seconds_per("read") == (0.0, 0.0)


def test_a_tuning_rate_is_the_ceiling_and_lower_quotas_keep_their_proportion():
    pacing = Pacing("datazone", 10.0)
    create, cancel = pacing.limiter("CreateAsset"), pacing.limiter("CancelSubscription")
    assert create is not None
    assert cancel is not None
    assert (create.ceiling, cancel.ceiling) == (10.0, pytest.approx(1.5))
    assert pacing.rate("CreateAsset") == pytest.approx(10.0 * START_SHARE)


def test_the_documented_quotas_are_the_ones_the_datazone_page_gives():
    for operation in ("CreateAsset", "CreateAssetRevision", "DeleteAsset", "Search"):
        assert DOCUMENTED[("datazone", operation)].per_second == 20.0
    assert DOCUMENTED[("datazone", "AcceptSubscriptionRequest")].per_second == 3.0
    listing = quota_of("datazone", "CreateListingChangeSet")
    assert listing is not None
    assert not listing.documented


# ----------------------------------------------------------------------------- the call layer's retries


class Glue(FakeClient):
    SERVICE = "glue"

    def __init__(self, fail: int, code: str) -> None:
        self.fail, self.code, self.requests = fail, code, 0

    def get_schema(self, **_: Any) -> dict[str, Any]:
        self.requests += 1
        if self.fail:
            self.fail -= 1
            raise aws_error(self.code, "refused", "GetSchema")
        return {"SchemaArn": SCHEMA_ARN, "SchemaName": "orders", "RegistryName": "cdc"}


def test_a_throttled_attempt_is_retried_at_once_through_its_slowed_limiter(clock: VirtualClock):
    # Given GetSchema throttled twice, on a client paced per operation (botocore's backoff not stubbed)
    glue = Glue(fail=2, code="ThrottlingException")
    pacing = Pacing("glue", 20.0)
    client = instrument(wired(glue, "glue", RETRYING), pacing)
    started = time.monotonic()

    # When it is called
    client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})

    # Then the retries went without botocore's sleeps (up to a second each), paced by the limiter instead,
    # which counted both and slowed down twice: the retry, sent after the first decrease, was throttled too
    assert glue.requests == 3
    assert time.monotonic() - started < 0.5
    limiter = pacing.limiter("GetSchema")
    assert limiter is not None
    assert limiter.throttles == 2
    assert limiter.per_second == pytest.approx(20.0 * START_SHARE * DECREASE * DECREASE, rel=0.05)
    assert calls_of(client).throttled("GetSchema") == 2


def test_throttling_on_every_attempt_raises_throttled_after_the_clients_attempts(clock: VirtualClock):
    glue = Glue(fail=10, code="ThrottlingException")
    client = instrument(wired(glue, "glue", RETRYING), Pacing("glue", 20.0))
    with pytest.raises(Throttled):
        client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})
    assert glue.requests == 4


@pytest.mark.parametrize(
    ("code", "operation_quota"),
    [
        ("ResourceNumberLimitExceededException", "Glue"),
        ("ServiceQuotaExceededException", "service quota"),
    ],
)
def test_a_quota_on_an_amount_is_not_throttling_never_retried_and_names_the_quota(
    clock: VirtualClock, code: str, operation_quota: str
):
    # Given GetSchema refused by a quota on an amount
    glue = Glue(fail=10, code=code)
    pacing = Pacing("glue", 20.0)
    client = instrument(wired(glue, "glue", RETRYING), pacing)

    # When it is called
    with pytest.raises(QuotaExceeded) as raised:
        client.get_schema(SchemaId={"SchemaArn": SCHEMA_ARN})

    # Then it was tried once, the pace did not slow, and the failure says which quota
    assert glue.requests == 1
    assert not isinstance(raised.value, Throttled)
    assert pacing.throttles() == 0
    assert operation_quota in raised.value.quota
    assert f"quota: {raised.value.quota}" in describe_failure(raised.value)


def test_a_follow_up_starts_where_the_invocation_that_handed_on_had_got_to_and_hands_on_its_own_pace():
    from kafka_lineage.aws.clients import Clients

    # Given a wiring's clients, told that the invocation that handed on had its CreateAsset pace at 19
    # requests a second and its Glue reads throttled down to 4
    clients = Clients()
    clients.carry_over({"datazone:CreateAsset": 19.0, "glue:GetSchema": 4.0, "datazone:Search": 500.0})
    # When the follow-up makes its pacers
    datazone = clients.pacer("datazone", lambda: Pacing("datazone", 20.0))
    glue = clients.pacer("glue", lambda: Pacing("glue", 20.0))
    # Then each limiter starts at that pace (never above its ceiling), the others below their ceilings
    assert datazone.rate("CreateAsset") == pytest.approx(19.0)
    assert glue.rate("GetSchema") == pytest.approx(4.0)
    assert datazone.rate("Search") == pytest.approx(20.0)
    assert datazone.rate("DeleteAsset") == pytest.approx(20.0 * START_SHARE)
    # And the pace it hands on is the one its limiters go at
    assert clients.reached() == {
        "datazone:CreateAsset": pytest.approx(19.0),
        "datazone:Search": pytest.approx(20.0),
        "datazone:DeleteAsset": pytest.approx(15.0),
        "glue:GetSchema": pytest.approx(4.0),
    }
    # And another wiring's pacers are its own: nothing carried over reaches them
    other = Clients().pacer("datazone", lambda: Pacing("datazone", 20.0))
    assert other.rate("CreateAsset") == pytest.approx(20.0 * START_SHARE)
    # And once the invocation has ended (nothing carried), a limiter made later starts below its ceiling
    clients.carry_over({})
    assert datazone.rate("GetAsset") == pytest.approx(20.0 * START_SHARE)
