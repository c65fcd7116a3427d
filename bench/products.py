"""Data products (issue 38): what keeping `dataProducts` adds to a schema-sync run, on the local stand-ins,
side by side with the same run without products (the baseline, on a world of its own seeded alike).

    .venv/bin/python -m bench.products                          # 1,000 topics in 10 products
    .venv/bin/python -m bench.products --topics 200 --products 4 --quotas on

Scenarios, each measured on both worlds:
- `first_sync`: every topic becomes an asset; with products, each product is created and published. Target:
  at most two calls a product beyond the baseline's (CreateDataProduct, CreateListingChangeSet), beside the
  product state's SSM read and write;
- `no_change`: the same sync again. Target: no DataZone call for products; beyond the baseline, only what
  the product state needs (one GetParametersByPath page of `assets/products/` per ten parameters), and no
  write at all;
- `one_topic_added`: a topic added to one product's pattern. Target: that product alone revised and
  published again (two calls), no other product touched.

The stand-ins run in this process; the handler is called directly with a Lambda-like context. Nothing is
asserted (tests/integration/sync/test_data_products.py asserts); the figures are printed, `--out` writes
them as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.invoke import LambdaContext

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")

AVRO = json.dumps({"type": "record", "name": "Value", "fields": [{"name": "id", "type": "int"}]})
PRODUCT_CALLS = frozenset(
    {
        "datazone:CreateDataProduct",
        "datazone:CreateDataProductRevision",
        "datazone:GetDataProduct",
        "datazone:DeleteDataProduct",
        "datazone:Search",
        "datazone:ListSubscriptions",
    }
)
WRITES = ("Create", "Put", "Delete", "Update")
REGISTRIES = ("cdc", "cdc-more")


@dataclass
class Measured:
    scenario: str
    side: str  # "products" or "baseline"
    wall_seconds: float
    calls: Counter[str]
    result: dict[str, Any]

    def writes(self) -> int:
        return sum(n for key, n in self.calls.items() if key.split(":", 1)[1].startswith(WRITES))

    def as_dict(self) -> dict[str, Any]:
        changes = Counter(str(e["change"]) for e in self.result.get("dataProducts") or [])
        return {
            "scenario": self.scenario,
            "side": self.side,
            "wallSeconds": round(self.wall_seconds, 2),
            "calls": dict(sorted(self.calls.items())),
            "totalCalls": sum(self.calls.values()),
            "writes": self.writes(),
            "productChanges": dict(sorted(changes.items())),
        }


class ProductsBench:
    def __init__(self, args: argparse.Namespace) -> None:
        from bench.standins_server import raise_glue_caps
        from local.standins import LocalAws

        raise_glue_caps()  # moto's 1,000 schemas an account; AWS's quota is 10,000
        self.args = args
        self.aws = LocalAws().start()
        self.footprint: dict[str, dict[str, int]] = {}

    def topic(self, product: int, index: int) -> str:
        return f"bench.products.p{product:02d}.topic_{index:04d}"

    def world(self, with_products: bool) -> None:
        """A fresh domain and registry of `--topics` topics spread over `--products` name prefixes."""
        from local import world

        self.aws.quotas.disable()
        self.aws.reset()
        world.bootstrap_catalog(self.aws.datazone)
        self.aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
        # Two registries (two sources on one cluster), the products spread over both.
        for registry in REGISTRIES:
            world.create_registry(registry)
        per = max(1, self.args.topics // self.args.products)
        for product in range(self.args.products):
            registry = REGISTRIES[product % len(REGISTRIES)]
            for index in range(per):
                world.register(registry, world.SchemaSpec(self.topic(product, index), "AVRO", AVRO))
        tuning = (
            {"datazone_rps": 500, "glue_rps": 500, "ssm_write_rps": 500} if self.args.quotas == "off" else {}
        )
        sources = [world.source_config(registry) for registry in REGISTRIES]
        os.environ.update(world.environment(sources, tuning or None))
        if not tuning:
            os.environ.pop("TUNING", None)
        products = [
            {"name": f"Bench product {p:02d}", "include": [f"^bench\\.products\\.p{p:02d}\\."]}
            for p in range(self.args.products)
        ]
        if with_products:
            os.environ["DATA_PRODUCTS"] = json.dumps(products)
        else:
            os.environ.pop("DATA_PRODUCTS", None)

    def sync(self, scenario: str, side: str) -> Measured:
        from schema_sync.handler import handler

        if self.args.quotas == "on":
            self.aws.quotas.enable(0.0)
        self.aws.calls.clear()
        started = time.perf_counter()
        try:
            result = handler({}, LambdaContext(900.0, function_name="schema-sync"))
        except Exception as error:  # a run with failures raises its summary: measured all the same
            text = str(error)
            result = json.loads(text[text.index("{") :]) if "{" in text else {"error": text}
        wall = time.perf_counter() - started
        self.aws.quotas.disable()
        return Measured(scenario, side, wall, Counter(self.aws.call_counts()), result)

    def side(self, with_products: bool) -> list[Measured]:
        from local import world

        name = "products" if with_products else "baseline"
        self.world(with_products)
        found = [self.sync("first_sync", name)]
        self.footprint[name] = self.parameters()
        found.append(self.sync("no_change", name))
        product = 3 % self.args.products
        spec = world.SchemaSpec(self.topic(product, 9999), "AVRO", AVRO)
        world.register(REGISTRIES[product % len(REGISTRIES)], spec)
        found.append(self.sync("one_topic_added", name))
        return found

    def parameters(self) -> dict[str, int]:
        """The SSM parameters of the asset records and of the product state (read outside any measurement)."""
        import boto3

        from local import world

        ssm = boto3.client("ssm", region_name=world.REGION)
        names = [
            str(parameter["Name"])
            for page in ssm.get_paginator("get_parameters_by_path").paginate(
                Path=f"{world.MAPPING_PATH}/assets", Recursive=True
            )
            for parameter in page["Parameters"]
        ]
        products = sum(1 for name in names if "/assets/products/" in name)
        return {"assetRecords": len(names) - products, "productState": products}

    def run(self) -> list[Measured]:
        return [*self.side(False), *self.side(True)]

    def close(self) -> None:
        self.aws.stop()


def summary(measured: Sequence[Measured], products: int) -> list[dict[str, Any]]:
    """Per scenario: the calls the products side made beyond the baseline, and the targets."""
    by = {(m.scenario, m.side): m for m in measured}
    rows = []
    for scenario in ("first_sync", "no_change", "one_topic_added"):
        base, with_products = by[(scenario, "baseline")], by[(scenario, "products")]
        extra = Counter(with_products.calls)
        extra.subtract(base.calls)
        extra_calls = {key: n for key, n in sorted(extra.items()) if n}
        datazone_extra = sum(n for key, n in extra_calls.items() if key.startswith("datazone:"))
        rows.append(
            {
                "scenario": scenario,
                "baselineCalls": sum(base.calls.values()),
                "productsCalls": sum(with_products.calls.values()),
                "extraCalls": extra_calls,
                "extraDataZoneCalls": datazone_extra,
                "extraDataZonePerProduct": round(datazone_extra / products, 2),
                "productWrites": with_products.writes() - base.writes(),
                "productChanges": with_products.as_dict()["productChanges"],
                "wallSeconds": [round(base.wall_seconds, 2), round(with_products.wall_seconds, 2)],
            }
        )
    return rows


def render(rows: Sequence[dict[str, Any]]) -> str:
    lines = ["scenario         baseline calls  with products  extra DataZone (per product)  extra calls"]
    for row in rows:
        extra = ", ".join(f"{k} {n:+d}" for k, n in row["extraCalls"].items()) or "none"
        lines.append(
            f"{row['scenario']:<16} {row['baselineCalls']:>14}  {row['productsCalls']:>13}  "
            f"{row['extraDataZoneCalls']:>12} ({row['extraDataZonePerProduct']:>5})         {extra}"
        )
        lines.append(
            f"{'':<16} product changes: {row['productChanges']}; wall s (baseline, products): "
            f"{row['wallSeconds']}"
        )
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--products", type=int, default=10)
    parser.add_argument("--quotas", choices=("on", "off"), default="off", help="AWS's request-rate quotas")
    parser.add_argument("--out", type=Path, help="write the figures as JSON here")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    bench = ProductsBench(args)
    try:
        measured = bench.run()
    finally:
        bench.close()
    rows = summary(measured, args.products)
    print(render(rows))
    print(f"SSM parameters under assets/ after the first sync: {bench.footprint}")
    if args.out:
        args.out.write_text(
            json.dumps(
                {"summary": rows, "ssmParameters": bench.footprint, "runs": [m.as_dict() for m in measured]},
                indent=2,
            ),
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
