"""The streamed apply: for a run whose whole plan is made before it applies anything (lineage-emission),
its actions run on the engine's pool in the order of their hash groups while the grouped checkpoint saver
writes each group once all of its actions are done.

The run gives a `StreamedRun`: `apply` (on a worker) answers one action's outcome, `deferred` the outcome
of an action that did not start (the deadline, less the saver's backlog, was near, or the saver stopped),
`changes` what an outcome writes to the saved state (the worker hands it to the saver at once), and `report`
records it, in the thread that called `stream`: the one writer of the run's result. The saver's report says
through which group every action was done and saved (`done_through`): the follow-up's resume point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from kafka_lineage.engine.checkpoints import Changes, Checkpoints, SaveReport
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.pool import Workers


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

    deferred: set[str] = set()  # the groups of the actions that did not start

    def may_start() -> bool:
        return not checkpoints.halted and not deadline.ending(checkpoints.backlog_seconds())

    def one(action: Any) -> Any:
        if may_start():
            outcome = run.apply(action)
        else:
            outcome = run.deferred(action)
            deferred.add(checkpoints.group_of(run.key(action)))
        # The saver hears of it at once, from the worker (it keeps its own state under its lock): a group is
        # saved as soon as its last action ends, not when the owner gets to it.
        key, changes, worked = run.changes(outcome)
        checkpoints.done(key, changes, worked=worked)
        return outcome

    with checkpoints, Workers(min(workers, len(actions) or 1), "run-apply") as pool:
        pool.each(actions, one, lambda _, outcome: run.report(outcome))
    report = checkpoints.report
    # Where a follow-up may resume: through the last group before the first one not wholly done and saved.
    report.finished = True
    for group in dict.fromkeys(checkpoints.group_of(run.key(action)) for action in actions):
        if group in deferred or not checkpoints.saved(group):
            report.finished = False
            break
        report.done_through = group
    return report
