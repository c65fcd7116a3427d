"""What one function invocation came to, and the command line's exit code for it.

The functions return their result, or raise after finishing every item when any item failed, with the
same result as the error's message (schema_sync.handler.SyncFailed, lineage_emission.handler.
LineageEmissionFailed, subscription_grants.handler.GrantsFailed). A payload they do not accept raises
InvalidRequest; subscription-grants instead returns a result whose `malformed` lists what it could not read
(Lambda would retry an event that never parses), which is the same refusal. So an invocation ends in one of
four ways, each with its own exit code (docs/cli.md).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

OK = 0  # the run finished and nothing failed
PARTIAL = 1  # the run finished, and some items failed (each is listed; the others were done)
BAD_INPUT = 2  # the command line or the payload was refused (click's usage errors exit 2 as well)
FAILED = 3  # the run did not happen or did not finish: the stack or function is missing, AWS refused, ...

# The errors raised after a finished run (their message is the result) and the one for a refused payload.
FINISHED_WITH_FAILURES = frozenset({"SyncFailed", "LineageEmissionFailed", "GrantsFailed"})
REFUSED_PAYLOAD = frozenset({"InvalidRequest"})


@dataclass(frozen=True)
class Outcome:
    """A function's result, or the error that stood in for it."""

    function: str
    result: dict[str, Any] | None = None
    error_type: str | None = None
    error: str | None = None

    @classmethod
    def from_error(cls, function: str, error_type: str, message: str) -> Outcome:
        """An error a handler raised: a finished run's failure carries the result as its message."""
        if error_type in FINISHED_WITH_FAILURES:
            try:
                result = json.loads(message)
            except json.JSONDecodeError:
                result = None
            if isinstance(result, dict):
                return cls(function, result=result, error_type=error_type)
        return cls(function, error_type=error_type, error=message)

    @property
    def failures(self) -> int:
        """Items that failed in a finished run (schema-sync's failedTotal and events it could not put;
        lineage's failed count)."""
        if self.result is None:
            return 0
        counts = self.result.get("counts") or {}
        failed = self.result.get("failedTotal", counts.get("failed", len(self.result.get("failed") or [])))
        return int(failed or 0) + int(self.result.get("eventsFailed") or 0)

    @property
    def exit_code(self) -> int:
        if self.result is not None and self.result.get("malformed"):
            return BAD_INPUT  # the payload was refused, reported rather than raised
        if self.result is not None:
            return PARTIAL if self.failures else OK
        if self.error_type in REFUSED_PAYLOAD:
            return BAD_INPUT
        return FAILED

    def to_json(self) -> dict[str, Any]:
        if self.result is not None:
            return self.result
        return {"error": self.error_type, "message": self.error}
