"""Impact of a field diff on the mapped tables (column lineage), severity, downstream, event detail."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from kafka_lineage.drift import (
    MAX_DETAIL_BYTES,
    ColumnHit,
    DriftSubject,
    Readers,
    assess_impact,
    diff_fields,
    drift_detail,
    drift_fingerprint,
)
from kafka_lineage.model.downstream import DownstreamNode
from local import debezium
from tests.fixtures import CLUSTER_ARN
from tests.unit.drift.drift_builders import avro, json_schema, proto, table

EVENTS = Path(__file__).resolve().parents[2] / "events"
TOPIC = debezium.topic_for("customers")
CUSTOMERS = table("customers", "id", "first_name", "last_name", "email")
SCHEMA_ARN = f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{TOPIC}"


class Walker:
    """A fake lineage graph: downstream nodes by table ARN; records the calls; fails for `broken` ARNs."""

    def __init__(
        self, graph: dict[str, list[DownstreamNode]] | None = None, broken: Sequence[str] = ()
    ) -> None:
        self.graph = graph or {}
        self.broken = set(broken)
        self.calls: list[str] = []

    def __call__(self, table_arn: str) -> Sequence[DownstreamNode]:
        self.calls.append(table_arn)
        if table_arn in self.broken:
            raise RuntimeError("AccessDeniedException: not authorized to perform QueryGraph")
        return self.graph.get(table_arn, [])


def customers_v2(data_format: str, *columns: debezium.Field, drop: str = "email") -> str:
    kept = tuple(c for c in debezium.TABLES["customers"] if c.name != drop)
    return debezium.render(debezium.envelope(TOPIC, (*kept, *columns)), data_format)


@pytest.mark.parametrize("data_format", debezium.DATA_FORMATS)
def test_a_dropped_row_field_feeding_a_column_is_breaking(data_format: str) -> None:
    # Given customers v2 without `email`, and the lakehouse table whose `email` column it fed
    diff = diff_fields(
        data_format, debezium.table_envelope("customers", data_format), customers_v2(data_format)
    )
    # When the impact is assessed
    impact = assess_impact(diff, [CUSTOMERS])
    # Then the drift is breaking and names the table and the column; `before.email` feeds nothing
    assert impact.severity == "breaking"
    assert impact.feeds_columns
    assert [(t.table, t.table_arn, t.columns) for t in impact.impacted] == [
        ("lakehouse/customers", "arn:aws:glue:eu-west-1:123456789012:table/lakehouse/customers", ("email",))
    ]
    by_field = {a.change.old_path: a for a in impact.changes}
    assert by_field["after.email"].severity == "breaking"
    assert by_field["after.email"].columns == (ColumnHit("lakehouse/customers", "email"),)
    assert by_field["before.email"].severity == "info"
    assert by_field["before.email"].columns == ()


def test_nullability_and_default_changes_feeding_a_column_are_warnings() -> None:
    # Given an unwrapped row where `email` becomes nullable and `status` changes its default
    old = avro(
        {"name": "id", "type": "long"},
        {"name": "email", "type": "string"},
        {"name": "status", "type": "string", "default": "new"},
    )
    new = avro(
        {"name": "id", "type": "long"},
        {"name": "email", "type": ["null", "string"], "default": None},
        {"name": "status", "type": "string", "default": "open"},
    )
    # When assessed against a table with both columns
    impact = assess_impact(diff_fields("AVRO", old, new), [table("accounts", "id", "email", "status")])
    # Then every change is a warning and the worst is a warning
    assert [(a.change.field, a.change.change, a.severity) for a in impact.changes] == [
        ("email", "nullability_changed", "warning"),
        ("email", "default_changed", "warning"),
        ("status", "default_changed", "warning"),
    ]
    assert impact.severity == "warning"
    assert impact.impacted[0].columns == ("email", "status")


def test_an_added_field_is_info_even_when_it_feeds_a_column() -> None:
    # Given v2 adds `phone`, and the table already has a `phone` column (created ahead by the sink's owner)
    diff = diff_fields(
        "AVRO",
        debezium.table_envelope("customers"),
        customers_v2("AVRO", debezium.varchar("phone", nullable=True), drop=""),
    )
    # When assessed
    impact = assess_impact(diff, [table("customers", "id", "email", "phone")])
    # Then the change is info, and the table is still reported as touched (the new field feeds `phone`)
    assert impact.severity == "info"
    assert [t.columns for t in impact.impacted] == [("phone",)]


def test_changes_that_feed_no_column_are_info_and_touch_no_table() -> None:
    # Given a drop of `email`, and a table that has no `email` column
    diff = diff_fields("AVRO", debezium.table_envelope("customers"), customers_v2("AVRO"))
    walker = Walker()
    # When assessed
    impact = assess_impact(diff, [table("customers", "id", "first_name")], walker)
    # Then nothing is impacted: no column, no downstream walk, nothing worth announcing
    assert impact.severity == "info"
    assert not impact.feeds_columns
    assert impact.impacted == ()
    assert walker.calls == []


def test_a_change_inside_a_record_column_impacts_that_column() -> None:
    # Given a row whose record field `address` feeds the struct column `address`, and v2 retypes its zip
    def row(zip_type: str) -> str:
        address = {
            "type": "record",
            "name": "Address",
            "fields": [{"name": "city", "type": "string"}, {"name": "zip", "type": zip_type}],
        }
        return avro({"name": "id", "type": "long"}, {"name": "address", "type": address})

    # When assessed
    impact = assess_impact(diff_fields("AVRO", row("string"), row("int")), [table("people", "id", "address")])
    # Then the struct column is broken by its member's change
    assert impact.changes[0].change.field == "address.zip"
    assert impact.changes[0].severity == "breaking"
    assert impact.impacted[0].columns == ("address",)


def test_a_change_of_a_record_impacts_every_column_fed_from_inside_it() -> None:
    # Given a Debezium-like envelope whose `after` stops being a record
    value = {
        "type": "record",
        "name": "Value",
        "fields": [{"name": "id", "type": "long"}, {"name": "email", "type": "string"}],
    }
    old = avro(
        {"name": "before", "type": ["null", value]},
        {"name": "after", "type": ["null", "Value"]},
        {"name": "op", "type": "string"},
    )
    new = avro(
        {"name": "before", "type": ["null", value]},
        {"name": "after", "type": ["null", "string"]},
        {"name": "op", "type": "string"},
    )
    # When assessed
    impact = assess_impact(diff_fields("AVRO", old, new), [table("customers", "id", "email")])
    # Then every column fed by a field of `after` is broken
    assert next((a.change.field, a.change.change, a.severity) for a in impact.changes) == (
        "after",
        "type_changed",
        "breaking",
    )
    assert impact.impacted[0].columns == ("id", "email")


def test_renamed_fields_feeding_a_column_are_breaking() -> None:
    # Given email renamed by alias: the sink matches columns by name, so column `email` loses its feed
    old = avro({"name": "id", "type": "long"}, {"name": "email", "type": "string"})
    new = avro(
        {"name": "id", "type": "long"}, {"name": "email_address", "type": "string", "aliases": ["email"]}
    )
    # When assessed
    impact = assess_impact(diff_fields("AVRO", old, new), [table("customers", "id", "email")])
    # Then the rename is breaking for `email`, found through the field's old path
    assert [(a.change.change, a.severity, a.columns) for a in impact.changes] == [
        ("renamed", "breaking", (ColumnHit("lakehouse/customers", "email"),))
    ]


def test_protobuf_renumbered_drop_is_breaking_through_the_rename() -> None:
    # Given the protobuf converter's v2 without email, where phone takes email's number
    old = debezium.table_envelope("customers", "PROTOBUF")
    new = customers_v2("PROTOBUF", debezium.varchar("phone"))
    # When assessed
    impact = assess_impact(diff_fields("PROTOBUF", old, new), [CUSTOMERS])
    # Then the email column is impacted as breaking
    assert impact.severity == "breaking"
    assert impact.impacted[0].columns == ("email",)


def test_column_lineage_matches_case_insensitively_like_the_lineage_run() -> None:
    # Given a field `Email` in mixed case and a Glue column `email` (Glue stores lower case)
    old = json_schema({"id": {"type": "integer"}, "Email": {"type": "string"}}, required=["id", "Email"])
    new = json_schema({"id": {"type": "integer"}}, required=["id"])
    # When assessed
    impact = assess_impact(diff_fields("JSON", old, new), [table("customers", "id", "email")])
    # Then the column is impacted
    assert impact.impacted[0].columns == ("email",)
    assert impact.severity == "breaking"


def test_every_mapped_table_is_assessed_and_walked_once() -> None:
    # Given one topic feeding three tables (rule, mapping and connector edges alike): two have `email`
    slim = table("customers_slim", "id", "email", database="analytics")
    untouched = table("customer_ids", "id", database="analytics")
    lake_node = DownstreamNode(
        "node-1",
        "amazon.datazone.GlueTableAssetType",
        1,
        "customers_daily",
        "arn:aws:glue:eu-west-1:123456789012:table/marts/customers_daily",
    )
    walker = Walker({CUSTOMERS.arn: [lake_node]})
    diff = diff_fields("JSON", debezium.table_envelope("customers", "JSON"), customers_v2("JSON"))
    # When assessed
    impact = assess_impact(diff, [CUSTOMERS, untouched, slim, CUSTOMERS], walker)
    # Then both tables with `email` are impacted, in the given order, each walked once (the customers
    # table is named by two edges); the third is not
    assert [(t.table, t.columns) for t in impact.impacted] == [
        ("lakehouse/customers", ("email",)),
        ("analytics/customers_slim", ("email",)),
    ]
    assert walker.calls == [CUSTOMERS.arn, slim.arn]
    assert impact.impacted[0].downstream == (lake_node,)
    after_email = next(a for a in impact.changes if a.change.field == "after.email")
    assert after_email.columns == (
        ColumnHit("lakehouse/customers", "email"),
        ColumnHit("analytics/customers_slim", "email"),
    )


def test_a_failing_downstream_walk_is_reported_and_the_other_tables_still_walked() -> None:
    # Given a walker that fails for the first table
    slim = table("customers_slim", "id", "email", database="analytics")
    node = DownstreamNode("node-2", "amazon.datazone.GlueTableAssetType", 2)
    walker = Walker({slim.arn: [node]}, broken=[CUSTOMERS.arn])
    diff = diff_fields("AVRO", debezium.table_envelope("customers"), customers_v2("AVRO"))
    # When assessed
    impact = assess_impact(diff, [CUSTOMERS, slim], walker)
    # Then the first table's downstream is empty with a warning, the second's is there, and it says partial
    assert [t.downstream for t in impact.impacted] == [(), (node,)]
    assert impact.warnings == (
        "downstream of lakehouse/customers could not be read: RuntimeError: "
        "AccessDeniedException: not authorized to perform QueryGraph",
    )
    assert not impact.complete
    assert impact.severity == "breaking"


def test_an_unwrapped_row_feeds_columns_from_the_top_level() -> None:
    # Given ExtractNewRecordState's unwrapped row in protobuf, v2 changing `email`'s presence
    old = proto("message Value { int32 id = 1; string email = 2; optional string __op = 3; }")
    new = proto("message Value { int32 id = 1; optional string email = 2; optional string __op = 3; }")
    # When assessed
    impact = assess_impact(diff_fields("PROTOBUF", old, new), [table("customers", "id", "email", "__op")])
    # Then the top-level field feeds the column
    assert [(a.change.field, a.severity) for a in impact.changes] == [("email", "warning")]


def test_an_unreadable_version_impacts_nothing_and_says_so() -> None:
    # Given a v2 that cannot be read
    diff = diff_fields("AVRO", debezium.table_envelope("customers"), "{")
    # When assessed
    impact = assess_impact(diff, [CUSTOMERS], Walker())
    # Then no change, no impact, and the result is marked incomplete with the reason
    assert impact.changes == ()
    assert impact.impacted == ()
    assert impact.severity is None
    assert not impact.complete
    assert impact.diff.warnings[0].startswith("new version: AVRO definition is not valid JSON")


# -- the event detail ---------------------------------------------------------------------------------


def test_detail_matches_the_documented_event() -> None:
    # Given customers v2 dropping `email`, one mapped table and one downstream node
    node = DownstreamNode(
        "c5v2ngkz1q8wdj",
        "amazon.datazone.GlueTableAssetType",
        1,
        "customer_emails",
        "arn:aws:glue:eu-west-1:123456789012:table/marts/customer_emails",
    )
    diff = diff_fields("AVRO", debezium.table_envelope("customers"), customers_v2("AVRO"))
    impact = assess_impact(diff, [CUSTOMERS], Walker({CUSTOMERS.arn: [node]}))
    subject = DriftSubject("cdc", TOPIC, SCHEMA_ARN, 1, 2)
    # and who reads the topic: a consumer group and a subscribing project
    readers = Readers(
        consumers=(("order-service", CLUSTER_ARN),), subscribers=(("bq7x3mcwq1n2kd", "c9ehzj1k7r2l5s"),)
    )
    # When the event detail is built
    detail = drift_detail(subject, impact, readers=readers)
    # Then it is the documented detail, breaking changes first, naming who to call
    expected = json.loads((EVENTS / "drift_detail_customers_email_dropped.json").read_text())
    assert detail == expected
    assert list(detail) == [
        "registryName",
        "topic",
        "schemaArn",
        "fromVersion",
        "toVersion",
        "severity",
        "changes",
        "impacted",
        "consumers",
        "subscribers",
    ]


def test_detail_carries_weird_names_verbatim() -> None:
    # Given a registry and topic with every character Glue allows, and a 255-character topic
    for registry, topic in (("cdc.prod-$1#x_", "__debezium-heartbeat.dbserver1"), ("r", "t" * 255)):
        arn = f"arn:aws:glue:eu-west-1:123456789012:schema/{registry}/{topic}"
        old = avro({"name": "ts_ms", "type": "long"})
        new = avro({"name": "ts_ms", "type": "int"})
        impact = assess_impact(diff_fields("AVRO", old, new), [table("heartbeat", "ts_ms")])
        # When the detail is built
        detail = drift_detail(DriftSubject(registry, topic, arn, 7, 9), impact)
        # Then names, ARN and versions are carried as they are
        assert (detail["registryName"], detail["topic"], detail["schemaArn"]) == (registry, topic, arn)
        assert (detail["fromVersion"], detail["toVersion"], detail["severity"]) == (7, 9, "breaking")


def test_a_wide_table_drop_fits_one_event_keeping_every_breaking_change() -> None:
    # Given a 2,000-column table whose v2 keeps only `id`: 3,998 removals (before.* and after.*)
    columns = debezium.synthetic_columns(2000)
    old = debezium.render(debezium.envelope("wide", columns), "JSON", json_type_unions=True)
    new = debezium.render(debezium.envelope("wide", columns[:1]), "JSON", json_type_unions=True)
    wide = table("wide", *(c.name for c in columns))
    impact = assess_impact(diff_fields("JSON", old, new), [wide])
    subject = DriftSubject("cdc", "wide", "arn:aws:glue:eu-west-1:123456789012:schema/cdc/wide", 1, 2)
    # When the detail is built within PutEvents' entry limit
    detail = drift_detail(subject, impact)
    # Then it fits, keeps all 1,999 breaking removals and every impacted column, and counts the info
    # changes it left out
    size = len(json.dumps(detail, separators=(",", ":"), ensure_ascii=False).encode())
    assert size <= MAX_DETAIL_BYTES < 262_144
    kept = detail["changes"]
    assert [c["field"] for c in kept[:1999]] == [f"after.{c.name}" for c in columns[1:]]
    assert all(c["field"].startswith("before.") for c in kept[1999:])
    assert detail["truncated"] == {"changes": 3998 - len(kept), "downstream": 0, "columns": 0}
    assert detail["truncated"]["changes"] > 0
    assert len(detail["impacted"][0]["columns"]) == 1999


def test_columns_are_cut_last_when_even_the_changes_do_not_fit() -> None:
    # Given the same wide drop and a budget too small for the impacted columns
    columns = debezium.synthetic_columns(400)
    old = debezium.render(debezium.envelope("wide", columns), "AVRO")
    new = debezium.render(debezium.envelope("wide", columns[:1]), "AVRO")
    impact = assess_impact(diff_fields("AVRO", old, new), [table("wide", *(c.name for c in columns))])
    subject = DriftSubject("cdc", "wide", "arn:aws:glue:eu-west-1:123456789012:schema/cdc/wide", 1, 2)
    # When the detail is built within 2,000 bytes
    detail = drift_detail(subject, impact, max_bytes=2_000)
    # Then every change went first, then columns, and the counts say so
    assert len(json.dumps(detail, separators=(",", ":"), ensure_ascii=False).encode()) <= 2_000
    assert detail["changes"] == []
    assert detail["truncated"]["changes"] == len(impact.changes)
    assert detail["truncated"]["columns"] == 399 - len(detail["impacted"][0]["columns"])


def test_the_fingerprint_names_the_drift_not_the_graph() -> None:
    # Given the same drift assessed twice, with different downstream graphs
    diff = diff_fields("AVRO", debezium.table_envelope("customers"), customers_v2("AVRO"))
    subject = DriftSubject("cdc", TOPIC, SCHEMA_ARN, 1, 2)
    one = assess_impact(diff, [CUSTOMERS], Walker())
    two = assess_impact(diff, [CUSTOMERS], Walker({CUSTOMERS.arn: [DownstreamNode("n", "t", 1)]}))
    # When fingerprinted
    # Then both are the same drift, and another version pair is another drift
    assert drift_fingerprint(subject, one) == drift_fingerprint(subject, two)
    other = DriftSubject("cdc", TOPIC, SCHEMA_ARN, 2, 3)
    assert drift_fingerprint(other, one) != drift_fingerprint(subject, one)
