#!/usr/bin/env python3
"""CDK entry point (`make synth`, `npx cdk deploy`): see docs/deploy.md.

The repository's own app, a thin user of the package's constructs: the KafkaLineage construct in a stack of
its own, named by the `kafkaLineage` context (cdk.json), and the KafkaLineageSource construct when
`-c kafkaLineageSource=...` asks for the source-account stack (stacks/app.py).
"""

from __future__ import annotations

import os
import sys

# jsii's banner for Node 20 (still the machines' Node) names this variable; the Makefile's older one no
# longer silences it. Set before aws_cdk starts the jsii runtime.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

import aws_cdk as cdk

from kafka_lineage.config import ConfigError
from stacks.app import build_app


def main() -> None:
    app = cdk.App()
    try:
        build_app(app)
    except ConfigError as error:
        # One readable line instead of a traceback: the message names the cdk.json key at fault.
        sys.exit(f"kafka-lineage: {error}")
    app.synth()


if __name__ == "__main__":
    main()
