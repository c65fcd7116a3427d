"""`python -m local.standins [--port 0]`: serve the stand-ins in their own process until SIGTERM or Ctrl-C.

The first line on stdout is the endpoint URL; the process is driven through `/_local/...` (see remote.py).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import FrameType

from local.standins import LocalAws


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m local.standins", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--region", default="eu-west-1")
    parser.add_argument("--account", default="123456789012")
    args = parser.parse_args(argv)

    aws = LocalAws(region=args.region, account=args.account, host=args.host, port=args.port).serve()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    sys.stdout.write(aws.endpoint_url + "\n")
    sys.stdout.flush()
    # Whoever reads the URL may stop reading: anything printed later (moto prints) goes to stderr instead,
    # so a full stdout pipe can never block the server.
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    stop.wait()
    aws.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
