"""lineage-emission's "Schema Drift Detected" event -> a targeted sync of the topic it names."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kafka_lineage.model.events import DRIFT_DETAIL_TYPE, DRIFT_SOURCE
from kafka_lineage.model.requests import InvalidRequest
from kafka_lineage.sync.requests import SchemaRef, parse_sync_event
from tests.fixtures import load_event


def drift_event(**detail: Any) -> dict[str, Any]:
    event = copy.deepcopy(load_event("schema_drift_detected"))
    event["detail"].update(detail)
    return event


def test_the_fixture_is_the_lineage_functions_event() -> None:
    event = load_event("schema_drift_detected")
    assert (event["source"], event["detail-type"]) == (DRIFT_SOURCE, DRIFT_DETAIL_TYPE)


def test_given_a_drift_event_when_parsed_then_that_topic_only() -> None:
    # When the fixture is parsed
    request = parse_sync_event(load_event("schema_drift_detected"))
    # Then the sync targets that one topic, triggered by drift, and deletes nothing on its word
    assert request.scope == "schemas"
    assert request.schemas == (SchemaRef("cdc", "dbserver1.inventory.customers"),)
    assert request.trigger == "drift"
    # and it expects lineage's summary of that version (saved right after the event was put)
    assert request.expected_drift == ((SchemaRef("cdc", "dbserver1.inventory.customers"), 2),)
    assert request.confirmed_deleted_schemas == frozenset()
    assert not request.dry_run
    assert not request.verify


def test_given_weird_names_when_parsed_then_they_are_kept() -> None:
    name = "__debezium-heartbeat.dbserver1#$" + "x" * 223
    event = drift_event(
        registryName="cdc.prod-$1",
        topic=name,
        schemaArn=f"arn:aws:glue:eu-west-1:111122223333:schema/cdc.prod-$1/{name}",
    )
    assert parse_sync_event(event).schemas == (SchemaRef("cdc.prod-$1", name),)


def test_given_no_schema_arn_when_parsed_then_the_names_suffice() -> None:
    event = drift_event()
    del event["detail"]["schemaArn"]
    assert parse_sync_event(event).schemas == (SchemaRef("cdc", "dbserver1.inventory.customers"),)


@pytest.mark.parametrize(
    ("detail", "message"),
    [
        ({"topic": None}, "detail: topic"),
        ({"registryName": "bad/name"}, "registryName"),
        ({"topic": "x" * 256}, "topic"),
        ({"schemaArn": "arn:aws:glue:eu-west-1:111122223333:schema/cdc/other"}, "does not name"),
        ({"schemaArn": "not-an-arn"}, "does not name"),
    ],
)
def test_given_a_malformed_drift_detail_when_parsed_then_rejected_by_name(
    detail: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidRequest, match=message):
        parse_sync_event(drift_event(**detail))


def test_given_the_drift_detail_type_from_another_source_when_parsed_then_rejected() -> None:
    event = drift_event()
    event["source"] = "someone.else"
    with pytest.raises(InvalidRequest, match="unexpected EventBridge event"):
        parse_sync_event(event)


def test_given_a_drift_event_with_resume_when_parsed_then_it_resumes() -> None:
    event = {**load_event("schema_drift_detected"), "resumeAfter": {"group": "0a", "key": "k"}}
    assert parse_sync_event(event).resume_after == ("0a", "k")
