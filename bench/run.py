"""`make bench` / `python -m bench.run`: cost and speed of the schema sync and the lineage emission at N
schemas, side by side with the seed design's algorithm (bench/baseline.py), on the local stand-ins.

    python -m bench.run                                   # defaults: small enough for a couple of minutes
    python -m bench.run --schemas 1000 --latency-ms 20    # the first-sync speed-up target
    python -m bench.run --schemas 10000 --latency-ms 50   # the full run (hours, mostly the baseline)

The stand-ins serve from a separate process (bench/standins_server.py) with a fixed latency added to every
AWS call; every invocation runs in a process of its own, forked from a warm environment (bench/invoke.py), so
its peak memory is its own. Seeding happens with no latency and is not measured. Each implementation starts
from the same seeded world: N topics of realistic shapes (bench/seed.py) and the Glue tables their sink
writes.

Scenarios, in order: first sync; no-change resync; resync after 1% of schemas got a new version; verify run
(project only); lineage first run and no-change rerun; and, from a fresh world again, the project's first
sync at raised request rates (`--fast-tuning`). A first sync that runs out of its 15-minute deadline
checkpoints; the harness then invokes again, as the follow-up invocation would, and counts invocations.

Prints a table and writes the same as JSON to bench/results/ (git-ignored).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import subprocess
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
# sequential baseline (see the README's Performance section for how it was found).
FAST_TUNING = {"max_concurrency": 32, "datazone_rps": 200.0, "glue_rps": 300.0, "ssm_write_rps": 10.0}

os.environ.update({key: os.environ.get(key, value) for key, value in QUIET.items()})

from bench import report, seed  # noqa: E402
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
        "--scenarios",
        default=",".join(key for key, _ in report.SCENARIOS),
        help="comma-separated scenarios to measure (first_sync always runs; lineage_no_change brings "
        "lineage_first); default all: " + ", ".join(key for key, _ in report.SCENARIOS),
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
    scenarios = {key.strip() for key in args.scenarios.split(",") if key.strip()}
    unknown = scenarios - set(report.TITLES)
    if unknown:
        parser.error(f"unknown scenarios {sorted(unknown)}; known: {', '.join(report.TITLES)}")
    if "lineage_no_change" in scenarios:
        scenarios.add("lineage_first")
    args.scenarios = frozenset(scenarios | {"first_sync"})
    return args


@dataclass
class Run:
    """One scenario's invocations, added up."""

    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    peak_rss_mb: float = 0.0
    invocations: int = 0
    result: dict[str, Any] = field(default_factory=dict)


def until_done(
    invoke: Callable[[], dict[str, Any]], max_invocations: int, log: Callable[[str], None] = lambda _: None
) -> Run:
    """Invoke again while the result says `incomplete` (the follow-up invocation a checkpoint hands its work
    to), at most `max_invocations` times in all; stop at the first error."""
    run = Run()
    while True:
        answer = invoke()
        run.invocations += 1
        run.wall_seconds += float(answer["wall_seconds"])
        run.cpu_seconds += float(answer.get("cpu_seconds", 0.0))
        run.peak_rss_mb = max(run.peak_rss_mb, float(answer["peak_rss_mb"]))
        run.result = dict(answer.get("result") or {})
        if answer.get("error"):
            run.result["error"] = answer["error"]
            return run
        if not run.result.get("incomplete") or run.invocations >= max_invocations:
            return run
        log(f"    invocation {run.invocations} checkpointed, {run.result.get('remaining')} left: continuing")


