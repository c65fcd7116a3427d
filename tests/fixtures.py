"""Shared test helpers: event fixtures (tests/events/*.json) and sample settings."""

from __future__ import annotations

import json
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
