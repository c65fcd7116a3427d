"""Field diff between two AVRO schema versions."""

from __future__ import annotations

import pytest

from kafka_lineage.drift import diff_fields
from local import debezium
from tests.unit.drift.drift_builders import avro, changes

ID = {"name": "id", "type": "long"}
EMAIL = {"name": "email", "type": "string"}


def test_identical_versions_have_no_changes() -> None:
    # Given the same definition twice
    definition = debezium.table_envelope("customers", "AVRO")
    # When they are diffed
    diff = diff_fields("AVRO", definition, definition)
    # Then nothing changed and the diff is complete
    assert diff.changes == ()
    assert diff.complete
    assert diff.warnings == ()
    assert not diff.changed


def test_added_and_removed_fields() -> None:
    # Given v2 drops `email` and adds an optional `phone`
    old = avro(ID, EMAIL)
    new = avro(ID, {"name": "phone", "type": ["null", "string"], "default": None})
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then phone is added (with its type) and email removed (with its old type)
    assert changes(diff) == [("phone", "added", None, "string"), ("email", "removed", "string", None)]
    removed = diff.changes[1]
    assert (removed.old_path, removed.new_path) == ("email", None)


def test_type_changed_with_before_and_after() -> None:
    # Given `id` widened from int to long and `created` moved to a finer logical type
    old = avro(
        {"name": "id", "type": "int"},
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    )
    new = avro(
        {"name": "id", "type": "long"},
        {"name": "created", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    )
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then both are type changes with the readable types
    assert changes(diff) == [
        ("id", "type_changed", "int", "long"),
        ("created", "type_changed", "timestamp-millis", "timestamp-micros"),
    ]


def test_nullability_changed_both_ways() -> None:
    # Given email becomes nullable and id stops being nullable
    old = avro({"name": "id", "type": ["null", "long"], "default": None}, EMAIL)
    new = avro(ID, {"name": "email", "type": ["null", "string"]})
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then each direction is reported, and a default that disappears with the null branch is reported too
    assert changes(diff) == [
        ("id", "nullability_changed", "nullable", "not null"),
        ("id", "default_changed", "null", None),
        ("email", "nullability_changed", "not null", "nullable"),
    ]


def test_default_changed_added_and_removed() -> None:
    # Given a default that changes value, one that appears and one that goes away
    old = avro(
        {"name": "status", "type": "string", "default": "new"},
        {"name": "qty", "type": "int"},
        {"name": "tags", "type": {"type": "array", "items": "string"}, "default": []},
    )
    new = avro(
        {"name": "status", "type": "string", "default": "open"},
        {"name": "qty", "type": "int", "default": 0},
        {"name": "tags", "type": {"type": "array", "items": "string"}},
    )
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then the defaults are shown as compact JSON, None where there is none
    assert changes(diff) == [
        ("status", "default_changed", '"new"', '"open"'),
        ("qty", "default_changed", None, "0"),
        ("tags", "default_changed", "[]", None),
    ]


def test_renamed_only_through_an_alias_naming_the_old_field() -> None:
    # Given v2 renames email to email_address, declaring the old name as an alias
    old = avro(ID, EMAIL)
    new = avro(ID, {"name": "email_address", "type": "string", "aliases": ["email"]})
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then it is one rename, old path to new path, with nothing added or removed
    assert changes(diff) == [("email_address", "renamed", "email", "email_address")]
    assert (diff.changes[0].old_path, diff.changes[0].new_path) == ("email", "email_address")


def test_a_similar_name_without_alias_is_never_a_rename() -> None:
    # Given v2 replaces email by e_mail with the same type but no alias
    old = avro(ID, EMAIL)
    new = avro(ID, {"name": "e_mail", "type": "string"})
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then that is an addition and a removal
    assert changes(diff) == [("e_mail", "added", None, "string"), ("email", "removed", "string", None)]


def test_an_alias_naming_a_field_that_still_exists_is_no_rename() -> None:
    # Given v2 keeps email and adds contact with the alias "email"
    old = avro(ID, EMAIL)
    new = avro(ID, EMAIL, {"name": "contact", "type": "string", "aliases": ["email"], "default": ""})
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then email is unchanged and contact is new
    assert changes(diff) == [("contact", "added", None, "string")]


def test_renamed_and_retyped_field_reports_both() -> None:
    # Given a field renamed by alias and widened at once
    old = avro({"name": "qty", "type": "int"})
    new = avro({"name": "quantity", "type": "long", "aliases": ["qty"]})
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then the rename and the type change are separate entries on the new path
    assert changes(diff) == [
        ("quantity", "renamed", "qty", "quantity"),
        ("quantity", "type_changed", "int", "long"),
    ]
    assert all(c.old_path == "qty" for c in diff.changes)


def test_nested_fields_as_dotted_paths() -> None:
    # Given a nested address record whose city is retyped and whose zip is removed
    address_v1 = {
        "type": "record",
        "name": "Address",
        "fields": [{"name": "city", "type": "string"}, {"name": "zip", "type": "string"}],
    }
    address_v2 = {
        "type": "record",
        "name": "Address",
        "fields": [{"name": "city", "type": ["null", "string"], "default": None}],
    }
    old = avro(
        {
            "name": "after",
            "type": {
                "type": "record",
                "name": "Value",
                "fields": [ID, {"name": "address", "type": address_v1}],
            },
        }
    )
    new = avro(
        {
            "name": "after",
            "type": {
                "type": "record",
                "name": "Value",
                "fields": [ID, {"name": "address", "type": address_v2}],
            },
        }
    )
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then the changes name after.address.city and after.address.zip
    assert changes(diff) == [
        ("after.address.city", "nullability_changed", "not null", "nullable"),
        ("after.address.city", "default_changed", None, "null"),
        ("after.address.zip", "removed", "string", None),
    ]


def test_renamed_record_carries_its_children() -> None:
    # Given the record field `address` renamed to `home` (alias), with its children unchanged but one
    inner = [{"name": "city", "type": "string"}, {"name": "zip", "type": "string"}]
    inner_v2 = [{"name": "city", "type": "string"}, {"name": "zip", "type": "int"}]
    old = avro(ID, {"name": "address", "type": {"type": "record", "name": "Address", "fields": inner}})
    new = avro(
        ID,
        {
            "name": "home",
            "aliases": ["address"],
            "type": {"type": "record", "name": "Address", "fields": inner_v2},
        },
    )
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then only the record is renamed; its children are matched under the new path
    assert changes(diff) == [
        ("home", "renamed", "address", "home"),
        ("home.zip", "type_changed", "string", "int"),
    ]
    assert diff.changes[1].old_path == "address.zip"


def test_inside_an_added_or_removed_record_only_the_record_is_reported() -> None:
    # Given v2 replaces record `billing` by record `shipping`
    block = {"type": "record", "name": "Block", "fields": [{"name": "street", "type": "string"}]}
    old = avro(ID, {"name": "billing", "type": block})
    new = avro(ID, {"name": "shipping", "type": block})
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then the records are added and removed, their fields are implied
    assert changes(diff) == [("shipping", "added", None, "record"), ("billing", "removed", "record", None)]


def test_debezium_envelope_dropping_a_column() -> None:
    # Given Debezium's customers envelope, v2 without `email` (Avro converter output)
    topic = debezium.topic_for("customers")
    kept = tuple(c for c in debezium.TABLES["customers"] if c.name != "email")
    old = debezium.table_envelope("customers", "AVRO")
    new = debezium.render(debezium.envelope(topic, kept), "AVRO")
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then before.email and after.email are removed, nothing else
    assert changes(diff) == [
        ("before.email", "removed", "string", None),
        ("after.email", "removed", "string", None),
    ]


def test_debezium_record_names_are_not_type_changes() -> None:
    # Given the same table captured under another topic prefix: every record has another full name
    old = debezium.table_envelope("orders", "AVRO")
    new = debezium.table_envelope("orders", "AVRO", server="dbserver2")
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then no field changed: record names are not what a table receives
    assert changes(diff) == []


def test_debezium_semantic_type_change_is_a_type_change() -> None:
    # Given `order_date` moving from io.debezium.time.Date to a microsecond timestamp
    topic = debezium.topic_for("orders")
    columns = tuple(
        debezium.datetime("order_date", fsp=6) if c.name == "order_date" else c
        for c in debezium.TABLES["orders"]
    )
    old = debezium.table_envelope("orders", "AVRO")
    new = debezium.render(debezium.envelope(topic, columns), "AVRO")
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then the row field shows the Connect semantic types before and after
    assert (
        "after.order_date",
        "type_changed",
        "int (io.debezium.time.Date)",
        "long (io.debezium.time.MicroTimestamp)",
    ) in changes(diff)


@pytest.mark.parametrize(
    ("old", "new", "label"),
    [
        ("{not json", avro(ID), "old"),
        (avro(ID), '{"type": "record", "name": "R", "fields": [{"name": "x", "type": "nope"}]}', "new"),
        ('"string"', avro(ID), "old"),
        (avro(ID), "", "new"),
    ],
)
def test_an_unreadable_version_gives_a_partial_result_not_an_exception(
    old: str, new: str, label: str
) -> None:
    # Given one version that cannot be read as a record schema
    # When diffed
    diff = diff_fields("AVRO", old, new)
    # Then there are no changes (never "everything removed"), and the warnings say which version failed
    assert diff.changes == ()
    assert not diff.complete
    assert any(w.startswith(f"{label} version: ") for w in diff.warnings)
    assert f"the {label} version has no readable fields" in diff.warnings[-1]


def test_an_unknown_data_format_is_a_partial_result() -> None:
    # Given a data format the registry does not have
    diff = diff_fields("XML", "<a/>", "<b/>")
    # Then the diff is empty and says why
    assert diff.changes == ()
    assert not diff.complete
    assert "not supported" in diff.warnings[0]


def test_recursive_records_are_compared_without_expanding_forever() -> None:
    # Given a linked-list record referring to itself, whose value is retyped in v2
    def node(value_type: str) -> str:
        return avro(
            {"name": "value", "type": value_type},
            {"name": "next", "type": ["null", "shop.Node"], "default": None},
            name="Node",
        )

    # When diffed
    diff = diff_fields("AVRO", node("int"), node("long"))
    # Then the change is found at the top and the recursive reference is a leaf
    assert changes(diff) == [("value", "type_changed", "int", "long")]
