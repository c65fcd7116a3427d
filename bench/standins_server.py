"""`python -m bench.standins_server`: the stand-ins in their own process, set up for benchmarks.

The same server as `python -m local.standins` (first stdout line: the endpoint URL; driven with
`local.standins.remote.RemoteAws`), with two differences a benchmark needs:
  - the DataZone domain and project of `local.world` exist from the start and again after every reset (the
    control API has no endpoint to create them; `world.bootstrap_catalog` creates everything else through
    boto3);
  - moto's Glue Schema Registry caps (1,000 schemas and 1,000 schema versions per account and region) are
    raised: AWS's own quota is 10,000 schema versions per account and region, and the 10,000-schema run
    adds 1% new versions on top of that (see docs/performance.md).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

SCHEMA_VERSION_CAP = 1_000_000


def raise_glue_caps(cap: int = SCHEMA_VERSION_CAP) -> None:
    from moto.glue import glue_schema_registry_utils as utils

    utils.MAX_SCHEMAS_ALLOWED = cap
    utils.MAX_SCHEMA_VERSIONS_ALLOWED = cap


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
