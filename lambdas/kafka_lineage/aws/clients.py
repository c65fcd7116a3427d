"""boto3 clients with the retry policy every adapter shares, instrumented by the call layer
(kafka_lineage.aws.calls: counted, paced, typed errors)."""

from __future__ import annotations

from functools import cache
from typing import Any

import boto3
import botocore.session
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.loaders import create_loader

from kafka_lineage.aws.calls import instrument

# Standard retry: botocore backs off on 5xx and connection failures; throttling is the call layer's to
# pace and retry, per operation (aws/pacing.py says why not botocore's `adaptive` mode).
RETRY_CONFIG = Config(
    retries={"mode": "standard", "max_attempts": 8},
    connect_timeout=5,
    read_timeout=30,
    max_pool_connections=32,
)


# One botocore loader for every session of the process. The loader caches the JSON it parses (service
# models, endpoints.json, partitions), but each botocore session makes its own; the functions make a session
# per client and per assumed role, so each client parsed endpoints.json again (measured: a lineage run on the
# stand-ins spent 40% of its time in json.loads of botocore's data). The cache is read-only once filled.
_LOADER = create_loader()


def new_session(credentials: Credentials | None = None) -> boto3.session.Session:
    """A boto3 session sharing the process's loader; `credentials` (e.g. an assumed role's refreshable
    ones) replace the default chain."""
    core = botocore.session.get_session()
    core.register_component("data_loader", _LOADER)
    if credentials is not None:
        core._credentials = credentials  # botocore's documented way has no public setter for refreshable ones
    return boto3.session.Session(botocore_session=core)


@cache
def client(service: str) -> Any:
    """One shared client per service (boto3 clients are thread-safe; sessions are not)."""
    return instrument(new_session().client(service, config=RETRY_CONFIG))


def reset_clients() -> None:
    """Forget cached clients (tests point them at new endpoints)."""
    client.cache_clear()
