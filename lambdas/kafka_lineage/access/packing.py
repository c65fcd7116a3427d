"""Packing a role's statements into IAM policies within IAM's limits (IAM User Guide, "IAM and AWS STS
quotas"): inline policies total at most 10,240 characters per role, a managed policy at most 6,144, at
most 10 managed policies attached to a role by default; whitespace does not count.

The inline policy fills first (its budget is what the role's other inline policies leave), then managed
policies, each as full as it goes, in the statements' fixed order; a statement that does not fit is split
by its resources across statements. The role's other attached managed policies take their slots first.
A role whose access does not fit fails with a cause naming the limit.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kafka_lineage.access.desired import Statement, document, policy_size

ROLE_INLINE_LIMIT = 10_240
MANAGED_POLICY_LIMIT = 6_144
DEFAULT_MANAGED_QUOTA = 10


@dataclass(frozen=True)
class Budget:
    """Where a role's access may go: characters its other inline policies leave, and managed slots."""

    inline: int
    managed_slots: int
    other_inline: int = 0
    other_managed: int = 0
    managed_quota: int = DEFAULT_MANAGED_QUOTA


@dataclass(frozen=True)
class Packed:
    """The documents to write: the inline one (None: no inline policy) and the managed ones, in order."""

    inline: dict[str, Any] | None
    managed: tuple[dict[str, Any], ...]


class NoRoom(Exception):
    """The role's access does not fit IAM's limits; the message says which limit."""


class _Filling:
    """One document being filled, with its size kept as statements are added."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.statements: list[dict[str, Any]] = []
        self.size = policy_size(document([]))

    def room(self) -> int:
        # A statement after the first is preceded by a comma.
        return self.limit - self.size - (1 if self.statements else 0)

    def add(self, rendered: dict[str, Any]) -> None:
        """Add a statement that `_fitting` measured to fit."""
        self.size += policy_size(rendered) + (1 if self.statements else 0)
        self.statements.append(rendered)


def _fitting(statement: Statement, resources: tuple[str, ...], part: int, room: int) -> int:
    """How many of `resources` (from the first) fit in one statement of at most `room` characters."""
    size = policy_size(statement.render((), part))
    count = 0
    for resource in resources:
        size += len(json.dumps(resource, ensure_ascii=False)) + (1 if count else 0)
        if size > room:
            break
        count += 1
    return count


def pack(statements: tuple[Statement, ...], budget: Budget) -> Packed:
    """The documents that hold `statements` within `budget`; raises NoRoom naming the limit."""
    documents = [_Filling(budget.inline)] + [
        _Filling(MANAGED_POLICY_LIMIT) for _ in range(budget.managed_slots)
    ]
    current = 0
    for statement in statements:
        remaining, part = statement.resources, 1
        while remaining:
            if current >= len(documents):
                raise NoRoom(_no_room(statements, budget))
            filling = documents[current]
            count = _fitting(statement, remaining, part, filling.room())
            if count == 0:
                current += 1
                continue
            filling.add(statement.render(remaining[:count], part))
            remaining, part = remaining[count:], part + 1
    inline = document(documents[0].statements) if documents[0].statements else None
    managed = tuple(document(filling.statements) for filling in documents[1:] if filling.statements)
    return Packed(inline, managed)


def _no_room(statements: tuple[Statement, ...], budget: Budget) -> str:
    needed = sum(policy_size(statement.render()) for statement in statements)
    return (
        f"no room left in IAM's limits for this role's access (about {needed:,} characters): inline "
        f"policies total at most {ROLE_INLINE_LIMIT:,} characters per role ({budget.other_inline:,} taken "
        f"by its other inline policies), and at most {budget.managed_quota} managed policies of "
        f"{MANAGED_POLICY_LIMIT:,} characters each may be attached to a role ({budget.other_managed} "
        "attached by others)"
    )
