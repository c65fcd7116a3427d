"""The mass-removal fail-safe both functions share: never let an *inferred* removal wipe out a group.

A removal is *inferred* when nothing but a reading says the thing is gone (a schema missing from a
listing, a topic missing from the asset mapping) and *confirmed* when an event or an explicit request named
it. A listing that comes back empty or truncated, or a mapping that could not be read, looks exactly like
"everything was deleted"; so, per group (a registry), inferred removals are held back, all of them, when
together they would remove more than ``limit`` of the group:

    held  <=>  inferred > limit * max(total, inferred)

``total`` is how many things the group holds (assets of a registry, lineage edges of a registry). Confirmed
removals always pass; ``allow`` (a request's ``allowMassDelete``) lets every removal pass.

The API is a frozen ``Ledger`` and pure functions, so a run may screen its removals in one go (the lineage
plan) or a batch at a time (schema-sync, chunk by chunk), with the same verdict as if all had come at once:

    ledger = Ledger.start(totals={"cdc": 120}, limit=0.5, allow=False)
    verdict, ledger = ledger.screen(
        removals, group=lambda r: r.registry_name, confirmed=lambda r: r.confirmed
    )
    verdict.kept   # tuple: apply these
    verdict.held   # tuple of Held: report each item as failed, naming the share and the override

A group that was held once stays held for the rest of the run (its later inferred removals are held too), and
the inferred removals a group has already let through count against its share in later batches. A batch
screened alone holds a group when that batch by itself crosses the limit; feed the run's inferred removals
in as few batches as the data allows (schema-sync screens those its listings show before its first chunk).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Held(Generic[T]):
    """A group's inferred removals that were held back, and why."""

    group: str
    items: tuple[T, ...]
    removed: int  # inferred removals of the group this run, counting these
    total: int
    limit: float

    @property
    def share(self) -> float:
        return self.removed / max(self.total, self.removed, 1)

    def reason(self, what: str = "assets") -> str:
        """A sentence for the failure entries of the held items."""
        return (
            f"held back by the mass-removal fail-safe: {self.removed} of {max(self.total, self.removed)} "
            f"{what} of registry {self.group} ({self.share:.0%} > {self.limit:.0%}) would go; "
            'invoke with "allowMassDelete": true to apply'
        )


@dataclass(frozen=True)
class Verdict(Generic[T]):
    kept: tuple[T, ...] = ()
    held: tuple[Held[T], ...] = ()

    @property
    def held_items(self) -> tuple[T, ...]:
        return tuple(item for held in self.held for item in held.items)


@dataclass(frozen=True)
class Ledger:
    """What a run has let through so far, per group; screening returns a new ledger."""

    totals: Mapping[str, int]
    limit: float
    allow: bool = False
    removed: Mapping[str, int] = field(default_factory=dict)  # inferred removals let through, per group
    blocked: frozenset[str] = frozenset()

    @classmethod
    def start(cls, totals: Mapping[str, int], limit: float, allow: bool = False) -> Ledger:
        if not 0 < limit <= 1:
            raise ValueError(f"the fail-safe limit must be a share in (0, 1], not {limit}")
        return cls(totals=dict(totals), limit=limit, allow=allow)

    def screen(
        self,
        items: Iterable[T],
        *,
        group: Callable[[T], str],
        confirmed: Callable[[T], bool],
    ) -> tuple[Verdict[T], Ledger]:
        """Split ``items`` into those that may be applied and those held back (grouped, with the reason)."""
        kept: list[T] = []
        inferred: dict[str, list[T]] = {}
        for item in items:
            if self.allow or confirmed(item):
                kept.append(item)
            else:
                inferred.setdefault(group(item), []).append(item)
        removed = dict(self.removed)
        blocked = set(self.blocked)
        held: list[Held[T]] = []
        for name in sorted(inferred):
            batch = inferred[name]
            count = removed.get(name, 0) + len(batch)
            total = self.totals.get(name, 0)
            if name in blocked or count > self.limit * max(total, count):
                blocked.add(name)
                held.append(Held(name, tuple(batch), count, total, self.limit))
            else:
                removed[name] = count
                kept.extend(batch)
        return Verdict(tuple(kept), tuple(held)), replace(self, removed=removed, blocked=frozenset(blocked))


def screen(
    items: Iterable[T],
    *,
    totals: Mapping[str, int],
    limit: float,
    allow: bool,
    group: Callable[[T], str],
    confirmed: Callable[[T], bool],
) -> Verdict[T]:
    """All of a run's removals in one batch (the common case)."""
    verdict, _ = Ledger.start(totals, limit, allow).screen(items, group=group, confirmed=confirmed)
    return verdict
