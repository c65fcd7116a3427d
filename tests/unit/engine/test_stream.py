"""The streamed apply's resume point: through which group every action was done and saved."""

from __future__ import annotations

from typing import Any

from kafka_lineage.engine.checkpoints import Changes, Checkpoints
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.stream import stream
from kafka_lineage.model.failures import LeaseLost


class Run:
    """Actions named `<group>/<n>`: each is done, or deferred when it may not start."""

    def __init__(self) -> None:
        self.reported: list[tuple[str, str]] = []

    def key(self, action: str) -> str:
        return action

    def apply(self, action: str) -> tuple[str, str]:
        return action, "done"

    def deferred(self, action: str) -> tuple[str, str]:
        return action, "deferred"

    def changes(self, outcome: tuple[str, str]) -> tuple[str, Changes, bool]:
        action, kind = outcome
        worked = kind == "done"
        return action, ({action: {"done": True}} if worked else {}), worked

    def report(self, outcome: tuple[str, str]) -> None:
        self.reported.append(outcome)


def checkpoints_for(actions: list[str], lost_at: str = "") -> Checkpoints:
    """The saver of `actions`' groups; a save holding `lost_at` finds the lease taken over."""

    def save(changes: Changes) -> int:
        if lost_at in changes:
            raise LeaseLost("taken over")
        return len(changes)

    def reload() -> Any:
        return None

    groups = {action: action.split("/")[0] for action in actions}
    return Checkpoints(groups, save=save, reload=reload, write_seconds=lambda: (0.0, 0.0))


ACTIONS = ["00/a", "00/b", "01/a", "03/a", "03/b", "07/a"]


def test_given_every_action_done_and_saved_then_the_run_finished_through_its_last_group() -> None:
    # Given actions in four groups, in their order
    run = Run()
    # When they are streamed with time enough
    report = stream(run, ACTIONS, 2, checkpoints_for(ACTIONS), Deadline.never())
    # Then every group was saved: the follow-up (if any) resumes after the last one
    assert (report.finished, report.done_through) == (True, "07")
    assert sorted(outcome for outcome, _ in run.reported) == sorted(ACTIONS)


def test_given_a_save_lost_then_the_resume_point_stops_before_the_first_group_not_saved() -> None:
    # Given a lease taken over when group 03 is saved (with whatever groups were ready with it)
    run = Run()
    # When the actions are streamed
    report = stream(run, ACTIONS, 1, checkpoints_for(ACTIONS, lost_at="03/a"), Deadline.never())
    # Then the run did not finish, and its resume point is before group 03
    assert (report.finished, report.lease_lost) == (False, True)
    assert report.done_through in (None, "00", "01")


def test_given_no_time_left_then_nothing_is_done_and_there_is_no_resume_point() -> None:
    # Given a deadline already inside its margin
    run = Run()
    deadline = Deadline(lambda: 10.0, margin=60.0)
    # When the actions are streamed
    report = stream(run, ACTIONS, 2, checkpoints_for(ACTIONS), deadline)
    # Then every action was deferred and no group counts as done
    assert (report.finished, report.done_through) == (False, None)
    assert {kind for _, kind in run.reported} == {"deferred"}
