"""The shared definitions in kafka_lineage.model: one Glue name type, one error rendering, one event, one
table mapping, each used by every side that needs it (emitter and parser, stack and resolver)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from kafka_lineage.aws.bus import TopicEvents
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.lineage.resolve import parse_mappings
from kafka_lineage.model.errors import describe
from kafka_lineage.model.events import GLUE_EVENT_NAMES
from kafka_lineage.model.names import GlueCatalogName, GlueName
from kafka_lineage.model.requests import InvalidRequest
from kafka_lineage.model.table_mapping import MappingParameter, TableMapping
from kafka_lineage.sync.requests import parse_sync_event
from stacks.config import table_mapping_parameter_name
from stacks.triggers import asset_changed_pattern, glue_registry_change_pattern
from tests.unit.fake_clients import FakeClient


class Names(BaseModel):
    name: GlueName
    catalog: GlueCatalogName = "db"


class Listed(BaseModel):
    items: list[Names]


WEIRD_NAMES = ["a$b#c.d-e_f", "__debezium-heartbeat.dbserver1", "x" * 255]


@pytest.mark.parametrize("name", WEIRD_NAMES)
def test_a_glue_name_takes_every_character_and_length_glue_allows(name: str) -> None:
    # Given a name Glue accepts / When validated / Then it is kept as it is
    assert Names(name=name).name == name


@pytest.mark.parametrize("name", ["", "a/b", "has space", "x" * 256])
def test_a_glue_name_glue_would_reject_fails_naming_the_value(name: str) -> None:
    # Given a name Glue rejects / When validated / Then the error says it is no Glue name
    with pytest.raises(ValidationError, match="is not a Glue Schema Registry name"):
        Names(name=name)


def test_a_catalog_name_is_kept_lower_cased_as_glue_stores_it() -> None:
    # Given a database name with capitals / When validated / Then it is lower-cased
    assert Names(name="t", catalog="LakeHouse").catalog == "lakehouse"
    with pytest.raises(ValidationError, match="is not a Glue Data Catalog name"):
        Names(name="t", catalog="no spaces")


def test_errors_render_as_paths_with_indexes_under_an_optional_root() -> None:
    # Given a nested error at items[1].name
    with pytest.raises(ValidationError) as caught:
        Listed.model_validate({"items": [{"name": "ok"}, {"name": "a/b"}]})
    error = caught.value
    # When rendered / Then the path names the list index, the root prefixes it, a key may be renamed
    assert describe(error).startswith("items[1].name: Value error, 'a/b' is not a Glue")
    assert describe(error, root="ctx").startswith("ctx.items[1].name: ")
    renamed = describe(error, name=lambda location, position: str(location[position]).upper())
    assert renamed.startswith("ITEMS[1].NAME: ")


def test_errors_without_a_path_name_the_root_or_the_whole_value() -> None:
    # Given an error on the value itself (not a dict)
    with pytest.raises(ValidationError) as caught:
        Names.model_validate([])
    # Then the label is the root when there is one, else `where`
    assert describe(caught.value, where="event").startswith("event: ")
    assert describe(caught.value, root="ctx").startswith("ctx: ")


def test_first_only_renders_one_error() -> None:
    # Given two errors / When only the first is asked for / Then one item is rendered
    with pytest.raises(ValidationError) as caught:
        Listed.model_validate({"items": [{"name": "a/b"}, {"name": ""}]})
    assert describe(caught.value).count("; ") == 1
    assert "; " not in describe(caught.value, first_only=True)


class FakeEvents(FakeClient):
    """EventBridge's PutEvents: keeps the entries; rejects those whose detail names `rejectedTopic`."""

    def __init__(self) -> None:
        self.calls: list[list[dict[str, Any]]] = []

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:
        self.calls.append(Entries)
        results = [
            {"ErrorCode": "InternalFailure"} if "rejectedTopic" in entry["Detail"] else {"EventId": "1"}
            for entry in Entries
        ]
        return {"FailedEntryCount": sum("ErrorCode" in r for r in results), "Entries": results}


