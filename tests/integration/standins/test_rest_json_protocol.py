"""The rest-json path (DataZone, Kafka): what a stand-in receives and how its answer reaches boto3."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from local.standins import LocalAws
from tests.integration.standins.conftest import FakeDataZone

DOMAIN = "dzd_abc123"
EVENT_TIME = datetime(2024, 5, 1, 12, 30, 15, tzinfo=UTC)


def test_uri_header_and_blob_payload_members_are_merged_into_params(
    local_aws: LocalAws, fake_datazone: FakeDataZone
) -> None:
    # Given a stand-in that answers PostLineageEvent
    fake_datazone.answers["PostLineageEvent"] = {"id": "abcdefghij0123", "domainId": DOMAIN}
    event = b'{"eventType": "START", "note": "bytes as sent \xc3\xa9"}'

    # When boto3 posts an event with a client token
    answer = boto3.client("datazone").post_lineage_event(
        domainIdentifier=DOMAIN, event=event, clientToken="tok-1"
    )

    # Then the stand-in got the URI label, the header member and the raw payload bytes under member names
    operation, params = fake_datazone.received[-1]
    assert operation == "PostLineageEvent"
    assert params == {"domainIdentifier": DOMAIN, "clientToken": "tok-1", "event": event}
    assert answer["id"] == "abcdefghij0123"


def test_query_members_arrive_typed(local_aws: LocalAws, fake_datazone: FakeDataZone) -> None:
    fake_datazone.answers["ListLineageEvents"] = {"items": []}

    boto3.client("datazone").list_lineage_events(
        domainIdentifier=DOMAIN, maxResults=7, timestampAfter=EVENT_TIME, sortOrder="DESCENDING"
    )

    operation, params = fake_datazone.received[-1]
    assert operation == "ListLineageEvents"  # same URI as PostLineageEvent, told apart by method
    assert params == {
        "domainIdentifier": DOMAIN,
        "maxResults": 7,
        "timestampAfter": EVENT_TIME,
        "sortOrder": "DESCENDING",
    }


def test_streaming_payload_and_header_members_reach_boto3(
    local_aws: LocalAws, fake_datazone: FakeDataZone
) -> None:
    # Given a stand-in answering GetLineageEvent with the event as bytes and its metadata as header members
    event = b'{"eventType": "COMPLETE"}'
    fake_datazone.answers["GetLineageEvent"] = {
        "domainId": DOMAIN,
        "id": "abcdefghij0123",
        "event": event,
        "createdBy": "someone",
        "processingStatus": "SUCCESS",
        "eventTime": EVENT_TIME,
        "createdAt": EVENT_TIME,
    }

    # When boto3 reads it
    answer = boto3.client("datazone").get_lineage_event(domainIdentifier=DOMAIN, identifier="abcdefghij0123")

    # Then the payload is a stream of exactly those bytes and the headers are parsed back into members
    assert answer["event"].read() == event
    assert answer["processingStatus"] == "SUCCESS"
    assert answer["eventTime"] == EVENT_TIME
    assert answer["createdBy"] == "someone"
    assert answer["id"] == "abcdefghij0123"


def test_operation_status_codes_come_from_the_model(local_aws: LocalAws, fake_datazone: FakeDataZone) -> None:
    fake_datazone.answers["CreateAsset"] = {
        "id": "asset1",
        "name": "orders",
        "typeIdentifier": "KafkaTopicAssetType",
        "typeRevision": "1",
        "owningProjectId": "p1",
        "domainId": DOMAIN,
        "formsOutput": [],
        "createdAt": EVENT_TIME,
    }
    datazone = boto3.client("datazone")

    created = datazone.create_asset(
        domainIdentifier=DOMAIN,
        name="orders",
        typeIdentifier="KafkaTopicAssetType",
        owningProjectIdentifier="p1",
        formsInput=[{"formName": "F", "content": '{"a": 1}'}],
    )
    deleted = datazone.delete_asset(domainIdentifier=DOMAIN, identifier="asset1")

    assert created["ResponseMetadata"]["HTTPStatusCode"] == 201
    assert created["createdAt"] == EVENT_TIME
    assert deleted["ResponseMetadata"]["HTTPStatusCode"] == 204
    create_params = fake_datazone.received[0][1]
    assert create_params["formsInput"] == [{"formName": "F", "content": '{"a": 1}'}]
    assert create_params["clientToken"]  # botocore fills the idempotency token


def test_a_stand_in_answer_with_undeclared_members_fails_loudly(
    local_aws: LocalAws, fake_datazone: FakeDataZone
) -> None:
    fake_datazone.answers["DeleteAsset"] = {"surprise": 1}
    datazone = boto3.client("datazone", config=Config(retries={"mode": "standard", "total_max_attempts": 1}))

    with pytest.raises(ClientError) as excinfo:
        datazone.delete_asset(domainIdentifier=DOMAIN, identifier="asset1")

    assert excinfo.value.response["Error"]["Code"] == "InternalFailure"
    assert "surprise" in excinfo.value.response["Error"]["Message"]


def test_stand_in_errors_keep_their_code_and_status(local_aws: LocalAws, fake_datazone: FakeDataZone) -> None:
    from local.standins.errors import conflict

    def refuse(params: dict[str, Any]) -> dict[str, Any]:
        raise conflict("Conflict with asset asset1")

    fake_datazone.answers["CreateAsset"] = refuse

    with pytest.raises(ClientError) as excinfo:
        boto3.client("datazone").create_asset(
            domainIdentifier=DOMAIN, name="orders", typeIdentifier="T", owningProjectIdentifier="p1"
        )

    error = excinfo.value.response
    assert error["Error"] == {"Code": "ConflictException", "Message": "Conflict with asset asset1"}
    assert error["ResponseMetadata"]["HTTPStatusCode"] == 409
