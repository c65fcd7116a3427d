"""`python -m bench.invoke project|baseline`: a warm Lambda-like environment that runs each invocation in a
process of its own.

The process imports the handlers (or bench/baseline.py) and builds the boto3 clients they use, as a reused
Lambda environment has them, prints one line ("ready"), then reads jobs from stdin, one JSON object a line:

    {"kind": "sync" | "lineage" | "baseline_sync" | "baseline_lineage", "event": {...},
     "env": {...Lambda environment...}, "deadline_seconds": 900, "baseline": {...BaselineConfig...}}

For each job it forks: the child sets the job's environment, runs one invocation and reports
`{"wall_seconds", "cpu_seconds", "result", "error", "peak_rss_mb", "calls"}`, which this process writes to
stdout as one line. The child's own stdout (the handlers' log lines) goes to stderr.

`calls` lists every AWS API call the invocation made, as `[service:Operation, target, digest]`: the target
is the SSM parameter name for SSM calls (empty otherwise), the digest a hash of the call's parameters
without idempotency tokens. The same digest twice is the same request made twice: the harness counts those
across the invocations of a run (a write repeated after a checkpoint, a read made again). Calls are taken
where every client sends them (botocore's `BaseClient._make_api_call`), so whatever clients the handlers
build are covered, and botocore's own retries of one call count once.

Why fork from a warm process: the invocation's peak memory is then that of a warm environment plus what the
invocation itself needs, measured in a process that serves nothing else (the stand-ins run in another one),
the way Lambda's "Max Memory Used" is; a follow-up invocation after a checkpoint starts from the same warm
state, not from the previous invocation's memory; and no invocation pays for imports and client set-up,
which would otherwise dominate a quick run.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import resource
import sys
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

PROJECT_SERVICES = ("glue", "datazone", "ssm", "events", "kafka", "cloudwatch")
BASELINE_SERVICES = ("glue", "datazone", "ssm")


@dataclass
class LambdaContext:
    """The parts of Lambda's context object the handlers and Powertools read; the deadline is real."""

    deadline_seconds: float
    function_name: str = "bench"
    memory_limit_in_mb: int = 1024
    invoked_function_arn: str = "arn:aws:lambda:eu-west-1:123456789012:function:bench"
    aws_request_id: str = "00000000-0000-4000-8000-0000000bench"
    started: float = field(default_factory=time.monotonic)

    def get_remaining_time_in_millis(self) -> int:
        left = self.deadline_seconds - (time.monotonic() - self.started)
        return max(0, int(left * 1000))


class Warm:
    """What a warm environment holds: the entry points and their boto3 clients."""

    def __init__(self, flavour: str) -> None:
        if flavour == "project":
            from kafka_lineage.aws.clients import Clients
            from lineage_emission.handler import make_handler as lineage_handler
            from lineage_emission.wiring import Wiring as LineageWiring
            from schema_sync.handler import make_handler as sync_handler
            from schema_sync.wiring import Wiring as SyncWiring

            # Each function's wiring, as its handler module builds it. This one process stands for a warm
            # instance of each function, and each invocation runs in a process forked from it: both wirings
            # are given one set of clients, so that an invocation inherits what one function's warm instance
            # holds (one client per service), not two functions' sets (a larger heap to copy and collect).
            clients = Clients()
            sync, lineage = SyncWiring(clients=clients), LineageWiring(clients=clients)
            self.handlers: dict[str, Any] = {"sync": sync_handler(sync), "lineage": lineage_handler(lineage)}
            self.clients: dict[str, Any] = {service: clients.client(service) for service in PROJECT_SERVICES}
        elif flavour == "baseline":
            import boto3

            from bench import baseline

            self.baseline = baseline
            self.handlers = {}
            self.clients = {service: boto3.client(service) for service in BASELINE_SERVICES}
        else:
            raise ValueError(f"unknown environment {flavour!r}: project or baseline")


def call_signature(service: str, operation: str, params: dict[str, Any], tokens: set[str]) -> list[str]:
    """[service:Operation, target, digest] of one call; members in `tokens` (idempotency tokens) left out."""
    kept = {key: value for key, value in params.items() if key not in tokens}
    body = json.dumps(kept, sort_keys=True, default=repr, separators=(",", ":"))
    target = str(params.get("Name", "")) if service == "ssm" else ""
    return [f"{service}:{operation}", target, hashlib.sha256(body.encode()).hexdigest()[:16]]


@dataclass
class Recorded:
    """What an invocation called: each call's signature (`call_signature`), and when (`spans`: the
    call's "service:Operation", its start and its end, in seconds since the recording began, botocore's own
    retries inside one span). The spans show where a run's time went: when its slowest quota's calls began,
    and how long they stood idle (bench/timeline.py)."""

    calls: list[list[str]] = field(default_factory=list)
    spans: list[tuple[str, float, float]] = field(default_factory=list)
    handed_on: Any = None  # the event of the follow-up the invocation asked for (Lambda's Invoke), if any


