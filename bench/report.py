"""Measurements and what the benchmark prints and writes: pure code, no AWS, no clock.

A `Measurement` is one scenario run by one implementation (the seed-design baseline or the project): its wall
time, every AWS call it made (by "service:Operation"), its peak memory and its result. The report derives per
schema figures, the project/baseline ratio, the daily cost of the `verify` run and the issue's targets.

Derived figures:
  - pacing floor: the largest calls-divided-by-configured-rate over the paced services, the least time the
    run's own request rates allow; pacing efficiency = floor / wall time (1.0: the run went as fast as its
    rates let it; the target is at least 0.8). Each invocation's token buckets start full (one second's
    worth of calls), so a small run, or one of many invocations, can show more than 1.0;
  - the floor at AWS's *documented* quotas: each operation with a published rate in its own bucket at that
    rate, every other paced call in its service's bucket at the safe default rate (`DOCUMENTED_QUOTAS`);
  - SSM writes / final parameters: the run's SSM write calls over the parameters it wrote that still exist
    at its end (1.0: each parameter written once; the target is at most 1.2);
  - repeated writes and reads: the same request (operation and parameters, idempotency tokens aside) made
    again within one run, across its invocations; a repeated write is work redone (the target is 0);
  - CPU per item: invocation CPU per schema (syncs) or per emitted topic (lineage), by data format, beside
    the CPU per schema of parsing alone (the targets: parsing and lineage at most 10 ms per item).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bench import readers as readers_targets
from bench.readers import ReadersWorld

BASELINE = "baseline"
PROJECT = "project"

# (key, title), in the order they run and print.
SCENARIOS: tuple[tuple[str, str], ...] = (
    ("first_sync", "first sync"),
    ("first_sync_fast", "first sync, raised rates"),
    ("first_sync_documented", "first sync, documented quotas"),
    ("first_sync_checkpointed", "first sync, short deadline"),
    ("lineage_first_checkpointed", "lineage first run, short deadline"),
    ("first_sync_checkpointed_neighbour", "first sync, short deadline, neighbour"),
    ("lineage_first_checkpointed_neighbour", "lineage first run, short deadline, neighbour"),
    ("resync_no_change", "no-change resync"),
    ("resync_new_versions", "resync, 1% new versions"),
    ("verify", "verify run"),
    ("lineage_first", "lineage first run"),
    ("lineage_no_change", "lineage no-change rerun"),
    ("first_sync_readers", "first sync, topics and groups"),
    ("lineage_first_consumers", "lineage first run, 3 groups a topic"),
    ("first_sync_neighbour", "first sync, neighbour"),
    ("lineage_first_neighbour", "lineage first run, neighbour"),
    ("by_format", "sync and lineage by format"),
)
TITLES = dict(SCENARIOS)
# The chains of invocations under a short deadline (`--checkpoint-deadline-seconds`).
CHECKPOINTED_SCENARIOS = (
    "first_sync_checkpointed",
    "lineage_first_checkpointed",
    "first_sync_checkpointed_neighbour",
    "lineage_first_checkpointed_neighbour",
)
# What `make bench` runs: all but the extra first sync at the documented quotas, whose floor every run's
# pacing table shows anyway (a column), and the chains next to a neighbour (each a fresh world's time:
# they are measured at scale, docs/performance.md).
DEFAULT_SCENARIOS = tuple(
    key for key, _ in SCENARIOS if key not in ("first_sync_documented", *CHECKPOINTED_SCENARIOS[2:])
)
# The per-format measurements of the "by_format" scenario.
FORMAT_SYNC = "format_sync"
FORMAT_LINEAGE = "format_lineage"
FORMAT_TITLES = {FORMAT_SYNC: "sync", FORMAT_LINEAGE: "lineage"}
CPU_KINDS = ("parse", "sync", "lineage")
# Runs whose time should be set by the request rates: their pacing efficiency is reported.
PACED_SCENARIOS = (
    "first_sync",
    "first_sync_fast",
    "first_sync_documented",
    "first_sync_checkpointed",
    "lineage_first_checkpointed",
    "first_sync_checkpointed_neighbour",
    "lineage_first_checkpointed_neighbour",
    "lineage_first",
    "first_sync_neighbour",
    "lineage_first_neighbour",
    "lineage_first_consumers",
)
# The scenarios measured on the readers world (bench/readers.py: the cluster's topics and consumer groups),
# in the order they run; the baseline's no-change reruns stay on its own world (it reads neither).
READERS_SCENARIOS = ("first_sync_readers", "resync_no_change", "lineage_first_consumers", "lineage_no_change")

# An AWS operation that only reads; anything else writes (creates, puts, posts, deletes, revises).
READ_PREFIXES = ("Get", "List", "Describe", "Search", "BatchGet", "Query", "Scan", "Test")

# Targets of issue 5, checked against what was measured (reported, never asserted).
NO_CHANGE_CALLS_PER_SCHEMA = 0.12
FIRST_SYNC_SPEEDUP = 10.0
PEAK_MEMORY_MB = 256.0
LAMBDA_TIMEOUT_SECONDS = 900.0
HOURLY_RUNS_PER_DAY = 24
LIST_SAMPLE = 5  # items of a result list kept in the report
# Targets of issue 9.
PACING_EFFICIENCY = 0.8
SSM_WRITES_PER_PARAMETER = 1.2
CPU_MS_PER_ITEM = 10.0


# AWS's request-rate quotas per operation (kafka_lineage.model.quotas: the DataZone user guide's "API rate
# limits", SSM's shared read throughput, and our readings where AWS is silent), which the stand-ins enforce
# in the bench. Kept here for the JSON's parameters: the operations AWS documents a rate for.
def _documented_quotas() -> dict[str, float]:
    from kafka_lineage.model.quotas import DOCUMENTED

    return {f"{service}:{operation}": quota.per_second for (service, operation), quota in DOCUMENTED.items()}


DOCUMENTED_QUOTAS: dict[str, float] = _documented_quotas()
# The TUNING of the "documented quotas" runs: every ceiling at its documented quota (the defaults now).
DOCUMENTED_TUNING: dict[str, float] = {"datazone_rps": 20.0}
# The services the project paces, each by its TUNING ceiling (aws/pacing.py Pacing): setting, and the quota
# buckets it caps (None: all of the service's).
PACED: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "glue": ("glue_rps", None),
    "datazone": ("datazone_rps", None),
    "ssm": ("ssm_write_rps", ("parameter-writes",)),
}


def bucket_name(service: str, bucket: str) -> str:
    """A quota bucket's name in the reports: "service:bucket" (SSM's parameter writes share one)."""
    return f"{service}:{bucket}"


def quota_buckets(calls: Mapping[str, int]) -> dict[str, tuple[str, str, float, int]]:
    """The calls by quota bucket: "service:bucket" -> (the service, one of its operations, the quota's rate,
    calls); calls of no quota (EventBridge, STS, MSK, Lambda) are left out."""
    from kafka_lineage.model.quotas import quota_of

    buckets: dict[str, tuple[str, str, float, int]] = {}
    for key, n in sorted(calls.items()):
        service, _, operation = key.partition(":")
        quota = quota_of(service, operation)
        if quota is None or not n:
            continue
        name = bucket_name(service, quota.bucket)
        _, first, rate, before = buckets.get(name, (service, operation, quota.per_second, 0))
        buckets[name] = (service, first, rate, before + n)
    return buckets


def is_write(call_key: str) -> bool:
    """True for a mutating call: `call_key` is "service:Operation"."""
    operation = call_key.partition(":")[2]
    return not operation.startswith(READ_PREFIXES)


@dataclass
class Measurement:
    scenario: str
    implementation: str  # BASELINE | PROJECT
    schemas: int
    wall_seconds: float
    calls: dict[str, int]  # "service:Operation" -> calls (successful or not)
    failed_calls: int = 0  # calls AWS answered with an error (throttling included)
    peak_rss_mb: float = 0.0  # peak resident memory of the process that ran it (all invocations)
    cpu_seconds: float = 0.0  # CPU time of the invocations' processes
    standin_cpu_seconds: float = 0.0  # CPU time the stand-ins spent answering (their own cost, not AWS's)
    invocations: int = 1  # > 1 when the sync checkpointed and continued
    result: dict[str, Any] = field(default_factory=dict)
    tuning: dict[str, Any] = field(default_factory=dict)
    data_format: str = ""  # the per-format measurements: the one format their schemas have
    repeated_writes: int = 0  # the same write request made again in this run (work redone)
    repeated_reads: int = 0  # the same read request made again in this run
    repeated_write_samples: list[str] = field(default_factory=list)
    final_parameters: int | None = None  # SSM parameters this run wrote that exist at its end
    neighbour: float = 0.0  # the share of each quota another tool in the account used (the stand-ins')
    throttled_calls: int = 0  # attempts the stand-ins' quotas refused
    ok_calls: dict[str, int] | None = None  # "service:Operation" -> successful calls
    # When the slowest quota bucket's calls went (bench/timeline.py): its lead-in, idle time and tail
    timeline: dict[str, Any] | None = None

    @property
    def title(self) -> str:
        if self.scenario in FORMAT_TITLES:
            return f"{FORMAT_TITLES[self.scenario]}, {self.data_format} only"
        return TITLES.get(self.scenario, self.scenario)

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    @property
    def writes(self) -> int:
        return sum(n for key, n in self.calls.items() if is_write(key))

    def per_schema(self, count: float) -> float:
        return count / self.schemas if self.schemas else 0.0

    @property
    def calls_per_schema(self) -> float:
        return self.per_schema(self.total_calls)

    @property
    def writes_per_schema(self) -> float:
        return self.per_schema(self.writes)

    def by_service(self) -> dict[str, int]:
        services: Counter[str] = Counter()
        for key, n in self.calls.items():
            services[key.partition(":")[0]] += n
        return dict(sorted(services.items()))

    @property
    def work_calls(self) -> dict[str, int]:
        """The calls that did work: the successful ones when known (a throttled attempt did none)."""
        return self.ok_calls if self.ok_calls is not None else self.calls

    def pacing_floor(self, defaults: Mapping[str, float]) -> dict[str, float]:
        """Seconds the run's own ceilings impose on its calls, per quota bucket (each operation paced apart,
        aws/pacing.py): calls / the bucket's ceiling. `defaults`: the TUNING defaults; `tuning` overrides."""
        from kafka_lineage.aws.pacing import Pacing

        rates = {**defaults, **self.tuning}
        pacings = {
            service: Pacing(service, float(rates[setting]), capped)
            for service, (setting, capped) in PACED.items()
            if rates.get(setting)
        }
        floor: dict[str, float] = {}
        for name, (service, operation, _, n) in quota_buckets(self.work_calls).items():
            pacing = pacings.get(service)
            limiter = pacing.limiter(operation) if pacing is not None else None
            if limiter is not None:
                floor[name] = round(n / limiter.ceiling, 2)
        return floor

    def pacing_floor_seconds(self, defaults: Mapping[str, float]) -> float:
        """The least time the run's own ceilings allow: its slowest quota bucket."""
        return max(self.pacing_floor(defaults).values(), default=0.0)

    def documented_floor(self, defaults: Mapping[str, float] | None = None) -> dict[str, float]:
        """Seconds per quota bucket at AWS's quotas, each operation (each quota) in parallel, less the
        neighbour's share: the least time the account allows this run's calls (`defaults` unused, kept for
        the callers)."""
        left = 1 - self.neighbour
        return {
            name: round(n / (rate * left), 2)
            for name, (_, _, rate, n) in sorted(quota_buckets(self.work_calls).items())
        }

    def documented_floor_seconds(self) -> float:
        return max(self.documented_floor().values(), default=0.0)

    def pacing_efficiency(self, defaults: Mapping[str, float] | None = None) -> float | None:
        """The quota floor (what the neighbour leaves) / wall time; None when nothing was paced or no time
        passed."""
        floor = self.documented_floor_seconds()
        if floor <= 0 or self.wall_seconds <= 0:
            return None
        return floor / self.wall_seconds

    @property
    def throttled_share(self) -> float | None:
        return self.throttled_calls / self.total_calls if self.total_calls else None

    @property
    def ssm_writes(self) -> int:
        return sum(n for key, n in self.calls.items() if key.startswith("ssm:") and is_write(key))

    @property
    def ssm_writes_per_parameter(self) -> float | None:
        if not self.final_parameters:
            return None
        return self.ssm_writes / self.final_parameters

    @property
    def items(self) -> int:
        """What CPU is counted per: emitted topics for lineage runs, schemas otherwise."""
        if self.scenario.startswith("lineage") or self.scenario == FORMAT_LINEAGE:
            return _count(self.result, "emitted")
        return self.schemas

    @property
    def cpu_ms_per_item(self) -> float | None:
        return self.cpu_seconds / self.items * 1000 if self.items else None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["title"] = self.title
        data["calls"] = dict(sorted(self.calls.items()))
        data["total_calls"] = self.total_calls
        data["writes"] = self.writes
        data["calls_per_schema"] = round(self.calls_per_schema, 4)
        data["writes_per_schema"] = round(self.writes_per_schema, 4)
        data["calls_per_schema_by_operation"] = {
            key: round(self.per_schema(n), 4) for key, n in sorted(self.calls.items())
        }
        data["calls_per_schema_by_service"] = {
            key: round(self.per_schema(n), 4) for key, n in self.by_service().items()
        }
        data["ssm_writes"] = self.ssm_writes
        ratio = self.ssm_writes_per_parameter
        data["ssm_writes_per_parameter"] = None if ratio is None else round(ratio, 3)
        cpu = self.cpu_ms_per_item
        data["cpu_ms_per_item"] = None if cpu is None else round(cpu, 2)
        return data


