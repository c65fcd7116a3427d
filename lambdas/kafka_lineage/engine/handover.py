"""Whether what a run read before taking its lease still holds: the lease follows the generation the
invocation that handed the run on held (kafka_lineage.model.handover, `lease`), so no other writer came
between the two."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class HandedLease(Protocol):
    """A lease that knows whether it was taken right after the generation the handover named
    (aws.lease.StateLease)."""

    follows_handover: bool


def unchanged_since_handover(lease: object) -> bool:
    """Whether the lease just taken follows the one the invocation that handed this run on held: then what
    this run read before taking it is what the state holds, and need not be read again."""
    return isinstance(lease, HandedLease) and lease.follows_handover