@contextlib.contextmanager
def recorded_calls() -> Iterator[Recorded]:
    """Record the signature and the span of every botocore API call made inside the block (this process
    only)."""
    from botocore.client import BaseClient

    recorded = Recorded()
    calls, spans = recorded.calls, recorded.spans
    original = BaseClient._make_api_call
    began = time.monotonic()

    def recording(client: Any, operation_name: str, api_params: dict[str, Any]) -> Any:
        start = time.monotonic() - began
        try:
            model = client.meta.service_model
            members = model.operation_model(operation_name).input_shape
            tokens = {
                name
                for name, shape in (members.members.items() if members is not None else ())
                if shape.metadata.get("idempotencyToken")
            }
            calls.append(call_signature(model.service_name, operation_name, api_params, tokens))
        except Exception as failure:  # recording must never change what the invocation does
            calls.append([f"unrecorded:{operation_name}", "", repr(failure)[:60]])
        if operation_name == "Invoke":  # the follow-up runs the event it is handed, as Lambda's would
            recorded.handed_on = json.loads(api_params.get("Payload") or b"null")
        try:
            return original(client, operation_name, api_params)
        finally:
            key = f"{client.meta.service_model.service_name}:{operation_name}"
            spans.append((key, round(start, 4), round(time.monotonic() - began, 4)))

    BaseClient._make_api_call = recording
    try:
        yield recorded
    finally:
        BaseClient._make_api_call = original


def run(warm: Warm, job: dict[str, Any]) -> dict[str, Any]:
    """One invocation, in this process."""
    kind = job["kind"]
    event = job.get("event") or {}
    error: str | None = None
    result: dict[str, Any] = {}
    if kind in warm.handlers:
        context = LambdaContext(float(job.get("deadline_seconds", 900)))
        started = time.perf_counter()
        try:
            result = warm.handlers[kind](event, context)
        except Exception as failure:
            # Both handlers raise after finishing every item when any failed; the message carries the result.
            try:
                result = json.loads(str(failure))
            except ValueError:
                error = "".join(traceback.format_exception_only(failure)).strip()
        wall = time.perf_counter() - started
    elif kind in ("baseline_sync", "baseline_lineage") and not warm.handlers:
        config = warm.baseline.BaselineConfig(**job["baseline"])
        glue, datazone, ssm = (warm.clients[s] for s in BASELINE_SERVICES)
        started = time.perf_counter()
        try:
            if kind == "baseline_sync":
                result = warm.baseline.sync(config, glue, datazone, ssm)
            else:
                result = warm.baseline.lineage(config, datazone, ssm)
        except Exception as failure:  # the seed design has no error handling: the run stops here
            error = "".join(traceback.format_exception_only(failure)).strip()
        wall = time.perf_counter() - started
    else:
        raise ValueError(f"job kind {kind!r} does not run in this environment")
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this forked child only
    return {
        "wall_seconds": wall,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "result": result,
        "error": error,
        "peak_rss_mb": usage.ru_maxrss / 1024,  # Linux: kilobytes; includes the warm state inherited at fork
    }


def _in_child(warm: Warm, job: dict[str, Any], answer_fd: int) -> None:
    os.dup2(2, 1)  # the handlers log to stdout: keep it apart from the answers
    os.environ.update(job.get("env") or {})
    with recorded_calls() as recorded:
        try:
            answer = run(warm, job)
        except BaseException as failure:
            answer = {"wall_seconds": 0.0, "result": {}, "error": repr(failure), "peak_rss_mb": 0.0}
    answer["calls"], answer["spans"] = recorded.calls, recorded.spans
    answer["handed_on"] = recorded.handed_on
    with os.fdopen(answer_fd, "w") as out:
        out.write(json.dumps(answer, default=str))


def serve(flavour: str) -> int:
    warm = Warm(flavour)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    for line in sys.stdin:
        if not line.strip():
            continue
        job = json.loads(line)
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # the invocation
            os.close(read_fd)
            code = 0
            try:
                _in_child(warm, job, write_fd)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(write_fd)
        with os.fdopen(read_fd) as answers:
            answer = answers.read()
        _, status = os.waitpid(pid, 0)
        if not answer:
            answer = json.dumps(
                {
                    "wall_seconds": 0.0,
                    "result": {},
                    "error": f"invocation died ({status})",
                    "peak_rss_mb": 0.0,
                }
            )
        sys.stdout.write(answer + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1] if len(sys.argv) > 1 else "project"))