@dataclass(frozen=True)
class Repeats:
    """Requests made more than once within a run (see `repeats`)."""

    writes: int
    reads: int
    write_samples: tuple[str, ...] = ()


# The call that hands a run on to its follow-up invocation: no write of anything. A lineage run's follow-up
# carries the same event each time (its state says what is done), so the same Invoke is no repeat.
HAND_ON = frozenset({"lambda:Invoke"})


def repeats(calls: Iterable[Sequence[str]]) -> Repeats:
    """Count the calls whose (operation, parameter digest) was already made earlier in the same run.

    `calls`: `[service:Operation, target, digest]` in the order they were made, over all the run's
    invocations. The first of each is not a repeat; every later one is."""
    seen: set[tuple[str, str]] = set()
    writes = reads = 0
    samples: list[str] = []
    for key, target, digest in calls:
        if key.startswith("unrecorded:") or key in HAND_ON:
            continue
        signature = (key, digest)
        if signature not in seen:
            seen.add(signature)
        elif is_write(key):
            writes += 1
            if len(samples) < LIST_SAMPLE:
                samples.append(f"{key} {target}".strip())
        else:
            reads += 1
    return Repeats(writes, reads, tuple(samples))


def written_parameters(calls: Iterable[Sequence[str]]) -> set[str]:
    """Names of the SSM parameters the calls created or overwrote."""
    return {target for key, target, _ in calls if key == "ssm:PutParameter" and target}


