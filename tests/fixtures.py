"""Shared test helpers: event fixtures (tests/events/*.json) and sample settings."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

EVENTS = Path(__file__).parent / "events"
REPO = Path(__file__).parent.parent


def load_event(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / f"{name}.json").read_text())
    return data


CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
DOMAIN_ID = "dzd_local1234"
PROJECT_ID = "prj1234local"


def environment(**overrides: str) -> dict[str, str]:
    """A valid schema-sync / lineage environment (README: Configuration) with one `cdc` source."""
    env = {
        "DATAZONE_DOMAIN_ID": DOMAIN_ID,
        "DATAZONE_PROJECT_ID": PROJECT_ID,
        "MAPPING_PATH": "/kafka-lineage",
        "SOURCES": json.dumps(
            [
                {
                    "registryName": "cdc",
                    "clusterArn": CLUSTER_ARN,
                    "tableRule": {
                        "database": "lakehouse",
                        "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$",
                        "table": "{table}",
                    },
                }
            ]
        ),
    }
    env.update(overrides)
    return env


@dataclass
class FakeContext:
    """The Lambda context as Powertools and the handlers read it, with a deadline the test controls."""

    function_name: str = "schema-sync"
    memory_limit_in_mb: int = 512
    aws_request_id: str = "00000000-0000-4000-8000-000000000000"
    remaining_ms: int = 900_000
    invoked_function_arn: str = ""

    def __post_init__(self) -> None:
        # The function's own ARN: follow-up invocations go to it.
        if not self.invoked_function_arn:
            self.invoked_function_arn = f"arn:aws:lambda:eu-west-1:123456789012:function:{self.function_name}"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_ms


class CountdownContext(FakeContext):
    """A Lambda context whose deadline is `seconds` from its creation, counted down in real time."""

    def __init__(self, seconds: float, request_id: str = FakeContext.aws_request_id) -> None:
        super().__init__(aws_request_id=request_id)
        self.deadline = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))
