"""The streamed apply: for a run whose whole plan is made before it applies anything (lineage-emission),
its actions run on the engine's pool in the order of their hash groups while the grouped checkpoint saver
writes each group once all of its actions are done.

The run gives a `StreamedRun`: `apply` (on a worker) answers one action's outcome, `deferred` the outcome
of an action that did not start (the deadline, less the saver's backlog, was near, or the saver stopped),
`changes` what an outcome writes to the saved state, and `report` records it. `changes` and `report` run in
the thread that called `stream`: the one writer of the run's result.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from kafka_lineage.engine.checkpoints import Changes, Checkpoints, SaveReport
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.pool import NOT_STARTED, Workers


class StreamedRun(Protocol):
    def key(self, action: Any) -> str:
        """The item's key in the saved state (the checkpoints know each key's group)."""
        ...

    def apply(self, action: Any) -> Any: ...

    def deferred(self, action: Any) -> Any:
        """The outcome of an action that did not start: nothing done, its group still saved."""
        ...

    def changes(self, outcome: Any) -> tuple[str, Changes, bool]:
        """(key, the state changes the outcome makes, whether it did any work)."""
        ...

    def report(self, outcome: Any) -> None: ...


def stream(
    run: StreamedRun,
    actions: Sequence[Any],
    workers: int,
    checkpoints: Checkpoints,
    deadline: Deadline,
) -> SaveReport:
    """Apply `actions` (already in their groups' order) `workers` at a time, saving each finished group;
    none starts once the saver stopped or the deadline, less the unsaved groups' write time, is near."""

    def may_start() -> bool:
        return not checkpoints.halted and not deadline.ending(checkpoints.backlog_seconds())

    def receive(action: Any, value: Any) -> None:
        outcome = run.deferred(action) if value is NOT_STARTED else value
        key, changes, worked = run.changes(outcome)
        checkpoints.done(key, changes, worked=worked)
        run.report(outcome)

    with checkpoints, Workers(min(workers, len(actions) or 1), "run-apply") as pool:
        pool.each(actions, run.apply, receive, may_start)
    return checkpoints.report
