"""`python -m bench.glue_lineage`: what the Glue lineage target (`lineageTargets` ["datazone", "glue"]) adds
to a lineage run, in AWS calls, beside DataZone's posts in the same run.

Seeds the stand-ins (in this process) with N topics and their Iceberg tables, mirrors them with schema-sync
(not measured), then runs lineage-emission with both targets: a first run and a no-change rerun. Calls are
counted where the stand-ins receive them. The comparison is DataZone's own target in the same runs: two
posts (START, COMPLETE) per edge on a first run, none on a rerun. What must hold: Glue's first run costs at
most one PostLineageEvent per edge, and a no-change run posts nothing to either graph.

    python -m bench.glue_lineage --topics 1000
    python -m bench.glue_lineage --topics 1000 --targets glue    # Glue's graph alone: no DataZone call
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

QUIET = {
    "POWERTOOLS_LOG_LEVEL": "WARNING",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_TRACE_DISABLED": "true",
    "POWERTOOLS_METRICS_NAMESPACE": "KafkaLineageBench",
}
REGISTRY = "cdc"
# Fast enough that the stand-ins, not the pacing, set the pace of a thousand topics (no latency added).
TUNING = {"max_concurrency": 16, "datazone_rps": 500.0, "glue_rps": 500.0, "ssm_write_rps": 500.0}
COLUMNS = (
    "datazone:PostLineageEvent",
    "glue:PostLineageEvent",
    "glue:GetSchemaVersion",
    "ssm:GetParametersByPath",
    "ssm:PutParameter",
)


def seed_world(aws: Any, topics: int) -> int:
    import boto3
    from botocore.config import Config

    from bench import seed
    from local import world

    world.bootstrap_catalog(aws.datazone)
    aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    glue = boto3.client(
        "glue", region_name=world.REGION, config=Config(max_pool_connections=seed.SEED_WORKERS)
    )
    seeded = seed.topics(topics)
    seed.register_all(glue, REGISTRY, seeded)
    return seed.create_tables(glue, seeded)


def run(function: str, event: dict[str, Any]) -> dict[str, Any]:
    from local.runs import Context

    if function == "schema-sync":
        from schema_sync.handler import make_handler as make_sync
        from schema_sync.wiring import Wiring as SyncWiring

        return dict(make_sync(SyncWiring())(event, Context()))
    from lineage_emission.handler import make_handler
    from lineage_emission.wiring import Wiring

    return dict(make_handler(Wiring())(event, Context()))


def measure(aws: Any) -> list[tuple[str, Counter[str], float, dict[str, Any]]]:
    runs = []
    for label in ("first run", "no-change run"):
        aws.calls.clear()
        started = time.perf_counter()
        result = run("lineage-emission", {})
        runs.append((label, Counter(aws.call_counts()), time.perf_counter() - started, result))
    return runs


def edges_of(result: dict[str, Any]) -> int:
    """The edges the run covered: DataZone's count, or Glue's when DataZone is not a target."""
    glue = result.get("glue", {})
    return max(result["emitted"] + result["unchanged"], glue.get("posted", 0) + glue.get("unchanged", 0))


def report(
    topics: int, tables: int, runs: list[tuple[str, Counter[str], float, dict[str, Any]]], targets: str
) -> list[str]:
    lines = [
        f"lineageTargets {targets}: {topics} topics, {tables} Glue tables (one edge each)",
        "",
        f"{'run':<14} {'edges':>6} {'DZ posts':>9} {'Glue posts':>11} {'GetSchemaVersion':>17} "
        f"{'SSM reads':>10} {'SSM writes':>11} {'Glue/edge':>10} {'wall s':>7}",
    ]
    for label, counts, wall, result in runs:
        edges = edges_of(result)
        glue_posts = counts["glue:PostLineageEvent"]
        lines.append(
            f"{label:<14} {edges:>6} {counts['datazone:PostLineageEvent']:>9} {glue_posts:>11} "
            f"{counts['glue:GetSchemaVersion']:>17} {counts['ssm:GetParametersByPath']:>10} "
            f"{counts['ssm:PutParameter']:>11} {glue_posts / max(edges, 1):>10.2f} {wall:>7.2f}"
        )
    (_, first, _, emitted), (_, again, _, _) = runs[0], runs[1]
    edges, glue_first = edges_of(emitted), first["glue:PostLineageEvent"]
    quiet = again["glue:PostLineageEvent"] + again["datazone:PostLineageEvent"] == 0
    lines += [
        "",
        f"first run: Glue posts {glue_first} for {edges} edges (at most one per edge: "
        f"{'yes' if glue_first <= edges else 'NO'}); DataZone posts {first['datazone:PostLineageEvent']} "
        "(START and COMPLETE); GetSchemaVersion read once per topic for both targets",
        f"no-change run: Glue posts {again['glue:PostLineageEvent']}, DataZone posts "
        f"{again['datazone:PostLineageEvent']}, SSM writes {again['ssm:PutParameter']} (nothing posted: "
        f"{'yes' if quiet else 'NO'})",
    ]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.glue_lineage", description=__doc__)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument(
        "--targets", choices=("both", "glue"), default="both", help="Glue beside DataZone, or Glue alone"
    )
    parser.add_argument("--json", type=str, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    os.environ.update({key: os.environ.get(key, value) for key, value in QUIET.items()})

    from bench import seed
    from local import world
    from local.standins import LocalAws

    with LocalAws() as aws:
        tables = seed_world(aws, args.topics)
        source = world.source_config(
            REGISTRY,
            tableRule=seed.TABLE_RULE,
            connectors="off",
            channels="off",
            firehose="off",
            consumers="off",
        )
        os.environ.update(world.environment([source], TUNING))
        targets = ["datazone", "glue"] if args.targets == "both" else ["glue"]
        os.environ["LINEAGE_TARGETS"] = json.dumps(targets)
        run("schema-sync", {})
        runs = measure(aws)
    print("\n".join(report(args.topics, tables, runs, json.dumps(targets))))
    if args.json:
        figures = [{"run": label, "calls": dict(counts), "seconds": wall} for label, counts, wall, _ in runs]
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
