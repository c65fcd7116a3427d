"""The one deadline of a run: the invocation's remaining time less the margin kept for handing on."""

from __future__ import annotations

from collections.abc import Callable

from kafka_lineage.model import clock


class Deadline:
    """The invocation's deadline as a monotonic time, the margin already taken off (no deadline: never).

    Built once per run (from Lambda's `get_remaining_time_in_millis` and `deadline_margin_seconds`) and passed
    to every part that must stop in time: readers, the pool, the pipeline, the lease's wait."""

    def __init__(self, remaining_seconds: Callable[[], float] | None, margin: float) -> None:
        self._remaining = remaining_seconds
        self.margin = margin

    @classmethod
    def never(cls) -> Deadline:
        return cls(None, 0.0)

    def at(self) -> float:
        if self._remaining is None:
            return float("inf")
        return clock.monotonic() + self._remaining() - self.margin

    def left(self) -> float:
        """Seconds before the margin is reached (infinite without a deadline; negative once inside it)."""
        if self._remaining is None:
            return float("inf")
        return self._remaining() - self.margin

    def allows(self, seconds: float) -> bool:
        """Whether `seconds` from now is still before the deadline."""
        return clock.monotonic() + seconds <= self.at()

    def ending(self, reserve: float = 0.0) -> bool:
        """Whether the margin (plus `reserve` seconds of work still to finish) is reached: start nothing."""
        return self.left() < reserve
