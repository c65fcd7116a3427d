"""Peak memory, CPU per topic and result size of a lineage first run at N topics (a measurement, not a test).

    PYTHONPATH=lambdas:. .venv/bin/python -m tests.unit.lineage.measure_memory [N] [--trace]

Runs `emit_lineage` in this process over N topics of the benchmark's shapes (bench/seed.py) against in-memory
adapters: the asset mapping, Glue tables (their columns as GetTables gives them), schema versions generated on
demand, DataZone events, and the real packed store over an in-memory SSM. No boto3 call is made, so this is
the emission's own memory and CPU; the benchmark adds boto3's (its peak RSS includes the clients). Prints the
process's peak RSS (imports included, as Lambda's Max Memory Used), the run's own peak of Python allocations
(tracemalloc), CPU per emitted topic and the size of the JSON result.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import tracemalloc

from bench import seed
from kafka_lineage.lineage.plan import EmitScope
from kafka_lineage.lineage.run import emit_lineage
from tests.unit.lineage.lineage_builders import settings, source
from tests.unit.lineage.memory_world import memory_world


def main(n: int, trace: bool) -> None:
    config = settings(source(tableRule=seed.TABLE_RULE))
    world, ssm, _ = memory_world(n)
    if trace:  # tracemalloc slows every allocation: CPU is measured in a run without it
        tracemalloc.start()
    started, cpu = time.perf_counter(), time.process_time()
    result = emit_lineage(EmitScope(), config, world).to_dict()
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - started
    _, traced_peak = tracemalloc.get_traced_memory() if trace else (0, 0)
    tracemalloc.stop()
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n} topics: emitted {result['emitted']}, unmapped {result['counts']['unmapped']}")
    print(f"  wall {wall:.1f} s, CPU {cpu:.1f} s: {1000 * cpu / result['emitted']:.2f} ms a topic")
    print(f"  peak RSS {peak_rss:.0f} MB")
    if trace:
        print(f"  the run's own peak of Python allocations: {traced_peak / 2**20:.0f} MB (tracemalloc)")
    print(f"  state: {len(ssm.values)} parameters, {ssm.puts} writes ({ssm.puts / len(ssm.values):.2f} each)")
    print(f"  result JSON: {len(json.dumps(result))} bytes")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10_000, trace="--trace" in sys.argv)
