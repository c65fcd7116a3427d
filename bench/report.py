"""Measurements and what the benchmark prints and writes: pure code, no AWS, no clock.

A `Measurement` is one scenario run by one implementation (the seed-design baseline or the project): its wall
time, every AWS call it made (by "service:Operation"), its peak memory and its result. The report derives per
schema figures, the project/baseline ratio, the daily cost of the `verify` run and the issue's targets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

BASELINE = "baseline"
PROJECT = "project"

# (key, title), in the order they run and print.
SCENARIOS: tuple[tuple[str, str], ...] = (
    ("first_sync", "first sync"),
    ("first_sync_fast", "first sync, raised rates"),
    ("resync_no_change", "no-change resync"),
    ("resync_new_versions", "resync, 1% new versions"),
    ("verify", "verify run"),
    ("lineage_first", "lineage first run"),
    ("lineage_no_change", "lineage no-change rerun"),
)
TITLES = dict(SCENARIOS)

# An AWS operation that only reads; anything else writes (creates, puts, posts, deletes, revises).
READ_PREFIXES = ("Get", "List", "Describe", "Search", "BatchGet", "Query", "Scan", "Test")

# Targets of issue 5, checked against what was measured (reported, never asserted).
NO_CHANGE_CALLS_PER_SCHEMA = 0.12
FIRST_SYNC_SPEEDUP = 10.0
PEAK_MEMORY_MB = 256.0
LAMBDA_TIMEOUT_SECONDS = 900.0
HOURLY_RUNS_PER_DAY = 24
LIST_SAMPLE = 5  # items of a result list kept in the report


# The project paces these with the TUNING rates (token buckets per service): calls / rate is a floor on time.
PACED = {
    "glue": ("glue_rps", lambda key: key.startswith("glue:")),
    "datazone": ("datazone_rps", lambda key: key.startswith("datazone:")),
    "ssm writes": ("ssm_write_rps", lambda key: key.startswith("ssm:") and is_write(key)),
}


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

    def pacing_floor(self, defaults: Mapping[str, float]) -> dict[str, float]:
        """Seconds the project's request rates alone impose on this run's calls, per paced service: where
        the time of a rate-bound run goes. `defaults`: the TUNING defaults; the run's `tuning` overrides."""
        rates = {**defaults, **self.tuning}
        floor: dict[str, float] = {}
        for service, (setting, matches) in PACED.items():
            calls = sum(n for key, n in self.calls.items() if matches(key))
            if calls and rates.get(setting):
                floor[service] = round(calls / float(rates[setting]), 2)
        return floor

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["title"] = TITLES.get(self.scenario, self.scenario)
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
        return data


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
    measurements: Sequence[Measurement], ssm: Sequence[SsmFootprint] = (), standard_quota: int = 10_000
) -> dict[str, Any]:
    """The issue's targets, as measured. Absent scenarios give None."""
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
    if project_runs:
        peak = max(m.peak_rss_mb for m in project_runs)
        out["project_peak_rss_mb"] = round(peak, 1)
        out["peak_memory_target_met"] = peak < PEAK_MEMORY_MB
    for footprint in ssm:
        out[f"ssm_{footprint.implementation}"] = {
            "parameters": footprint.parameters,
            "tiers": footprint.tiers,
            "largest_value_bytes": footprint.largest_value_bytes,
            "by_path": footprint.by_path,
            "share_of_standard_quota": round(footprint.parameters / standard_quota, 4),
        }
    return out


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
    """Project runs: the wall time next to what each paced service's calls take at its configured rate."""
    order = {key: i for i, (key, _) in enumerate(SCENARIOS)}
    rows = []
    for m in sorted(measurements, key=lambda m: order.get(m.scenario, 99)):
        if m.implementation != PROJECT:
            continue
        floor = m.pacing_floor(defaults)
        rows.append(
            [
                TITLES.get(m.scenario, m.scenario),
                _number(m.wall_seconds),
                *(_number(floor[service]) if service in floor else "" for service in PACED),
                _number(sum(floor.values())),
            ]
        )
    headers = ["project run", "wall s", *(f"{service} s" for service in PACED), "paced sum s"]
    return _table(rows, headers, right=range(1, len(PACED) + 3))


def main_table(measurements: Sequence[Measurement]) -> str:
    order = {key: i for i, (key, _) in enumerate(SCENARIOS)}
    rows = []
    for m in sorted(measurements, key=lambda m: (order.get(m.scenario, 99), m.implementation != BASELINE)):
        base = _baseline_for(measurements, m.scenario)
        r = ratio(m, base) if m.implementation == PROJECT else None
        rows.append(
            [
                TITLES.get(m.scenario, m.scenario),
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
    if "project_peak_rss_mb" in facts:
        lines.append(
            f"project peak memory: {facts['project_peak_rss_mb']} MB (whole Lambda-like process)"
            f"{met('peak_memory_target_met')}"
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
) -> str:
    parts = [*header, "", main_table(measurements), "", *summary_lines(facts), ""]
    if tuning_defaults is not None and any(m.implementation == PROJECT for m in measurements):
        parts += [
            "Time the configured request rates impose (calls / rate), per paced service:",
            pacing_table(measurements, tuning_defaults),
            "",
        ]
    parts.append(breakdown(measurements))
    return "\n".join(parts).strip("\n") + "\n"
