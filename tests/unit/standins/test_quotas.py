"""The stand-ins' rate quotas on their own (local/standins/quotas.py): per account, per quota, the neighbour's
share, the service's own throttling answer."""

from __future__ import annotations

import pytest

from local.standins.quotas import Quotas
from tests.fixtures import VirtualClock

ACCOUNT, OTHER = "123456789012", "210987654321"


def enforced(neighbour: float = 0.0, undocumented: bool = True) -> tuple[Quotas, VirtualClock]:
    clock = VirtualClock()
    quotas = Quotas()
    quotas.enable(neighbour, undocumented, clock=clock.monotonic)
    return quotas, clock


def accepted(quotas: Quotas, service: str, operation: str, count: int, account: str = ACCOUNT) -> int:
    return sum(quotas.take(service, operation, account) is None for _ in range(count))


def test_each_account_has_its_own_buckets() -> None:
    quotas, _ = enforced()
    assert accepted(quotas, "glue", "GetSchema", 30) == 20
    assert accepted(quotas, "glue", "GetSchema", 30, account=OTHER) == 20


def test_the_refusal_is_the_services_own_throttling_error() -> None:
    quotas, _ = enforced()
    accepted(quotas, "datazone", "CreateAsset", 20)
    datazone = quotas.take("datazone", "CreateAsset", ACCOUNT)
    accepted(quotas, "ssm", "PutParameter", 10)
    ssm = quotas.take("ssm", "PutParameter", ACCOUNT)
    assert datazone is not None
    assert (datazone.code, datazone.status) == ("ThrottlingException", 429)
    assert ssm is not None
    assert (ssm.code, ssm.status) == ("ThrottlingException", 400)
    assert quotas.throttled == {"datazone:CreateAsset": 1, "ssm:PutParameter": 1}


def test_the_bucket_refills_at_what_the_neighbour_leaves() -> None:
    quotas, clock = enforced(neighbour=0.75)
    assert accepted(quotas, "datazone", "Search", 10) == 5
    clock.sleep(2.0)
    assert accepted(quotas, "datazone", "Search", 20) == 5  # 2 s at 5/s, capped at one second's burst


def test_unpaced_services_and_switched_off_readings_are_not_limited() -> None:
    quotas, _ = enforced(undocumented=False)
    assert accepted(quotas, "events", "PutEvents", 100) == 100
    assert accepted(quotas, "glue", "GetSchema", 100) == 100  # no published rate
    assert accepted(quotas, "ssm", "GetParameter", 100) == 40  # documented: 40 TPS


def test_off_by_default_and_after_disable() -> None:
    quotas = Quotas()
    assert all(quotas.take("datazone", "Search", ACCOUNT) is None for _ in range(100))
    quotas.enable()
    accepted(quotas, "datazone", "Search", 25)
    quotas.disable()
    assert quotas.state() == {"enabled": False, "neighbour": 0.0, "undocumented": True, "throttled": {}}
    with pytest.raises(ValueError, match="neighbour"):
        quotas.enable(neighbour=1.0)
