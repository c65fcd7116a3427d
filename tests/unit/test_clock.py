"""The functions' clock (kafka_lineage.model.clock): the real one by default, and the virtual one the deadline
tests install (tests/fixtures.py) reaches the pacing."""

from __future__ import annotations

import threading
import time

import pytest

from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.model import clock
from tests.fixtures import VirtualClock


def test_the_functions_run_on_the_real_clock():
    # Given nothing installed, Then the clock is the real one
    assert clock.monotonic is time.monotonic
    assert clock.sleep is time.sleep


def test_a_rate_limiter_paces_by_the_installed_clock_and_nothing_really_sleeps(monkeypatch):
    # Given the virtual clock, and a limiter of 6 requests a second (a burst of 6)
    virtual = VirtualClock.install(monkeypatch)
    limiter = RateLimiter(6)
    started, real_start = virtual.monotonic(), time.monotonic()

    # When 8 threads take 160 requests between them
    def take() -> None:
        for _ in range(20):
            limiter.acquire()

    threads = [threading.Thread(target=take) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    # Then the virtual clock moved by the pacing's time, the burst aside: (160 - 6) / 6 s, which no real
    # sleep took
    assert virtual.monotonic() - started == pytest.approx((160 - 6) / 6, abs=0.05)
    assert time.monotonic() - real_start < 10


def test_a_pause_too_small_to_move_the_clock_still_moves_it():
    # Given a virtual clock far from zero, When the code pauses for less than the float's resolution there
    virtual = VirtualClock(start=1_000_000.0)
    before = virtual.monotonic()
    virtual.sleep(1e-12)
    # Then the clock still moves (a token bucket waiting for a rounding error would otherwise wait forever)
    assert virtual.monotonic() > before