def detail(topic: str, change: str = "revised") -> dict[str, Any]:
    return {
        "registryName": "cdc",
        "schemaArn": f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{topic}",
        "topic": topic,
        "assetId": "asset-1",
        "schemaVersion": 3,
        "change": change,
    }


def envelope(entry: dict[str, Any]) -> dict[str, Any]:
    """The event as EventBridge delivers a PutEvents entry to a rule's target."""
    return {
        "version": "0",
        "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
        "detail-type": entry["DetailType"],
        "source": entry["Source"],
        "account": "123456789012",
        "time": "2026-11-30T12:00:00Z",
        "region": "eu-west-1",
        "resources": [],
        "detail": json.loads(entry["Detail"]),
    }


def test_what_schema_sync_puts_is_what_the_rule_matches_and_lineage_parses() -> None:
    # Given schema-sync's events for a topic with every character Glue allows
    events = FakeEvents()
    topic = "a$b#c.d-e_f"
    # When they are put
    assert TopicEvents(events).put([detail(topic), detail("t2", "deleted")]) == []
    entry = events.calls[0][0]
    # Then the stack's rule matches them and lineage-emission reads back the topic and the change
    pattern = asset_changed_pattern()
    assert pattern == {"source": [entry["Source"]], "detail-type": [entry["DetailType"]]}
    scope = parse_emit_event(envelope(entry))
    assert [(t.topic, t.registry_name) for t in scope.topics] == [(topic, "cdc")]
    assert scope.trigger == "topic-asset-changed:revised"
    assert json.loads(entry["Detail"]) == detail(topic)


def test_an_invalid_detail_is_returned_and_never_stops_the_others() -> None:
    # Given 12 details: one whose change is unknown, one EventBridge rejects, ten fine
    events = FakeEvents()
    bad = {**detail("t0"), "change": "moved"}
    details = [bad, detail("rejectedTopic")] + [detail(f"t{i}") for i in range(1, 11)]
    # When they are put
    rejected = TopicEvents(events).put(details)
    # Then both bad ones come back, the other 11 were sent in batches of at most 10
    assert rejected == [bad, detail("rejectedTopic")]
    assert [len(call) for call in events.calls] == [10, 1]


def test_the_glue_events_the_rule_matches_are_the_ones_the_parser_accepts() -> None:
    # Given the stack's Glue rule / Then it lists exactly the event names schema-sync understands
    rule_names = glue_registry_change_pattern(["cdc"])["detail"]["eventName"]
    assert rule_names == list(GLUE_EVENT_NAMES)
    # And a Glue call outside the list is refused by the parser
    with pytest.raises(InvalidRequest, match="is not one of"):
        parse_sync_event(
            envelope(
                {
                    "Source": "aws.glue",
                    "DetailType": "AWS API Call via CloudTrail",
                    "Detail": json.dumps({"eventName": "CreateRegistry", "requestParameters": {}}),
                }
            )
        )


@pytest.mark.parametrize("registry", [None, "cdc$1"])
def test_a_mapping_the_stack_writes_is_read_back_identically_by_the_resolver(registry: str | None) -> None:
    # Given a cdk.json mapping with capitals in the table and Glue's special characters in the topic
    mapping = TableMapping.model_validate(
        {"topic": "db#1.orders$v2", "database": "Analytics", "table": "Orders", "registryName": registry}
    )
    name = table_mapping_parameter_name("/kafka-lineage", mapping)
    # When the resolver reads the parameter the stack writes
    parsed, invalid = parse_mappings(
        [MappingParameter(name, mapping.parameter_value())], "/kafka-lineage/table-mappings"
    )
    # Then it is the same mapping, the stack's, lower-cased as Glue stores names
    assert invalid == []
    [explicit] = parsed
    assert (explicit.topic, explicit.registry_name) == ("db#1.orders$v2", registry)
    assert (explicit.table.database, explicit.table.table) == ("analytics", "orders")
    assert explicit.operator is False
