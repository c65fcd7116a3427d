"""lineage-emission invocation payloads -> EmitScope; anything else is rejected by name."""

from __future__ import annotations

import pytest

from kafka_lineage.lineage.plan import EmitScope, TopicSelector
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.model.requests import InvalidRequest
from tests.fixtures import load_event


def test_a_schedule_or_an_empty_payload_covers_every_topic():
    assert parse_emit_event(load_event("lineage_scheduled")) == EmitScope(mode="all", trigger="schedule")
    assert parse_emit_event({}) == EmitScope(mode="all")


def test_a_topic_asset_changed_event_covers_that_topic_only():
    scope = parse_emit_event(load_event("topic_asset_changed"))
    assert scope.mode == "event"
    assert scope.topics == (TopicSelector("dbserver1.inventory.customers", "cdc"),)
    assert scope.trigger == "topic-asset-changed:revised"
    deleted = parse_emit_event(load_event("lineage_topic_asset_deleted"))
    assert deleted.trigger == "topic-asset-changed:deleted"


def test_a_topic_list_with_flags():
    scope = parse_emit_event(load_event("lineage_topics_force"))
    assert scope == EmitScope(
        mode="topics",
        topics=(
            TopicSelector("dbserver1.inventory.customers", "cdc"),
            TopicSelector("dbserver1.inventory.orders", None),
        ),
        force=True,
    )
    assert parse_emit_event(load_event("lineage_dry_run")).dry_run
    assert parse_emit_event({"allowMassDelete": True}).allow_mass_delete


def test_weird_but_valid_names_are_accepted():
    scope = parse_emit_event(
        {"topics": [{"registryName": "cdc.prod-$1#", "topic": "__debezium-heartbeat.x"}]}
    )
    assert scope.topics == (TopicSelector("__debezium-heartbeat.x", "cdc.prod-$1#"),)


@pytest.mark.parametrize(
    ("event", "message"),
    [
        ([], "expected a JSON object"),
        ({"topic": "x"}, "unexpected key 'topic' \\(accepted: topics; the options"),
        ({"topics": []}, "topics"),
        ({"topics": [{"topic": "a/b"}]}, "not a Glue Schema Registry name"),
        ({"force": "yes please"}, "force"),
        (load_event("glue_create_schema"), "unexpected EventBridge event: source 'aws.glue'"),
        (
            {
                **load_event("topic_asset_changed"),
                "detail": {"topic": "x", "registryName": "cdc", "change": "moved"},
            },
            "detail",
        ),
        ({"detail-type": "Scheduled Event"}, "malformed EventBridge event"),
    ],
)
def test_other_shapes_are_rejected_by_name(event, message):
    with pytest.raises(InvalidRequest, match=message):
        parse_emit_event(event)


def test_the_follow_up_of_a_forced_run_carries_its_nonce():
    scope = parse_emit_event({"force": True, "forceNonce": "6f1c1d2e-0000-4000-8000-000000000001"})
    assert (scope.force, scope.force_nonce) == (True, "6f1c1d2e-0000-4000-8000-000000000001")
    with pytest.raises(InvalidRequest, match="forceNonce"):
        parse_emit_event({"force": True, "forceNonce": "has space"})
