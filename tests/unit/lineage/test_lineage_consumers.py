"""Consumer edges in lineage: a consumer group reading a topic is one run (the topic in, no output, a
streaming consumer's job), planned, kept, retracted and reported like every derived edge."""

from __future__ import annotations

import json

import pytest

from kafka_lineage.drift import DriftSubject, Readers, assess_impact, diff_fields, drift_detail, summarize
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.lineage.consumer_inputs import Consumer
from kafka_lineage.lineage.content import ConsumerContent, TopicField
from kafka_lineage.lineage.events import MAX_EVENT_BYTES, build
from kafka_lineage.lineage.model import EdgeKey, unstorable
from kafka_lineage.lineage.plan import Emit, EmitScope, Retract
from kafka_lineage.lineage.run_identity import derive_run_id
from kafka_lineage.lineage.world import parse_topic_fields
from kafka_lineage.model.consumers import ConsumerDerivation, ConsumerEdge
from kafka_lineage.model.topics import TopicKey
from kafka_lineage.sync.drift import drift_form
from local import debezium
from tests.unit.drift.drift_builders import avro, table
from tests.unit.lineage.lineage_builders import (
    CLUSTER_ARN,
    NAMESPACE,
    REGISTERED,
    record,
    records,
    settings,
    source,
)
from tests.unit.lineage.openlineage_rules import assert_valid
from tests.unit.lineage.test_lineage_apply import World

ORDERS = "dbserver1.inventory.orders"
TOPIC = TopicKey("cdc", ORDERS)
NO_RULE = settings(source(tableRule=None))


def groups(*names: str, topic: TopicKey = TOPIC) -> ConsumerDerivation:
    return ConsumerDerivation(edges=tuple(ConsumerEdge(topic, name, CLUSTER_ARN) for name in names))


def content(group: str = "order-service", topic: str = ORDERS) -> ConsumerContent:
    return ConsumerContent(
        key=TopicKey("cdc", topic),
        topic_namespace=NAMESPACE,
        schema_arn=f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{topic}",
        schema_version=3,
        schema_version_id="00000000-0000-4000-8000-000000000003",
        schema_created="2025-03-01T08:00:00+00:00",
        data_format="AVRO",
        group=group,
        cluster_arn=CLUSTER_ARN,
        job_namespace="kafka-consumer://cdc",
    )


# -- state keys ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "group", ["order-service", "svc$prod#1.v-2_x", "a@b|c>d<e/f", "g" * 1024, "Ünïcode", "with space"]
)
def test_a_consumer_edge_key_round_trips_whatever_the_group_holds(group: str) -> None:
    for topic in (TOPIC, TopicKey("123456789012:cdc.prod-$1#x_", "t" * 255)):
        edge = EdgeKey.consumer(topic, group)
        assert EdgeKey.parse(edge.key) == edge
        assert edge.as_dict() == {**topic.as_dict(), "consumerGroup": group}
        assert unstorable(edge.key) == ""


def test_a_group_whose_key_cannot_be_stored_is_reported_undetermined() -> None:
    w = World()
    plan, _ = w.run(records(record(ORDERS)), config=NO_RULE, consumers=groups("bad\ngroup", "fine"))
    assert [a.key.other for a in plan.actions] == ["fine"]


# -- events ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("topic", "group"), [(ORDERS, "order-service"), ("t" * 255, "a@b|c>d<e$#.-_")])
def test_a_consumer_run_reads_the_topic_and_has_no_output(topic: str, group: str) -> None:
    parsed = parse_topic_fields("AVRO", debezium.table_envelope("orders"))
    described = content(group, topic)
    built = build(
        described, parsed.fields, parsed.row_fields, derive_run_id(described.fingerprint()), REGISTERED
    )
    assert [event_type for event_type, _ in built.bodies] == ["START", "COMPLETE"]
    event = assert_valid(built.bodies[1][1])
    (read,) = event["inputs"]
    assert (read["namespace"], read["name"]) == (NAMESPACE, topic)
    assert "schema" in read["facets"]
    assert event["outputs"] == []
    assert (event["job"]["namespace"], event["job"]["name"]) == ("kafka-consumer://cdc", f"consumer/{group}")
    job_type = event["job"]["facets"]["jobType"]
    assert (job_type["processingType"], job_type["integration"], job_type["jobType"]) == (
        "STREAMING",
        "KAFKA",
        "CONSUMER",
    )
    assert job_type["_schemaURL"].endswith("JobTypeJobFacet.json#/$defs/JobTypeJobFacet")
    assert event["job"]["facets"]["documentation"]["description"].startswith(f"Consumer group {group} reads")
    assert (built.degraded, built.lineage.matched) == ((), 0)


