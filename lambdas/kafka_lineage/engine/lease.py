"""The one lease policy of the runs that write shared state (the asset records, the lineage state, a role's
policy).

A run takes its lease before its first write (a run with nothing to write takes none), waiting at most
LEASE_WAIT_SECONDS and never into the deadline margin for an overlapping invocation to finish. A lease still
held by another live invocation then is not an error: the run writes nothing and ends `Deferred` ("busy");
every run reports it the same way (`"deferred": "busy"` in its result), and its handler hands the event to a
follow-up invocation, so no request is dropped. Other failures to take it (SSM failing) are the run's to
report: nothing is written without the lease.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.model.failures import LeaseBusy
from kafka_lineage.observability import logger

# How long a run waits for another invocation's lease before handing its event on. A holder may keep it for
# its whole Lambda timeout: waiting that long would only double the bill, and the follow-up loses nothing.
LEASE_WAIT_SECONDS = 20.0


class Lease(Protocol):
    """A single-writer lease (`aws.lease.StateLease`, `aws.role_leases`): `acquire` raises LeaseBusy after
    `wait_seconds` while another invocation holds it; `ensure_held` raises LeaseLost once a newer holder
    took it (checked before every save)."""

    def acquire(self, wait_seconds: float) -> None: ...

    def ensure_held(self) -> None: ...


@dataclass(frozen=True)
class Deferred:
    """The run wrote nothing and hands its event on: `reason` is what its result says under `deferred`."""

    reason: str = "busy"
    detail: str = ""


def wait_within(deadline: Deadline, wait: float = LEASE_WAIT_SECONDS) -> float:
    """How long a run may wait for a busy lease: `wait`, never into the deadline margin."""
    return max(0.0, min(wait, deadline.left()))


def hold(lease: Lease | None, deadline: Deadline, wait: float = LEASE_WAIT_SECONDS) -> Deferred | None:
    """Take `lease` (None: nothing to take), waiting up to `wait` seconds, never past the deadline margin;
    a `Deferred` when another invocation keeps it. Any other failure is raised."""
    if lease is None:
        return None
    try:
        lease.acquire(wait_seconds=wait_within(deadline, wait))
    except LeaseBusy as busy:
        logger.info("state held by another invocation: deferring", extra={"lease": str(busy)})
        return Deferred("busy", str(busy))
    return None