def find(measurements: Iterable[Measurement], scenario: str, implementation: str) -> Measurement | None:
    return next(
        (m for m in measurements if m.scenario == scenario and m.implementation == implementation), None
    )


def ratio(project: Measurement | None, baseline: Measurement | None) -> float | None:
    """Wall time project / baseline (below 1: the project is faster)."""
    if project is None or baseline is None or baseline.wall_seconds <= 0:
        return None
    return project.wall_seconds / baseline.wall_seconds


def _baseline_for(measurements: Sequence[Measurement], scenario: str) -> Measurement | None:
    # Both first-sync variants of the project compare against the baseline's one first sync.
    return find(measurements, "first_sync" if scenario == "first_sync_fast" else scenario, BASELINE)


@dataclass(frozen=True)
class SsmFootprint:
    """Parameters an implementation keeps in SSM Parameter Store after the first sync."""

    implementation: str
    parameters: int
    tiers: dict[str, int]  # "Standard" / "Advanced" -> count
    largest_value_bytes: int = 0
    by_path: dict[str, int] = field(default_factory=dict)  # first level below the prefix -> count


def summary(
    measurements: Sequence[Measurement],
    ssm: Sequence[SsmFootprint] = (),
    standard_quota: int = 10_000,
    tuning_defaults: Mapping[str, float] | None = None,
    parse_ms: Mapping[str, float] | None = None,
    readers: ReadersWorld | None = None,
) -> dict[str, Any]:
    """The issue's targets, as measured. Absent scenarios give None. `readers`: what the readers world held,
    for issue 28's targets (bench/readers.py)."""
    no_change = find(measurements, "resync_no_change", PROJECT)
    verify = find(measurements, "verify", PROJECT)
    first = find(measurements, "first_sync", PROJECT)
    fast = find(measurements, "first_sync_fast", PROJECT)
    base_first = find(measurements, "first_sync", BASELINE)
    lineage_again = find(measurements, "lineage_no_change", PROJECT)
    project_runs = [m for m in measurements if m.implementation == PROJECT]
    out: dict[str, Any] = {}
    if no_change is not None:
        out["no_change_calls_per_schema"] = round(no_change.calls_per_schema, 4)
        out["no_change_writes"] = no_change.writes
        out["no_change_target_met"] = (
            no_change.calls_per_schema <= NO_CHANGE_CALLS_PER_SCHEMA and no_change.writes == 0
        )
    if no_change is not None and verify is not None:
        # A day of hourly runs, one of them the verify run.
        daily = (HOURLY_RUNS_PER_DAY - 1) * no_change.total_calls + verify.total_calls
        out["verify_calls_per_schema"] = round(verify.calls_per_schema, 4)
        out["daily_calls_per_schema_per_run"] = round(daily / HOURLY_RUNS_PER_DAY / no_change.schemas, 4)
    for key, run in (("first_sync_speedup", first), ("first_sync_fast_speedup", fast)):
        if run is not None and base_first is not None and run.wall_seconds > 0:
            out[key] = round(base_first.wall_seconds / run.wall_seconds, 2)
            if run.tuning:
                out[key.replace("speedup", "tuning")] = run.tuning
    best = max((out.get("first_sync_speedup") or 0.0, out.get("first_sync_fast_speedup") or 0.0))
    if base_first is not None and (first is not None or fast is not None):
        out["first_sync_speedup_target_met"] = best >= FIRST_SYNC_SPEEDUP
    if first is not None:
        out["first_sync_invocations"] = first.invocations
        out["first_sync_within_one_invocation"] = (
            first.invocations == 1 and first.wall_seconds < LAMBDA_TIMEOUT_SECONDS
        )
    if lineage_again is not None:
        posts = lineage_again.calls.get("datazone:PostLineageEvent", 0)
        out["lineage_no_change_posts"] = posts
        out["lineage_no_change_target_met"] = posts == 0
    out.update(readers_targets.summary({m.scenario: m for m in project_runs}, readers))
    if project_runs:
        peak = max(m.peak_rss_mb for m in project_runs)
        out["project_peak_rss_mb"] = round(peak, 1)
        out["peak_memory_target_met"] = peak < PEAK_MEMORY_MB
    defaults = dict(tuning_defaults or {})
    efficiency = {
        m.scenario: round(value, 3)
        for m in project_runs
        if m.scenario in PACED_SCENARIOS and (value := m.pacing_efficiency(defaults)) is not None
    }
    if efficiency:
        out["pacing_efficiency"] = efficiency
        out["pacing_efficiency_target_met"] = min(efficiency.values()) >= PACING_EFFICIENCY
    ratios = {  # the named scenarios; the per-format runs share their scenario keys
        m.scenario: round(value, 3)
        for m in project_runs
        if m.scenario in TITLES and (value := m.ssm_writes_per_parameter) is not None
    }
    if ratios:
        out["ssm_writes_per_parameter"] = ratios
        if "first_sync" in ratios:
            out["ssm_writes_target_met"] = ratios["first_sync"] <= SSM_WRITES_PER_PARAMETER
    met: list[bool] = []
    for scenario in CHECKPOINTED_SCENARIOS:  # each chain must converge with no write repeated
        checkpointed = find(measurements, scenario, PROJECT)
        if checkpointed is None:
            continue
        converged = not checkpointed.result.get("incomplete") and not checkpointed.result.get("error")
        out["checkpointed" if scenario == "first_sync_checkpointed" else scenario] = {
            "invocations": checkpointed.invocations,
            "converged": converged,
            "created": _count(checkpointed.result, "created"),
            "repeated_writes": checkpointed.repeated_writes,
            "repeated_reads": checkpointed.repeated_reads,
            "repeated_write_samples": checkpointed.repeated_write_samples,
        }
        met.append(converged and checkpointed.repeated_writes == 0)
    if met:
        out["checkpointed_target_met"] = all(met)
    cpu = cpu_by_format(measurements, parse_ms)
    if cpu:
        out["cpu_ms_per_item_by_format"] = cpu
        # The targets: parsing per schema and lineage per emitted topic. A sync's CPU per schema is shown
        # beside them; most of it is boto3's own work for the six calls a new schema takes.
        targeted = [row.get(kind) for row in cpu.values() for kind in ("parse", "lineage")]
        values = [value for value in targeted if value is not None]
        out["cpu_target_met"] = max(values) <= CPU_MS_PER_ITEM if values else None
    for footprint in ssm:
        out[f"ssm_{footprint.implementation}"] = {
            "parameters": footprint.parameters,
            "tiers": footprint.tiers,
            "largest_value_bytes": footprint.largest_value_bytes,
            "by_path": footprint.by_path,
            "share_of_standard_quota": round(footprint.parameters / standard_quota, 4),
        }
    return out


