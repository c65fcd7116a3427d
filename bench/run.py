"""`make bench` / `python -m bench.run`: cost and speed of the schema sync and the lineage emission at N
schemas, side by side with the seed design's algorithm (bench/baseline.py), on the local stand-ins.

    python -m bench.run                                   # defaults: small enough for a couple of minutes
    python -m bench.run --schemas 1000 --latency-ms 20    # the first-sync speed-up target
    python -m bench.run --schemas 10000 --latency-ms 50   # the full run (hours, mostly the baseline)

The stand-ins serve from a separate process (bench/standins_server.py) with a fixed latency added to every
AWS call; every invocation runs in a process of its own, forked from a warm environment (bench/invoke.py), so
its peak memory is its own (bench/processes.py starts and drives both). Seeding happens with no latency and
is not measured. Each implementation starts from the same seeded world: N topics of realistic shapes
(bench/seed.py) and the Glue tables their sink writes.

Scenarios, in order: first sync; no-change resync; resync after 1% of schemas got a new version; verify run
(project only); lineage first run and no-change rerun; then, each from a fresh world, the readers world of
issue 28 (bench/readers.py: the cluster's topics, three consumer groups a topic as CloudWatch lag metrics),
where the project's first sync, no-change resync, lineage first run and no-change rerun are measured (the
baseline's no-change reruns stay on its own world: it reads neither topics nor groups); the project's first
sync at raised request rates (`--fast-tuning`), at AWS's documented DataZone quotas (`--documented-tuning`),
and at its own TUNING under a short simulated deadline (`--checkpoint-deadline-seconds`), which must
converge by checkpoints, a chain of invocations, without repeating a write; and a sync and a lineage run
per data format (CPU per schema and per topic by format). A run that runs out of its deadline checkpoints;
the harness then invokes again, as the follow-up invocation would, and counts invocations. The harness only
drives the handlers with events and Lambda-like contexts and watches the AWS calls they make, so it measures
whatever the handlers do.

Prints a table and writes the same as JSON to bench/results/ (git-ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
RESULTS = REPO / "bench" / "results"
REGISTRY = "cdc"
BASELINE_PREFIX = "/bench-baseline/msk-assets"
QUIET = {
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_NAMESPACE": "KafkaLineageBench",
}
# Request rates and concurrency a first sync at 1,000 schemas and 20 ms needs to be about 10x faster than the
# sequential baseline (see docs/performance.md for how it was found).
FAST_TUNING = {"max_concurrency": 32, "datazone_rps": 200.0, "glue_rps": 300.0, "ssm_write_rps": 10.0}
# The short simulated deadline of the checkpointed first sync: a few seconds of work beyond the default
# 60-second deadline margin, so that even the small default run needs a chain of invocations.
CHECKPOINT_DEADLINE_SECONDS = 65.0
CHECKPOINT_MAX_INVOCATIONS = 1000
# The neighbour scenarios: another tool in the account takes this share of every quota.
NEIGHBOUR = 0.5
# Scenarios measured on the world the (baseline's and the project's) first sync builds; the project's
# no-change reruns run on the readers world (report.READERS_SCENARIOS), the baseline's on its main world.
MAIN_WORLD = frozenset({"first_sync", "resync_new_versions", "verify", "lineage_first"})
BASELINE_MAIN_WORLD = frozenset({"resync_no_change", "lineage_no_change"})
# A chain of invocations whose `remaining` has not gone down in this many is stopped as stalled.
STALL_LIMIT = 3
# Parsing CPU is measured on at most this many seeded definitions per format.
PARSE_SAMPLE = 300

os.environ.update({key: os.environ.get(key, value) for key, value in QUIET.items()})

from bench import readers, report, seed, timeline  # noqa: E402
from bench.processes import StandinServer, WarmEnvironment  # noqa: E402
from bench.report import BASELINE, PROJECT, Measurement, SsmFootprint  # noqa: E402


def machine() -> dict[str, Any]:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.partition(":")[2].strip()
                break
    except OSError:
        pass
    memory_mb = 0
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory_mb = int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return {
        "nproc": os.cpu_count() or 0,
        "cpu_model": model or platform.processor() or "unknown",
        "memory_mb": memory_mb,
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    parser.add_argument("--schemas", type=int, default=40, help="schemas in the registry (default 40)")
    parser.add_argument("--latency-ms", type=float, default=20.0, help="latency added to every AWS call")
    parser.add_argument("--seed", type=int, default=7, help="seed of the topic generator")
    parser.add_argument(
        "--tuning",
        type=json.loads,
        default={},
        help="TUNING JSON for the project's runs (default: its safe defaults)",
    )
    parser.add_argument(
        "--fast-tuning",
        default=json.dumps(FAST_TUNING),
        help='TUNING JSON for the extra first sync at raised rates, or "off"',
    )
    parser.add_argument("--skip-baseline", action="store_true", help="measure the project only")
    parser.add_argument(
        "--quotas",
        choices=("on", "off"),
        default="on",
        help="the stand-ins enforce AWS's per-operation request quotas (local/standins/quotas.py; "
        "default on)",
    )
    parser.add_argument(
        "--neighbour",
        type=float,
        default=NEIGHBOUR,
        help="the share of every quota another tool in the account takes in the neighbour scenarios "
        f"(first_sync_neighbour, lineage_first_neighbour; default {NEIGHBOUR:g})",
    )
    parser.add_argument(
        "--scenarios",
        default=",".join(report.DEFAULT_SCENARIOS),
        help="comma-separated scenarios to measure (the resyncs, verify and lineage bring first_sync; "
        "lineage_no_change brings lineage_first); known: "
        + ", ".join(key for key, _ in report.SCENARIOS)
        + "; default all but "
        "first_sync_documented",
    )
    parser.add_argument(
        "--documented-tuning",
        default=json.dumps(report.DOCUMENTED_TUNING),
        help='TUNING JSON of the first sync at AWS\'s documented quotas, or "off"',
    )
    parser.add_argument(
        "--checkpoint-deadline-seconds",
        type=float,
        default=CHECKPOINT_DEADLINE_SECONDS,
        help="simulated Lambda deadline of each invocation of the checkpointed first sync "
        f"(default {CHECKPOINT_DEADLINE_SECONDS:g}: the default 60 s margin plus a few seconds of work)",
    )
    parser.add_argument(
        "--checkpoint-max-invocations",
        type=int,
        default=CHECKPOINT_MAX_INVOCATIONS,
        help="invocations allowed to the checkpointed first sync",
    )
    parser.add_argument("--deadline-seconds", type=float, default=900.0, help="Lambda timeout per invocation")
    parser.add_argument(
        "--max-invocations", type=int, default=20, help="follow-up invocations allowed per run"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="JSON output (default bench/results/<time>.json)"
    )
    args = parser.parse_args(argv)
    if args.schemas < 1:
        parser.error("--schemas must be at least 1")
    if args.latency_ms < 0:
        parser.error("--latency-ms must not be negative")
    args.fast_tuning = None if args.fast_tuning == "off" else json.loads(args.fast_tuning)
    args.documented_tuning = None if args.documented_tuning == "off" else json.loads(args.documented_tuning)
    if not 0 <= args.neighbour < 1:
        parser.error("--neighbour is a share of each quota: 0 <= neighbour < 1")
    if args.checkpoint_deadline_seconds <= 0 or args.checkpoint_max_invocations < 1:
        parser.error("--checkpoint-deadline-seconds and --checkpoint-max-invocations must be positive")
    scenarios = {key.strip() for key in args.scenarios.split(",") if key.strip()}
    unknown = scenarios - set(report.TITLES)
    if unknown:
        parser.error(f"unknown scenarios {sorted(unknown)}; known: {', '.join(report.TITLES)}")
    if scenarios & set(report.READERS_SCENARIOS):  # the readers world starts with its first sync
        scenarios.add("first_sync_readers")
    if "lineage_no_change" in scenarios:
        scenarios.add("lineage_first_consumers")
        if not args.skip_baseline:  # the baseline's rerun follows its first run
            scenarios.add("lineage_first")
    if scenarios & MAIN_WORLD or (scenarios & BASELINE_MAIN_WORLD and not args.skip_baseline):
        scenarios.add("first_sync")  # they run on the world the first sync built
    for suffix in ("", "_neighbour"):  # a checkpointed lineage run needs its checkpointed sync's world
        if f"lineage_first_checkpointed{suffix}" in scenarios:
            scenarios.add(f"first_sync_checkpointed{suffix}")
    args.scenarios = frozenset(scenarios)
    return args


@dataclass(frozen=True)
class Shape:
    """How one measurement runs beyond its event and tuning: each invocation's deadline and how many may chain
    (None: the command line's), the schemas it concerns (None: all) and their format, and the share of each
    quota a neighbour takes."""

    deadline_seconds: float | None = None
    max_invocations: int | None = None
    schemas: int | None = None
    data_format: str = ""
    neighbour: float = 0.0


@dataclass
class Run:
    """One scenario's invocations, added up."""

    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    invocations: int = 0
    result: dict[str, Any] = field(default_factory=dict)
    calls: list[list[str]] = field(default_factory=list)  # [key, target, digest] of every call, in order
    # (key, start, end) of every call, in seconds from the run's start (invocations back to back)
    spans: list[timeline.Span] = field(default_factory=list)
    # (start, wall) of each invocation, in seconds from the run's start: where each handover's time went
    walls: list[tuple[float, float]] = field(default_factory=list)

    def per_invocation(self, bucket: str) -> list[timeline.BucketTimeline | None]:
        """`bucket`'s timeline in each invocation alone (None: it made no call of it)."""
        return [
            timeline.timeline(
                [(key, s - start, e - start) for key, s, e in self.spans if start <= s < start + wall],
                bucket,
                wall,
            )
            for start, wall in self.walls
        ]


def until_done(
    invoke: Callable[[], dict[str, Any]],
    max_invocations: int,
    log: Callable[[str], None] = lambda _: None,
    stall_limit: int = STALL_LIMIT,
) -> Run:
    """Invoke again while the result says `incomplete` or `deferred` (the follow-up invocation a checkpoint
    or a busy lease hands its work to), at most `max_invocations` times in all; stop at the first error, and
    when `remaining` has not gone down for `stall_limit` invocations in a row (the result then says
    `"stalled": true`): a chain that makes no progress would never converge."""
    run = Run()
    best_remaining: float | None = None
    stalled = 0
    while True:
        answer = invoke()
        run.invocations += 1
        offset = run.wall_seconds
        run.spans.extend((key, offset + start, offset + end) for key, start, end in answer.get("spans") or [])
        run.walls.append((offset, float(answer["wall_seconds"])))
        run.wall_seconds += float(answer["wall_seconds"])
        run.cpu_seconds += float(answer.get("cpu_seconds", 0.0))
        run.peak_rss_mb = max(run.peak_rss_mb, float(answer["peak_rss_mb"]))
        run.calls.extend(answer.get("calls") or [])
        run.result = dict(answer.get("result") or {})
        if answer.get("error"):
            run.result["error"] = answer["error"]
            return run
        if not (run.result.get("incomplete") or run.result.get("deferred")):
            return run
        if run.invocations >= max_invocations:
            return run
        remaining = run.result.get("remaining")
        if isinstance(remaining, int | float):
            if best_remaining is not None and remaining >= best_remaining:
                stalled += 1
                if stalled >= stall_limit:
                    run.result["stalled"] = True
                    log(f"    no progress in {stalled} invocations ({remaining} left): stopping")
                    return run
            else:
                stalled = 0
                best_remaining = remaining
        state = "deferred" if run.result.get("deferred") else "checkpointed"
        log(f"    invocation {run.invocations} {state}, {remaining} left: continuing")


class Bench:
    def __init__(self, args: argparse.Namespace, log: Callable[[str], None]) -> None:
        self.args = args
        self.log = log
        self.topics = seed.topics(args.schemas, args.seed)
        self.evolved = seed.new_version_share(self.topics)
        self.measurements: list[Measurement] = []
        self.calibration: dict[str, float] = {}
        self.calibration_after: dict[str, float] = {}
        self.load_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.load_after: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.footprints: list[SsmFootprint] = []
        self.parse_ms: dict[str, float] = {}
        self.readers_world: readers.ReadersWorld | None = None
        self.invoke_log = RESULTS / f"bench-{args.schemas}-{time.strftime('%Y%m%d-%H%M%S')}-invocations.log"
        self._environments: dict[str, WarmEnvironment] = {}
        self.server = StandinServer()
        self.aws = self.server.aws
        os.environ.update(self.aws.environment())
        self._child_env = {
            **os.environ,
            **self.aws.environment(),
            **QUIET,
            "PYTHONPATH": os.pathsep.join([str(REPO / "lambdas"), str(REPO)]),
        }

    # ------------------------------------------------------------------------------------------ the world

    def prepare(self, with_readers: bool = False) -> None:
        """A fresh world: reset the stand-ins, create the catalog types, seed the registry and the tables;
        `with_readers`: the cluster's topics and consumer groups too (bench/readers.py)."""
        import boto3
        from botocore.config import Config

        from local import world
        from local.standins import reset_cached_clients

        started = time.perf_counter()
        self.aws.latency_ms = 0
        self.aws.reset()
        reset_cached_clients()
        world.bootstrap_catalog(_DomainAlreadyThere())
        self.aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
        glue = boto3.client(
            "glue", region_name=world.REGION, config=Config(max_pool_connections=seed.SEED_WORKERS)
        )
        seed.register_all(glue, REGISTRY, self.topics)
        tables = seed.create_tables(glue, self.topics)
        if with_readers:
            # botocore gzips a PutMetricData over 10 KB; the stand-ins' server reads plain bodies only
            cloudwatch = boto3.client(
                "cloudwatch", region_name=world.REGION, config=Config(disable_request_compression=True)
            )
            self.readers_world = readers.seed(self.aws.kafka, cloudwatch, world.CLUSTER_ARN, self.topics)
        self.log(
            f"  seeded {len(self.topics)} schemas and {tables} Glue tables"
            + (
                f", the readers world {self.readers_world.as_dict()}"
                if with_readers and self.readers_world
                else ""
            )
            + f" in {time.perf_counter() - started:.1f} s"
        )

    def new_versions(self) -> None:
        import boto3

        from local import world

        self.aws.latency_ms = 0
        seed.register_new_versions(boto3.client("glue", region_name=world.REGION), REGISTRY, self.evolved)

    def lambda_environment(self, tuning: dict[str, Any] | None) -> dict[str, str]:
        from local import world

        source = world.source_config(REGISTRY, tableRule=seed.TABLE_RULE)
        return world.environment([source], tuning or None)

    def baseline_config(self) -> dict[str, str]:
        from bench.baseline import BaselineConfig
        from local import world

        return BaselineConfig(
            domain_id=world.DOMAIN_ID,
            project_id=world.PROJECT_ID,
            registry_name=REGISTRY,
            cluster_arn=world.CLUSTER_ARN,
            mapping_prefix=BASELINE_PREFIX,
            table_database=seed.TABLE_RULE["database"],
            table_match=seed.TABLE_RULE["match"],
            table_template=seed.TABLE_RULE["table"],
        ).as_dict()

    # ------------------------------------------------------------------------------------------ measuring

    def invoke(self, job: dict[str, Any], env: dict[str, str]) -> dict[str, Any]:
        flavour = "baseline" if job["kind"].startswith("baseline") else "project"
        if flavour not in self._environments:
            self._environments[flavour] = WarmEnvironment(flavour, self._child_env, self.invoke_log)
        return self._environments[flavour].invoke({**job, "env": env})

    def measure(
        self,
        scenario: str,
        implementation: str,
        kind: str,
        event: dict[str, Any] | None = None,
        tuning: dict[str, Any] | None = None,
        shape: Shape = Shape(),
    ) -> Measurement:
        deadline_seconds, max_invocations = shape.deadline_seconds, shape.max_invocations
        schemas, data_format, neighbour = shape.schemas, shape.data_format, shape.neighbour
        job: dict[str, Any] = {
            "kind": kind,
            "event": event or {},
            "deadline_seconds": deadline_seconds or self.args.deadline_seconds,
        }
        env: dict[str, str] = {}
        if implementation == BASELINE:
            job["baseline"] = self.baseline_config()
        else:
            env = self.lambda_environment(tuning)
        self.aws.calls.clear()
        if self.args.quotas == "on":  # fresh buckets: the account's quotas, `neighbour` of each used
            self.aws.enforce_quotas(neighbour)
        self.aws.latency_ms = self.args.latency_ms
        server_cpu = self.server.cpu_seconds()
        handed = {"event": job["event"]}

        def invocation() -> dict[str, Any]:
            # Each follow-up runs the event its predecessor handed on (schema-sync's `resumeAfter`, both
            # functions' `handover`), as Lambda runs the one a function's Invoke passes.
            answer = self.invoke({**job, "event": handed["event"]}, env)
            if isinstance(answer.get("handed_on"), dict):
                handed["event"] = answer["handed_on"]
            return answer

        try:
            run = until_done(invocation, max_invocations or self.args.max_invocations, self.log)
        finally:
            self.aws.latency_ms = 0
        server_cpu = self.server.cpu_seconds() - server_cpu
        calls = dict(self.aws.call_counts())
        ok_calls = dict(self.aws.call_counts(ok=True))
        failed_calls = sum(self.aws.call_counts(ok=False).values())
        throttled = sum(self.aws.quota_state()["throttled"].values()) if self.args.quotas == "on" else 0
        self.aws.lift_quotas()  # seeding and inspection go unthrottled
        repeated = report.repeats(run.calls)
        written = report.written_parameters(run.calls)
        prefix = BASELINE_PREFIX if implementation == BASELINE else self.mapping_path()
        final = len(written & self.parameter_names(prefix)) if written else None
        measurement = Measurement(
            scenario=scenario,
            implementation=implementation,
            schemas=schemas if schemas is not None else len(self.topics),
            wall_seconds=run.wall_seconds,
            calls=calls,
            failed_calls=failed_calls,
            peak_rss_mb=run.peak_rss_mb,
            invocations=run.invocations,
            cpu_seconds=run.cpu_seconds,
            standin_cpu_seconds=server_cpu,
            result=_slim(run.result),
            tuning=dict(tuning or {}) if implementation == PROJECT else {},
            data_format=data_format,
            repeated_writes=repeated.writes,
            repeated_reads=repeated.reads,
            repeated_write_samples=list(repeated.write_samples),
            final_parameters=final,
            neighbour=neighbour,
            throttled_calls=throttled,
            ok_calls=ok_calls,
        )
        slowest = timeline.slowest(measurement.documented_floor())
        spent = timeline.timeline(run.spans, slowest, run.wall_seconds) if slowest else None
        measurement.timeline = spent.as_dict() if spent else None
        self.measurements.append(measurement)
        self.log(
            f"  {measurement.title:<30} {implementation:<8} {run.wall_seconds:8.2f} s  "
            f"{measurement.calls_per_schema:7.3f} calls/schema  {run.invocations} invocation(s)  "
            f"quota floor {measurement.documented_floor_seconds():.1f} s, {throttled} throttled  "
            f"{_outcome(run.result)}"
        )
        if spent and scenario in report.PACED_SCENARIOS:
            self.log(f"    slowest quota {spent.describe()}")
        if run.invocations > 1:
            # Every call of a chain, for a closer look at its handovers (git-ignored, beside the log).
            with self.invoke_log.with_name(self.invoke_log.stem + "-chains.jsonl").open("a") as spans:
                spans.write(json.dumps({"scenario": scenario, "walls": run.walls, "spans": run.spans}) + "\n")
        if slowest and run.invocations > 1:
            for number, ((_, wall), alone) in enumerate(
                zip(run.walls, run.per_invocation(slowest), strict=True), 1
            ):
                described = alone.describe() if alone else f"{slowest}: no call"
                count = f"{alone.calls} calls, " if alone else ""
                self.log(f"    invocation {number}: {wall:.2f} s, {count}{described}")
        return measurement

    @staticmethod
    def mapping_path() -> str:
        from local import world

        return world.MAPPING_PATH

    def parameter_names(self, prefix: str) -> set[str]:
        """Names of the SSM parameters under `prefix` now (read with no added latency, after the run)."""
        import boto3

        from local import world

        ssm = boto3.client("ssm", region_name=world.REGION)
        names: set[str] = set()
        pages = ssm.get_paginator("describe_parameters").paginate(
            ParameterFilters=[{"Key": "Path", "Option": "Recursive", "Values": [prefix]}]
        )
        for page in pages:
            names.update(parameter["Name"] for parameter in page.get("Parameters", []))
        return names

    def footprint(self, implementation: str, prefix: str) -> SsmFootprint:
        import boto3

        from local import world

        ssm = boto3.client("ssm", region_name=world.REGION)
        tiers: Counter[str] = Counter()
        by_path: Counter[str] = Counter()
        largest = 0
        pages = ssm.get_paginator("describe_parameters").paginate(
            ParameterFilters=[{"Key": "Path", "Option": "Recursive", "Values": [prefix]}]
        )
        for page in pages:
            for parameter in page.get("Parameters", []):
                tiers[parameter.get("Tier", "Standard")] += 1
                by_path[parameter["Name"][len(prefix) :].strip("/").split("/")[0]] += 1
        for page in ssm.get_paginator("get_parameters_by_path").paginate(Path=prefix, Recursive=True):
            for parameter in page.get("Parameters", []):
                largest = max(largest, len(parameter["Value"].encode()))
        paths = dict(by_path) if implementation == PROJECT else {}
        found = SsmFootprint(implementation, sum(tiers.values()), dict(tiers), largest, paths)
        self.footprints.append(found)
        return found

    def calibrate(self, calls: int = 40) -> dict[str, float]:
        """What one sequential call costs here on top of the injected latency: the stand-ins' own work, HTTP
        and boto3. It adds to every call of both implementations (and caps the project's parallel rate)."""
        import boto3

        from local import world

        glue = boto3.client("glue", region_name=world.REGION)
        with contextlib.suppress(glue.exceptions.AlreadyExistsException):
            glue.create_registry(RegistryName="bench-calibration")
        timings = {}
        for latency in (0.0, self.args.latency_ms):
            self.aws.latency_ms = latency
            started = time.perf_counter()
            for _ in range(calls):
                glue.get_registry(RegistryId={"RegistryName": "bench-calibration"})
            timings[f"ms_per_call_at_{latency:g}ms"] = round(
                (time.perf_counter() - started) / calls * 1000, 2
            )
        self.aws.latency_ms = 0
        return timings

    # ------------------------------------------------------------------------------------------ scenarios

    def run(self) -> None:
        args = self.args
        self.load_before = os.getloadavg()
        self.calibration = self.calibrate()
        self.log(f"a sequential GetRegistry here: {self.calibration}")
        wanted = args.scenarios.__contains__
        if wanted("first_sync"):
            self.main_world()
        if wanted("first_sync_readers"):
            self.readers_scenarios()
        if args.fast_tuning is not None and wanted("first_sync_fast"):
            self.log(f"project at raised rates (TUNING {args.fast_tuning}):")
            self.prepare()
            self.measure("first_sync_fast", PROJECT, "sync", tuning=args.fast_tuning)
        if args.documented_tuning is not None and wanted("first_sync_documented"):
            self.log(f"project at AWS's documented quotas (TUNING {args.documented_tuning}):")
            self.prepare()
            self.measure("first_sync_documented", PROJECT, "sync", tuning=args.documented_tuning)
        for neighbour, suffix in ((0.0, ""), (args.neighbour, "_neighbour")):
            self.checkpointed(neighbour, suffix)
        if wanted("first_sync_neighbour") or wanted("lineage_first_neighbour"):
            self.log(f"project next to a neighbour taking {args.neighbour:g} of every quota:")
            self.prepare()
            self.measure(
                "first_sync_neighbour",
                PROJECT,
                "sync",
                tuning=args.tuning,
                shape=Shape(neighbour=args.neighbour),
            )
            if wanted("lineage_first_neighbour"):
                self.measure(
                    "lineage_first_neighbour",
                    PROJECT,
                    "lineage",
                    tuning=args.tuning,
                    shape=Shape(neighbour=args.neighbour),
                )
        if wanted("by_format"):
            self.measure_by_format()
        self.parse_ms = parse_cpu_ms(self.topics)
        self.log(f"parsing CPU per schema, ms: {self.parse_ms}")
        self.load_after = os.getloadavg()
        self.calibration_after = self.calibrate()

    def checkpointed(self, neighbour: float, suffix: str) -> None:
        """From a fresh world, under the short simulated deadline: the first sync, then the lineage first run
        on what it built, each a chain of invocations; next to a neighbour taking `neighbour` of every
        quota when the scenario's `suffix` says so."""
        args = self.args
        sync, lineage = f"first_sync_checkpointed{suffix}", f"lineage_first_checkpointed{suffix}"
        if not (args.scenarios & {sync, lineage}):
            return
        self.log(
            f"project under a {args.checkpoint_deadline_seconds:g} s deadline "
            f"(TUNING {args.tuning or 'defaults'}, neighbour {neighbour:g}):"
        )
        self.prepare()
        for scenario, kind in ((sync, "sync"), (lineage, "lineage")):
            if scenario == sync or scenario in args.scenarios:
                self.measure(
                    scenario,
                    PROJECT,
                    kind,
                    tuning=args.tuning,
                    shape=Shape(
                        deadline_seconds=args.checkpoint_deadline_seconds,
                        max_invocations=args.checkpoint_max_invocations,
                        neighbour=neighbour,
                    ),
                )

    def main_world(self) -> None:
        """The baseline's runs, then the project's, each on a world its own first sync builds."""
        from local import world

        args = self.args
        wanted = args.scenarios.__contains__
        if not args.skip_baseline:
            self.log("baseline (seed design, sequential):")
            self.prepare()
            self.measure("first_sync", BASELINE, "baseline_sync")
            self.footprint(BASELINE, BASELINE_PREFIX)
            if wanted("resync_no_change"):
                self.measure("resync_no_change", BASELINE, "baseline_sync")
            if wanted("resync_new_versions"):
                self.new_versions()
                self.measure("resync_new_versions", BASELINE, "baseline_sync")
            if wanted("lineage_first"):
                self.measure("lineage_first", BASELINE, "baseline_lineage")
            if wanted("lineage_no_change"):
                self.measure("lineage_no_change", BASELINE, "baseline_lineage")
        self.log(f"project (TUNING {args.tuning or 'defaults'}):")
        self.prepare()
        self.measure("first_sync", PROJECT, "sync", tuning=args.tuning)
        if wanted("resync_new_versions"):
            self.new_versions()
            self.measure("resync_new_versions", PROJECT, "sync", tuning=args.tuning)
        if wanted("verify"):
            self.measure("verify", PROJECT, "sync", {"verify": True}, tuning=args.tuning)
        if wanted("lineage_first"):
            self.measure("lineage_first", PROJECT, "lineage", tuning=args.tuning)
        self.footprint(PROJECT, world.MAPPING_PATH)

    def readers_scenarios(self) -> None:
        """The project on the readers world (issue 28): its first sync, then the no-change resync, the
        lineage first run with three consumer groups a topic and its no-change rerun."""
        args = self.args
        self.log(
            f"project on the readers world, topics and consumer groups (TUNING {args.tuning or 'defaults'}):"
        )
        self.prepare(with_readers=True)
        kinds = {"first_sync_readers": "sync", "resync_no_change": "sync"}
        for scenario in report.READERS_SCENARIOS:
            if scenario in args.scenarios:
                self.measure(scenario, PROJECT, kinds.get(scenario, "lineage"), tuning=args.tuning)

    def measure_by_format(self) -> None:
        """From a fresh world, per data format: a sync of only that format's schemas, then a lineage run of
        only their topics. CPU does not depend on the request rates, so these run at the raised ones."""
        from local import world

        tuning = self.args.fast_tuning or self.args.tuning
        self.log(f"project, one data format at a time (TUNING {tuning or 'defaults'}):")
        self.prepare()
        arn = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:schema/{REGISTRY}/"
        for data_format in sorted({topic.data_format for topic in self.topics}):
            chosen = [topic for topic in self.topics if topic.data_format == data_format]
            self.measure(
                report.FORMAT_SYNC,
                PROJECT,
                "sync",
                {"schemaArns": [arn + topic.name for topic in chosen]},
                tuning,
                shape=Shape(schemas=len(chosen), data_format=data_format),
            )
            self.measure(
                report.FORMAT_LINEAGE,
                PROJECT,
                "lineage",
                {"topics": [{"registryName": REGISTRY, "topic": topic.name} for topic in chosen]},
                tuning,
                shape=Shape(schemas=len(chosen), data_format=data_format),
            )

    def document(self) -> dict[str, Any]:
        facts = report.summary(
            self.measurements,
            self.footprints,
            tuning_defaults=tuning_defaults(),
            parse_ms=self.parse_ms,
            readers=self.readers_world,
        )
        return {
            "generated": datetime.now(UTC).isoformat(timespec="seconds"),
            "machine": {
                **machine(),
                "load_average_before": [round(x, 2) for x in self.load_before],
                "load_average_after": [round(x, 2) for x in self.load_after],
                "standin_call_cost": self.calibration,
                "standin_call_cost_after": self.calibration_after,
            },
            "parameters": {
                "schemas": self.args.schemas,
                "latency_ms": self.args.latency_ms,
                "seed": self.args.seed,
                "new_versions": len(self.evolved),
                "formats": dict(Counter(t.data_format for t in self.topics)),
                "awkward_names": sum(1 for t in self.topics if not t.database),
                "mapped_topics": sum(1 for t in self.topics if t.glue_table),
                "tuning": self.args.tuning,
                "fast_tuning": self.args.fast_tuning,
                "documented_tuning": self.args.documented_tuning,
                "documented_quotas": report.DOCUMENTED_QUOTAS,
                "quotas_enforced": self.args.quotas == "on",
                "neighbour": self.args.neighbour,
                "checkpoint_deadline_seconds": self.args.checkpoint_deadline_seconds,
                "deadline_seconds": self.args.deadline_seconds,
                "readers_world": self.readers_world.as_dict() if self.readers_world else None,
            },
            "summary": facts,
            "parse_cpu_ms_per_schema": self.parse_ms,
            "tuning_defaults": tuning_defaults(),
            "measurements": [
                {
                    **m.to_dict(),
                    "pacing_floor_seconds": m.pacing_floor(tuning_defaults()),
                    "pacing_efficiency": m.pacing_efficiency(tuning_defaults()),
                    "documented_quota_floor_seconds": m.documented_floor(tuning_defaults()),
                    "throttled_share": m.throttled_share,
                }
                if m.implementation == PROJECT
                else m.to_dict()
                for m in self.measurements
            ],
            "ssm": [f.__dict__ for f in self.footprints],
        }

    def stop(self) -> None:
        for environment in self._environments.values():
            environment.stop()
        self.server.stop()


class _DomainAlreadyThere:
    """`world.bootstrap_catalog` wants the DataZone backend to add the domain; the benchmark's server process
    creates it itself (bench/standins_server.py), so there is nothing to do here."""

    def add_domain(self, domain_id: str, project_ids: Sequence[str] = ()) -> None:
        return None


def _slim(result: dict[str, Any]) -> dict[str, Any]:
    """The result with per-item lists that grow with N cut to their first 5 items; `<key>Total` keeps the
    length."""
    slim: dict[str, Any] = {}
    for key, value in result.items():
        if key == "planned":
            continue
        if isinstance(value, list) and len(value) > report.LIST_SAMPLE:
            slim[key] = value[: report.LIST_SAMPLE]
            slim[f"{key}Total"] = len(value)
        else:
            slim[key] = value
    return slim


def _outcome(result: dict[str, Any]) -> str:
    return report._outcome(result) + (f" ERROR {result['error']}" if result.get("error") else "")


def header(document: dict[str, Any]) -> list[str]:
    m, p = document["machine"], document["parameters"]
    formats = ", ".join(f"{n} {f}" for f, n in sorted(p["formats"].items()))
    return [
        f"kafka-lineage benchmark, {document['generated']}",
        f"{p['schemas']} schemas ({formats}; {p['awkward_names']} awkward names, "
        f"{p['mapped_topics']} mapped to Glue tables), {p['latency_ms']:g} ms added to every AWS call, "
        f"{p['new_versions']} new versions",
        f"machine: {m['nproc']} x {m['cpu_model']}, {m['memory_mb']} MB, Python {m['python']}; load average "
        f"{m['load_average_before'][0]} before, {m['load_average_after'][0]} after",
        f"one sequential call to the stand-ins (GetRegistry) took {_costs(m['standin_call_cost'])} before, "
        f"{_costs(m['standin_call_cost_after'])} after",
        f"project TUNING: {p['tuning'] or 'safe defaults'}; "
        f"raised rates: {p['fast_tuning'] or 'not measured'}; "
        f"documented quotas: {p['documented_tuning'] or 'not measured'}; "
        f"short deadline: {p['checkpoint_deadline_seconds']:g} s",
    ]


def parse_cpu_ms(
    topics: Sequence[seed.Topic], sample: int = PARSE_SAMPLE, rounds: int = 3
) -> dict[str, float]:
    """CPU milliseconds per schema that `parse_definition` takes, by format, over (at most `sample` of) the
    seeded definitions: one warm-up pass, then the mean of `rounds` passes (process time)."""
    from kafka_lineage.schemas import parse_definition

    by_format: dict[str, list[str]] = {}
    for topic in topics:
        chosen = by_format.setdefault(topic.data_format, [])
        if len(chosen) < sample:
            chosen.append(topic.definition())
    found: dict[str, float] = {}
    for data_format, definitions in sorted(by_format.items()):
        for definition in definitions:
            parse_definition(data_format, definition)
        started = time.process_time()
        for _ in range(rounds):
            for definition in definitions:
                parse_definition(data_format, definition)
        found[data_format] = round((time.process_time() - started) / rounds / len(definitions) * 1000, 2)
    return found


def tuning_defaults() -> dict[str, float]:
    """The project's safe default rates (lambdas/kafka_lineage/config.py), which a run's TUNING overrides."""
    from kafka_lineage.config import Tuning

    return {key: float(value) for key, value in Tuning().model_dump().items()}


def _costs(costs: dict[str, float]) -> str:
    return ", ".join(f"{ms} ms at {key.removeprefix('ms_per_call_at_')} latency" for key, ms in costs.items())


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    bench = Bench(args, log)
    try:
        bench.run()
    finally:
        bench.stop()
    document = bench.document()
    out = (
        args.out
        or RESULTS / f"bench-{args.schemas}-{args.latency_ms:g}ms-{time.strftime('%Y%m%d-%H%M%S')}.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n")
    print(
        report.render(
            bench.measurements, document["summary"], header(document), tuning_defaults(), bench.parse_ms
        )
    )
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
