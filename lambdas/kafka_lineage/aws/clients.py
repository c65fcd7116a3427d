"""boto3 clients with the retry policy every adapter shares, instrumented by the call layer
(kafka_lineage.aws.calls: counted, paced, typed errors)."""

from __future__ import annotations

from functools import cache
from typing import Any

import boto3
from botocore.config import Config

from kafka_lineage.aws.calls import instrument

# Standard retry: botocore backs off on 5xx and connection failures; throttling is the call layer's to
# pace and retry, per operation (aws/pacing.py says why not botocore's `adaptive` mode).
RETRY_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 8},
    connect_timeout=5,
    read_timeout=30,
    max_pool_connections=32,
)


@cache
def client(service: str) -> Any:
    """One shared client per service (boto3 clients are thread-safe; sessions are not)."""
    return instrument(boto3.session.Session().client(service, config=RETRY_CONFIG))


def reset_clients() -> None:
    """Forget cached clients (tests point them at new endpoints)."""
    client.cache_clear()
