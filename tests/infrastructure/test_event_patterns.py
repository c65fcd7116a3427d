"""The stack's event patterns, run through an event-pattern engine: moto's EventBridge delivering to SQS.

moto's TestEventPattern API answers nothing useful, but a rule on a moto event bus with an SQS target runs
its matcher end to end. The CloudTrail fixtures in tests/events are shaped as AWS documents them (see
tests/events/README.md); test_stack_*.py checks that the deployed rules carry exactly these patterns.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from stacks.triggers import (
    GLUE_EVENT_NAMES,
    asset_changed_pattern,
    glue_registry_change_pattern,
    subscription_grant_pattern,
)
from tests.infrastructure.stack_synth import glue_fixtures, load_event

REGION = "eu-west-1"
# The fixtures' registries: "cdc" and "cdc.prod-$1".
SUCCESSFUL = [name for name in glue_fixtures() if "access_denied" not in name]
IN_CDC = {
    "glue_create_schema.json",
    "glue_update_schema.json",
    "glue_register_schema_version.json",
    # a source account's event, forwarded to this bus: the same rule delivers it (the account is not matched)
    "glue_register_schema_version_source_account.json",
}


class Bus:
    """A moto default event bus whose rule delivers matches to an SQS queue."""

    def __init__(self) -> None:
        self.events = boto3.client("events", region_name=REGION)
        self.sqs = boto3.client("sqs", region_name=REGION)
        self.queue_url = self.sqs.create_queue(QueueName="matched")["QueueUrl"]
        self.queue_arn = self.sqs.get_queue_attributes(QueueUrl=self.queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        self._rules = 0

    def rule(self, pattern: dict[str, Any]) -> None:
        """Replace the rule: only `pattern` delivers to the queue."""
        if self._rules:
            self.events.remove_targets(Rule="under-test", Ids=["queue"])
            self.events.delete_rule(Name="under-test")
        self.events.put_rule(Name="under-test", EventPattern=json.dumps(pattern))
        self.events.put_targets(Rule="under-test", Targets=[{"Id": "queue", "Arn": self.queue_arn}])
        self._rules += 1

    def delivered(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        """Put `event` on the bus; return what reached the queue."""
        response = self.events.put_events(
            Entries=[
                {
                    "Source": event["source"],
                    "DetailType": event["detail-type"],
                    "Detail": json.dumps(event["detail"]),
                    "Resources": event.get("resources", []),
                }
            ]
        )
        assert response["FailedEntryCount"] == 0
        messages = self.sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10).get(
            "Messages", []
        )
        for message in messages:
            self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
        return [json.loads(message["Body"]) for message in messages]

    def matches(self, event: dict[str, Any]) -> bool:
        delivered = self.delivered(event)
        assert len(delivered) <= 1
        if delivered:
            # What reaches the target is the event itself, detail intact
            assert delivered[0]["detail"] == event["detail"]
        return bool(delivered)


@pytest.fixture
def bus() -> Iterator[Bus]:
    with mock_aws():
        yield Bus()


def test_fixtures_cover_every_glue_call_schema_sync_handles():
    names = {load_event(name)["detail"]["eventName"] for name in SUCCESSFUL}
    assert names == set(GLUE_EVENT_NAMES)


@pytest.mark.parametrize("fixture", SUCCESSFUL)
def test_every_successful_registry_change_in_a_configured_registry_reaches_schema_sync(
    bus: Bus, fixture: str
):
    # Given the rule for both configured registries
    bus.rule(glue_registry_change_pattern(["cdc", "cdc.prod-$1"]))
    # When CloudTrail reports the call / Then the rule delivers it
    assert bus.matches(load_event(fixture))


@pytest.mark.parametrize("fixture", SUCCESSFUL)
def test_changes_in_other_registries_are_not_delivered(bus: Bus, fixture: str):
    # Given only "cdc" is configured: "cdc.prod-$1" shares its prefix but is another registry
    bus.rule(glue_registry_change_pattern(["cdc"]))
    assert bus.matches(load_event(fixture)) is (fixture in IN_CDC)


def test_a_failed_call_changed_nothing_and_is_not_delivered(bus: Bus):
    bus.rule(glue_registry_change_pattern(["cdc", "cdc.prod-$1"]))
    denied = load_event("glue_register_schema_version_access_denied.json")
    assert denied["detail"]["errorCode"] == "AccessDenied"
    assert not bus.matches(denied)


@pytest.mark.parametrize(
    "event_name", ["GetSchemaVersion", "CreateTable", "CreateRegistry", "PutSchemaVersionMetadata"]
)
def test_other_glue_calls_are_not_delivered(bus: Bus, event_name: str):
    bus.rule(glue_registry_change_pattern(["cdc"]))
    event = copy.deepcopy(load_event("glue_register_schema_version.json"))
    event["detail"]["eventName"] = event_name
    assert not bus.matches(event)


def test_create_schema_without_registry_id_is_matched_for_the_default_registry(bus: Bus):
    # Given CreateSchema without RegistryId: Glue uses "default-registry", which only the response names
    event = copy.deepcopy(load_event("glue_create_schema.json"))
    del event["detail"]["requestParameters"]["registryId"]
    event["detail"]["responseElements"]["registryName"] = "default-registry"
    arn = event["detail"]["responseElements"]["schemaArn"]
    event["detail"]["responseElements"]["schemaArn"] = arn.replace("schema/cdc/", "schema/default-registry/")
    bus.rule(glue_registry_change_pattern(["default-registry"]))
    assert bus.matches(event)
    bus.rule(glue_registry_change_pattern(["cdc"]))
    assert not bus.matches(event)


def test_registry_named_by_arn_in_the_request_is_matched(bus: Bus):
    # Given DeleteRegistry with registryId.registryArn instead of the name (and no response to help)
    event = copy.deepcopy(load_event("glue_delete_registry.json"))
    event["detail"]["requestParameters"]["registryId"] = {
        "registryArn": "arn:aws:glue:eu-west-1:111122223333:registry/cdc.prod-$1"
    }
    event["detail"]["responseElements"] = None
    bus.rule(glue_registry_change_pattern(["cdc.prod-$1"]))
    assert bus.matches(event)
    bus.rule(glue_registry_change_pattern(["cdc.prod-$"]))
    assert not bus.matches(event)


def test_a_filter_on_response_registry_name_misses_register_schema_version(bus: Bus):
    # Given the pattern a widely used construct deploys: registry name read from the response
    naive = {
        "source": ["aws.glue"],
        "detail": {
            "eventSource": ["glue.amazonaws.com"],
            "eventName": ["RegisterSchemaVersion"],
            "responseElements": {"registryName": ["cdc"]},
        },
    }
    version_bump = load_event("glue_register_schema_version.json")
    assert "registryName" not in version_bump["detail"]["responseElements"]
    # When a new schema version is registered in "cdc" / Then that rule never fires
    bus.rule(naive)
    assert not bus.matches(version_bump)
    # While the stack's pattern does
    bus.rule(glue_registry_change_pattern(["cdc"]))
    assert bus.matches(version_bump)


def test_topic_asset_changed_events_reach_lineage_and_nothing_else_does(bus: Bus):
    bus.rule(asset_changed_pattern())
    changed = {
        "source": "kafka-lineage.schema-sync",
        "detail-type": "Topic Asset Changed",
        "detail": {
            "registryName": "cdc.prod-$1",
            "schemaArn": load_event("glue_delete_schema.json")["detail"]["responseElements"]["schemaArn"],
            "topic": "__debezium-heartbeat.dbserver1",
            "assetId": "a1b2c3d4e5f6g7",
            "schemaVersion": 2,
            "change": "revised",
        },
    }
    assert bus.matches(changed)
    assert not bus.matches({**changed, "source": "someone-else"})
    assert not bus.matches({**changed, "detail-type": "Topic Asset Deleted"})
    assert not bus.matches(load_event("glue_create_schema.json"))


FIXTURE_DOMAIN = "dzd_4p5kx2n9lqv7ab"  # the domain of tests/events/access's grant events


@pytest.mark.parametrize(
    "fixture", ["access/subscription_grant_requested.json", "access/subscription_grant_revoke_requested.json"]
)
def test_the_domains_grant_and_revoke_requests_reach_subscription_grants(bus: Bus, fixture: str):
    # Given the rule for the configured domain
    bus.rule(subscription_grant_pattern(FIXTURE_DOMAIN))
    event = load_event(fixture)
    assert event["detail"]["metadata"]["domain"] == FIXTURE_DOMAIN
    # When DataZone puts the event / Then the rule delivers it, whatever asset type it names (a data product's
    # grant event may name the product's type: the function reads the listing and decides)
    assert bus.matches(event)
    assert bus.matches(_with_type(event, "DataProduct"))


def test_another_domains_grants_and_datazones_other_events_are_not_delivered(bus: Bus):
    bus.rule(subscription_grant_pattern(FIXTURE_DOMAIN))
    requested = load_event("access/subscription_grant_requested.json")
    # Given the same event from another domain / Then it is not delivered
    other = load_event("access/subscription_grant_other_domain.json")
    assert other["detail"]["metadata"]["domain"] != FIXTURE_DOMAIN
    assert not bus.matches(other)
    # Nor DataZone's events that follow the function's own status updates, nor anyone else's source
    for detail_type in (
        "Subscription Grant Completed",
        "Subscription Grant Failed",
        "Subscription Request Created",
    ):
        assert not bus.matches({**requested, "detail-type": detail_type})
    assert not bus.matches({**requested, "source": "aws.datazone.fake"})
    # And a domain id that merely shares a prefix is another domain
    bus.rule(subscription_grant_pattern(FIXTURE_DOMAIN[:-1]))
    assert not bus.matches(requested)


def _with_type(event: dict[str, Any], type_name: str) -> dict[str, Any]:
    changed = copy.deepcopy(event)
    changed["detail"]["data"]["asset"]["typeName"] = type_name
    return changed
