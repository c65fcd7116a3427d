"""The one handler of the three functions (schema-sync, lineage-emission, subscription-grants).

Every invocation is the same story, told here once:
1. the settings, from the wiring (the function's composition root: the deployed one reads the
   environment; tests and the local runs give theirs), and the request, parsed by the wiring;
2. the deadline: Lambda's remaining time less the run's margin;
3. the lease, held once for the whole invocation (a dry run takes none, and a function whose leases are
   per item, subscription-grants', has none here) and always released;
4. the run the wiring composes (its continuation takes what the invocation that handed this one on
   knew: engine/handover.py) (in a dry run, over writer ports that only record: engine/dry.py),
   `execute(request, deadline)`;
5. the metrics and the result; a run that `continues` hands its follow-up event on (`lambda:Invoke`);
6. a result that `raises` makes the invocation fail after everything was done and reported, so Lambda's
   retries, the DLQ and the alarms see it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any, Generic, Protocol, TypeVar

from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.run import Run, RunResult
from kafka_lineage.observability import logger, observed

# The context is Lambda's, or any object with its attributes (tests and the local runs pass their own).
Handler = Callable[[dict[str, Any], Any], dict[str, Any]]

SettingsT = TypeVar("SettingsT")
RequestT = TypeVar("RequestT", bound="Request")
ResultT = TypeVar("ResultT", bound=RunResult)


def deployed_environment() -> Mapping[str, str]:
    """The deployed function's settings: its environment (the stack sets it; Lambda adds AWS_REGION). Each
    wiring reads it through its `environ`, which tests and the local runs replace."""
    return os.environ


def function_account(context: Any) -> str:
    """The function's own account, from its ARN (arn:aws:lambda:<region>:<account>:function:<name>)."""
    parts = str(getattr(context, "invoked_function_arn", "") or "").split(":")
    return parts[4] if len(parts) > 4 else ""


def function_name(context: Any, default: str) -> str:
    """The function's name (a source account's CloudTrail and the lease holder show it), else `default`."""
    return str(getattr(context, "function_name", "") or default)


class RunFailed(RuntimeError):
    """Raised after every item was tried and the result reported, when the result says so (its JSON is the
    message)."""


class Held(Protocol):
    """A lease the invocation holds (aws.lease.StateLease): released however the run ends."""

    def release(self) -> None: ...


class Handing(Protocol):
    """An invocation's side of the handover (engine/handover.py `Continuation`, or `NoHandover`)."""

    def close(self) -> None: ...

    def follow_up(self, event: Mapping[str, Any]) -> dict[str, Any]: ...


class Request(Protocol):
    @property
    def dry_run(self) -> bool: ...

    @property
    def trigger(self) -> str: ...


class FunctionWiring(Protocol[SettingsT, RequestT, ResultT]):
    """What a function is made of (its `wiring.Wiring`): the composition root the handler runs."""

    @property
    def name(self) -> str:
        """The function's name in its logs (and its lease holder's)."""
        ...

    def settings(self) -> SettingsT: ...

    def request(self, event: Any, context: Any, settings: SettingsT) -> RequestT:
        """The event read (a malformed one raises `InvalidRequest`, or is reported by the run)."""
        ...

    def margin_seconds(self, settings: SettingsT) -> float:
        """The deadline's margin: kept for handing on."""
        ...

    def lease(self, settings: SettingsT, context: Any) -> Held | None:
        """The invocation's lease of the state it writes (taken by the run before its first write)."""
        ...

    def run(self, settings: SettingsT, request: RequestT, context: Any, lease: Any) -> Run[RequestT, ResultT]:
        """The run over its ports; in a dry run, over writer ports that only record."""
        ...

    def follow_up(self, event: Any, request: RequestT, result: ResultT) -> dict[str, Any] | None:
        """The event a follow-up invocation gets when the result `continues` (None: none)."""
        ...

    def continuation(self, event: Any, lease: Any) -> Handing:
        """What this invocation takes from the one that handed it on, and hands its own follow-up
        (engine/handover.py)."""
        ...

    def hand_on(self, function_arn: str, event: dict[str, Any]) -> bool: ...


class Function(Generic[SettingsT, RequestT, ResultT]):
    """One invocation over a `FunctionWiring` (see the module doc)."""

    def __init__(
        self, wiring: FunctionWiring[SettingsT, RequestT, ResultT], failure: type[RunFailed] = RunFailed
    ) -> None:
        self.wiring = wiring
        self.failure = failure

    def __call__(self, event: Any, context: Any) -> dict[str, Any]:
        wiring = self.wiring
        settings = wiring.settings()
        request = wiring.request(event, context, settings)
        dry_run = request.dry_run
        logger.info(f"{wiring.name} starting", extra={"trigger": request.trigger, "dryRun": dry_run})

        def remaining_seconds() -> float:
            return float(context.get_remaining_time_in_millis()) / 1000

        deadline = Deadline(remaining_seconds, wiring.margin_seconds(settings))
        lease = None if dry_run else wiring.lease(settings, context)  # a dry run writes nothing
        continuation = wiring.continuation(event, lease)  # what the invocation that handed this one on knew
        try:
            result = wiring.run(settings, request, context, lease).execute(request, deadline)
        finally:
            if lease is not None:
                lease.release()
            continuation.close()
        result.publish_metrics()
        out = result.to_dict()
        if result.continues:
            follow_up = wiring.follow_up(event, request, result)
            if follow_up is not None:
                follow_up = continuation.follow_up(follow_up)
                if result.deferred is not None:
                    logger.warning(
                        "state busy: handing the event to a follow-up",
                        extra={"reason": result.deferred.detail},
                    )
                out["continued"] = wiring.hand_on(str(context.invoked_function_arn), follow_up)
        logger.info(
            f"{wiring.name} finished", extra={"result": {k: v for k, v in out.items() if k != "planned"}}
        )
        if result.raises:
            raise self.failure(json.dumps(out, separators=(",", ":"), default=str))
        return out


def make_handler(
    wiring: FunctionWiring[SettingsT, RequestT, ResultT], failure: type[RunFailed] = RunFailed
) -> Handler:
    """The Lambda handler over `wiring`: its logs, metrics and trace (observability.observed) around one
    `Function` invocation."""
    return observed(Function(wiring, failure))
