"""`python -m bench.delivery`: what reading the managed delivery paths adds to a lineage run, in AWS calls.

Seeds the stand-ins (in this process) with source clusters, MSK Data Delivery channels (one per topic, the
worst case: every topic delivered by a channel of its own) and Firehose streams with an MSK source, then
reads them with the adapter (`kafka_lineage.aws.delivery.DeliveryPaths`) three times: a first (cold) run, an
unchanged run, and the run a day later that refreshes the kept descriptions. Beside it, the baseline: the
same reads with nothing kept (`refresh_seconds=0`), that is describing every path on every run, as a reader
without a cache would. Calls are counted where the stand-ins receive them.

    python -m bench.delivery --topics 1000 --clusters 2 --streams 50
"""

from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

ACCOUNT = "123456789012"
REGION = "eu-west-1"
ROLE = f"arn:aws:iam::{ACCOUNT}:role/delivery"


def cluster_arn(index: int) -> str:
    return f"arn:aws:kafka:{REGION}:{ACCOUNT}:cluster/bench-{index}/{index:08d}-abcd"


def seed(aws: Any, topics: int, clusters: int, streams: int) -> None:
    for index in range(clusters):
        aws.kafka.set_brokers(
            cluster_arn(index), sasl_iam=f"b-1.bench-{index}.kafka.{REGION}.amazonaws.com:9098"
        )
    for number in range(topics):
        cluster = cluster_arn(number % clusters)
        head, _, path = cluster.partition(":cluster/")
        topic = f"bench.topic.{number:05d}"
        aws.channels.create(
            cluster,
            f"ch-{number:05d}",
            {
                "TopicConfigurationList": [
                    {
                        "TopicArn": f"{head}:topic/{path}/{topic}",
                        "RecordConverter": {"ValueConverter": "JSON_SCHEMA_GSR"},
                        "RecordSchema": {"GsrArn": f"arn:aws:glue:{REGION}:{ACCOUNT}:schema/bench/{topic}"},
                    }
                ],
                "IcebergDestinationConfiguration": {
                    "ServiceExecutionRoleArn": ROLE,
                    "AppendOnly": True,
                    "Catalog": {"WarehouseLocation": f"arn:aws:s3tables:{REGION}:{ACCOUNT}:bucket/lake"},
                    "DestinationTableList": [
                        {"DestinationDatabaseName": "bench", "DestinationTableName": f"t{number:05d}"}
                    ],
                    "DeadLetterQueueS3": {"BucketArn": "arn:aws:s3:::dlq"},
                    "SchemaEvolution": {"EnableSchemaEvolution": False},
                    "TableCreation": {"EnableTableCreation": False},
                },
            },
        )
    firehose = aws.client("firehose")
    for number in range(streams):
        firehose.create_delivery_stream(
            DeliveryStreamName=f"fh-{number:05d}",
            DeliveryStreamType="MSKAsSource",
            MSKSourceConfiguration={
                "MSKClusterARN": cluster_arn(number % clusters),
                "TopicName": f"bench.topic.{number:05d}",
                "AuthenticationConfiguration": {"RoleARN": ROLE, "Connectivity": "PRIVATE"},
            },
            ExtendedS3DestinationConfiguration={
                "RoleARN": ROLE,
                "BucketARN": "arn:aws:s3:::raw",
                "Prefix": "x/",
            },
        )


def measure(aws: Any, clusters: int, refresh_seconds: float) -> list[tuple[str, Counter[str], float, int]]:
    from kafka_lineage.aws.delivery import DeliveryPaths
    from kafka_lineage.aws.pacing import RateLimiter
    from kafka_lineage.config import Source

    sources = [
        Source.model_validate({"registryName": f"bench{i}", "clusterArn": cluster_arn(i)})
        for i in range(clusters)
    ]
    now = [1_000.0]
    reader = DeliveryPaths(
        aws.client("kafka"),
        aws.client("firehose"),
        limiter=RateLimiter(1_000_000.0),  # count calls, do not pace them (the stand-ins answer at once)
        refresh_seconds=refresh_seconds,
        clock=lambda: now[0],
    )
    runs = []
    for label, advance in (("first run", 0.0), ("unchanged run", 60.0), ("a day later", 86_400.0)):
        now[0] += advance
        aws.calls.clear()
        started = time.perf_counter()
        reads = reader.read(sources)
        runs.append((label, Counter(aws.call_counts()), time.perf_counter() - started, len(reads.paths)))
    return runs


def report(topics: int, clusters: int, streams: int, ours: list[Any], baseline: list[Any]) -> list[str]:
    lines = [
        f"Managed delivery paths: {topics} channels (one per topic) on {clusters} cluster(s), {streams} "
        "MSK-sourced delivery streams",
        "",
        f"{'run':<15} {'design':<9} {'ListChannels':>13} {'DescribeChannel':>16} {'ListStreams':>12} "
        f"{'DescribeStream':>15} {'total':>7} {'paths':>6} {'wall s':>7}",
    ]
    for name, runs in (("adapter", ours), ("baseline", baseline)):
        for label, counts, wall, paths in runs:
            row = [
                counts["kafka:ListChannels"],
                counts["kafka:DescribeChannel"],
                counts["firehose:ListDeliveryStreams"],
                counts["firehose:DescribeDeliveryStream"],
            ]
            lines.append(
                f"{label:<15} {name:<9} {row[0]:>13} {row[1]:>16} {row[2]:>12} {row[3]:>15} {sum(row):>7} "
                f"{paths:>6} {wall:>7.2f}"
            )
    pages = clusters * math.ceil(max(topics / clusters, 1) / 100)
    lines += [
        "",
        "At 10,000 topics, per unchanged run: one ListChannels per cluster and per 100 channels on it (its",
        f"page size) and one ListDeliveryStreams per 10,000 streams; here {pages} ListChannels pages.",
    ]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.delivery", description=__doc__)
    parser.add_argument("--topics", type=int, default=1000)
    parser.add_argument("--clusters", type=int, default=2)
    parser.add_argument("--streams", type=int, default=50)
    parser.add_argument("--no-baseline", action="store_true", help="measure the adapter only")
    args = parser.parse_args(argv)

    from local.standins import LocalAws

    with LocalAws() as aws:
        seed(aws, args.topics, args.clusters, args.streams)
        ours = measure(aws, args.clusters, refresh_seconds=86_400.0)
        baseline = [] if args.no_baseline else measure(aws, args.clusters, refresh_seconds=0.0)
    print("\n".join(report(args.topics, args.clusters, args.streams, ours, baseline)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
