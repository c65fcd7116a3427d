"""Invocation events -> SyncRequest (README: Invocation), on CloudTrail fixtures shaped as AWS documents."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kafka_lineage.model.requests import InvalidRequest
from kafka_lineage.sync.requests import SchemaRef, parse_sync_event, with_resume
from tests.fixtures import load_event

SCHEDULED = {
    "version": "0",
    "id": "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
    "detail-type": "Scheduled Event",
    "source": "aws.events",
    "account": "123456789012",
    "time": "2026-11-29T12:00:00Z",
    "region": "eu-west-1",
    "resources": ["arn:aws:events:eu-west-1:123456789012:rule/hourly"],
    "detail": {},
}


@pytest.mark.parametrize("event", [{}, SCHEDULED])
def test_given_a_schedule_or_empty_payload_when_parsed_then_a_full_sync(event: dict[str, object]) -> None:
    request = parse_sync_event(event)

    assert request.scope == "full"
    assert not request.dry_run
    assert not request.verify


def test_given_flags_when_parsed_then_they_are_set() -> None:
    request = parse_sync_event({"verify": True, "dryRun": True, "allowMassDelete": True})

    assert (request.verify, request.dry_run, request.allow_mass_delete) == (True, True, True)


def test_given_schema_arns_with_weird_names_when_parsed_then_targeted() -> None:
    arn = "arn:aws:glue:eu-west-1:123456789012:schema/cdc.prod-$1/__debezium-heartbeat.dbserver1"

    request = parse_sync_event({"schemaArns": [arn, arn]})

    assert request.scope == "schemas"
    assert request.schemas == (SchemaRef("cdc.prod-$1", "__debezium-heartbeat.dbserver1"),)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ({"schemaArn": "x"}, "schemaArn"),
        ({"schemaArns": ["arn:aws:glue:eu-west-1:123456789012:registry/cdc"]}, "not a Glue schema ARN"),
        ({"schemaArns": []}, "schemaArns"),
        ({"dryRun": "yes please"}, "dryRun"),
        ([], "JSON object"),
        ({**SCHEDULED, "source": "aws.s3", "detail-type": "Object Created"}, "unexpected EventBridge event"),
        (
            {"source": "aws.glue", "detail-type": "AWS API Call via CloudTrail"},
            "malformed EventBridge event: version",
        ),
    ],
)
def test_given_an_unexpected_shape_when_parsed_then_rejected_naming_it(event: object, message: str) -> None:
    with pytest.raises(InvalidRequest, match=message):
        parse_sync_event(event)


def test_given_register_schema_version_when_parsed_then_that_schema_only() -> None:
    request = parse_sync_event(load_event("glue_register_schema_version"))

    assert request.scope == "schemas"
    assert request.schemas == (SchemaRef("cdc", "dbserver1.inventory.customers"),)
    assert not request.confirmed_deleted_schemas


def test_given_register_schema_version_by_arn_when_parsed_then_names_come_from_the_arn() -> None:
    request = parse_sync_event(load_event("glue_register_schema_version_by_arn"))

    assert request.schemas[0].registry_name == "cdc.prod-$1"


def test_given_create_schema_with_weird_names_when_parsed_then_registry_id_names_the_registry() -> None:
    request = parse_sync_event(load_event("glue_create_schema_weird_names"))

    assert request.schemas == (SchemaRef("cdc.prod-$1", "__debezium-heartbeat.dbserver1"),)


def test_given_delete_schema_when_parsed_then_the_deletion_is_confirmed() -> None:
    request = parse_sync_event(load_event("glue_delete_schema"))

    assert request.scope == "schemas"
    assert request.confirmed_deleted_schemas == frozenset(request.schemas)


def test_given_delete_registry_when_parsed_then_the_registry_deletion_is_confirmed() -> None:
    request = parse_sync_event(load_event("glue_delete_registry"))

    assert request.scope == "registries"
    assert request.confirmed_deleted_registries == frozenset({"cdc.prod-$1"})


def test_given_a_failed_call_when_parsed_then_nothing_is_confirmed_but_the_schema_is_synced() -> None:
    request = parse_sync_event(load_event("glue_register_schema_version_access_denied"))

    assert request.scope == "schemas"
    assert not request.confirmed_deleted_schemas


def test_given_delete_schema_versions_when_parsed_then_the_schema_is_re_read() -> None:
    request = parse_sync_event(load_event("glue_delete_schema_versions"))

    assert request.schemas[0].schema_name == "orders#v2_legacy"


def test_given_an_event_that_names_no_schema_when_parsed_then_its_registry_is_synced() -> None:
    event = load_event("glue_update_schema")
    event["detail"]["requestParameters"]["schemaId"] = {"registryName": "cdc"}

    request = parse_sync_event(event)

    assert request.scope == "registries"
    assert request.registries == ("cdc",)


def test_given_an_unknown_glue_event_name_when_parsed_then_rejected() -> None:
    event = load_event("glue_update_schema")
    event["detail"]["eventName"] = "GetSchema"

    with pytest.raises(InvalidRequest, match="eventName"):
        parse_sync_event(event)


@pytest.mark.parametrize("fixture", ["glue_update_schema", None])
def test_given_a_follow_up_event_when_parsed_then_it_is_the_same_request_resuming_after_its_position(
    fixture: str | None,
) -> None:
    event = load_event(fixture) if fixture else {"verify": True}
    original = parse_sync_event(event)

    request = parse_sync_event(with_resume(event, "7f", "arn:aws:glue:eu-west-1:123456789012:schema/cdc/a"))

    assert request.resume_after == ("7f", "arn:aws:glue:eu-west-1:123456789012:schema/cdc/a")
    assert request == replace(original, resume_after=request.resume_after)


def test_given_a_malformed_resume_point_when_parsed_then_rejected() -> None:
    with pytest.raises(InvalidRequest, match="resumeAfter"):
        parse_sync_event({"resumeAfter": {"group": "not hex", "key": "k"}})
