"""Field diff between two JSON schema versions (JSON Schema, and Kafka Connect's JSON schema shape)."""

from __future__ import annotations

import json

from kafka_lineage.drift import diff_fields
from local import debezium
from tests.unit.drift.drift_builders import changes, json_schema

ID = {"type": "integer"}
EMAIL = {"type": "string"}


def test_identical_versions_have_no_changes() -> None:
    # Given the Connect converter's customers envelope, twice
    definition = debezium.table_envelope("customers", "JSON")
    # When diffed
    diff = diff_fields("JSON", definition, definition)
    # Then nothing changed
    assert changes(diff) == []


def test_added_and_removed_properties() -> None:
    # Given v2 drops email and adds phone
    old = json_schema({"id": ID, "email": EMAIL}, required=["id", "email"])
    new = json_schema({"id": ID, "phone": EMAIL}, required=["id"])
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then phone is added and email removed
    assert changes(diff) == [("phone", "added", None, "string"), ("email", "removed", "string", None)]


def test_type_changed() -> None:
    # Given id becomes a string and created gains a format
    old = json_schema({"id": ID, "created": {"type": "string"}}, required=["id", "created"])
    new = json_schema(
        {"id": EMAIL, "created": {"type": "string", "format": "date-time"}}, required=["id", "created"]
    )
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then both are type changes
    assert changes(diff) == [
        ("id", "type_changed", "integer", "string"),
        ("created", "type_changed", "string", "string (date-time)"),
    ]


def test_nullability_changed_through_required_and_null_types() -> None:
    # Given email leaves `required`, and id's type admits null
    old = json_schema({"id": ID, "email": EMAIL}, required=["id", "email"])
    new = json_schema({"id": {"type": ["integer", "null"]}, "email": EMAIL}, required=["id"])
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then both become nullable
    assert changes(diff) == [
        ("id", "nullability_changed", "not null", "nullable"),
        ("email", "nullability_changed", "not null", "nullable"),
    ]


def test_default_changed_including_through_a_reference() -> None:
    # Given a default on a property and one on the definition a property refers to
    old = json_schema(
        {"status": {"type": "string", "default": "new"}, "level": {"$ref": "#/definitions/Level"}},
        required=["status", "level"],
        definitions={"Level": {"type": "integer", "default": 1}},
    )
    new = json_schema(
        {"status": {"type": "string"}, "level": {"$ref": "#/definitions/Level"}},
        required=["status", "level"],
        definitions={"Level": {"type": "integer", "default": 2}},
    )
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then both default changes are reported, as JSON text
    assert changes(diff) == [
        ("status", "default_changed", '"new"', None),
        ("level", "default_changed", "1", "2"),
    ]


def test_json_schema_has_no_rename_signal() -> None:
    # Given a property renamed with the same type and description
    old = json_schema({"id": ID, "email": {"type": "string", "description": "contact"}}, required=["id"])
    new = json_schema(
        {"id": ID, "email_address": {"type": "string", "description": "contact"}}, required=["id"]
    )
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then it is never a rename: one added, one removed
    assert changes(diff) == [
        ("email_address", "added", None, "string"),
        ("email", "removed", "string", None),
    ]
    assert all(c.change != "renamed" for c in diff.changes)


def test_nested_objects_and_arrays_of_objects_as_dotted_paths() -> None:
    # Given an address object and an array of line objects, each losing or retyping a member
    old = json_schema(
        {
            "address": {
                "type": "object",
                "properties": {"city": EMAIL, "zip": EMAIL},
                "required": ["city", "zip"],
            },
            "lines": {"type": "array", "items": {"type": "object", "properties": {"sku": EMAIL, "qty": ID}}},
        },
        required=["address", "lines"],
    )
    new = json_schema(
        {
            "address": {"type": "object", "properties": {"city": EMAIL}, "required": ["city"]},
            "lines": {
                "type": "array",
                "items": {"type": "object", "properties": {"sku": EMAIL, "qty": {"type": "number"}}},
            },
        },
        required=["address", "lines"],
    )
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then the paths go through the object and the array's items
    assert changes(diff) == [
        ("lines.qty", "type_changed", "integer", "number"),
        ("address.zip", "removed", "string", None),
    ]


