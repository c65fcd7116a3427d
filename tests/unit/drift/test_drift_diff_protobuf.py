"""Field diff between two PROTOBUF schema versions, and the per-field facts every format's diff relies on."""

from __future__ import annotations

import pytest

from kafka_lineage.drift import diff_fields
from kafka_lineage.drift.facts import field_facts
from kafka_lineage.schemas import parse_definition
from local import debezium
from tests.unit.drift.drift_builders import changes, proto


def test_identical_versions_have_no_changes() -> None:
    # Given the protobuf customers envelope, twice
    definition = debezium.table_envelope("customers", "PROTOBUF")
    # When diffed
    diff = diff_fields("PROTOBUF", definition, definition)
    # Then nothing changed
    assert changes(diff) == []


def test_added_and_removed_fields() -> None:
    # Given v2 retires field 2 (email) and adds field 3 (phone)
    old = proto("message Row { int64 id = 1; string email = 2; }")
    new = proto("message Row { int64 id = 1; reserved 2; optional string phone = 3; }")
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then phone is added and email removed
    assert changes(diff) == [("phone", "added", None, "string"), ("email", "removed", "string", None)]


def test_type_changed() -> None:
    # Given qty widened and status turned from a string into an enum
    old = proto("message Row { int32 qty = 1; string status = 2; }")
    new = proto("enum Status { NEW = 0; } message Row { int64 qty = 1; Status status = 2; }")
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then both are type changes
    assert changes(diff) == [
        ("qty", "type_changed", "int32", "int64"),
        ("status", "type_changed", "string", "enum"),
    ]


def test_nullability_changed() -> None:
    # Given a proto3 scalar that gains explicit presence, and a message field that becomes repeated
    old = proto("message Tag { string v = 1; } message Row { string email = 1; Tag tag = 2; }")
    new = proto(
        "message Tag { string v = 1; } message Row { optional string email = 1; repeated Tag tag = 2; }"
    )
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then email becomes nullable; tag is retyped to an array (never null) of records
    assert changes(diff) == [
        ("email", "nullability_changed", "not null", "nullable"),
        ("tag", "type_changed", "record", "array<record>"),
        ("tag", "nullability_changed", "nullable", "not null"),
    ]


def test_default_changed_in_proto2() -> None:
    # Given proto2 defaults that change, appear and disappear, an enum default among them
    old = proto(
        "enum Kind { A = 0; B = 1; } message Row { optional int32 qty = 1 [default = 1]; "
        'optional Kind kind = 2 [default = A]; optional string note = 3 [default = "n/a"]; }',
        syntax="proto2",
    )
    new = proto(
        "enum Kind { A = 0; B = 1; } message Row { optional int32 qty = 1 [default = 5]; "
        "optional Kind kind = 2 [default = B]; optional string note = 3; }",
        syntax="proto2",
    )
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then each default change is reported as JSON text
    assert changes(diff) == [
        ("qty", "default_changed", "1", "5"),
        ("kind", "default_changed", '"A"', '"B"'),
        ("note", "default_changed", '"n/a"', None),
    ]


def test_renamed_when_the_field_number_is_kept_under_a_new_name() -> None:
    # Given field 2 renamed from email to email_address
    old = proto("message Row { int64 id = 1; string email = 2; }")
    new = proto("message Row { int64 id = 1; string email_address = 2; }")
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then it is a rename, found by the number
    assert changes(diff) == [("email_address", "renamed", "email", "email_address")]


def test_a_new_number_under_a_new_name_is_no_rename() -> None:
    # Given email (2) replaced by email_address under a new number (3)
    old = proto("message Row { int64 id = 1; string email = 2; }")
    new = proto("message Row { int64 id = 1; string email_address = 3; }")
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then that is an addition and a removal, however similar the names
    assert changes(diff) == [("email_address", "added", None, "string"), ("email", "removed", "string", None)]


def test_a_name_kept_under_a_new_number_is_the_same_field_by_name() -> None:
    # Given fields renumbered but all names kept
    old = proto("message Row { int64 id = 1; string email = 2; }")
    new = proto("message Row { string email = 1; int64 id = 2; }")
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then names match first: nothing a table sees has changed
    assert changes(diff) == []


def test_renamed_nested_message_field_and_oneof_members() -> None:
    # Given a nested message whose field 1 is renamed, and a oneof member retyped
    old = proto(
        "message Address { string city = 1; string zip = 2; } "
        "message Row { Address address = 1; oneof contact { string email = 2; string phone = 3; } }"
    )
    new = proto(
        "message Address { string town = 1; string zip = 2; } "
        "message Row { Address address = 1; oneof contact { string email = 2; int64 phone = 3; } }"
    )
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then the paths are dotted and oneof members are fields of the message
    assert changes(diff) == [
        ("address.town", "renamed", "address.city", "address.town"),
        ("phone", "type_changed", "string", "int64"),
    ]