def test_a_huge_schema_drops_descriptions_then_the_topic_schema_until_it_fits() -> None:
    fields = tuple(TopicField(f"after.c{i:05d}", "string", "a description " * 8) for i in range(20_000))
    built = build(content(), fields, {}, derive_run_id("x"), REGISTERED)
    assert built.largest <= MAX_EVENT_BYTES
    assert built.degraded == (
        "field descriptions dropped from the schema facets",
        "topic schema facet dropped",
    )


def test_the_fingerprint_names_the_group_and_the_cluster() -> None:
    base = content().fingerprint()
    assert content("other").fingerprint() != base
    assert content().fingerprint() == base


# -- plan and apply --------------------------------------------------------------------------------------


def test_a_new_group_is_one_run_a_rerun_posts_nothing_and_a_gone_group_is_retracted() -> None:
    w = World()
    recs = records(record(ORDERS))
    # Given a topic with no table, read by two groups
    plan, _ = w.run(recs, config=NO_RULE, consumers=groups("order-service", "shipping"))
    emits = [a for a in plan.actions if isinstance(a, Emit)]
    assert sorted((a.key.kind, a.key.other, a.target.origin) for a in emits) == [
        ("consumer", "order-service", "consumer:order-service"),
        ("consumer", "shipping", "consumer:shipping"),
    ]
    assert all(isinstance(a.target, Consumer) for a in emits)
    assert plan.unmapped == (TOPIC,)  # readers are not a table: the topic is still unmapped
    assert len(w.lineage.events) == 4
    # When nothing changed
    again, _ = w.run(recs, config=NO_RULE, consumers=groups("order-service", "shipping"))
    assert again.actions == ()
    assert len(again.unchanged) == 2
    # When one group disappears (ListMetrics forgot it)
    gone, _ = w.run(recs, config=NO_RULE, consumers=groups("order-service"))
    (retract,) = gone.actions
    assert isinstance(retract, Retract)
    assert (retract.key, retract.reason) == (EdgeKey.consumer(TOPIC, "shipping"), "edge removed")
    assert retract.describe()["consumerGroup"] == "shipping"
    assert len(w.lineage.events) == 2
    assert EdgeKey.consumer(TOPIC, "shipping").key not in w.states


def test_a_new_group_never_takes_over_a_gone_groups_events() -> None:
    w = World()
    recs = records(record(ORDERS))
    w.run(recs, config=NO_RULE, consumers=groups("old"))
    plan, _ = w.run(recs, config=NO_RULE, consumers=groups("new"))
    kinds = sorted((type(a).__name__, a.key.other) for a in plan.actions)
    assert kinds == [("Emit", "new"), ("Retract", "old")]
    assert all(not getattr(a, "replaces", ()) for a in plan.actions)


def test_a_cluster_not_listed_keeps_its_consumer_edges_and_the_table_edge_goes_on() -> None:
    w = World()
    w.tables["orders"] = table("orders", "order_number")
    recs = records(record(ORDERS))
    w.run(recs, consumers=groups("order-service"))
    before = dict(w.states)
    # When the listing failed: no group known for the source
    plan, _ = w.run(
        recs, consumers=ConsumerDerivation(unknown=frozenset({"cdc"}), errors=("ListMetrics: x",))
    )
    # Then the consumer edge is kept as it is, nothing is posted or retracted
    assert plan.actions == ()
    assert plan.kept == (EdgeKey.consumer(TOPIC, "order-service"),)
    assert w.states == before


