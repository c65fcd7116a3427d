"""Deleting published assets: DataZone calls and time, before (unpublish, wait until the listing is
withdrawn, then delete) and after (one DeleteAsset, which deletes the listing too), in the same run.

    .venv/bin/python -m bench.deletion [--assets 100] [--listing-change-calls 2] [--latency-ms 0]

Both sides run the catalog adapter (kafka_lineage.aws.catalog.Catalog) against the local DataZone stand-in,
on the same kind of assets (created and published the same way, one asset at a time, as one write worker).
Listing changes are asynchronous (CreateListingChangeSet answers CREATING / ACTIVE): the stand-in keeps an
UNPUBLISH in progress for `--listing-change-calls` further DataZone calls of the domain. The old path's
waits are real pauses (0.25 s, doubling, as the adapter pauses for DataZone), so the wall time shows what a
run pays for them; `--latency-ms` adds a round trip per call, to see a remote endpoint's share.

Printed: calls by operation, total calls, wall seconds, seconds spent in pauses, for each side and their
ratio. Nothing is asserted on time (tests/unit/bench checks the calls).
"""

from __future__ import annotations

import argparse
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "WARNING")
os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")

DOMAIN = "dzd_benchdelete01"
PROJECT = "benchproject01"


@dataclass(frozen=True)
class Side:
    name: str
    calls: Counter[str]
    wall_seconds: float
    paused_seconds: float

    @property
    def total(self) -> int:
        return sum(self.calls.values())


def _seed(datazone: Any, backend: Any, count: int, tag: str) -> list[str]:
    """`count` published assets of a minimal asset type (one managed form), created as sync creates them."""
    from local.standins.datazone.types import COMMON_DETAILS_TYPE

    datazone.create_asset_type(
        domainIdentifier=DOMAIN,
        name=f"BenchType{tag}",
        owningProjectIdentifier=PROJECT,
        formsInput={
            "AssetCommonDetailsForm": {
                "typeIdentifier": COMMON_DETAILS_TYPE,
                "typeRevision": "6",
                "required": True,
            }
        },
    )
    ids = []
    for number in range(count):
        asset = datazone.create_asset(
            domainIdentifier=DOMAIN,
            name=f"topic.{tag}.{number}",
            typeIdentifier=f"BenchType{tag}",
            owningProjectIdentifier=PROJECT,
            externalIdentifier=f"arn:aws:glue:eu-west-1:111122223333:schema/cdc/topic.{tag}.{number}",
            formsInput=[
                {"formName": "AssetCommonDetailsForm", "content": '{"sourceIdentifier":"kafka://b:9098/t"}'}
            ],
        )
        datazone.create_listing_change_set(
            domainIdentifier=DOMAIN, entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH"
        )
        ids.append(asset["id"])
    backend.settle_listings(DOMAIN)
    return ids


def _measure(aws: Any, name: str, ids: list[str], delete: Callable[[Any, str], None], catalog: Any) -> Side:
    aws.calls.clear()
    started = time.perf_counter()
    for asset_id in ids:
        delete(catalog, asset_id)
    wall = time.perf_counter() - started
    calls = Counter(
        {key.split(":", 1)[1]: n for key, n in aws.call_counts().items() if key.startswith("datazone:")}
    )
    return Side(name, calls, wall, catalog.paused)


def _before(catalog: Any, asset_id: str) -> None:
    # What schema-sync did until round 3: withdraw the listing, wait for it, then delete.
    catalog.unpublish(asset_id, f"unpublish-{asset_id}")
    catalog.datazone.delete_asset(domainIdentifier=catalog.domain_id, identifier=asset_id)


def _after(catalog: Any, asset_id: str) -> None:
    deletion = catalog.delete_asset(asset_id, f"unpublish-{asset_id}")
    assert not deletion.held


def run(assets: int = 100, listing_change_calls: int = 2, latency_ms: int = 0) -> tuple[Side, Side]:
    import boto3

    from kafka_lineage.aws.catalog import Catalog
    from local.standins import LocalAws

    class PausingCatalog(Catalog):
        """The adapter, its pauses counted (they are real sleeps)."""

        paused = 0.0

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            def sleep(seconds: float) -> None:
                self.paused += seconds
                time.sleep(seconds)

            super().__init__(*args, sleep=sleep, **kwargs)

    with LocalAws() as aws:
        aws.set_readings(listing_change_calls=listing_change_calls)
        aws.datazone.add_domain(DOMAIN, project_ids=[PROJECT])
        datazone = boto3.client("datazone", region_name="eu-west-1")
        before_ids = _seed(datazone, aws.datazone, assets, "Before")
        after_ids = _seed(datazone, aws.datazone, assets, "After")
        aws.latency_ms = latency_ms
        before = _measure(
            aws,
            "before: unpublish + wait + delete",
            before_ids,
            _before,
            PausingCatalog(datazone, DOMAIN, PROJECT),
        )
        after = _measure(
            aws, "after: one DeleteAsset", after_ids, _after, PausingCatalog(datazone, DOMAIN, PROJECT)
        )
        left = list(aws.datazone.assets(DOMAIN))
        if left or aws.datazone.listings(DOMAIN):
            raise RuntimeError(f"{len(left)} assets left after the deletions")
    return before, after


def report(before: Side, after: Side) -> str:
    operations = sorted(set(before.calls) | set(after.calls))
    rows = [["operation", "before", "after"]]
    rows += [[op, str(before.calls[op]), str(after.calls[op])] for op in operations]
    rows += [
        ["total calls", str(before.total), str(after.total)],
        ["wall seconds", f"{before.wall_seconds:.2f}", f"{after.wall_seconds:.2f}"],
        ["of which paused", f"{before.paused_seconds:.2f}", f"{after.paused_seconds:.2f}"],
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) for row in rows]
    ratio = before.total / after.total if after.total else float("inf")
    speed = before.wall_seconds / after.wall_seconds if after.wall_seconds else float("inf")
    lines.append(f"calls: {ratio:.1f}x fewer; wall time: {speed:.1f}x less")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assets", type=int, default=100)
    parser.add_argument("--listing-change-calls", type=int, default=2)
    parser.add_argument("--latency-ms", type=int, default=0)
    options = parser.parse_args()
    before, after = run(options.assets, options.listing_change_calls, options.latency_ms)
    print(
        f"Deleting {options.assets} published assets "
        f"(listing changes take {options.listing_change_calls} calls)"
    )
    print(report(before, after))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
