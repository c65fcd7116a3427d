"""Where boto3 in this process points and which credentials it signs with while the stand-ins are active.

Its own module, below the package: iam.py (acting as a role) and the package's LocalAws both have the
clients made anew, and importing it from the package would make a cycle (package -> server -> iam -> package).
"""

from __future__ import annotations

import os

FAKE_KEY = "testing"
# Removed while the stand-ins are active so that nothing reaches real AWS or a developer's profile.
CLEARED = (
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
    "AWS_USE_FIPS_ENDPOINT",
    "AWS_USE_DUALSTACK_ENDPOINT",
)


def aws_environment(endpoint_url: str, region: str) -> dict[str, str]:
    """Environment that points boto3 at the stand-ins (AWS_ENDPOINT_URL), with fake credentials."""
    return {
        "AWS_ENDPOINT_URL": endpoint_url,
        "AWS_ACCESS_KEY_ID": FAKE_KEY,
        "AWS_SECRET_ACCESS_KEY": FAKE_KEY,
        "AWS_DEFAULT_REGION": region,
        "AWS_REGION": region,
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }


def reset_cached_clients() -> None:
    """Clients keep the endpoint and credentials they were made with: have the wirings make new ones."""
    import boto3

    # boto3's default session re-reads endpoint and region from the environment for each new client, but
    # caches credentials: drop it only when those are not the fake ones (keeping it keeps its model cache).
    session = boto3.DEFAULT_SESSION
    credentials = session.get_credentials() if session is not None else None
    if credentials is None or credentials.access_key != FAKE_KEY:
        boto3.DEFAULT_SESSION = None
    try:
        from kafka_lineage.aws.clients import environment_changed
    except ImportError:  # lambdas/ not on sys.path: no wiring's clients to renew
        return
    environment_changed()  # every wiring's clients (kafka_lineage.aws.clients.Clients) are made anew
