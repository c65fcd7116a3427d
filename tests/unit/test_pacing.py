"""Per-operation adaptive pacing (kafka_lineage.aws.pacing) on the virtual clock, against the stand-ins'
quota buckets (local.standins.quotas), and the call layer's handling of throttling and quota errors."""

from __future__ import annotations

import time
from typing import Any

import pytest
from botocore.config import Config

from kafka_lineage.aws.calls import calls_of, instrument
from kafka_lineage.aws.pacing import (
    COOLDOWN_SECONDS,
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


def test_a_throttle_cuts_the_rate_once_per_cooldown(clock: VirtualClock):
    # Given a limiter at 10 requests a second
    limiter = AdaptiveLimiter(20.0, start=10.0)

    # When three throttles come at once (requests in flight together), then one after the cooldown
    limiter.throttled()
    limiter.throttled()
    limiter.throttled()
    after_burst = limiter.per_second
    clock.sleep(COOLDOWN_SECONDS)
    limiter.throttled()

    # Then the burst cut it once, the later throttle once more
    assert after_burst == pytest.approx(10.0 * DECREASE)
    assert limiter.per_second == pytest.approx(10.0 * DECREASE * DECREASE)
    assert limiter.throttles == 4


def test_a_limiter_never_goes_below_its_floor(clock: VirtualClock):
    limiter = AdaptiveLimiter(20.0)
    for _ in range(100):
        limiter.throttled()
        clock.sleep(COOLDOWN_SECONDS)
    assert limiter.per_second == pytest.approx(20.0 * 0.05)


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
    # which slowed down (once: the second throttle came within the cooldown) and counted both
    assert glue.requests == 3
    assert time.monotonic() - started < 0.5
    limiter = pacing.limiter("GetSchema")
    assert limiter is not None
    assert limiter.throttles == 2
    assert limiter.per_second < 20.0 * START_SHARE
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
