"""The one handler of the three functions (engine/function.py) over a fake wiring: the lease is held once
and always released, a dry run takes none, a run that continues is handed on, and a result that raises
fails the invocation after it was reported."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.function import Function, RunFailed
from kafka_lineage.engine.handover import NoHandover
from kafka_lineage.engine.run import RunResult


@dataclass
class Request:
    dry_run: bool = False
    trigger: str = "manual"


@dataclass
class Result(RunResult):
    def to_dict(self) -> dict[str, Any]:
        return {"dryRun": self.dry_run, "failed": self.failed.items, "incomplete": self.incomplete}


class Lease:
    def __init__(self) -> None:
        self.released = 0

    def release(self) -> None:
        self.released += 1


@dataclass
class FakeWiring:
    answer: Result | Exception
    name: str = "fake"
    leases: list[Lease] = field(default_factory=list)
    handed: list[dict[str, Any]] = field(default_factory=list)
    deadlines: list[Deadline] = field(default_factory=list)

    def settings(self) -> dict[str, str]:
        return {}

    def request(self, event: Any, context: Any, settings: Any) -> Request:
        return Request(dry_run=bool(event.get("dryRun")))

    def margin_seconds(self, settings: Any) -> float:
        return 60.0

    def lease(self, settings: Any, context: Any) -> Lease:
        self.leases.append(Lease())
        return self.leases[-1]

    def run(self, settings: Any, request: Request, context: Any, lease: Any) -> Any:
        wiring = self

        class Run:
            def execute(self, request: Request, deadline: Deadline) -> Result:
                wiring.deadlines.append(deadline)
                if isinstance(wiring.answer, Exception):
                    raise wiring.answer
                wiring.answer.dry_run = request.dry_run
                return wiring.answer

        return Run()

    def follow_up(self, event: Any, request: Request, result: Result) -> dict[str, Any]:
        return {**event, "resumeAfter": result.resume_after}

    def continuation(self, event: Any, lease: Any) -> NoHandover:
        return NoHandover()

    def hand_on(self, function_arn: str, event: dict[str, Any]) -> bool:
        self.handed.append(event)
        return True


class Context:
    invoked_function_arn = "arn:aws:lambda:eu-west-1:123456789012:function:fake"

    def get_remaining_time_in_millis(self) -> int:
        return 300_000


def test_given_a_run_when_invoked_then_the_lease_is_held_once_and_the_deadline_keeps_the_margin() -> None:
    wiring = FakeWiring(Result())
    out = Function(wiring)({}, Context())
    assert out == {"dryRun": False, "failed": [], "incomplete": False}
    assert [lease.released for lease in wiring.leases] == [1]
    assert 239 <= wiring.deadlines[0].left() <= 240


def test_given_a_dry_run_when_invoked_then_no_lease_is_taken() -> None:
    wiring = FakeWiring(Result())
    assert Function(wiring)({"dryRun": True}, Context())["dryRun"] is True
    assert wiring.leases == []


def test_given_a_run_that_crashes_when_invoked_then_the_lease_is_still_released() -> None:
    wiring = FakeWiring(RuntimeError("a bug"))
    with pytest.raises(RuntimeError, match="a bug"):
        Function(wiring)({}, Context())
    assert [lease.released for lease in wiring.leases] == [1]


def test_given_a_run_stopped_after_progress_when_invoked_then_its_follow_up_is_handed_on() -> None:
    wiring = FakeWiring(Result(incomplete=True, progressed=True, resume_after="g7"))
    out = Function(wiring)({"x": 1}, Context())
    assert wiring.handed == [{"x": 1, "resumeAfter": "g7"}]
    assert out["continued"] is True


def test_given_a_run_stopped_before_any_progress_when_invoked_then_nothing_is_handed_on() -> None:
    wiring = FakeWiring(Result(incomplete=True, progressed=False))
    assert "continued" not in Function(wiring)({}, Context())
    assert wiring.handed == []


def test_given_failed_items_when_invoked_then_it_raises_after_reporting_with_the_result() -> None:
    result = Result()
    result.failed.add({"error": "boom"})
    with pytest.raises(RunFailed, match="boom"):
        Function(FakeWiring(result))({}, Context())
