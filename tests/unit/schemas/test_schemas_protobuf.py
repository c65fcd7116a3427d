"""PROTOBUF definitions -> columns."""

from __future__ import annotations

import pytest

from kafka_lineage.schemas import MAX_DEPTH, Column, parse_definition, row_fields

# A Debezium envelope as the registry's Kafka Connect protobuf converter lays it out: the parts first, the
# envelope (the record) last; optional Connect fields as proto3 `optional`.
CONVERTER_ENVELOPE = """
syntax = "proto3";
package dbserver1.inventory.customers;

message Value {
  int32 id = 1;
  string email = 2;
  optional int64 created = 3; // io.debezium.time.MicroTimestamp
}

message Source {
  string version = 1;
  int64 ts_ms = 2;
  optional string snapshot = 3;
}

message Envelope {
  optional Value before = 1;
  optional Value after = 2;
  Source source = 3;
  string op = 4;
  optional int64 ts_ms = 5;
}
"""


def parse_proto(definition: str) -> tuple[Column, ...]:
    result = parse_definition("PROTOBUF", definition)
    assert result.warning is None, result.warning
    return result.columns


def test_the_envelope_is_the_record_even_when_declared_last():
    # Given a file whose last message refers to the others
    # When it is parsed
    columns = parse_proto(CONVERTER_ENVELOPE)

    # Then the envelope's fields are the columns and `Value` is expanded under both images
    assert columns == (
        Column("before", "record", True),
        Column("before.id", "int32", False),
        Column("before.email", "string", False),
        Column("before.created", "int64", True, "io.debezium.time.MicroTimestamp"),
        Column("after", "record", True),
        Column("after.id", "int32", False),
        Column("after.email", "string", False),
        Column("after.created", "int64", True, "io.debezium.time.MicroTimestamp"),
        Column("source", "record", True),
        Column("source.version", "string", False),
        Column("source.ts_ms", "int64", False),
        Column("source.snapshot", "string", True),
        Column("op", "string", False),
        Column("ts_ms", "int64", True),
    )
    assert row_fields(columns) == {"id": "after.id", "email": "after.email", "created": "after.created"}


def test_the_first_of_unrelated_messages_is_the_record():
    # Given two independent top-level messages
    definition = 'syntax = "proto3"; message Key { int64 id = 1; } message Other { string name = 1; }'

    # When it is parsed
    columns = parse_proto(definition)

    # Then the first one is the record
    assert columns == (Column("id", "int64", False),)


def test_message_features():
    # Given a message using nested types, collections, enums, oneofs and well-known types
    definition = """
    syntax = "proto3";
    package shop.v1;
    import "google/protobuf/timestamp.proto";
    import "google/protobuf/wrappers.proto";
    import "google/protobuf/struct.proto";
    import "acme/money.proto";

    message Order {
      message Line {
        string sku = 1;
        uint32 qty = 2;
      }
      enum Status { STATUS_UNSPECIFIED = 0; PLACED = 1; }

      sint64 id = 1;
      repeated Line lines = 2;
      repeated string tags = 3;
      map<string, int64> counters = 4;
      map<string, Line> by_sku = 5;
      Status status = 6;
      google.protobuf.Timestamp placed_at = 7;
      google.protobuf.StringValue note = 8;
      google.protobuf.Struct attributes = 9;
      acme.type.Money total = 10;
      repeated acme.type.Money refunds = 11;
      oneof contact {
        string email = 12;
        Line sample = 13;
      }
      optional bool gift = 14;
      bytes blob = 15;
      .shop.v1.Order.Line first = 16;
    }
    """

    # When it is parsed
    columns = parse_proto(definition)

    # Then every field is a column of the readable type, nested messages expanded
    assert columns == (
        Column("id", "sint64", False),
        Column("lines", "array<record>", False),
        Column("lines.sku", "string", False),
        Column("lines.qty", "uint32", False),
        Column("tags", "array<string>", False),
        Column("counters", "map<string,int64>", False),
        Column("by_sku", "map<string,record>", False),
        Column("by_sku.sku", "string", False),
        Column("by_sku.qty", "uint32", False),
        Column("status", "enum", False),
        Column("placed_at", "timestamp (google.protobuf.Timestamp)", True),
        Column("note", "string (google.protobuf.StringValue)", True),
        Column("attributes", "json (google.protobuf.Struct)", True),
        Column("total", "acme.type.Money", True),
        Column("refunds", "array<acme.type.Money>", False),
        Column("email", "string", True, "oneof contact"),
        Column("sample", "record", True, "oneof contact"),
        Column("sample.sku", "string", False),
        Column("sample.qty", "uint32", False),
        Column("gift", "bool", True),
        Column("blob", "bytes", False),
        Column("first", "record", True),
        Column("first.sku", "string", False),
        Column("first.qty", "uint32", False),
    )


