"""`python -m bench.invoke`: one invocation in a process of its own, as Lambda runs it; reports on stdout.

Reads a job from stdin, `{"kind": ..., "event": {...}, "deadline_seconds": 900, "baseline": {...}}`, where
kind is "sync" or "lineage" (the project's handlers, configured by this process's environment) or
"baseline_sync" / "baseline_lineage" (bench/baseline.py, configured by "baseline"). Its last stdout line is
JSON: `{"wall_seconds", "setup_seconds", "result", "error", "peak_rss_mb"}`.

A process per invocation makes the peak memory that of one invocation alone (the stand-ins serve from another
process), the way Lambda's "Max Memory Used" is, imports included; and a follow-up invocation after a
checkpoint starts from nothing, as it would on Lambda.

The wall time is that of a warm invocation: modules are imported and boto3 clients built before the clock
starts (as in a reused Lambda environment), and `setup_seconds` reports what that took.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any


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


PROJECT_SERVICES = {
    "sync": ("glue", "datazone", "ssm", "events", "kafka"),
    "lineage": ("glue", "datazone", "ssm"),
}


def _project_handler(kind: str) -> Any:
    """The handler, with the shared boto3 clients it will use already built (a warm Lambda environment)."""
    if kind == "sync":
        from schema_sync.handler import handler
    else:
        from lineage_emission.handler import handler
    from kafka_lineage.aws.clients import client

    for service in PROJECT_SERVICES[kind]:
        client(service)
    return handler


def run(job: dict[str, Any]) -> dict[str, Any]:
    kind = job["kind"]
    event = job.get("event") or {}
    error: str | None = None
    result: dict[str, Any] = {}
    setup_started = time.perf_counter()
    if kind in ("sync", "lineage"):
        handler = _project_handler(kind)
        setup = time.perf_counter() - setup_started
        context = LambdaContext(float(job.get("deadline_seconds", 900)))
        started = time.perf_counter()
        try:
            result = handler(event, context)
        except Exception as failure:
            # Both handlers raise after finishing every item when any failed; the message carries the result.
            try:
                result = json.loads(str(failure))
            except ValueError:
                error = "".join(traceback.format_exception_only(failure)).strip()
        wall = time.perf_counter() - started
    elif kind in ("baseline_sync", "baseline_lineage"):
        import boto3

        from bench import baseline

        config = baseline.BaselineConfig(**job["baseline"])
        glue, datazone, ssm = boto3.client("glue"), boto3.client("datazone"), boto3.client("ssm")
        setup = time.perf_counter() - setup_started
        started = time.perf_counter()
        try:
            if kind == "baseline_sync":
                result = baseline.sync(config, glue, datazone, ssm)
            else:
                result = baseline.lineage(config, datazone, ssm)
        except Exception as failure:  # the seed design has no error handling: the run stops here
            error = "".join(traceback.format_exception_only(failure)).strip()
        wall = time.perf_counter() - started
    else:
        raise ValueError(f"unknown job kind {kind!r}")
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # Linux: kilobytes
    return {
        "wall_seconds": wall,
        "setup_seconds": setup,
        "result": result,
        "error": error,
        "peak_rss_mb": peak_kb / 1024,
    }


def main() -> int:
    job = json.loads(sys.stdin.read())
    report = run(job)
    sys.stdout.write("\n" + json.dumps(report, default=str) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
