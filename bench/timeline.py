"""Where a paced run's time went: the calls of its slowest quota bucket on the run's clock.

A run paced by its quotas can be no quicker than its slowest bucket's calls at the bucket's rate (the floor,
report.Measurement.documented_floor). Its wall time above that floor is spent where those calls are not
going: before the first of them (reading, planning, the lease: the pipeline filling), in gaps between
them (a stage waiting for another) and after the last (the pipeline draining, the lease's release). This
module measures those three from the spans bench/invoke.py records of every call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bench import report

Span = tuple[str, float, float]  # "service:Operation", start, end: seconds from the run's start


@dataclass(frozen=True)
class BucketTimeline:
    """When one quota bucket's calls were in flight during a run of `wall` seconds."""

    bucket: str  # report.bucket_name
    calls: int
    lead_in: float  # from the run's start to its first call
    idle: float  # between its first call's start and its last call's end, with none of its calls in flight
    tail: float  # from its last call's end to the run's end

    def as_dict(self) -> dict[str, float | int | str]:
        return {
            "bucket": self.bucket,
            "calls": self.calls,
            "lead_in_seconds": round(self.lead_in, 2),
            "idle_seconds": round(self.idle, 2),
            "tail_seconds": round(self.tail, 2),
        }

    def describe(self) -> str:
        return (
            f"{self.bucket}: first call at {self.lead_in:.2f} s, idle {self.idle:.2f} s between calls, "
            f"last done {self.tail:.2f} s before the end"
        )


def bucket_of(key: str) -> str | None:
    """The quota bucket (report.bucket_name) of a "service:Operation", or None for a call of no quota."""
    from kafka_lineage.model.quotas import quota_of

    service, _, operation = key.partition(":")
    quota = quota_of(service, operation)
    return None if quota is None else report.bucket_name(service, quota.bucket)


def timeline(spans: Sequence[Span], bucket: str, wall: float) -> BucketTimeline | None:
    """`bucket`'s calls among `spans` (a run of `wall` seconds), or None when it made none."""
    mine = sorted((start, end) for key, start, end in spans if bucket_of(key) == bucket)
    if not mine:
        return None
    idle, reached = 0.0, mine[0][1]
    for start, end in mine[1:]:
        if start > reached:
            idle += start - reached
        reached = max(reached, end)
    return BucketTimeline(
        bucket=bucket,
        calls=len(mine),
        lead_in=mine[0][0],
        idle=idle,
        tail=max(0.0, wall - reached),
    )


def slowest(floors: Mapping[str, float]) -> str | None:
    """The bucket whose floor is the longest: the one that sets the run's least time."""
    return max(floors, key=lambda name: floors[name], default=None)
