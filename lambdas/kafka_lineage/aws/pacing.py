"""The request-rate limiter the call layer paces each client by (kafka_lineage.aws.calls)."""

from __future__ import annotations

import threading

from kafka_lineage.model import clock


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
