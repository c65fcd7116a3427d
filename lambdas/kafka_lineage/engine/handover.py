"""The handover between an invocation and its follow-up, on the engine's side (the event's member, a value,
is kafka_lineage.model.handover):

- `Continuation`: what the one handler (engine/function.py) takes from the invocation that handed this one
  on (the lease generation it held, the pace its limiters reached) and adds to its own follow-up's event;
- `unchanged_since_handover`: whether what a run read before taking its lease still holds: the lease
  follows the generation the invocation that handed the run on held, so no other writer came between.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from kafka_lineage.model.handover import handover_of, with_handover


@runtime_checkable
class HandedLease(Protocol):
    """A lease that knows whether it was taken right after the generation the handover named
    (aws.lease.StateLease)."""

    follows_handover: bool


def unchanged_since_handover(lease: object) -> bool:
    """Whether the lease just taken follows the one the invocation that handed this run on held: then what
    this run read before taking it is what the state holds, and need not be read again."""
    return isinstance(lease, HandedLease) and lease.follows_handover


class HandingLease(Protocol):
    """The state lease as the handover sees it (aws.lease.StateLease): told the generation the invocation
    that handed on held, it says the generation it held last."""

    handed: int | None
    last_generation: int | None


class Paced(Protocol):
    """The wiring's pacers as the handover sees them (aws.clients.Clients)."""

    def carry_over(self, rates: Mapping[str, float]) -> None: ...

    def reached(self) -> dict[str, float]: ...


class Continuation:
    """One invocation's side of the handover, for the one handler (engine/function.py). Made as it starts,
    from its event: its lease learns which generation the invocation that handed it on held, and its pacers'
    limiters start at the pace that one reached. `close` (once it has run) notes the pace reached;
    `follow_up` adds this invocation's handover to the event to hand on (keeping the `through` the wiring
    put there)."""

    def __init__(self, event: Mapping[str, Any], lease: HandingLease | None, pacers: Paced) -> None:
        handed = handover_of(event)
        self.lease, self.pacers = lease, pacers
        if lease is not None:
            lease.handed = handed.lease
        pacers.carry_over(handed.rates)
        self.rates: dict[str, float] = {}

    def close(self) -> None:
        self.rates = self.pacers.reached()
        self.pacers.carry_over({})  # a warm instance's next invocation starts from what it measured

    def follow_up(self, event: Mapping[str, Any]) -> dict[str, Any]:
        held = self.lease.last_generation if self.lease is not None else None
        return with_handover(event, held, handover_of(event).through, self.rates)


class NoHandover:
    """A function whose follow-ups carry no handover (subscription-grants: per-role leases, no state)."""

    def close(self) -> None:
        """Nothing noted."""

    def follow_up(self, event: Mapping[str, Any]) -> dict[str, Any]:
        return dict(event)
