"""What both runs' results are made of: per-item lists sampled for the Lambda response, and one entry shape
for a failure.

A result returns counts and the first entries of each per-item list with its true length (every entry is in
the logs), so it stays far below Lambda's 6 MB response limit at any registry size. A failure reads the same
in both results: `Operation: Code: Message` for an AWS error, `Type: text` for any other
(`failures.describe_failure`), after what the run was doing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from kafka_lineage.model.failures import describe_failure


class Sample:
    """A per-item list kept short for the result (its first `limit` items) with its true length (`total`).

    Not locked: the result that owns it adds under its own lock."""

    def __init__(self, limit: int) -> None:
        self.items: list[dict[str, Any]] = []
        self.total = 0
        self.limit = limit

    def add(self, item: dict[str, Any]) -> None:
        self.total += 1
        if len(self.items) < self.limit:
            self.items.append(item)

    def extend(self, items: Iterable[dict[str, Any]]) -> None:
        for item in items:
            self.add(item)

    def __len__(self) -> int:
        return self.total

    def __bool__(self) -> bool:
        return self.total > 0


def failure_item(error: BaseException | str, *, doing: str = "", **where: str) -> dict[str, str]:
    """One entry of a result's `failed` list: where it happened (`where`, e.g. `schemaArn`), and `error` as
    `describe_failure` reads it (a string is taken as written), after `doing` ("reading X", if given)."""
    text = error if isinstance(error, str) else describe_failure(error)
    return {**where, "error": f"{doing}: {text}" if doing else text}
