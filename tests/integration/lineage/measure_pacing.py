"""Pacing efficiency and peak memory of a lineage first run (a measurement, not a test).

    PYTHONPATH=lambdas:. python -m tests.integration.lineage.measure_pacing --schemas 500 --latency-ms 20

Uses the benchmark's machinery (bench/run.py: stand-ins in their own process, a warm forked invocation per
run): seeds the registry and the tables, runs a first schema sync at raised rates with no latency (set-up,
not measured), then measures the lineage first run at the given TUNING (default: the safe defaults) and
latency. Pacing efficiency = the pacing floor (the largest of calls / configured rate over Glue, DataZone and
SSM writes) divided by the wall time.
"""

from __future__ import annotations

import sys

from bench import run as bench_run


def main(argv: list[str]) -> None:
    args = bench_run.parse_args(argv)
    bench = bench_run.Bench(args, lambda line: print(line, flush=True))
    try:
        bench.prepare()
        latency, bench.args.latency_ms = args.latency_ms, 0.0
        bench.measure("first_sync", bench_run.PROJECT, "sync", tuning=bench_run.FAST_TUNING)
        bench.args.latency_ms = latency
        measured = bench.measure("lineage_first", bench_run.PROJECT, "lineage", tuning=args.tuning)
        floor = measured.pacing_floor(bench_run.tuning_defaults())
        slowest = max(floor.values())
        result = measured.result
        print(f"lineage first run: {measured.wall_seconds:.1f} s wall, {measured.cpu_seconds:.1f} s CPU")
        print(f"  calls: {dict(sorted(measured.calls.items()))}")
        print(f"  pacing floor per service (s): {floor}")
        print(f"  pacing efficiency: {slowest / measured.wall_seconds:.2f}")
        print(f"  peak RSS: {measured.peak_rss_mb:.0f} MB, invocations: {measured.invocations}")
        print(f"  emitted {result.get('emitted')}, state writes {result.get('stateWrites')}")
        emitted = result.get("emitted") or 1
        print(f"  CPU per emitted topic: {1000 * measured.cpu_seconds / emitted:.1f} ms")
    finally:
        for environment in bench._environments.values():
            environment.stop()
        bench.server.stop()


if __name__ == "__main__":
    main(sys.argv[1:])
