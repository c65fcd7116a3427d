"""AVRO definitions -> columns."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from kafka_lineage.schemas import MAX_COLUMNS, MAX_DEPTH, Column, parse_definition, row_fields

# What Debezium's MySQL connector registers through an Avro converter for dbserver1.inventory.customers
# (source block trimmed): `Value` is defined inside `before` and referenced by its full name from `after`.
CUSTOMERS_ENVELOPE: dict[str, Any] = {
    "type": "record",
    "name": "Envelope",
    "namespace": "dbserver1.inventory.customers",
    "fields": [
        {
            "name": "before",
            "type": [
                "null",
                {
                    "type": "record",
                    "name": "Value",
                    "fields": [
                        {"name": "id", "type": "int"},
                        {"name": "first_name", "type": "string"},
                        {"name": "last_name", "type": "string"},
                        {"name": "email", "type": "string"},
                        {
                            "name": "created",
                            "type": [
                                "null",
                                {
                                    "type": "long",
                                    "connect.version": 1,
                                    "connect.name": "io.debezium.time.MicroTimestamp",
                                },
                            ],
                            "default": None,
                        },
                    ],
                    "connect.name": "dbserver1.inventory.customers.Value",
                },
            ],
            "default": None,
        },
        {"name": "after", "type": ["null", "Value"], "default": None},
        {
            "name": "source",
            "type": {
                "type": "record",
                "name": "Source",
                "namespace": "io.debezium.connector.mysql",
                "fields": [
                    {"name": "version", "type": "string"},
                    {"name": "connector", "type": "string"},
                    {"name": "ts_ms", "type": "long"},
                    {
                        "name": "snapshot",
                        "type": [
                            {
                                "type": "string",
                                "connect.version": 1,
                                "connect.parameters": {"allowed": "true,last,false,incremental"},
                                "connect.default": "false",
                                "connect.name": "io.debezium.data.Enum",
                            },
                            "null",
                        ],
                        "default": "false",
                    },
                    {"name": "db", "type": "string"},
                    {"name": "table", "type": ["null", "string"], "default": None},
                ],
                "connect.version": 1,
                "connect.name": "io.debezium.connector.mysql.Source",
            },
        },
        {
            "name": "transaction",
            "type": [
                "null",
                {
                    "type": "record",
                    "name": "block",
                    "namespace": "event",
                    "fields": [
                        {"name": "id", "type": "string"},
                        {"name": "total_order", "type": "long"},
                        {"name": "data_collection_order", "type": "long"},
                    ],
                    "connect.version": 1,
                    "connect.name": "event.block",
                },
            ],
            "default": None,
        },
        {"name": "op", "type": "string"},
        {"name": "ts_ms", "type": ["null", "long"], "default": None},
    ],
    "connect.version": 2,
    "connect.name": "dbserver1.inventory.customers.Envelope",
}


def parse_avro(schema: Any) -> tuple[Column, ...]:
    result = parse_definition("AVRO", json.dumps(schema))
    assert result.warning is None, result.warning
    return result.columns


def record(*fields: dict[str, Any], name: str = "Row", namespace: str = "test") -> dict[str, Any]:
    return {"type": "record", "name": name, "namespace": namespace, "fields": list(fields)}


def column_of(columns: tuple[Column, ...], name: str) -> Column:
    return next(column for column in columns if column.name == name)


def test_debezium_envelope_expands_the_named_value_record_under_before_and_after():
    # Given Debezium's envelope, whose `after` refers to the `Value` record defined in `before`
    # When it is parsed
    columns = parse_avro(CUSTOMERS_ENVELOPE)

    # Then both images carry the row's columns, with the same types, and the envelope fields follow
    value_type = "record (dbserver1.inventory.customers.Value)"
    assert [c.name for c in columns] == [
        "before",
        "before.id",
        "before.first_name",
        "before.last_name",
        "before.email",
        "before.created",
        "after",
        "after.id",
        "after.first_name",
        "after.last_name",
        "after.email",
        "after.created",
        "source",
        "source.version",
        "source.connector",
        "source.ts_ms",
        "source.snapshot",
        "source.db",
        "source.table",
        "transaction",
        "transaction.id",
        "transaction.total_order",
        "transaction.data_collection_order",
        "op",
        "ts_ms",
    ]
    assert column_of(columns, "before") == Column("before", value_type, True)
    assert column_of(columns, "after") == Column("after", value_type, True)
    for image in ("before", "after"):
        assert column_of(columns, f"{image}.id") == Column(f"{image}.id", "int", False)
        assert column_of(columns, f"{image}.created") == Column(
            f"{image}.created", "long (io.debezium.time.MicroTimestamp)", True
        )
    assert column_of(columns, "source") == Column(
        "source", "record (io.debezium.connector.mysql.Source)", False
    )
    assert column_of(columns, "source.snapshot") == Column(
        "source.snapshot", "string (io.debezium.data.Enum)", True
    )
    assert column_of(columns, "transaction.total_order") == Column("transaction.total_order", "long", False)
    assert column_of(columns, "op") == Column("op", "string", False)
    assert column_of(columns, "ts_ms") == Column("ts_ms", "long", True)


def test_row_fields_of_the_envelope_are_the_children_of_after():
    # Given the parsed envelope
    columns = parse_avro(CUSTOMERS_ENVELOPE)

    # When the lineage asks which columns carry the row
    fields = row_fields(columns)

    # Then each field of the row maps to its column under `after`
    assert fields == {
        "id": "after.id",
        "first_name": "after.first_name",
        "last_name": "after.last_name",
        "email": "after.email",
        "created": "after.created",
    }


@pytest.mark.parametrize(
    ("avro_type", "expected"),
    [
        ({"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}, "decimal(10,2)"),
        ({"type": "bytes", "logicalType": "decimal", "precision": 7}, "decimal(7,0)"),
        (
            {
                "type": "fixed",
                "name": "Money",
                "size": 8,
                "logicalType": "decimal",
                "precision": 18,
                "scale": 4,
            },
            "decimal(18,4)",
        ),
        ({"type": "int", "logicalType": "date"}, "date"),
        ({"type": "int", "logicalType": "time-millis"}, "time-millis"),
        ({"type": "long", "logicalType": "time-micros"}, "time-micros"),
        ({"type": "long", "logicalType": "timestamp-millis"}, "timestamp-millis"),
        ({"type": "long", "logicalType": "timestamp-micros"}, "timestamp-micros"),
        ({"type": "long", "logicalType": "timestamp-nanos"}, "timestamp-nanos"),
        ({"type": "long", "logicalType": "local-timestamp-millis"}, "local-timestamp-millis"),
        ({"type": "long", "logicalType": "local-timestamp-micros"}, "local-timestamp-micros"),
        ({"type": "string", "logicalType": "uuid"}, "uuid"),
        ({"type": "fixed", "name": "Id", "size": 16, "logicalType": "uuid"}, "uuid"),
        ({"type": "fixed", "name": "Span", "size": 12, "logicalType": "duration"}, "duration"),
        # Invalid logical types are ignored, as the specification says: the base type shows.
        ({"type": "bytes", "logicalType": "decimal", "precision": 2, "scale": 5}, "bytes"),
        ({"type": "string", "logicalType": "date"}, "string"),
        ({"type": "long", "logicalType": "no-such-type"}, "long"),
    ],
)
def test_logical_types_replace_their_base_type(avro_type, expected):
    # Given a field with a logical type
    schema = record({"name": "value", "type": avro_type})

    # When it is parsed
    columns = parse_avro(schema)

    # Then the column shows the logical type
    assert columns == (Column("value", expected, False),)


@pytest.mark.parametrize(
    ("avro_type", "expected"),
    [
        (
            {"type": "long", "connect.version": 1, "connect.name": "io.debezium.time.Timestamp"},
            "long (io.debezium.time.Timestamp)",
        ),
        (
            {"type": "long", "connect.version": 1, "connect.name": "io.debezium.time.MicroTimestamp"},
            "long (io.debezium.time.MicroTimestamp)",
        ),
        (
            {"type": "string", "connect.version": 1, "connect.name": "io.debezium.time.ZonedTimestamp"},
            "string (io.debezium.time.ZonedTimestamp)",
        ),
        (
            {"type": "int", "connect.version": 1, "connect.name": "io.debezium.time.Date"},
            "int (io.debezium.time.Date)",
        ),
        (
            {"type": "string", "connect.version": 1, "connect.name": "io.debezium.data.Json"},
            "string (io.debezium.data.Json)",
        ),
        (
            {
                "type": "bytes",
                "connect.version": 1,
                "connect.parameters": {"length": "8"},
                "connect.name": "io.debezium.data.Bits",
            },
            "bytes (io.debezium.data.Bits)",
        ),
        # Kafka Connect's own logical types are shown as the logical type, with or without Avro's logicalType.
        (
            {
                "type": "bytes",
                "scale": 2,
                "precision": 10,
                "connect.version": 1,
                "connect.parameters": {"scale": "2", "connect.decimal.precision": "10"},
                "connect.name": "org.apache.kafka.connect.data.Decimal",
                "logicalType": "decimal",
            },
            "decimal(10,2)",
        ),
        (
            {
                "type": "bytes",
                "connect.version": 1,
                "connect.parameters": {"scale": "3", "connect.decimal.precision": "12"},
                "connect.name": "org.apache.kafka.connect.data.Decimal",
            },
            "decimal(12,3)",
        ),
        (
            {
                "type": "bytes",
                "connect.parameters": {"scale": "3"},
                "connect.name": "org.apache.kafka.connect.data.Decimal",
            },
            "decimal(scale=3)",
        ),
        (
            {
                "type": "long",
                "connect.name": "org.apache.kafka.connect.data.Timestamp",
                "logicalType": "timestamp-millis",
            },
            "timestamp-millis",
        ),
        ({"type": "int", "connect.name": "org.apache.kafka.connect.data.Date"}, "date"),
        # Connect's narrow integers travel as Avro int with connect.type.
        ({"type": "int", "connect.type": "int16"}, "short"),
        ({"type": "int", "connect.type": "int8"}, "byte"),
    ],
)
def test_kafka_connect_semantic_types_show_in_the_data_type(avro_type, expected):
    # Given a field as a Kafka Connect Avro converter writes a Debezium semantic type
    schema = record({"name": "value", "type": avro_type})

    # When it is parsed
    columns = parse_avro(schema)

    # Then the semantic type is visible
    assert columns == (Column("value", expected, False),)


def test_debezium_point_is_a_record_with_its_coordinates():
    # Given a Postgres POINT column as Debezium emits it
    point = {
        "type": "record",
        "name": "Point",
        "namespace": "io.debezium.data.geometry",
        "fields": [
            {"name": "x", "type": "double"},
            {"name": "y", "type": "double"},
            {"name": "wkb", "type": ["null", "bytes"], "default": None},
            {"name": "srid", "type": ["null", "int"], "default": None},
        ],
        "connect.doc": "Geometry (POINT)",
        "connect.version": 1,
        "connect.name": "io.debezium.data.geometry.Point",
    }
    schema = record({"name": "location", "type": ["null", point], "default": None})

    # When it is parsed
    columns = parse_avro(schema)

    # Then the point and its parts are columns, and the Connect doc describes it
    assert columns == (
        Column("location", "record (io.debezium.data.geometry.Point)", True, "Geometry (POINT)"),
        Column("location.x", "double", False),
        Column("location.y", "double", False),
        Column("location.wkb", "bytes", True),
        Column("location.srid", "int", True),
    )


@pytest.mark.parametrize(
    ("union", "expected_type", "expected_nullable"),
    [
        (["null", "string"], "string", True),
        (["string", "null"], "string", True),
        (["null", "string", "int"], "union<string,int>", True),
        (["string", "int"], "union<string,int>", False),
        (["null", {"type": "long", "logicalType": "timestamp-micros"}], "timestamp-micros", True),
        (
            [
                "null",
                {"type": "record", "name": "Card", "fields": [{"name": "pan", "type": "string"}]},
                {"type": "record", "name": "Transfer", "namespace": "bank", "fields": []},
                {"type": "enum", "name": "Cash", "symbols": ["EUR"]},
            ],
            "union<test.Card,bank.Transfer,test.Cash>",
            True,
        ),
    ],
)
def test_unions(union, expected_type, expected_nullable):
    # Given a field whose type is a union
    schema = record({"name": "value", "type": union})

    # When it is parsed
    columns = parse_avro(schema)

    # Then ["null", X] is a nullable X and any other union is shown as such
    assert columns == (Column("value", expected_type, expected_nullable),)


def test_arrays_maps_enums_and_fixed():
    # Given collection and named scalar types
    line = record({"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}, name="Line")
    schema = record(
        {"name": "tags", "type": {"type": "array", "items": "string"}},
        {"name": "maybe_tags", "type": {"type": "array", "items": ["null", "string"]}},
        {"name": "lines", "type": {"type": "array", "items": line}},
        {"name": "counters", "type": {"type": "map", "values": "long"}},
        {"name": "by_sku", "type": ["null", {"type": "map", "values": "test.Line"}], "default": None},
        {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "DONE"]}},
        {"name": "digest", "type": {"type": "fixed", "name": "Md5", "size": 16}},
        {"name": "matrix", "type": {"type": "array", "items": {"type": "array", "items": "double"}}},
    )

    # When it is parsed
    columns = parse_avro(schema)

    # Then collections show their element types and records inside them are expanded
    assert columns == (
        Column("tags", "array<string>", False),
        Column("maybe_tags", "array<string>", False),
        Column("lines", "array<record>", False),
        Column("lines.sku", "string", False),
        Column("lines.qty", "int", False),
        Column("counters", "map<string,long>", False),
        Column("by_sku", "map<string,record>", True),
        Column("by_sku.sku", "string", False),
        Column("by_sku.qty", "int", False),
        Column("status", "enum", False),
        Column("digest", "fixed(16)", False),
        Column("matrix", "array<array<double>>", False),
    )


def test_a_recursive_record_stops_at_the_reference_and_marks_it():
    # Given a linked list and a pair of mutually recursive records
    schema = {
        "type": "record",
        "name": "Node",
        "namespace": "graph",
        "fields": [
            {"name": "value", "type": "string"},
            {"name": "next", "type": ["null", "Node"], "default": None},
            {
                "name": "edge",
                "type": {
                    "type": "record",
                    "name": "Edge",
                    "fields": [
                        {"name": "weight", "type": "double"},
                        {"name": "target", "type": "Node"},
                        {"name": "history", "type": {"type": "array", "items": "Edge"}},
                    ],
                },
            },
        ],
    }

    # When it is parsed
    columns = parse_avro(schema)

    # Then each reference back to an open record is one marked column, with nothing below it
    assert columns == (
        Column("value", "string", False),
        Column("next", "record (recursive: graph.Node)", True),
        Column("edge", "record", False),
        Column("edge.weight", "double", False),
        Column("edge.target", "record (recursive: graph.Node)", False),
        Column("edge.history", "array<record> (recursive: graph.Edge)", False),
    )


def test_a_named_type_used_on_separate_paths_is_expanded_on_each():
    # Given a record type used by two sibling fields (not recursion)
    address = record({"name": "city", "type": "string"}, name="Address")
    schema = record({"name": "billing", "type": address}, {"name": "shipping", "type": "test.Address"})

    # When it is parsed
    columns = parse_avro(schema)

    # Then both fields are expanded
    assert [c.name for c in columns] == ["billing", "billing.city", "shipping", "shipping.city"]


def test_docs_become_descriptions_on_one_line():
    # Given fields with documentation, some multi-line
    schema = record(
        {"name": "id", "type": "int", "doc": "Primary key\n   of the row "},
        {"name": "note", "type": "string", "doc": "   "},
    )

    # When it is parsed
    columns = parse_avro(schema)

    # Then the description is the doc, trimmed; a blank doc is no description
    assert columns == (Column("id", "int", False, "Primary key of the row"), Column("note", "string", False))


def nested(depth: int) -> dict[str, Any]:
    innermost: dict[str, Any] = record({"name": "leaf", "type": "string"}, name=f"R{depth}")
    for level in range(depth - 1, 0, -1):
        innermost = record({"name": f"c{level}", "type": innermost}, name=f"R{level}")
    return innermost


def test_nesting_beyond_the_cap_is_cut_with_a_warning():
    # Given records nested 40 levels deep
    schema = nested(40)

    # When it is parsed
    result = parse_definition("AVRO", json.dumps(schema))

    # Then the first MAX_DEPTH levels are columns and the warning says where it stopped
    assert len(result.columns) == MAX_DEPTH
    assert result.columns[-1].data_type == "record"
    assert result.warning is not None
    assert f"nesting deeper than {MAX_DEPTH} levels" in result.warning


def test_very_deep_nesting_does_not_exhaust_the_stack():
    # Given records nested far beyond Python's recursion limit (written as text: json.dumps would recurse)
    depth = 1500
    opening = "".join(f'{{"type":"record","name":"R{i}","fields":[{{"name":"c","type":' for i in range(depth))
    definition = opening + '"string"' + "}]}" * depth

    # When it is parsed
    result = parse_definition("AVRO", definition)

    # Then the parse ends with a warning, never a RecursionError
    assert result.warning is not None


def test_exponential_expansion_is_capped():
    # Given 24 record types, each with two fields of the next type (2**24 paths when expanded)
    schema: dict[str, Any] = record({"name": "leaf", "type": "string"}, name="T24")
    for level in range(23, -1, -1):
        child = schema
        schema = record(
            {"name": "left", "type": child}, {"name": "right", "type": f"test.T{level + 1}"}, name=f"T{level}"
        )

    # When it is parsed
    started = time.perf_counter()
    result = parse_definition("AVRO", json.dumps(schema))
    elapsed = time.perf_counter() - started

    # Then it stops at the column cap and says so, in reasonable time
    assert len(result.columns) == MAX_COLUMNS
    assert result.warning is not None
    assert f"more than {MAX_COLUMNS} columns" in result.warning
    assert elapsed < 30


def test_duplicate_field_names_are_left_out_with_a_warning():
    # Given a record that declares a field twice (fastavro accepts it; the Avro spec does not)
    schema = record({"name": "id", "type": "int"}, {"name": "id", "type": "string"})

    # When it is parsed
    result = parse_definition("AVRO", json.dumps(schema))

    # Then the first wins and the duplicate is reported
    assert result.columns == (Column("id", "int", False),)
    assert result.warning is not None
    assert "duplicate" in result.warning


@pytest.mark.parametrize(
    ("definition", "reason"),
    [
        ('{"type": "record", "name": ', "not valid JSON"),
        ("5", "not a valid Avro schema"),
        ('{"type": "record"}', "not a valid Avro schema"),
        (
            '{"type": "record", "name": "R", "fields": [{"name": "a", "type": "Nope"}]}',
            "not a valid Avro schema",
        ),
        ('{"type": "record", "name": "R", "fields": [{"name": "a"}]}', "not a valid Avro schema"),
        ('{"type": "array"}', "not a valid Avro schema"),
        ('"string"', "root is string, not a record"),
        ('{"type": "map", "values": "long"}', "root is map<string,long>, not a record"),
    ],
)
def test_broken_or_unusable_definitions_give_a_warning_and_no_columns(definition, reason):
    # Given a definition that is not a usable Avro record schema
    # When it is parsed
    result = parse_definition("AVRO", definition)

    # Then there are no columns and the warning says why
    assert result.columns == ()
    assert result.warning is not None
    assert reason in result.warning


def test_a_nullable_record_root_is_accepted():
    # Given a schema whose root is ["null", record] (some producers register optional values so)
    schema = ["null", record({"name": "id", "type": "long"})]

    # When it is parsed
    columns = parse_avro(schema)

    # Then the record's fields are the columns
    assert columns == (Column("id", "long", False),)