def test_weird_property_names() -> None:
    # Given properties named with dots, $, #, spaces, non-ASCII and 255 characters
    long_name = "x" * 255
    names = ["a.b", "$ref#1", "e-mail address", "prénom", long_name]
    old = json_schema(dict.fromkeys(names, EMAIL), required=names)
    new = json_schema(
        {"a.b": ID, "$ref#1": EMAIL, "prénom": EMAIL, long_name: {"type": "string", "default": "—"}},
        required=["a.b", "$ref#1", "prénom"],
    )
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then each name is its own path, never split on its dots
    assert changes(diff) == [
        ("a.b", "type_changed", "string", "integer"),
        (long_name, "nullability_changed", "not null", "nullable"),
        (long_name, "default_changed", None, '"—"'),
        ("e-mail address", "removed", "string", None),
    ]


def test_a_dotted_name_next_to_a_nested_path_of_the_same_spelling() -> None:
    # Given a top-level property "a.b" and an object "a" with member "b", where only the member changes
    old = json_schema(
        {"a.b": EMAIL, "a": {"type": "object", "properties": {"b": EMAIL}, "required": ["b"]}},
        required=["a", "a.b"],
    )
    new = json_schema(
        {"a.b": EMAIL, "a": {"type": "object", "properties": {"b": ID}, "required": ["b"]}},
        required=["a", "a.b"],
    )
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then the parser keeps the first "a.b" column and the member is left out as a duplicate name: the
    # diff compares only what both versions read, and says the reading was partial
    assert not diff.complete
    assert diff.changes == ()
    assert "duplicate column name" in diff.warnings[1]


def test_debezium_envelope_dropping_a_column_and_adding_one() -> None:
    # Given the Connect converter's customers envelope; v2 drops email and adds an optional phone
    topic = debezium.topic_for("customers")
    columns = (
        *(c for c in debezium.TABLES["customers"] if c.name != "email"),
        debezium.varchar("phone", nullable=True),
    )
    old = debezium.table_envelope("customers", "JSON")
    new = debezium.render(debezium.envelope(topic, columns), "JSON")
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then the row fields under before and after change, through the shared definition
    assert changes(diff) == [
        ("before.phone", "added", None, "string"),
        ("after.phone", "added", None, "string"),
        ("before.email", "removed", "string", None),
        ("after.email", "removed", "string", None),
    ]


def test_kafka_connect_schema_shape() -> None:
    # Given the JsonConverter's own schema shape, embedded in a message
    def message(fields: list[dict[str, object]]) -> str:
        return json.dumps({"schema": {"type": "struct", "fields": fields}, "payload": {}})

    old = message(
        [
            {"field": "id", "type": "int32"},
            {"field": "status", "type": "string", "optional": True, "default": "new"},
            {"field": "email", "type": "string"},
        ]
    )
    new = message(
        [
            {"field": "id", "type": "int64"},
            {"field": "status", "type": "string", "optional": False, "default": "open"},
        ]
    )
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then types, nullability, defaults and removals come from the Connect shape
    assert changes(diff) == [
        ("id", "type_changed", "int", "long"),
        ("status", "nullability_changed", "nullable", "not null"),
        ("status", "default_changed", '"new"', '"open"'),
        ("email", "removed", "string", None),
    ]


def test_an_unreadable_version_gives_a_partial_result() -> None:
    # Given a new version that is not JSON
    old = json_schema({"id": ID})
    # When diffed
    diff = diff_fields("JSON", old, '{"type": "object", "properties": ')
    # Then no changes, and a warning naming the new version
    assert diff.changes == ()
    assert not diff.complete
    assert diff.warnings[0].startswith("new version: JSON definition is not valid JSON")


def test_a_default_spelled_with_json_escapes_is_still_compared() -> None:
    # Given a `default` keyword written with a unicode escape, as JSON allows
    template = (
        '{"type": "object", "required": ["qty"], '
        '"properties": {"qty": {"type": "integer", "\\u0064efault": %d}}}'
    )
    old, new = template % 1, template % 2
    # When diffed
    diff = diff_fields("JSON", old, new)
    # Then the default change is found
    assert changes(diff) == [("qty", "default_changed", "1", "2")]