def test_consumers_off_or_filtered_out_retracts_and_a_deleted_schema_retracts_too() -> None:
    w = World()
    recs = records(record(ORDERS))
    w.run(recs, config=NO_RULE, consumers=groups("order-service"))
    plan, _ = w.run(recs, config=NO_RULE, consumers=ConsumerDerivation())
    assert [(type(a).__name__, a.key.kind) for a in plan.actions] == [("Retract", "consumer")]
    w.run(recs, config=NO_RULE, consumers=groups("order-service"))
    scope = EmitScope(allow_mass_delete=True)  # the registry's only topic: past the fail-safe's share
    deleted, _ = w.run({}, scope, config=NO_RULE, consumers=ConsumerDerivation())
    assert [(a.key.kind, getattr(a, "reason", "")) for a in deleted.actions] == [
        ("consumer", "schema deleted")
    ]


# -- drift names who to call -----------------------------------------------------------------------------

V1 = avro({"name": "id", "type": "int"}, {"name": "note", "type": "string"})
V2 = avro({"name": "id", "type": "int"})  # `note` removed; the table has only `id`
V2_ADDED = avro(
    {"name": "id", "type": "int"}, {"name": "note", "type": "string"}, {"name": "x", "type": "int"}
)
SUBJECT = DriftSubject("cdc", ORDERS, "arn:aws:glue:eu-west-1:123456789012:schema/cdc/x", 1, 2)
READERS = Readers(consumers=(("order-service", CLUSTER_ARN),), subscribers=(("prj1", "sub1"),))


def test_a_removed_field_no_column_takes_is_a_warning_when_groups_read_the_topic() -> None:
    tables = [table("orders", "id")]
    quiet = assess_impact(diff_fields("AVRO", V1, V2), tables)
    read = assess_impact(diff_fields("AVRO", V1, V2), tables, read=True)
    assert (quiet.severity, quiet.announced) == ("info", False)
    assert (read.severity, read.announced, read.feeds_columns) == ("warning", True, False)
    detail = drift_detail(SUBJECT, read, readers=READERS)
    assert detail["severity"] == "warning"
    assert detail["impacted"] == []
    assert detail["consumers"] == [{"group": "order-service", "clusterArn": CLUSTER_ARN}]
    assert detail["subscribers"] == [{"projectId": "prj1", "subscriptionId": "sub1"}]
    # An added field breaks no reader: nothing to announce
    added = assess_impact(diff_fields("AVRO", V1, V2_ADDED), tables, read=True)
    assert (added.severity, added.announced) == ("info", False)


def test_a_summary_keeps_who_to_call_and_an_older_summary_reads_as_it_was() -> None:
    impact = assess_impact(diff_fields("AVRO", V1, V2), [table("orders", "id")], read=True)
    many = Readers(
        consumers=tuple((f"g{i:02d}", CLUSTER_ARN) for i in range(25)), subscribers=(("prj1", "s"),)
    )
    summary = summarize(SUBJECT, impact, "fp", "2026-12-01T00:00:00Z", many)
    assert (len(summary.consumer_groups), summary.consumer_count) == (20, 25)
    assert (summary.subscriber_projects, summary.subscriber_count) == (("prj1",), 1)
    assert DriftSummary.from_entry(summary.to_entry()) == summary
    old = summarize(SUBJECT, impact, "fp", "2026-12-01T00:00:00Z")
    assert set(old.to_entry()) == {"f", "t", "s", "tb", "n", "c", "p", "at"}
    form = drift_form(summary, 2, frozenset({"consumer_groups", "consumer_group_count", "subscriber_count"}))
    assert (form["consumer_groups"][:2], form["consumer_group_count"], form["subscriber_count"]) == (
        ["g00", "g01"],
        25,
        1,
    )
    assert "subscriber_projects" not in form
    assert not {"consumer_groups", "subscriber_count"} & set(drift_form(summary, 2))  # members unknown
    assert json.dumps(form)


# -- the demo's picture ----------------------------------------------------------------------------------


def test_the_lineage_picture_draws_the_group_as_the_topics_reader() -> None:
    from local.lineage_view import edges_from_events, render_chains, render_html

    described = content("order-service")
    built = build(described, (), {}, derive_run_id(described.fingerprint()), REGISTERED)
    (edge,) = edges_from_events(json.loads(body) for _, body in built.bodies)
    assert (edge.upstream.name, edge.downstream.name, edge.downstream.kind) == (
        ORDERS,
        "order-service",
        "consumer group",
    )
    assert "-[consumer/order-service]->  order-service" in render_chains([edge])
    assert "consumer group" in render_html([edge])