def test_map_values_and_groups() -> None:
    # Given a map of messages and a proto2 group, each with a member removed
    old = proto(
        "message Price { optional int64 cents = 1; optional string currency = 2; } "
        "message Row { map<string, Price> prices = 1; optional group Extra = 2 { optional string note = 3; "
        "optional string tag = 4; } }",
        syntax="proto2",
    )
    new = proto(
        "message Price { optional int64 cents = 1; } "
        "message Row { map<string, Price> prices = 1; "
        "optional group Extra = 2 { optional string note = 3; } }",
        syntax="proto2",
    )
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then the map's values and the group (named in lower case) are paths
    assert changes(diff) == [
        ("prices.currency", "removed", "string", None),
        ("extra.tag", "removed", "string", None),
    ]


def test_debezium_envelope_dropping_a_column_renumbers_into_a_rename() -> None:
    # Given the converter's customers envelope, v2 without `email`, fields numbered by position as the
    # converter numbers them: `phone`, appended, takes email's number 4
    topic = debezium.topic_for("customers")
    columns = (*(c for c in debezium.TABLES["customers"] if c.name != "email"), debezium.varchar("phone"))
    old = debezium.table_envelope("customers", "PROTOBUF")
    new = debezium.render(debezium.envelope(topic, columns), "PROTOBUF")
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then the wire format says field 4 was renamed: the table's email column loses its feed either way
    assert changes(diff) == [
        ("before.phone", "renamed", "before.email", "before.phone"),
        ("after.phone", "renamed", "after.email", "after.phone"),
    ]


def test_an_unparsable_version_gives_a_partial_result() -> None:
    # Given a new version with a syntax error
    old = proto("message Row { int64 id = 1; }")
    # When diffed
    diff = diff_fields("PROTOBUF", old, proto("message Row { int64 id = ; }"))
    # Then no changes, and a warning naming the new version
    assert diff.changes == ()
    assert not diff.complete
    assert diff.warnings[0].startswith("new version: PROTOBUF definition does not parse")


@pytest.mark.parametrize("data_format", debezium.DATA_FORMATS)
def test_facts_name_exactly_the_columns_the_parser_gives(data_format: str) -> None:
    # Given realistic definitions in each format: every tutorial topic, an unwrapped row, a wide table
    definitions = [schema.definition for schema in debezium.inventory(data_format)]
    definitions += [
        debezium.unwrapped("addresses", data_format),
        debezium.synthetic_table("wide", 300, data_format),
    ]
    for definition in definitions:
        # When the per-field facts are read
        facts = field_facts(data_format, definition)
        # Then they name every column by the parser's own path (no rename or default signal is lost)
        assert set(facts) == {column.name for column in parse_definition(data_format, definition).columns}
        if data_format == "PROTOBUF":
            assert all(fact.number is not None for fact in facts.values())


def test_recursive_messages_are_compared_without_expanding_forever() -> None:
    # Given a tree node message that refers to itself, whose value field is renamed in v2
    old = proto("message Node { int32 value = 1; repeated Node children = 2; Node parent = 3; }")
    new = proto("message Node { int32 weight = 1; repeated Node children = 2; Node parent = 3; }")
    # When diffed
    diff = diff_fields("PROTOBUF", old, new)
    # Then the rename is found once, at the top; the recursive references are leaves
    assert changes(diff) == [("weight", "renamed", "value", "weight")]


def test_facts_are_read_only_when_a_default_or_a_rename_candidate_needs_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a count of the extra parses, and two proto3 versions differing by a dropped field
    from kafka_lineage.drift import diff as diff_module

    reads: list[str] = []

    def counting(data_format: str, definition: str) -> object:
        reads.append(definition)
        return field_facts(data_format, definition)

    monkeypatch.setattr(diff_module, "field_facts", counting)
    old = proto("message Row { int64 id = 1; string email = 2; }")
    dropped = proto("message Row { int64 id = 1; }")
    renamed = proto("message Row { int64 id = 1; string mail = 2; }")
    # When the drop is diffed, then a rename
    assert changes(diff_fields("PROTOBUF", old, dropped)) == [("email", "removed", "string", None)]
    reads_for_drop = len(reads)
    assert changes(diff_fields("PROTOBUF", old, renamed)) == [("mail", "renamed", "email", "mail")]
    # Then the drop needed no second parse, and the rename read both versions' field numbers once each
    assert reads_for_drop == 0
    assert reads == [old, renamed]