def cpu_by_format(
    measurements: Sequence[Measurement], parse_ms: Mapping[str, float] | None = None
) -> dict[str, dict[str, float | None]]:
    """Format -> {"parse": ms per schema, "sync": ms per schema, "lineage": ms per emitted topic}: parsing
    as measured apart (`parse_ms`), the others from the per-format runs."""
    table: dict[str, dict[str, float | None]] = {
        data_format: {"parse": round(ms, 2)} for data_format, ms in (parse_ms or {}).items()
    }
    for m in measurements:
        if m.scenario in FORMAT_TITLES and m.implementation == PROJECT:
            cpu = m.cpu_ms_per_item
            row = table.setdefault(m.data_format, {})
            row[FORMAT_TITLES[m.scenario]] = None if cpu is None else round(cpu, 2)
    return dict(sorted(table.items()))


# -- rendering -----------------------------------------------------------------------------------------------


def _table(rows: Sequence[Sequence[str]], headers: Sequence[str], right: Iterable[int] = ()) -> str:
    aligned_right = set(right)
    cells = [list(headers), *[list(row) for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        parts = [
            cell.rjust(width) if i in aligned_right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(cells[0]), line(["-" * w for w in widths]), *(line(row) for row in cells[1:])])


def _number(value: float, digits: int = 2) -> str:
    return f"{value:,.{digits}f}"


def _count(result: Mapping[str, Any], key: str) -> int:
    """A result counter, or the length of a result list (a cut list keeps its length in `<key>Total`)."""
    value = result.get(key)
    if isinstance(value, list):
        return int(result.get(f"{key}Total", len(value)))
    return int(value or 0)


def _outcome(result: Mapping[str, Any]) -> str:
    parts = []
    for key in ("created", "updated", "unchanged", "deleted", "emitted", "unmapped", "failed"):
        count = _count(result, key)
        if count:
            parts.append(f"{key} {count}")
    if result.get("incomplete"):
        parts.append(f"incomplete, {result.get('remaining', '?')} left")
    return ", ".join(parts) or "-"


def pacing_table(measurements: Sequence[Measurement], defaults: Mapping[str, float]) -> str:
    """Project runs: the wall time next to the floor AWS's per-operation quotas set (each quota in
    parallel, less the neighbour's share), the efficiency (that floor / wall), the floor of the run's own
    ceilings, the share of calls throttled, and calls per schema."""
    order = {key: i for i, (key, _) in enumerate(SCENARIOS)}
    rows = []
    for m in sorted(measurements, key=lambda m: (order.get(m.scenario, 99), m.neighbour)):
        if m.implementation != PROJECT:
            continue
        efficiency = m.pacing_efficiency(defaults)
        documented = m.documented_floor()
        slowest = max(documented, key=documented.__getitem__, default="")
        share = m.throttled_share
        rows.append(
            [
                m.title,
                f"{m.neighbour:g}",
                _number(m.wall_seconds),
                _number(m.documented_floor_seconds()),
                slowest,
                "" if efficiency is None else _number(efficiency),
                _number(m.pacing_floor_seconds(defaults)),
                "" if share is None else f"{share:.2%}",
                _number(m.calls_per_schema, 3),
            ]
        )
    headers = [
        "project run",
        "neighbour",
        "wall s",
        "quota floor s",
        "slowest quota",
        "efficiency",
        "ceiling floor s",
        "throttled",
        "calls/schema",
    ]
    return _table(rows, headers, right=(1, 2, 3, 5, 6, 7, 8))


def writes_table(measurements: Sequence[Measurement]) -> str:
    """Project runs: SSM writes against the parameters left, and requests made more than once."""
    order = {key: i for i, (key, _) in enumerate(SCENARIOS)}
    rows = []
    for m in sorted(measurements, key=lambda m: order.get(m.scenario, 99)):
        if m.implementation != PROJECT:
            continue
        ratio = m.ssm_writes_per_parameter
        rows.append(
            [
                m.title,
                str(m.invocations),
                str(m.ssm_writes),
                "" if m.final_parameters is None else str(m.final_parameters),
                "" if ratio is None else _number(ratio),
                str(m.repeated_writes),
                str(m.repeated_reads),
            ]
        )
    headers = [
        "project run",
        "invocations",
        "SSM writes",
        "parameters left",
        "writes/parameter",
        "repeated writes",
        "repeated reads",
    ]
    return _table(rows, headers, right=range(1, 7))


def cpu_table(measurements: Sequence[Measurement], parse_ms: Mapping[str, float] | None = None) -> str:
    """Per data format: CPU per schema of parsing alone, of a sync, and per emitted topic of lineage (ms)."""
    rows = [
        [data_format, *("" if row.get(kind) is None else _number(row[kind] or 0.0) for kind in CPU_KINDS)]
        for data_format, row in cpu_by_format(measurements, parse_ms).items()
    ]
    headers = ["format", "parse ms/schema", "sync ms/schema", "lineage ms/topic"]
    return _table(rows, headers, right=range(1, 4))


def main_table(measurements: Sequence[Measurement]) -> str:
    order = {key: i for i, (key, _) in enumerate(SCENARIOS)}
    rows = []
    for m in sorted(measurements, key=lambda m: (order.get(m.scenario, 99), m.implementation != BASELINE)):
        base = _baseline_for(measurements, m.scenario)
        r = ratio(m, base) if m.implementation == PROJECT else None
        rows.append(
            [
                m.title,
                m.implementation,
                _number(m.wall_seconds),
                "" if r is None else _number(r),
                _number(m.cpu_seconds, 1),
                _number(m.standin_cpu_seconds, 1),
                _number(m.calls_per_schema, 3),
                _number(m.writes_per_schema, 3),
                str(m.failed_calls),
                _number(m.peak_rss_mb, 0),
                str(m.invocations),
                _outcome(m.result),
            ]
        )
    headers = [
        "scenario",
        "impl",
        "wall s",
        "proj/base",
        "cpu s",
        "stand-in cpu s",
        "calls/schema",
        "writes/schema",
        "errors",
        "peak MB",
        "invocations",
        "outcome",
    ]
    return _table(rows, headers, right=range(2, 11))


def breakdown(measurements: Sequence[Measurement]) -> str:
    """Per scenario: calls per schema by service:Operation, baseline next to project."""
    blocks = []
    for scenario, title in SCENARIOS:
        runs = [
            m for m in (find(measurements, scenario, BASELINE), find(measurements, scenario, PROJECT)) if m
        ]
        if not runs:
            continue
        keys = sorted({key for m in runs for key in m.calls})
        rows = []
        for key in keys:
            row = [key + (" (write)" if is_write(key) else "")]
            for m in runs:
                row.append(_number(m.per_schema(m.calls.get(key, 0)), 4) if key in m.calls else "")
            rows.append(row)
        rows.append(["total", *(_number(m.calls_per_schema, 4) for m in runs)])
        headers = [f"{title}: calls per schema", *(m.implementation for m in runs)]
        blocks.append(_table(rows, headers, right=range(1, len(runs) + 1)))
    return "\n\n".join(blocks)


def summary_lines(facts: Mapping[str, Any]) -> list[str]:
    def met(key: str) -> str:
        value = facts.get(key)
        return "" if value is None else (" (target met)" if value else " (target NOT met)")

    lines = []
    if "no_change_calls_per_schema" in facts:
        lines.append(
            f"no-change resync: {facts['no_change_calls_per_schema']} calls/schema, "
            f"{facts['no_change_writes']} writes{met('no_change_target_met')}"
        )
    if "daily_calls_per_schema_per_run" in facts:
        lines.append(
            f"verify run: {facts['verify_calls_per_schema']} calls/schema; a day of hourly runs with one "
            f"verify: {facts['daily_calls_per_schema_per_run']} calls/schema per run on average"
        )
    for key, label in (
        ("first_sync_speedup", "the safe defaults"),
        ("first_sync_fast_speedup", "raised rates"),
    ):
        if key in facts:
            tuning = facts.get(key.replace("speedup", "tuning"))
            lines.append(
                f"first sync speed-up over the baseline at {label}: {facts[key]}x"
                + (f" (TUNING {tuning})" if tuning else "")
            )
    if "first_sync_speedup_target_met" in facts:
        lines.append(f"first sync >= {FIRST_SYNC_SPEEDUP:g}x faster{met('first_sync_speedup_target_met')}")
    if "first_sync_invocations" in facts:
        lines.append(
            f"first sync invocations: {facts['first_sync_invocations']}"
            + (" (fits one 15-minute invocation)" if facts["first_sync_within_one_invocation"] else "")
        )
    if "lineage_no_change_posts" in facts:
        lines.append(
            f"lineage no-change rerun: {facts['lineage_no_change_posts']} PostLineageEvent calls"
            f"{met('lineage_no_change_target_met')}"
        )
    lines += readers_targets.summary_lines(facts)
    if "project_peak_rss_mb" in facts:
        lines.append(
            f"project peak memory: {facts['project_peak_rss_mb']} MB (whole Lambda-like process)"
            f"{met('peak_memory_target_met')}"
        )
    if "pacing_efficiency" in facts:
        shown = ", ".join(f"{TITLES.get(k, k)} {v:.2f}" for k, v in facts["pacing_efficiency"].items())
        lines.append(
            f"pacing efficiency (floor / wall, >= {PACING_EFFICIENCY:g}): {shown}"
            f"{met('pacing_efficiency_target_met')}"
        )
    if "ssm_writes_per_parameter" in facts:
        shown = ", ".join(f"{TITLES.get(k, k)} {v:.2f}" for k, v in facts["ssm_writes_per_parameter"].items())
        lines.append(
            f"SSM writes per parameter left (first sync <= {SSM_WRITES_PER_PARAMETER:g}): {shown}"
            f"{met('ssm_writes_target_met')}"
        )
    for scenario in CHECKPOINTED_SCENARIOS:
        key = "checkpointed" if scenario == "first_sync_checkpointed" else scenario
        if key not in facts:
            continue
        c = facts[key]
        lines.append(
            f"{TITLES[scenario]}: {c['invocations']} invocations, "
            f"{'converged' if c['converged'] else 'NOT converged'}, created {c['created']}, "
            f"{c['repeated_writes']} repeated writes, {c['repeated_reads']} repeated reads"
            + (f" (first: {'; '.join(c['repeated_write_samples'])})" if c["repeated_write_samples"] else "")
            + met("checkpointed_target_met")
        )
    if "cpu_ms_per_item_by_format" in facts:
        shown = "; ".join(
            f"{fmt} " + ", ".join(f"{kind} {v:.1f}" for kind, v in row.items() if v is not None)
            for fmt, row in facts["cpu_ms_per_item_by_format"].items()
        )
        lines.append(
            f"CPU ms per item (parse per schema and lineage per topic <= {CPU_MS_PER_ITEM:g}): {shown}"
            f"{met('cpu_target_met')}"
        )
    for implementation in (PROJECT, BASELINE):
        ssm = facts.get(f"ssm_{implementation}")
        if ssm:
            tiers = ", ".join(f"{n} {tier}" for tier, n in sorted(ssm["tiers"].items())) or "none"
            paths = ", ".join(f"{path}: {n}" for path, n in sorted(ssm["by_path"].items()))
            lines.append(
                f"SSM at the end, {implementation}: {ssm['parameters']} parameters ({tiers}"
                + (f"; {paths}" if paths else "")
                + "), "
                f"{ssm['share_of_standard_quota']:.1%} of the account's 10,000 standard-tier quota; "
                f"largest value {ssm['largest_value_bytes']} bytes"
            )
    return lines


def render(
    measurements: Sequence[Measurement],
    facts: Mapping[str, Any],
    header: Sequence[str] = (),
    tuning_defaults: Mapping[str, float] | None = None,
    parse_ms: Mapping[str, float] | None = None,
) -> str:
    parts = [*header, "", main_table(measurements), "", *summary_lines(facts), ""]
    if tuning_defaults is not None and any(m.implementation == PROJECT for m in measurements):
        parts += [
            "Time AWS's per-operation quotas impose (successful calls / quota, less the neighbour's",
            "share, each quota in parallel): the floor is the slowest quota; efficiency = floor / wall",
            "(real seconds); then the floor of the run's own ceilings (TUNING), the share of calls",
            "throttled, and calls per schema:",
            pacing_table(measurements, tuning_defaults),
            "",
        ]
    if any(m.implementation == PROJECT for m in measurements):
        parts += ["SSM writes and repeated requests, per project run:", writes_table(measurements), ""]
    if cpu_by_format(measurements, parse_ms):
        parts += ["CPU by data format (ms):", cpu_table(measurements, parse_ms), ""]
    parts.append(breakdown(measurements))
    return "\n".join(parts).strip("\n") + "\n"
