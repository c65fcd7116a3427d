"""RunEvents: shape (OpenLineage 2-0-2), naming, column lineage, determinism and the 300,000-byte budget."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from kafka_lineage.lineage.apply import ParsedFields
from kafka_lineage.lineage.content import HopContent, RunContent, TopicField
from kafka_lineage.lineage.events import MAX_EVENT_BYTES, build
from kafka_lineage.lineage.facets import RunParts, Shape, serialize, typed_event
from kafka_lineage.lineage.render import Renderer
from kafka_lineage.lineage.run_identity import (
    COMPLETE_AFTER,
    derive_event_time,
    derive_run_id,
    format_time,
    parse_time,
)
from kafka_lineage.lineage.size_budget import SizeModel
from kafka_lineage.lineage.world import parse_topic_fields
from kafka_lineage.model.tables import GlueTable, TableColumn, match_columns
from kafka_lineage.model.topics import TopicKey
from local import debezium
from tests.unit.lineage.lineage_builders import NAMESPACE, REGISTERED, table
from tests.unit.lineage.openlineage_rules import assert_valid

TOPIC = "dbserver1.inventory.customers"


def content(glue_table: GlueTable, topic: str = TOPIC, **changes) -> RunContent:
    values: dict[str, Any] = {
        "key": TopicKey("cdc", topic),
        "topic_namespace": NAMESPACE,
        "schema_arn": f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{topic}",
        "schema_version": 1,
        "schema_version_id": "00000000-0000-4000-8000-000000000001",
        "schema_created": "2025-03-01T08:00:00+00:00",
        "data_format": "AVRO",
        "table": glue_table,
        "job_namespace": "kafka-iceberg-sink",
        "origin": "rule",
    }
    values.update(changes)
    return RunContent(**values)


def parts_of(described: RunContent, parsed: ParsedFields, run_id: str) -> RunParts:
    """The parts `build` makes of a described topic, for the size model and the typed events."""
    matches = match_columns(parsed.row_fields, described.table)
    return RunParts(
        described, parsed.fields, frozenset(parsed.row_fields.values()), matches, run_id, REGISTERED
    )


def customers_run(glue_table: GlueTable | None = None, definition: str | None = None):
    glue_table = glue_table or table("customers", "ID", "First_Name", "last_name", "loaded_at")
    parsed = parse_topic_fields("AVRO", definition or debezium.table_envelope("customers"))
    described = content(glue_table)
    run_id = derive_run_id(described.fingerprint())
    return build(described, parsed.fields, parsed.row_fields, run_id, REGISTERED), described


def test_a_debezium_envelope_becomes_a_valid_start_complete_run():
    # Given the customers topic (a real Debezium envelope) and its Iceberg table, columns cased differently
    run, described = customers_run()
    # Then there are two events, START then COMPLETE, of one run, each a valid OpenLineage 2-0-2 RunEvent
    assert [event_type for event_type, _ in run.bodies] == ["START", "COMPLETE"]
    start, complete = (assert_valid(body) for _, body in run.bodies)
    assert start["run"]["runId"] == complete["run"]["runId"] == run.run_id
    assert uuid.UUID(run.run_id).version == 5
    assert start["eventTime"] == "2025-03-14T09:15:02.123Z" == run.event_time
    assert complete["eventTime"] == "2025-03-14T09:15:02.124Z"
    # And the job, the topic and the table are named as the contract says
    assert start["job"] == {
        "namespace": "kafka-iceberg-sink",
        "name": "sink/lakehouse.customers",
        "facets": start["job"]["facets"],
    }
    assert (
        "sinks into Glue table lakehouse.customers" in start["job"]["facets"]["documentation"]["description"]
    )
    (source,) = start["inputs"]
    (sink,) = start["outputs"]
    assert (source["namespace"], source["name"]) == (NAMESPACE, TOPIC)
    assert (sink["namespace"], sink["name"]) == (
        "arn:aws:glue:eu-west-1:123456789012:table",
        "lakehouse/customers",
    )
    assert f"{sink['namespace']}/{sink['name']}" == described.table.arn
    # And the topic's schema facet lists its flattened fields, the table's its columns
    assert [f["name"] for f in source["facets"]["schema"]["fields"]][:3] == [
        "before",
        "before.id",
        "before.first_name",
    ]
    assert [f["name"] for f in sink["facets"]["schema"]["fields"]] == [
        "ID",
        "First_Name",
        "last_name",
        "loaded_at",
    ]


def test_column_lineage_maps_after_fields_to_columns_case_insensitively():
    run, _ = customers_run()
    sink = json.loads(run.bodies[0][1])["outputs"][0]
    lineage = sink["facets"]["columnLineage"]["fields"]
    # Then each matched column has its after.X field as a DIRECT/IDENTITY input from the topic
    assert {column: spec["inputFields"][0]["field"] for column, spec in lineage.items()} == {
        "ID": "after.id",
        "First_Name": "after.first_name",
        "last_name": "after.last_name",
    }
    (item,) = lineage["ID"]["inputFields"]
    assert (item["namespace"], item["name"]) == (NAMESPACE, TOPIC)
    assert item["transformations"] == [{"type": "DIRECT", "subtype": "IDENTITY"}]
    # And the unmatched column is left out and counted (email has no column)
    assert run.lineage.as_dict() == {
        "matched": 3,
        "emitted": 3,
        "tableColumns": 4,
        "rowFields": 4,
        "unmatchedColumns": ["loaded_at"],
    }
    assert run.degraded == ()


def test_an_unwrapped_record_maps_its_top_level_fields():
    glue_table = table("customers", "id", "email", "__deleted")
    run, _ = customers_run(glue_table, debezium.unwrapped("customers"))
    lineage = json.loads(run.bodies[1][1])["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert {c: s["inputFields"][0]["field"] for c, s in lineage.items()} == {
        "id": "id",
        "email": "email",
        "__deleted": "__deleted",
    }


def test_exact_case_wins_over_a_case_insensitive_match():
    glue_table = table("t", "Id", "id")
    matches = match_columns({"id": "after.id", "Id": "after.Id"}, glue_table)
    assert [(m.column, m.field) for m in matches] == [("Id", "after.Id"), ("id", "after.id")]


def test_the_same_inputs_give_the_same_bytes():
    first, _ = customers_run()
    second, _ = customers_run()
    assert first.bodies == second.bodies


def test_the_fingerprint_covers_what_the_event_carries_and_nothing_else():
    base = content(table("customers", "id"))
    same = content(table("customers", "id"))
    assert base.fingerprint() == same.fingerprint()
    variants = [
        content(table("customers", "id", "email")),  # a new column
        content(table("customers", ("id", "bigint"))),  # a column type
        content(
            replace(table("customers", "id"), columns=(TableColumn("id", "string", "key"),))
        ),  # a comment
        content(table("clients", "id")),  # another table
        content(table("customers", "id", database="other")),  # another database
        content(replace(table("customers", "id"), catalog_id="210987654321")),  # another account
        content(table("customers", "id"), schema_version=2, schema_version_id="v2"),  # a new version
        content(table("customers", "id"), schema_created="2025-04-01T00:00:00+00:00"),  # a re-created schema
        content(table("customers", "id"), job_namespace="other-sink"),
        content(table("customers", "id"), topic_namespace="kafka://other:9092"),
        content(
            table("customers", "id"), origin="operator", mapping_parameter="/kafka-lineage/table-mappings/x"
        ),
    ]
    prints = {v.fingerprint() for v in variants}
    assert len(prints) == len(variants)
    assert base.fingerprint() not in prints


def test_run_ids_chain_on_the_run_they_supersede():
    fingerprint = content(table("customers", "id")).fingerprint()
    assert derive_run_id(fingerprint) == derive_run_id(fingerprint)
    # A -> B -> A: the second A is a new run, never the deleted first one again
    assert derive_run_id(fingerprint, "b-run") != derive_run_id(fingerprint)


def test_event_time_is_the_latest_moment_in_utc_milliseconds():
    mapping_changed = datetime(2025, 6, 1, 12, 0, 0, 999999, tzinfo=UTC)
    assert derive_event_time(REGISTERED, None) == datetime(2025, 3, 14, 9, 15, 2, 123000, tzinfo=UTC)
    assert derive_event_time(REGISTERED, mapping_changed) == datetime(
        2025, 6, 1, 12, 0, 0, 999000, tzinfo=UTC
    )
    with pytest.raises(ValueError, match="eventTime"):
        derive_event_time(None, None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-03-14 09:15:02.123456", datetime(2025, 3, 14, 9, 15, 2, 123456, tzinfo=UTC)),  # moto's str()
        ("2021-03-16T09:29:36.637Z", datetime(2021, 3, 16, 9, 29, 36, 637000, tzinfo=UTC)),
        ("2025-03-14T10:15:02+01:00", datetime(2025, 3, 14, 9, 15, 2, tzinfo=UTC)),
        ("", None),
        ("yesterday", None),
    ],
)
def test_glue_time_strings_are_read(text, expected):
    assert parse_time(text) == expected


def test_times_are_written_as_rfc3339_utc_with_milliseconds():
    moment = datetime(2025, 3, 14, 10, 15, 2, 5000, tzinfo=UTC) + timedelta(hours=0)
    assert format_time(moment) == "2025-03-14T10:15:02.005Z"


def wide(n_fields: int, topic: str = "dbserver1.inventory.wide"):
    parsed = parse_topic_fields("AVRO", debezium.synthetic_table(topic, n_fields))
    glue_table = table("wide", *(name.lower() for name in parsed.row_fields))
    described = content(glue_table, topic)
    return described, parsed


@pytest.mark.slow
@pytest.mark.parametrize("topic", ["dbserver1.inventory.wide", "dbserver1.inventory." + "w" * 234])
def test_a_2000_field_schema_fits_the_limit_with_reported_degradation(topic):
    # Given a 2,000-column Debezium table (its definition near Glue's 170,000-character limit)
    described, parsed = wide(2000, topic)
    assert len(debezium.synthetic_table(topic, 2000)) <= debezium.GLUE_DEFINITION_LIMIT
    run = build(
        described, parsed.fields, parsed.row_fields, derive_run_id(described.fingerprint()), REGISTERED
    )
    # Then both events fit DataZone's limit, are valid, and say what was left out
    for _, body in run.bodies:
        assert len(body) <= MAX_EVENT_BYTES
        assert_valid(body)
    assert run.degraded[-1] == f"column lineage cut to {run.lineage.emitted} of 2000 columns"
    assert "topic schema facet dropped" in run.degraded
    kept = json.loads(run.bodies[1][1])["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert len(kept) == run.lineage.emitted > 700
    # And not one more column would have fitted (the cut is as small as possible)
    shape = Shape(False, "none", False, False, run.lineage.emitted + 1)
    bigger = serialize(typed_event(parts_of(described, parsed, run.run_id), shape, "COMPLETE"))
    assert len(bigger) > MAX_EVENT_BYTES


@pytest.mark.parametrize("budget", [6_000, 12_000, 25_000, 60_000])
def test_the_size_model_is_exact_at_every_rung(budget):
    # Given a 120-field table and budgets that force each rung of the ladder in turn
    described, parsed = wide(120)
    run = build(
        described,
        parsed.fields,
        parsed.row_fields,
        derive_run_id(described.fingerprint()),
        REGISTERED,
        budget,
    )
    # Then the bodies fit, and the model predicted the COMPLETE body's size to the byte
    assert all(len(body) <= budget for _, body in run.bodies)
    model = SizeModel(parts_of(described, parsed, run.run_id))
    for shape in (
        Shape(),
        Shape(descriptions=False, topic_schema="row"),
        Shape(descriptions=False, topic_schema="none", table_schema=False),
        Shape(descriptions=False, topic_schema="none", table_schema=False, transformations=False,
                      lineage_columns=7),
    ):  # fmt: skip
        body = serialize(typed_event(model.parts, shape, "COMPLETE"))
        assert model.size(shape) == len(body)


def test_descriptions_are_dropped_first():
    fields = [TopicField("id", "int", "x" * 5000)]
    glue_table = table("customers", "id")
    described = content(glue_table)
    run = build(described, fields, {"id": "id"}, derive_run_id("f"), REGISTERED, max_bytes=4000)
    assert run.degraded == ("field descriptions dropped from the schema facets",)
    assert run.lineage.emitted == 1


@pytest.mark.parametrize(
    "shape",
    [
        Shape(),
        Shape(descriptions=False),
        Shape(topic_schema="row"),
        Shape(topic_schema="none", table_schema=False),
        Shape(transformations=False, lineage_columns=3),
        Shape(lineage_columns=0),
    ],
)
@pytest.mark.parametrize("data_format", ["AVRO", "JSON", "PROTOBUF"])
def test_the_fast_renderer_writes_what_the_typed_classes_write(shape, data_format):
    # Given a described topic with field descriptions, empty types and a column comment
    glue_table = GlueTable(
        table("customers").ref,
        (
            TableColumn("ID", "int", "the key"),
            TableColumn("first_name", ""),
            TableColumn("Ünïcode", "string"),
        ),
        "123456789012",
        "eu-west-1",
    )
    parsed = parse_topic_fields(data_format, debezium.table_envelope("customers", data_format))
    fields = (*parsed.fields, TopicField("after.ünïcode", "", "beschreibung"))
    row_fields = {**parsed.row_fields, "ünïcode": "after.ünïcode"}
    described = content(glue_table)
    matches = match_columns(row_fields, glue_table)
    run_id = derive_run_id(described.fingerprint())
    # When both renderers write the run in that shape
    parts = RunParts(described, fields, frozenset(row_fields.values()), matches, run_id, REGISTERED)
    bodies = Renderer(parts).render(shape)
    # Then every body is byte for byte what openlineage-python's Serde makes of the typed RunEvent
    for (event_type, body), moment in zip(bodies, (REGISTERED, REGISTERED + COMPLETE_AFTER), strict=True):
        assert body == serialize(typed_event(parts, shape, event_type))
        assert json.loads(body)["eventTime"] == format_time(moment)


def hop(columns: tuple[str, ...] = ()) -> HopContent:
    return HopContent(
        key=TopicKey("cdc", "dbserver1.inventory.customers"),
        topic_namespace=NAMESPACE,
        schema_arn="arn:aws:glue:eu-west-1:123456789012:schema/cdc/dbserver1.inventory.customers",
        schema_version=3,
        schema_version_id="00000000-0000-4000-8000-000000000003",
        schema_created="2025-03-01T08:00:00+00:00",
        data_format="AVRO",
        dataset_namespace="mysql://mysql.internal:3306",
        dataset_name="inventory.customers",
        job_namespace="kafka-connect://cdc",
        job_name="inventory-mysql",
        connector="inventory-mysql",
        connector_arn="arn:aws:kafkaconnect:eu-west-1:123456789012:connector/inventory-mysql/1",
        columns=columns,
    )


def test_a_first_hop_maps_each_source_column_to_the_topics_after_field_and_keeps_the_rules():
    parsed = parse_topic_fields("AVRO", debezium.table_envelope("customers"))
    built = build(hop(), parsed.fields, parsed.row_fields, derive_run_id(hop().fingerprint()), REGISTERED)
    for _, body in built.bodies:
        assert_valid(body)
    event = json.loads(built.bodies[1][1])
    assert (event["inputs"][0]["namespace"], event["inputs"][0]["name"]) == (
        "mysql://mysql.internal:3306",
        "inventory.customers",
    )
    assert event["outputs"][0]["name"] == "dbserver1.inventory.customers"
    fields = event["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert fields["after.email"]["inputFields"][0]["field"] == "email"
    assert (event["job"]["namespace"], event["job"]["name"]) == ("kafka-connect://cdc", "inventory-mysql")
    # A connector that lists its columns limits the lineage to them (matched case-insensitively)
    listed = build(hop(("ID", "email")), parsed.fields, parsed.row_fields, derive_run_id("x"), REGISTERED)
    listed_fields = json.loads(listed.bodies[0][1])["outputs"][0]["facets"]["columnLineage"]["fields"]
    assert {k: v["inputFields"][0]["field"] for k, v in listed_fields.items()} == {
        "after.id": "ID",
        "after.email": "email",
    }
    # The fingerprint moves with the schema version and with the connector
    assert hop().fingerprint() != replace(hop(), schema_version=4).fingerprint()
    assert hop().fingerprint() != replace(hop(), connector_arn="other").fingerprint()


def test_a_first_hop_too_large_degrades_step_by_step_until_it_fits():
    fields = tuple(TopicField(f"after.c{i:04d}", "string", "a description " * 4) for i in range(1500))
    rows = {f"c{i:04d}": f"after.c{i:04d}" for i in range(1500)}
    built = build(hop(), fields, rows, derive_run_id("x"), REGISTERED, max_bytes=60_000)
    assert all(len(body) <= 60_000 for _, body in built.bodies)
    assert built.degraded[0] == "field descriptions dropped from the schema facets"
    assert 0 < built.lineage.emitted < 1500
    assert built.degraded[-1] == f"column lineage cut to {built.lineage.emitted} of 1500 columns"
