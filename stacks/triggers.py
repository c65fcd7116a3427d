"""EventBridge: what invokes the functions (schedules, Glue Schema Registry changes, asset changes, drift,
DataZone's subscription grants).

The event patterns are plain data built here, so the tests can run them through an event-pattern engine
(moto's) against CloudTrail fixtures, exactly as the stack deploys them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# lineage-emission's drift announcement: the names the function itself puts, not restated here.
from kafka_lineage.model.events import (
    CLOUDTRAIL_DETAIL_TYPE,
    DRIFT_DETAIL_TYPE,
    DRIFT_SOURCE,
    GLUE_EVENT_NAMES,
    GLUE_EVENT_SOURCE,
    GLUE_SOURCE,
    GRANT_REQUESTED,
    REVOKE_REQUESTED,
    TopicAssetChanged,
)


def glue_registry_change_pattern(registry_names: Sequence[str]) -> dict[str, Any]:
    """Matches successful Glue Schema Registry changes in the given registries, as CloudTrail reports them.

    A call names its registry in different places: by name or ARN in the request (`schemaId`, or
    `registryId` for CreateSchema and DeleteRegistry) and, for some calls, in the response. No single field
    is present in all six: RegisterSchemaVersion's response has no registry name at all, so a pattern on
    `responseElements.registryName` never matches a version bump. Hence an `$or` over every place.
    Registry names cannot contain `/` or `*`, so `schema/<registry>/*` and `registry/<registry>` are exact.
    """
    names = sorted(set(registry_names))
    if not names:
        raise ValueError("at least one registry name is required")
    schema_arns = [{"wildcard": f"arn:aws*:glue:*:*:schema/{name}/*"} for name in names]
    registry_arns = [{"wildcard": f"arn:aws*:glue:*:*:registry/{name}"} for name in names]
    return {
        "source": [GLUE_SOURCE],
        "detail-type": [CLOUDTRAIL_DETAIL_TYPE],
        "detail": {
            "eventSource": [GLUE_EVENT_SOURCE],
            "eventName": list(GLUE_EVENT_NAMES),
            # A failed call (AccessDenied, validation) changed nothing.
            "errorCode": [{"exists": False}],
            "$or": [
                {"requestParameters": {"schemaId": {"registryName": names}}},
                {"requestParameters": {"schemaId": {"schemaArn": schema_arns}}},
                {"requestParameters": {"registryId": {"registryName": names}}},
                {"requestParameters": {"registryId": {"registryArn": registry_arns}}},
                # CreateSchema without registryId lands in "default-registry": only its response says so.
                {"responseElements": {"registryName": names}},
                {"responseElements": {"schemaArn": schema_arns}},
            ],
        },
    }


def asset_changed_pattern() -> dict[str, Any]:
    """schema-sync's "Topic Asset Changed" events (docs/lineage.md)."""
    return TopicAssetChanged.pattern()


def drift_detected_pattern() -> dict[str, Any]:
    """lineage-emission's "Schema Drift Detected" events, routed to schema-sync, which shows the recorded
    drift on the topic's asset (a targeted sync of that topic). The loop ends after one turn: see
    kafka_lineage.sync.requests._from_drift."""
    return {"source": [DRIFT_SOURCE], "detail-type": [DRIFT_DETAIL_TYPE]}


DATAZONE_SOURCE = "aws.datazone"


def subscription_grant_pattern(domain_id: str) -> dict[str, Any]:
    """DataZone's "Subscription Grant Requested" and "… Revoke Requested" events of one domain, for
    subscription-grants (contract §8).

    Not filtered on `detail.data.asset.typeName`: no sample of a data product's grant event exists, and the
    reading the stand-ins default to (local/standins/readings.py `data_product_event_type_name`) is that its
    typeName is the product's, not the topic's asset type, so a filter on the asset type would drop grants of
    data products holding topics, leaving them to the hourly reconciling run. The function reads each grant's
    listing and ignores (and reports) any asset of another type, so the cost of the wider rule is a few
    DataZone reads per grant event of the domain.
    """
    return {
        "source": [DATAZONE_SOURCE],
        "detail-type": [GRANT_REQUESTED, REVOKE_REQUESTED],
        "detail": {"metadata": {"domain": [domain_id]}},
    }