def test_proto2_labels_and_groups():
    # Given a proto2 file (no syntax line means proto2) with labels and a group
    definition = """
    package legacy;
    message Reading {
      required int64 id = 1;
      optional string unit = 2;
      repeated double samples = 3;
      optional group Meta = 4 {
        optional string source = 5;
      }
    }
    """

    # When it is parsed
    columns = parse_proto(definition)

    # Then `required` is not nullable, `optional` is, and the group is a nested record named in lower case
    assert columns == (
        Column("id", "int64", False),
        Column("unit", "string", True),
        Column("samples", "array<double>", False),
        Column("meta", "record", True),
        Column("meta.source", "string", True),
    )


def test_editions_have_explicit_presence():
    # Given an edition 2023 file
    definition = 'edition = "2023"; message M { int32 a = 1; string b = 2; }'

    # When it is parsed
    columns = parse_proto(definition)

    # Then singular fields may be absent
    assert columns == (Column("a", "int32", True), Column("b", "string", True))


def test_recursive_messages_stop_and_are_marked():
    # Given a tree whose nodes hold nodes, and two messages that refer to each other
    definition = """
    syntax = "proto3";
    package graph;
    message Tree { Node root = 1; }
    message Node {
      string label = 1;
      repeated Node children = 2;
      Edge edge = 3;
    }
    message Edge { Node target = 1; double weight = 2; }
    """

    # When it is parsed
    columns = parse_proto(definition)

    # Then each reference back to an open message is marked and not expanded
    assert columns == (
        Column("root", "record", True),
        Column("root.label", "string", False),
        Column("root.children", "array<record> (recursive: graph.Node)", False),
        Column("root.edge", "record", True),
        Column("root.edge.target", "record (recursive: graph.Node)", True),
        Column("root.edge.weight", "double", False),
    )


def test_comments_become_descriptions():
    # Given fields with leading line comments, block comments and trailing comments
    definition = """
    syntax = "proto3";
    // The customer record (not a field comment).
    message Customer {
      // Primary key.
      // Assigned by the database.
      int32 id = 1;
      /* The customer's
       * e-mail address. */
      string email = 2;
      string name = 3; // Full name
      string plain = 4;
    }
    """

    # When it is parsed
    columns = parse_proto(definition)

    # Then each field's comments describe it, on one line
    assert columns == (
        Column("id", "int32", False, "Primary key. Assigned by the database."),
        Column("email", "string", False, "The customer's e-mail address."),
        Column("name", "string", False, "Full name"),
        Column("plain", "string", False),
    )


def test_type_names_resolve_from_the_innermost_scope():
    # Given references by simple, qualified, package-relative and absolute names
    definition = """
    syntax = "proto3";
    package a.b;
    message Outer {
      message Inner { int32 x = 1; }
      Inner simple = 1;
      Outer.Inner qualified = 2;
      b.Outer.Inner package_relative = 3;
      .a.b.Outer.Inner absolute = 4;
    }
    """

    # When it is parsed
    columns = parse_proto(definition)

    # Then all four resolve to the same nested message
    assert [c.name for c in columns] == [
        "simple",
        "simple.x",
        "qualified",
        "qualified.x",
        "package_relative",
        "package_relative.x",
        "absolute",
        "absolute.x",
    ]


def test_nesting_beyond_the_cap_is_cut_with_a_warning():
    # Given messages nested 40 levels deep
    levels = 40
    definition = (
        'syntax = "proto3";\n'
        + "".join(f"message M{i} {{ M{i + 1} child = 1; }}\n" for i in range(levels))
        + f"message M{levels} {{ string leaf = 1; }}\n"
    )

    # When it is parsed
    result = parse_definition("PROTOBUF", definition)

    # Then MAX_DEPTH levels are columns and the warning says the rest was cut
    assert len(result.columns) == MAX_DEPTH
    assert result.warning is not None
    assert "nesting deeper than" in result.warning


def test_deeply_nested_declarations_do_not_exhaust_the_stack():
    # Given message declarations nested far beyond Python's recursion limit
    depth = 3000
    definition = 'syntax = "proto3";' + "message M { " * depth + "string x = 1;" + "}" * depth

    # When it is parsed
    result = parse_definition("PROTOBUF", definition)

    # Then the parser's recursion ends in a warning, not an exception
    assert result.warning is not None


@pytest.mark.parametrize(
    ("definition", "reason"),
    [
        ("message { broken", "does not parse"),
        ('syntax = "proto3"; message M { int32 a = ; }', "does not parse"),
        ('syntax = "proto3"; message M { int32 a = 1 }', "does not parse"),
        ('syntax = "proto3"; enum Only { A = 0; }', "declares no message"),
        ('syntax = "proto3"; package p;', "declares no message"),
        ('{"type": "record"}', "does not parse"),
    ],
)
def test_broken_or_unusable_definitions_give_a_warning_and_no_columns(definition, reason, capsys):
    # Given a definition that is not a usable protobuf file
    # When it is parsed
    result = parse_definition("PROTOBUF", definition)

    # Then there are no columns, the warning says why, and nothing was printed by the parser
    assert result.columns == ()
    assert result.warning is not None
    assert reason in result.warning
    assert capsys.readouterr().err == ""
