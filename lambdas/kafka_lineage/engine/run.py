"""The one run contract: each function's run is one object with one method, `execute(request, deadline)`,
and each run's result is a `RunResult`, which carries what every run reports.

- `Run`: `execute(request, deadline) -> RunResult`. The run reads through its ports, plans, applies (its
  writer ports; in a dry run the composition root has replaced them, engine/dry.py) and reports. It never
  raises for one item's failure.
- `RunResult`: the dry-run flag and the trigger; `deferred` (another invocation held the state: nothing
  written, the event is handed on); `incomplete` with `remaining` and `resume_after` (where a follow-up
  starts) and `progressed` (something was finished, so handing on cannot loop); `failed` (a sample of
  every failed item). Each run's result adds only its own counts, and says how it is read
  (`to_dict`, `publish_metrics`) and whether the invocation must fail (`raises`).

The generic handler (engine/function.py) builds the deadline, holds the lease once, executes, reports the
metrics and hands on a run that `continues`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.lease import Deferred
from kafka_lineage.model.report import Sample

FAILED_SAMPLE = 50  # failed items a result carries (a run's own result may keep more); the logs have all


@dataclass
class RunResult:
    """What every run reports; each run's result subclasses it with its own counts."""

    dry_run: bool = False
    trigger: str = ""
    failed: Sample = field(default_factory=lambda: Sample(FAILED_SAMPLE))
    deferred: Deferred | None = None  # another invocation held the state: nothing written, handed on
    incomplete: bool = False  # the deadline came first: a follow-up goes on
    remaining: int = 0  # items not started
    progressed: bool = False  # something finished and was recorded (a follow-up would not loop)
    resume_after: Any = None  # where a follow-up starts (each run's own position)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def defer(self, deferred: Deferred) -> None:
        """The run wrote nothing: another invocation holds the state (the engine's lease policy)."""
        with self._lock:
            self.deferred = deferred

    def stop_early(self, remaining: int) -> None:
        """The deadline came before these `remaining` items started."""
        with self._lock:
            self.incomplete, self.remaining = True, remaining

    @property
    def continues(self) -> bool:
        """Whether the invocation hands its work to a follow-up: deferred (the same request again), or
        stopped for time after finishing something (a follow-up that could start nothing would loop)."""
        return self.deferred is not None or (self.incomplete and self.progressed)

    @property
    def raises(self) -> bool:
        """Whether the invocation fails after reporting (Lambda's retries, the DLQ and alarms see it)."""
        return bool(self.failed.total)

    def publish_metrics(self) -> None:
        """The run's metrics (a dry run's must not feed alarms)."""

    def to_dict(self) -> dict[str, Any]:
        """The result as the function returns it (JSON-ready)."""
        raise NotImplementedError


RequestT_contra = TypeVar("RequestT_contra", contravariant=True)
ResultT_co = TypeVar("ResultT_co", bound=RunResult, covariant=True)


class Run(Protocol[RequestT_contra, ResultT_co]):
    """One run of a function over its ports: read, plan, apply (or, in a dry run, the plan alone), report."""

    def execute(self, request: RequestT_contra, deadline: Deadline) -> ResultT_co: ...
