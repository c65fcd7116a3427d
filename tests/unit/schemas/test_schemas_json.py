"""JSON definitions (JSON Schema, and Kafka Connect's own JSON schema shape) -> columns."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kafka_lineage.schemas import MAX_DEPTH, Column, parse_definition, row_fields

# What the Glue Schema Registry's Kafka Connect JsonSchemaConverter writes for a Debezium change event
# (trimmed): no `required`; optional fields are a oneOf with null first; connect.index orders the properties.
CONVERTER_ENVELOPE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "before": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "connect.type": "int32", "connect.index": 0},
                        "email": {"type": "string", "connect.index": 1},
                        "created": {
                            "oneOf": [
                                {"type": "null"},
                                {
                                    "type": "integer",
                                    "connect.type": "int64",
                                    "connect.version": 1,
                                    "connect.name": "io.debezium.time.MicroTimestamp",
                                },
                            ],
                            "connect.index": 2,
                        },
                    },
                    "connect.name": "dbserver1.inventory.customers.Value",
                },
            ],
            "connect.index": 0,
        },
        "after": {
            "oneOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer", "connect.type": "int32", "connect.index": 0},
                        "email": {"type": "string", "connect.index": 1},
                        "created": {
                            "oneOf": [
                                {"type": "null"},
                                {
                                    "type": "integer",
                                    "connect.type": "int64",
                                    "connect.version": 1,
                                    "connect.name": "io.debezium.time.MicroTimestamp",
                                },
                            ],
                            "connect.index": 2,
                        },
                    },
                    "connect.name": "dbserver1.inventory.customers.Value",
                },
            ],
            "connect.index": 1,
        },
        "source": {
            "type": "object",
            "properties": {
                "version": {"type": "string", "connect.index": 0},
                "ts_ms": {"type": "integer", "connect.type": "int64", "connect.index": 1},
                "table": {"oneOf": [{"type": "null"}, {"type": "string"}], "connect.index": 2},
            },
            "connect.name": "io.debezium.connector.mysql.Source",
            "connect.index": 2,
        },
        "op": {"type": "string", "connect.index": 3},
        "ts_ms": {
            "oneOf": [{"type": "null"}, {"type": "integer", "connect.type": "int64"}],
            "connect.index": 4,
        },
    },
    "connect.name": "dbserver1.inventory.customers.Envelope",
}

# Kafka Connect's JsonConverter `schema` for the same event, as Debezium's documentation shows it (trimmed).
CONNECT_SHAPE: dict[str, Any] = {
    "type": "struct",
    "fields": [
        {
            "type": "struct",
            "fields": [
                {"type": "int32", "optional": False, "field": "id"},
                {"type": "string", "optional": False, "field": "first_name"},
                {
                    "type": "int32",
                    "optional": True,
                    "name": "io.debezium.time.Date",
                    "version": 1,
                    "field": "birthday",
                },
                {
                    "type": "bytes",
                    "optional": True,
                    "name": "org.apache.kafka.connect.data.Decimal",
                    "version": 1,
                    "parameters": {"scale": "2", "connect.decimal.precision": "8"},
                    "field": "balance",
                },
                {
                    "type": "array",
                    "optional": True,
                    "items": {"type": "string", "optional": False},
                    "field": "tags",
                },
                {
                    "type": "map",
                    "optional": True,
                    "keys": {"type": "string", "optional": False},
                    "values": {"type": "int64", "optional": True},
                    "field": "counters",
                },
                {"type": "float", "optional": True, "field": "weight"},
            ],
            "optional": True,
            "name": "dbserver1.inventory.customers.Value",
            "field": "before",
        },
        {
            "type": "struct",
            "fields": [
                {"type": "int32", "optional": False, "field": "id"},
                {"type": "string", "optional": False, "field": "first_name"},
            ],
            "optional": True,
            "name": "dbserver1.inventory.customers.Value",
            "field": "after",
        },
        {
            "type": "struct",
            "fields": [
                {"type": "string", "optional": False, "field": "version"},
                {"type": "int64", "optional": False, "field": "ts_ms"},
            ],
            "optional": False,
            "name": "io.debezium.connector.mysql.Source",
            "field": "source",
        },
        {"type": "string", "optional": False, "field": "op"},
        {"type": "int64", "optional": True, "field": "ts_ms"},
    ],
    "optional": False,
    "name": "dbserver1.inventory.customers.Envelope",
}


def parse_json(schema: Any) -> tuple[Column, ...]:
    result = parse_definition("JSON", json.dumps(schema))
    assert result.warning is None, result.warning
    return result.columns


def obj(
    properties: dict[str, Any], required: list[str] | None = None, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties, **(extra or {})}
    if required is not None:
        schema["required"] = required
    return schema


def test_connect_converter_output_takes_nullability_from_the_null_branch_only():
    # Given a Debezium envelope as the registry's Kafka Connect JSON converter writes it (no `required`)
    # When it is parsed
    columns = parse_json(CONVERTER_ENVELOPE)

    # Then fields without a null branch are not nullable, and Connect types and names are shown
    value = "record (dbserver1.inventory.customers.Value)"
    assert columns == (
        Column("before", value, True),
        Column("before.id", "int", False),
        Column("before.email", "string", False),
        Column("before.created", "long (io.debezium.time.MicroTimestamp)", True),
        Column("after", value, True),
        Column("after.id", "int", False),
        Column("after.email", "string", False),
        Column("after.created", "long (io.debezium.time.MicroTimestamp)", True),
        Column("source", "record (io.debezium.connector.mysql.Source)", False),
        Column("source.version", "string", False),
        Column("source.ts_ms", "long", False),
        Column("source.table", "string", True),
        Column("op", "string", False),
        Column("ts_ms", "long", True),
    )
    assert row_fields(columns) == {"id": "after.id", "email": "after.email", "created": "after.created"}


def test_kafka_connect_json_converter_schema_shape():
    # Given the schema Kafka Connect's JsonConverter embeds in each message (schemas.enable=true)
    # When it is parsed, alone or as the `schema` of a whole message
    columns = parse_json(CONNECT_SHAPE)
    from_message = parse_json({"schema": CONNECT_SHAPE, "payload": {"op": "c"}})

    # Then fields, optionality, Connect types and semantic names become columns
    assert from_message == columns
    assert columns[:9] == (
        Column("before", "record (dbserver1.inventory.customers.Value)", True),
        Column("before.id", "int", False),
        Column("before.first_name", "string", False),
        Column("before.birthday", "int (io.debezium.time.Date)", True),
        Column("before.balance", "decimal(8,2)", True),
        Column("before.tags", "array<string>", True),
        Column("before.counters", "map<string,long>", True),
        Column("before.weight", "float", True),
        Column("after", "record (dbserver1.inventory.customers.Value)", True),
    )
    assert [c.name for c in columns[9:]] == [
        "after.id",
        "after.first_name",
        "source",
        "source.version",
        "source.ts_ms",
        "op",
        "ts_ms",
    ]
    assert row_fields(columns) == {"id": "after.id", "first_name": "after.first_name"}


def test_plain_json_schema_required_and_null_types():
    # Given a hand-written JSON Schema
    schema = obj(
        {
            "id": {"type": "integer", "description": "Primary key"},
            "name": {"type": ["string", "null"]},
            "email": {"type": "string", "format": "email"},
            "updated": {"type": "string", "format": "date-time"},
            "score": {"type": "number"},
            "active": {"type": "boolean"},
            "legacy": {"type": "string", "nullable": True},
        },
        required=["id", "name", "email", "legacy"],
    )

    # When it is parsed
    columns = parse_json(schema)

    # Then required fields are not nullable unless their type admits null, and formats are shown
    assert columns == (
        Column("id", "integer", False, "Primary key"),
        Column("name", "string", True),
        Column("email", "string (email)", False),
        Column("updated", "string (date-time)", True),
        Column("score", "number", True),
        Column("active", "boolean", True),
        Column("legacy", "string", True),
    )


def test_nested_objects_arrays_and_maps():
    # Given nested objects, arrays of objects and maps
    schema = obj(
        {
            "customer": obj(
                {"id": {"type": "integer"}, "address": obj({"city": {"type": "string"}}, ["city"])}, ["id"]
            ),
            "lines": {"type": "array", "items": obj({"sku": {"type": "string"}}, ["sku"])},
            "tags": {"type": "array", "items": {"type": "string"}},
            "attributes": {"type": "object", "additionalProperties": {"type": "integer"}},
            "extra": {"type": "object"},
            "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}]},
            "anything": {},
        },
        required=["customer"],
    )

    # When it is parsed
    columns = parse_json(schema)

    # Then nested properties are dotted and objects inside arrays are expanded
    assert columns == (
        Column("customer", "record", False),
        Column("customer.id", "integer", False),
        Column("customer.address", "record", True),
        Column("customer.address.city", "string", False),
        Column("lines", "array<record>", True),
        Column("lines.sku", "string", False),
        Column("tags", "array<string>", True),
        Column("attributes", "map<string,integer>", True),
        Column("extra", "object", True),
        Column("pair", "array<union<string,integer>>", True),
        Column("anything", "any", True),
    )


def test_refs_to_defs_and_definitions_are_followed():
    # Given properties that refer to shared definitions (2020-12 `$defs` and draft-07 `definitions`)
    schema = obj(
        {
            "before": {"oneOf": [{"type": "null"}, {"$ref": "#/$defs/Value"}]},
            "after": {"anyOf": [{"$ref": "#/$defs/Value"}, {"type": "null"}], "description": "The new row"},
            "source": {"$ref": "#/definitions/Source"},
            "op": {"type": "string"},
        },
        required=["before", "after", "source", "op"],
        extra={
            "$defs": {"Value": obj({"id": {"type": "integer"}}, ["id"], {"description": "A row"})},
            "definitions": {"Source": obj({"db": {"type": "string"}}, ["db"])},
        },
    )

    # When it is parsed
    columns = parse_json(schema)

    # Then each reference is expanded where it is used, descriptions from the use site winning
    assert columns == (
        Column("before", "record", True, "A row"),
        Column("before.id", "integer", False),
        Column("after", "record", True, "The new row"),
        Column("after.id", "integer", False),
        Column("source", "record", False),
        Column("source.db", "string", False),
        Column("op", "string", False),
    )
    assert row_fields(columns) == {"id": "after.id"}


def test_recursive_refs_terminate_and_are_marked():
    # Given a tree node that refers to itself, directly and through the root
    schema = obj(
        {
            "name": {"type": "string"},
            "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            "parent": {"$ref": "#"},
        },
        extra={"$defs": {"Node": obj({"label": {"type": "string"}, "next": {"$ref": "#/$defs/Node"}})}},
    )

    # When it is parsed
    columns = parse_json(schema)

    # Then the walk stops at each reference already open on its path
    assert columns == (
        Column("name", "string", True),
        Column("children", "array<record>", True),
        Column("children.label", "string", True),
        Column("children.next", "record (recursive: #/$defs/Node)", True),
        Column("parent", "record (recursive: #)", True),
    )


def test_unions_enums_consts_and_allof():
    # Given combinators and value keywords
    schema = {
        "allOf": [
            obj({"id": {"type": "integer"}}, ["id"]),
            {"properties": {"kind": {"enum": ["A", "B"]}, "version": {"const": 2}}, "required": ["kind"]},
        ],
        "properties": {
            "value": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            "mixed": {"type": ["string", "integer", "null"]},
        },
    }

    # When it is parsed
    columns = parse_json(schema)

    # Then allOf branches add their properties and unions are named
    assert columns == (
        Column("value", "union<string,integer>", True),
        Column("maybe", "union<string,integer>", True),
        Column("mixed", "union<string,integer>", True),
        Column("id", "integer", False),
        Column("kind", "enum", False),
        Column("version", "integer", True),
    )


def test_references_that_cannot_be_resolved_are_kept_as_written():
    # Given references to another document and to a missing definition, and a pointer with escapes
    schema = obj(
        {
            "money": {"$ref": "https://example.com/schemas/money.json"},
            "missing": {"$ref": "#/$defs/Nope"},
            "escaped": {"$ref": "#/$defs/a~1b%25c"},
            "own": {"$ref": "https://example.com/root.json#/$defs/Amount"},
        },
        extra={
            "$id": "https://example.com/root.json",
            "$defs": {"a/b%c": {"type": "boolean"}, "Amount": {"type": "number"}},
        },
    )

    # When it is parsed
    columns = parse_json(schema)

    # Then local pointers resolve (escapes included) and other references show what they point at
    assert columns == (
        Column("money", "reference (https://example.com/schemas/money.json)", True),
        Column("missing", "reference (#/$defs/Nope)", True),
        Column("escaped", "boolean", True),
        Column("own", "number", True),
    )


def test_property_names_with_dots_stay_whole():
    # Given property names that contain dots, at the top and inside a Debezium-like `after`
    schema = obj(
        {
            "a.b": {"type": "string"},
            "c": obj({"d": {"type": "integer"}}),
            "after": {
                "oneOf": [{"type": "null"}, obj({"x.y": {"type": "string"}, "z": {"type": "integer"}})]
            },
            "op": {"type": "string"},
        }
    )

    # When it is parsed and the row fields are read
    columns = parse_json(schema)
    fields = row_fields(columns)

    # Then dotted names stay whole, in the columns and in the row fields
    assert [c.name for c in columns] == ["a.b", "c", "c.d", "after", "after.x.y", "after.z", "op"]
    assert fields == {"x.y": "after.x.y", "z": "after.z"}


def test_a_dotted_name_that_collides_with_a_nested_path_is_reported():
    # Given a property "a.b" and an object "a" with a property "b": both would be column "a.b"
    schema = obj({"a.b": {"type": "string"}, "a": obj({"b": {"type": "integer"}})})

    # When it is parsed
    result = parse_definition("JSON", json.dumps(schema))

    # Then the first keeps the name and the collision is reported
    assert result.columns == (Column("a.b", "string", True), Column("a", "record", True))
    assert result.warning is not None
    assert "duplicate column name" in result.warning


def test_nesting_beyond_the_cap_is_cut_with_a_warning():
    # Given objects nested 40 levels deep
    schema: dict[str, Any] = {"type": "string"}
    for level in range(40, 0, -1):
        schema = obj({f"l{level}": schema})

    # When it is parsed
    result = parse_definition("JSON", json.dumps(schema))

    # Then MAX_DEPTH levels are columns and the warning says the rest was cut
    assert len(result.columns) == MAX_DEPTH
    assert result.warning is not None
    assert "nesting deeper than" in result.warning


def test_very_deep_json_does_not_exhaust_the_stack():
    # Given a document nested beyond Python's recursion limit
    definition = '{"type":"object","properties":{"a":' * 5000 + "{}" + "}}" * 5000

    # When it is parsed
    result = parse_definition("JSON", definition)

    # Then the answer is a warning, not a RecursionError
    assert result.columns == ()
    assert result.warning is not None


@pytest.mark.parametrize(
    ("definition", "reason"),
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "is a list, not a schema object"),
        ('"object"', "is a str, not a schema object"),
        ('{"type": "string"}', "root is string, not an object"),
        ('{"type": "array", "items": {"type": "integer"}}', "root is array<integer>, not an object"),
        ('{"$ref": "#/$defs/Missing"}', "root is reference (#/$defs/Missing), not an object"),
    ],
)
def test_broken_or_unusable_definitions_give_a_warning_and_no_columns(definition, reason):
    # Given a definition that is not a usable JSON schema of an object
    # When it is parsed
    result = parse_definition("JSON", definition)

    # Then there are no columns and the warning says why
    assert result.columns == ()
    assert result.warning is not None
    assert reason in result.warning
