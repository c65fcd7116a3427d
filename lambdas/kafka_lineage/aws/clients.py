"""boto3 clients with the retry policy every adapter shares, instrumented by the call layer
(kafka_lineage.aws.calls: counted, paced, typed errors), and a per-service request-rate limiter."""

from __future__ import annotations

import threading
from functools import cache
from typing import Any

import boto3
from botocore.config import Config

from kafka_lineage.aws.calls import instrument
from kafka_lineage.model import clock

# Adaptive retry: botocore backs off on throttling and 5xx and paces the client's own send rate.
RETRY_CONFIG = Config(
    retries={"mode": "adaptive", "max_attempts": 8},
    connect_timeout=5,
    read_timeout=30,
    max_pool_connections=32,
)


@cache
def client(service: str) -> Any:
    """One shared client per service (boto3 clients are thread-safe; sessions are not)."""
    return instrument(boto3.session.Session().client(service, config=RETRY_CONFIG))


def reset_clients() -> None:
    """Forget cached clients (tests point them at new endpoints)."""
    client.cache_clear()


class RateLimiter:
    """A token bucket shared by threads: `acquire()` blocks until one request may go.

    Account-level quotas (DataZone, SSM's write rate) are shared with everything else in the account,
    so the sync paces itself below them instead of relying on throttling errors alone.
    """

    def __init__(self, per_second: float, burst: int | None = None) -> None:
        if per_second <= 0:
            raise ValueError("per_second must be positive")
        self.per_second = per_second
        self.capacity = float(burst if burst is not None else max(1, round(per_second)))
        self._tokens = self.capacity
        self._updated = clock.monotonic()
        self._lock = threading.Lock()

    def acquire(self) -> None:
        while True:
            with self._lock:
                now = clock.monotonic()
                self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self.per_second)
                self._updated = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return
                wait = (1 - self._tokens) / self.per_second
            clock.sleep(wait)
