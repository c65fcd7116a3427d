"""Test-wide environment: no X-Ray, a fixed region, fake credentials (never a real account)."""

from __future__ import annotations

import os

os.environ.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
os.environ.setdefault("POWERTOOLS_METRICS_NAMESPACE", "KafkaLineageTests")
os.environ.setdefault("AWS_DEFAULT_REGION", "eu-west-1")
os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
os.environ.pop("AWS_PROFILE", None)

# Every botocore session of the test process shares one data loader (it caches the service models and
# endpoints.json it parses, but per session; tests make hundreds of sessions: the handlers' clients are
# rebuilt for each test's endpoint and role). The functions' own sessions already share one
# (kafka_lineage.aws.clients.new_session); this covers the stand-ins', moto's and the tests' own.
import functools

import botocore.session

botocore.session.create_loader = functools.cache(botocore.session.create_loader)
