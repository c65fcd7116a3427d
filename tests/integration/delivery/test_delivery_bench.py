"""The delivery bench's harness (bench/delivery.py) on a small seed: what it counts is what the stand-ins
received, and an unchanged run adds one listing of each kind."""

from __future__ import annotations

from bench import delivery
from local.standins import LocalAws


def test_the_bench_counts_one_listing_each_on_an_unchanged_run(local_aws: LocalAws) -> None:
    delivery.seed(local_aws, topics=5, clusters=1, streams=2)

    first, unchanged, day_later = delivery.measure(local_aws, clusters=1, refresh_seconds=86_400.0)

    assert first[1]["kafka:DescribeChannel"] == 5
    assert first[1]["firehose:DescribeDeliveryStream"] == 2
    assert dict(unchanged[1]) == {"kafka:ListChannels": 1, "firehose:ListDeliveryStreams": 1}
    assert unchanged[3] == 7  # every path still read
    assert day_later[1]["kafka:DescribeChannel"] == 5
    lines = delivery.report(5, 1, 2, [first, unchanged, day_later], [])
    assert any(line.startswith("unchanged run   adapter") for line in lines)
