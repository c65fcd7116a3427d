"""`python -m bench.standins_server`: the stand-ins in their own process, set up for benchmarks.

The same server as `python -m local.standins` (first stdout line: the endpoint URL; driven with
`local.standins.remote.RemoteAws`), with two differences a benchmark needs:
  - the DataZone domain and project of `local.world` exist from the start and again after every reset (the
    control API has no endpoint to create them; `world.bootstrap_catalog` creates everything else through
    boto3);
  - moto's Glue Schema Registry caps (1,000 schemas and 1,000 schema versions per account and region) are
    raised: AWS's own quota is 10,000 schema versions per account and region, and the 10,000-schema run
    adds 1% new versions on top of that (see docs/performance.md);
  - every service the functions call is warmed before the endpoint is printed (`warm`): moto imports a
    service's models on its first request, and SSM's alone take 3.6 to 5.3 s (its public parameters). A
    bench that did not warm them charged that to the first scenario that calls SSM (the first sync's lease
    check), which AWS never makes anyone wait.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from types import FrameType
from typing import Any

SCHEMA_VERSION_CAP = 1_000_000


def raise_glue_caps(cap: int = SCHEMA_VERSION_CAP) -> None:
    from moto.glue import glue_schema_registry_utils as utils

    utils.MAX_SCHEMAS_ALLOWED = cap
    utils.MAX_SCHEMA_VERSIONS_ALLOWED = cap


# One read of each service the functions call (lambdas/kafka_lineage/aws), answered or refused: either way
# moto has loaded the service. DataZone and MSK Connect are the stand-ins' own, loaded with the server.
WARM_CALLS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ("ssm", "describe_parameters", {"MaxResults": 1}),
    ("glue", "list_registries", {}),
    ("kafka", "list_clusters_v2", {}),
    ("events", "list_rules", {}),
    ("cloudwatch", "list_metrics", {}),
    ("firehose", "list_delivery_streams", {}),
    ("iam", "list_roles", {"MaxItems": 1}),
    ("sts", "get_caller_identity", {}),
    ("lambda", "list_functions", {}),
)


def warm(endpoint_url: str, region: str) -> None:
    """Make moto load every service the functions call, before anything is measured."""
    import boto3
    from botocore.exceptions import BotoCoreError, ClientError

    session = boto3.Session(aws_access_key_id="warm", aws_secret_access_key="warm", region_name=region)
    for service, operation, params in WARM_CALLS:
        client = session.client(service, endpoint_url=endpoint_url)
        with contextlib.suppress(ClientError, BotoCoreError):
            getattr(client, operation)(**params)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.standins_server", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)

    from local import world
    from local.standins import LocalAws

    raise_glue_caps()
    aws = LocalAws(region=world.REGION, account=world.ACCOUNT, host=args.host, port=args.port)
    standins = aws.standins
    plain_reset = standins.reset

    def add_domain() -> None:
        if standins.datazone is None:
            raise RuntimeError("the DataZone stand-in is missing")
        standins.datazone.add_domain(world.DOMAIN_ID, project_ids=[world.PROJECT_ID])

    def reset() -> None:
        plain_reset()
        add_domain()

    standins.reset = reset  # type: ignore[method-assign]
    add_domain()
    aws.serve()
    warm(aws.endpoint_url, world.REGION)
    aws.calls.clear()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    sys.stdout.write(aws.endpoint_url + "\n")
    sys.stdout.flush()
    stop.wait()
    aws.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
