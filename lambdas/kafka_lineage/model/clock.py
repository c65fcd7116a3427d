"""The clock that schema-sync's deadlines, the adapters' pacing (aws.pacing.RateLimiter) and the catalog's
bounded waits read.

In the functions this is always the real clock: `time.monotonic` and `time.sleep`. It is one seam so that a
test of a deadline can drive time itself (tests/fixtures.py, `VirtualClock`): the run then measures, paces
and waits by the same clock its Lambda context counts down with, and what it does before its deadline no
longer depends on how busy the machine running the test is.

Read it through the module (`clock.monotonic()`, `clock.sleep(s)`), never by importing the functions
themselves, so that a replacement reaches every reader; an adapter that keeps a default (`Catalog`) takes it
when it is built.
"""

from __future__ import annotations

import time
from collections.abc import Callable

monotonic: Callable[[], float] = time.monotonic
sleep: Callable[[float], None] = time.sleep
