"""Shared values for the adapter tests: DataZone's answers as botocore's datazone model shapes them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

DOMAIN = "dzd_4p5kx2n9lqv7ab"  # the event fixtures' domain (tests/events/access)
MOTO_ACCOUNT = "123456789012"
LISTING_FORMS = json.dumps(
    {
        "MskSourceReferenceFormType": {
            "cluster_arn": "arn:aws:kafka:eu-west-1:111122223333:cluster/cdc/0f1e-2"
        },
        "KafkaSchemaFormType": {"kafka_topic": "dbserver1.inventory.customers"},
    }
)
WHEN = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def grant_item(grant_id: str, status: str = "GRANT_PENDING") -> dict[str, Any]:
    return {
        "id": grant_id,
        "createdBy": "user",
        "domainId": DOMAIN,
        "createdAt": WHEN,
        "updatedAt": WHEN,
        "environmentId": "env_sales01",
        "subscriptionTargetId": "target01",
        "grantedEntity": {"listing": {"id": "listing0001", "revision": "3"}},
        "status": "PENDING",
        "assets": [{"assetId": "asset0001", "assetRevision": "2", "status": status}],
        "subscriptionId": "sub0001",
    }
