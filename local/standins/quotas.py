"""Request-rate quotas, enforced as AWS does: a token bucket per operation (per quota: SSM's reads share one),
per account, at the rates of kafka_lineage.model.quotas (AWS's documented quotas, and our readings where AWS
publishes none). A request over the limit is answered with the service's own throttling error
(faults.throttling_error: DataZone `ThrottlingException` 429, Glue and SSM `ThrottlingException` 400, as
their botocore models name them).

Off until `enable()`: the demo and the tests keep their speed; a test asks for it (the `quotas` fixture of
tests/integration/conftest.py) and the bench turns it on. `neighbour` is the share of every bucket another
tool in the account uses: the bucket refills at (1 - neighbour) of the quota, as if the neighbour took its
share steadily. Where AWS is silent the burst is one second's worth of the rate (AWS's token buckets allow
bursts; their size is not published), and `undocumented=False` leaves the operations AWS publishes no rate
for unlimited (both readings of the undocumented rates can be tested).

The clock is a seam: tests give their VirtualClock's `monotonic`, so what is throttled depends on the
pacing alone, not on how busy the machine is.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from kafka_lineage.model.quotas import quota_of
from local.standins.errors import ServiceError
from local.standins.faults import throttling_error

BURST_SECONDS = 1.0


@dataclass
class _Bucket:
    per_second: float
    tokens: float
    updated: float


@dataclass
class Quotas:
    """The stand-ins' rate quotas: `take(...)` answers None (go on) or the throttling error to answer."""

    enabled: bool = False
    neighbour: float = 0.0
    undocumented: bool = True
    clock: Callable[[], float] = time.monotonic
    throttled: Counter[str] = field(default_factory=Counter)  # "service:Operation" -> requests refused
    _buckets: dict[tuple[str, str, str], _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def enable(
        self,
        neighbour: float = 0.0,
        undocumented: bool = True,
        clock: Callable[[], float] | None = None,
    ) -> None:
        """Enforce the quotas from now on, `neighbour` (0 to < 1) of each taken by another tool."""
        if not 0 <= neighbour < 1:
            raise ValueError("neighbour is a share of each quota: 0 <= neighbour < 1")
        with self._lock:
            self.enabled, self.neighbour, self.undocumented = True, float(neighbour), bool(undocumented)
            if clock is not None:
                self.clock = clock
            self._buckets.clear()
            self.throttled.clear()

    def disable(self) -> None:
        with self._lock:
            self.enabled = False
            self.neighbour = 0.0
            self.undocumented = True
            self.clock = time.monotonic
            self._buckets.clear()
            self.throttled.clear()

    def rate(self, service: str, operation: str) -> float | None:
        """What this caller may send of `operation` a second (None: unlimited)."""
        quota = quota_of(service, operation)
        if quota is None or (not quota.documented and not self.undocumented):
            return None
        return quota.per_second * (1 - self.neighbour)

    def take(self, service: str, operation: str, account: str) -> ServiceError | None:
        if not self.enabled or not operation:
            return None
        quota = quota_of(service, operation)
        if quota is None or (not quota.documented and not self.undocumented):
            return None
        with self._lock:
            now = self.clock()
            key = (account, service, quota.bucket)
            bucket = self._buckets.get(key)
            if bucket is None:
                rate = quota.per_second * (1 - self.neighbour)
                bucket = self._buckets[key] = _Bucket(rate, rate * BURST_SECONDS, now)
            capacity = max(1.0, bucket.per_second * BURST_SECONDS)
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * bucket.per_second)
            bucket.updated = now
            if bucket.tokens >= 1:
                bucket.tokens -= 1
                return None
            self.throttled[f"{service}:{operation}"] += 1
        return throttling_error(service)

    def state(self) -> dict[str, object]:
        with self._lock:
            return {
                "enabled": self.enabled,
                "neighbour": self.neighbour,
                "undocumented": self.undocumented,
                "throttled": dict(self.throttled),
            }
