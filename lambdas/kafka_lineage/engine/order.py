"""The run's order and its chunks: every item has a position (its hash group in the saved state, its key),
the work is sorted by it, and chunks are cut on group boundaries, so each state parameter is saved once per
run and a follow-up invocation resumes after the last position saved."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, order=True)
class Position:
    """Where an item stands in the run's order: (hash group, key). A follow-up resumes after one."""

    group: str
    key: str


def cut(
    work: Sequence[tuple[Position, Any]],
    start: int,
    max_items: int,
    fits: Callable[[Sequence[tuple[Position, Any]]], bool],
) -> int:
    """The end (exclusive) of the chunk that starts at `start`.

    Whole hash groups, as many as stay within `max_items` (always at least one group), fewer while the chunk
    does not `fit` (the time left). Only when not even one whole group fits is a group split, to the largest
    prefix that fits; `start` itself means nothing fits.
    """
    boundaries: list[int] = []
    index = start
    while index < len(work):
        group = work[index][0].group
        while index < len(work) and work[index][0].group == group:
            index += 1
        if boundaries and index - start > max_items:
            break
        boundaries.append(index)
        if index - start >= max_items:
            break
    for end in reversed(boundaries):
        if fits(work[start:end]):
            return end
    if not boundaries:
        return start
    low, high = 0, boundaries[0] - start - 1  # the largest prefix of the first group that fits
    while low < high:
        middle = (low + high + 1) // 2
        if fits(work[start : start + middle]):
            low = middle
        else:
            high = middle - 1
    return start + low
