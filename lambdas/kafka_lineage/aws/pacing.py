"""The request-rate limiters the call layer paces AWS calls by (kafka_lineage.aws.calls): a fixed token bucket
(`RateLimiter`), and the per-operation adaptive pacing of every client (`AdaptiveLimiter`, `Pacing`).

AWS throttles per operation, per account and Region (kafka_lineage.model.quotas: the one table of quotas),
and the account's quotas are shared with every other tool in it. So each operation (each quota: SSM's
reads share one) gets its own limiter that starts below its quota and adapts to what the account leaves:
additive increase while calls succeed, multiplicative decrease on throttling (AIMD).

Why not botocore's `adaptive` retry mode (botocore/retries/adaptive.py, ClientRateLimiter with a CUBIC
calculator): its limiter is per client, so one throttled operation slows every other operation of that
client (a throttled CreateListingChangeSet would slow CreateAsset, which has its own quota); it starts
unthrottled and only engages after the first throttle, so a run always begins by overrunning a quota a
neighbour already uses; it knows no quota to start below or ceiling to stay under; and it reads the wall
clock, not the functions' clock seam (kafka_lineage.model.clock), so tests could not drive it in virtual
time. Its retry backoff is kept for everything but throttling (the clients use the `standard` mode); a
throttled attempt is retried at once through its operation's limiter, which just slowed down (calls.py) if
that attempt was sent at the rate now known too fast (one decrease per overrun: AdaptiveLimiter).
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Collection, Mapping, Sequence

from kafka_lineage.model import clock
from kafka_lineage.model.quotas import TYPICAL_PER_SECOND, Quota, quota_of

# A limiter starts at this share of its ceiling: below the quota, as a neighbour may be using some of it.
START_SHARE = 0.75
# Additive increase: this share of the quota per second of calls that succeed (20 TPS: +1 TPS a second). The
# quota is the ceiling until a throttle, then the rate throttled last: a ceiling set far above the account's
# quota (a TUNING rate for a raised quota the account does not have) would otherwise climb back over the
# real quota within a second of every decrease, and throttle for the whole run.
INCREASE_SHARE_PER_SECOND = 0.05
# Near the rate of the last throttle, increase this much more slowly (the quota's edge is probably there).
NEAR_EDGE_SLOWDOWN = 0.1
NEAR_EDGE = (0.85, 1.05)  # as shares of the rate throttled last
DECREASE = 0.7  # multiplicative decrease on a throttle
FLOOR_SHARE = 0.05  # never below this share of the quota (of the ceiling, where the quota is not known)
BURST_SECONDS = 0.25  # tokens kept for workers that were busy elsewhere: a quarter of a second's worth


class RateLimiter:
    """A token bucket shared by threads: `acquire()` blocks until one request may go, at a fixed rate.

    `succeeded` and `throttled` are what the call layer reports of each attempt; a fixed rate ignores them.
    `acquire` answers a ticket the call layer hands back with the attempt's throttle (AdaptiveLimiter: which
    decrease the request was sent after); a fixed rate's is always 0.
    """

    def __init__(self, per_second: float, burst: int | None = None) -> None:
        if per_second <= 0:
            raise ValueError("per_second must be positive")
        self._rate = per_second
        self.capacity = float(burst if burst is not None else max(1, round(per_second)))
        self._tokens = self.capacity
        self._updated = clock.monotonic()
        self._lock = threading.Lock()

    @property
    def per_second(self) -> float:
        """The rate requests go at now."""
        with self._lock:
            return self._rate

    def acquire(self) -> int:
        while True:
            with self._lock:
                now = clock.monotonic()
                self._tokens = min(self.capacity, self._tokens + (now - self._updated) * self._rate)
                self._updated = now
                if self._tokens >= 1:
                    self._tokens -= 1
                    return self._ticket()
                wait = (1 - self._tokens) / self._rate
            clock.sleep(wait)

    def _ticket(self) -> int:
        return 0

    def succeeded(self) -> None:
        return None

    def throttled(self, ticket: int | None = None) -> None:
        return None


class AdaptiveLimiter(RateLimiter):
    """A token bucket whose rate adapts (AIMD): it starts at `start` (default START_SHARE of `ceiling`),
    grows while calls succeed by `increase` requests a second per second (INCREASE_SHARE_PER_SECOND of the
    rate throttled last, once there was a throttle; more slowly near that rate), never above `ceiling` nor
    below `floor`, and is cut by DECREASE on a throttle, once per overrun.

    One overrun, one decrease (TCP's rule: one window's losses are one congestion signal): the requests sent
    before a decrease went at the old rate, so their throttles say nothing new. A throttle of a request sent
    after it says the new rate is still too fast, and cuts again at once. `acquire` answers the number of
    decreases so far as the request's ticket, and `throttled(ticket)` cuts only when no decrease came since.
    A time-based cooldown (this limiter's before) held a rate ten times the quota for a second between cuts:
    at a TUNING rate far above the account's quota, items were throttled on every one of their attempts.
    """

    def __init__(
        self,
        ceiling: float,
        start: float | None = None,
        increase: float | None = None,
        floor: float | None = None,
    ) -> None:
        if ceiling <= 0:
            raise ValueError("ceiling must be positive")
        first = min(ceiling, start if start is not None else ceiling * START_SHARE)
        super().__init__(first, burst=1)
        self.ceiling = ceiling
        self.floor = min(ceiling, floor if floor is not None else ceiling * FLOOR_SHARE)
        self.increase = increase if increase is not None else ceiling * INCREASE_SHARE_PER_SECOND
        self._edge: float | None = None  # the rate throttled last
        self._decreases = 0
        self.successes = 0
        self.throttles = 0
        self._resize()

    def _resize(self) -> None:
        self.capacity = max(1.0, self._rate * BURST_SECONDS)

    def _ticket(self) -> int:
        return self._decreases

    def succeeded(self) -> None:
        with self._lock:
            self.successes += 1
            edge = self._edge
            increase = self.increase
            if edge is not None:
                increase = min(increase, INCREASE_SHARE_PER_SECOND * edge)
                if NEAR_EDGE[0] * edge <= self._rate <= NEAR_EDGE[1] * edge:
                    increase *= NEAR_EDGE_SLOWDOWN
            self._rate = min(self.ceiling, self._rate + increase / self._rate)  # a success: 1/rate s
            self._resize()

    def throttled(self, ticket: int | None = None) -> None:
        """One attempt was throttled; `ticket` is what `acquire` answered for it (None: sent just now)."""
        with self._lock:
            self.throttles += 1
            if ticket is not None and ticket != self._decreases:
                return  # sent before the last decrease: the same overrun
            self._decreases += 1
            self._edge = self._rate
            self._rate = max(self.floor, self._rate * DECREASE)
            self._tokens = min(self._tokens, 0.0)  # the next request waits a full interval
            self._resize()


class _Carried:
    """The pace a follow-up invocation's limiters start at: where its predecessor's had got to (its
    handover's `rates`, model/handover.py), and the pacings made since, whose pace it hands on in turn.
    One per process: a Lambda environment runs one invocation at a time, and each handler sets it when it
    starts (`carry_over`) and clears it when it ends."""

    def __init__(self) -> None:
        self.rates: dict[str, float] = {}  # "<service>:<quota bucket>" -> requests a second
        self.pacings: weakref.WeakSet[Pacing] = weakref.WeakSet()
        self.lock = threading.Lock()


_CARRIED = _Carried()


def carry_over(rates: Mapping[str, float]) -> None:
    """Start every limiter made from now on at the pace `rates` names ("<service>:<quota bucket>"; within
    its floor and ceiling), and forget the pacings made before."""
    with _CARRIED.lock:
        _CARRIED.rates = dict(rates)
        _CARRIED.pacings = weakref.WeakSet()


def reached() -> dict[str, float]:
    """The pace each quota's limiter made since `carry_over` goes at now (the lowest, for a quota paced in
    several accounts): what the follow-up starts at."""
    with _CARRIED.lock:
        pacings = list(_CARRIED.pacings)
    found: dict[str, float] = {}
    for pacing in pacings:
        for bucket, rate in pacing.rates().items():
            key = f"{pacing.service}:{bucket}"
            found[key] = min(rate, found.get(key, rate))
    return found


class Pacing:
    """The adaptive limiters of one service's calls in one account, one per quota (model/quotas.py), made
    when an operation is first called. Each starts below its ceiling and may climb to it: the operation's
    quota, scaled by `ceiling` (the service's TUNING rate, the ceiling of its typical quota) for the quotas
    `ceiling_of` names (all when None). At the defaults every ceiling is the quota itself. A follow-up
    invocation's start where its predecessor's limiters had got to (`carry_over`)."""

    def __init__(
        self, service: str, ceiling: float | None = None, ceiling_of: Collection[str] | None = None
    ) -> None:
        self.service = service
        self.ceiling = ceiling
        self._ceiling_of = None if ceiling_of is None else frozenset(ceiling_of)  # quotas it caps (None: all)
        self._limiters: dict[str, AdaptiveLimiter] = {}
        self._quotas: dict[str, Quota | None] = {}
        self._lock = threading.Lock()
        with _CARRIED.lock:
            self._carried = dict(_CARRIED.rates)
            _CARRIED.pacings.add(self)

    def limiter(self, operation: str) -> AdaptiveLimiter | None:
        """The operation's limiter (None: an operation of no known quota, not paced)."""
        with self._lock:
            if operation not in self._quotas:
                self._quotas[operation] = quota_of(self.service, operation)
            quota = self._quotas[operation]
            if quota is None:
                return None
            found = self._limiters.get(quota.bucket)
            if found is None:
                ceiling = self._ceiling(quota)
                floor = FLOOR_SHARE * min(ceiling, quota.per_second)  # of the quota, however high the ceiling
                start = None if quota.start_share is None else ceiling * quota.start_share
                carried = self._carried.get(f"{self.service}:{quota.bucket}")
                if carried is not None:  # where the invocation that handed on had got to
                    start = max(floor, carried)
                found = self._limiters[quota.bucket] = AdaptiveLimiter(ceiling, start, floor=floor)
            return found

    def _ceiling(self, quota: Quota) -> float:
        if self.ceiling is None or (self._ceiling_of is not None and quota.bucket not in self._ceiling_of):
            return quota.per_second
        # TUNING's rate is the ceiling of the service's typical quota; an operation AWS quotes lower
        # (DataZone's subscription calls: 3 of 20) keeps its proportion of it.
        return self.ceiling * quota.per_second / TYPICAL_PER_SECOND.get(self.service, quota.per_second)

    def rates(self) -> Mapping[str, float]:
        """The rate each quota's limiter goes at now (requests a second), by quota."""
        with self._lock:
            return {bucket: limiter.per_second for bucket, limiter in self._limiters.items()}

    def rate(self, operation: str) -> float | None:
        """The rate `operation` goes at now; before its first call, where its limiter would start."""
        limiter = self.limiter(operation)
        return limiter.per_second if limiter is not None else None

    def throttles(self) -> int:
        with self._lock:
            return sum(limiter.throttles for limiter in self._limiters.values())


# What an adapter is paced by: a fixed rate for all its calls, or each operation by its own (Pacing).
Pacer = RateLimiter | Pacing


class StageRates:
    """Seconds per item of each stage of a run, read from the limiters of the operations one item makes
    (`operations`: stage -> (pacing, operation) pairs).

    - fastest: each operation has its own quota, so an item's calls go in parallel with the other items' and
      the slowest operation at its ceiling sets the least time (a schema's CreateAsset and
      CreateListingChangeSet take 1/20 s of the account's quotas, not 2/20);
    - cautious, before the run has measured anything: the item's calls one after the other at the rates
      their limiters go at now, as if they shared one quota. What the account leaves is not known until
      calls are throttled, and a chunk once started cannot be called back.
    """

    def __init__(self, operations: Mapping[str, Sequence[tuple[Callable[[], Pacing], str]]]) -> None:
        self._operations = {stage: tuple(pairs) for stage, pairs in operations.items()}

    def seconds_per(self, stage: str) -> tuple[float, float]:
        limiters = [pacing().limiter(operation) for pacing, operation in self._operations.get(stage, ())]
        paced = [limiter for limiter in limiters if limiter is not None]
        if not paced:
            return 0.0, 0.0
        return sum(1 / limiter.per_second for limiter in paced), max(1 / limiter.ceiling for limiter in paced)