class WarmEnvironment:
    """A `python -m bench.invoke <flavour>` process: warm imports and clients, one forked child per job."""

    def __init__(self, flavour: str, env: dict[str, str], log: Path) -> None:
        log.parent.mkdir(parents=True, exist_ok=True)
        self._log = log.open("a")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "bench.invoke", flavour],
            cwd=REPO,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )
        if self._readline() != "ready":
            raise RuntimeError(f"the {flavour} environment did not start; see {log}")

    def _readline(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def invoke(self, job: dict[str, Any]) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(job) + "\n")
        self.process.stdin.flush()
        line = self._readline()
        if not line:
            raise RuntimeError(f"bench.invoke ended (exit {self.process.poll()}); see {self._log.name}")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def stop(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()


class StandinServer:
    """bench/standins_server.py in a child process, driven through RemoteAws."""

    def __init__(self) -> None:
        from local.standins.remote import RemoteAws, RemoteError

        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "lambdas")])}
        process = subprocess.Popen(
            [sys.executable, "-m", "bench.standins_server", "--port", "0"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        line = process.stdout.readline().strip() if process.stdout is not None else ""
        if not line.startswith("http://"):
            process.kill()
            raise RemoteError(f"stand-in process did not start (exit code {process.wait()}, said {line!r})")
        self.aws = RemoteAws(line, process=process)

    def cpu_seconds(self) -> float:
        """CPU time the stand-in process has used so far (user + system, from /proc)."""
        assert self.aws.process is not None
        fields = Path(f"/proc/{self.aws.process.pid}/stat").read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    def stop(self) -> None:
        self.aws.stop()


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

    def prepare(self) -> None:
        """A fresh world: reset the stand-ins, create the catalog types, seed the registry and the tables."""
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
        self.log(
            f"  seeded {len(self.topics)} schemas and {tables} Glue tables "
            f"in {time.perf_counter() - started:.1f} s"
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
    ) -> Measurement:
        job: dict[str, Any] = {
            "kind": kind,
            "event": event or {},
            "deadline_seconds": self.args.deadline_seconds,
        }
        env: dict[str, str] = {}
        if implementation == BASELINE:
            job["baseline"] = self.baseline_config()
        else:
            env = self.lambda_environment(tuning)
        self.aws.calls.clear()
        self.aws.latency_ms = self.args.latency_ms
        server_cpu = self.server.cpu_seconds()
        try:
            run = until_done(lambda: self.invoke(job, env), self.args.max_invocations, self.log)
        finally:
            self.aws.latency_ms = 0
        server_cpu = self.server.cpu_seconds() - server_cpu
        measurement = Measurement(
            scenario=scenario,
            implementation=implementation,
            schemas=len(self.topics),
            wall_seconds=run.wall_seconds,
            calls=dict(self.aws.call_counts()),
            failed_calls=sum(self.aws.call_counts(ok=False).values()),
            peak_rss_mb=run.peak_rss_mb,
            invocations=run.invocations,
            cpu_seconds=run.cpu_seconds,
            standin_cpu_seconds=server_cpu,
            result=_slim(run.result),
            tuning=dict(tuning or {}) if implementation == PROJECT else {},
        )
        self.measurements.append(measurement)
        self.log(
            f"  {report.TITLES[scenario]:<26} {implementation:<8} {run.wall_seconds:8.2f} s  "
            f"{measurement.calls_per_schema:7.3f} calls/schema  {_outcome(run.result)}"
        )
        return measurement

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
        from local import world

        args = self.args
        self.load_before = os.getloadavg()
        self.calibration = self.calibrate()
        self.log(f"a sequential GetRegistry here: {self.calibration}")
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
        if wanted("resync_no_change"):
            self.measure("resync_no_change", PROJECT, "sync", tuning=args.tuning)
        if wanted("resync_new_versions"):
            self.new_versions()
            self.measure("resync_new_versions", PROJECT, "sync", tuning=args.tuning)
        if wanted("verify"):
            self.measure("verify", PROJECT, "sync", {"verify": True}, tuning=args.tuning)
        if wanted("lineage_first"):
            self.measure("lineage_first", PROJECT, "lineage", tuning=args.tuning)
        if wanted("lineage_no_change"):
            self.measure("lineage_no_change", PROJECT, "lineage", tuning=args.tuning)
        self.footprint(PROJECT, world.MAPPING_PATH)
        if args.fast_tuning is not None and wanted("first_sync_fast"):
            self.log(f"project at raised rates (TUNING {args.fast_tuning}):")
            self.prepare()
            self.measure("first_sync_fast", PROJECT, "sync", tuning=args.fast_tuning)
        self.load_after = os.getloadavg()
        self.calibration_after = self.calibrate()

    def document(self) -> dict[str, Any]:
        facts = report.summary(self.measurements, self.footprints)
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
                "deadline_seconds": self.args.deadline_seconds,
            },
            "summary": facts,
            "tuning_defaults": tuning_defaults(),
            "measurements": [
                {**m.to_dict(), "pacing_floor_seconds": m.pacing_floor(tuning_defaults())}
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
        f"raised rates: {p['fast_tuning'] or 'not measured'}",
    ]


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
    print(report.render(bench.measurements, document["summary"], header(document), tuning_defaults()))
    print(f"written: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
