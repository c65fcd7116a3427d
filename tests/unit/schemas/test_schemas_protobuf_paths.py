"""PROTOBUF: the compiled path (protoc in process) and the tolerant path (proto-schema-parser) agree, and
the compiled path is the one taken for what the registry holds."""

from __future__ import annotations

import pytest

from bench import seed
from kafka_lineage.schemas import Column, parse_definition, protobuf, protobuf_text, protoc
from local import debezium


def _debezium_definitions() -> list[str]:
    definitions = [
        make(table, "PROTOBUF")
        for table in debezium.TABLES
        for make in (debezium.table_envelope, debezium.table_v2, debezium.table_key, debezium.unwrapped)
    ]
    definitions += [debezium.heartbeat("PROTOBUF"), debezium.heartbeat_key("PROTOBUF")]
    definitions += [topic.definition() for topic in seed.topics(200) if topic.data_format == "PROTOBUF"]
    definitions += [debezium.synthetic_table("legacy$billing#1.-_x", n, "PROTOBUF") for n in (1, 400)]
    return definitions


# What the Glue Schema Registry's Kafka Connect converter writes: Connect Date/Time as google.type, Decimal
# as its own additionalTypes.Decimal, Connect parameters as field options of its metadata.proto.
CONVERTER_FILE = """
syntax = "proto3";
package dbserver1.inventory.orders;

import "google/type/date.proto";
import "google/type/timeofday.proto";
import "google/protobuf/timestamp.proto";
import "additionalTypes/decimal.proto";
import "metadata/metadata.proto";

message Value {
  int32 order_number = 1;
  google.type.Date order_date = 2;
  google.type.TimeOfDay cutoff = 3;
  google.protobuf.Timestamp placed_at = 4;
  additionalTypes.Decimal total = 5 [
    (metadata.metadata_key) = "connect.decimal.scale", (metadata.metadata_value) = "2"
  ];
}

message Envelope {
  optional Value before = 1;
  optional Value after = 2;
  string op = 3;
}
"""


@pytest.mark.parametrize("definition", _debezium_definitions())
def test_registry_shapes_compile_and_give_the_tolerant_parsers_columns(definition):
    # Given a Debezium envelope, key or unwrapped row as the converter registers it
    # When both paths read it
    compiled = protoc.compile_definition(definition)
    fast = protobuf.parse(definition)
    tolerant = protobuf_text.parse(definition)

    # Then protoc accepted it and the columns are identical
    assert compiled is not None
    assert fast == tolerant
    assert fast.columns


def test_the_converters_imports_compile_and_their_types_are_leaves():
    # Given a file importing the converter's google.type, additionalTypes and metadata files
    # When it is parsed
    compiled = protoc.compile_definition(CONVERTER_FILE)
    result = parse_definition("PROTOBUF", CONVERTER_FILE)

    # Then protoc read it (the stand-in includes resolved), and the imported types are leaves
    assert compiled is not None
    assert result.warning is None
    assert result == protobuf_text.parse(CONVERTER_FILE)
    assert result.columns[:6] == (
        Column("before", "record", True),
        Column("before.order_number", "int32", False),
        Column("before.order_date", "date (google.type.Date)", True),
        Column("before.cutoff", "time (google.type.TimeOfDay)", True),
        Column("before.placed_at", "timestamp (google.protobuf.Timestamp)", True),
        Column("before.total", "decimal (additionalTypes.Decimal)", True),
    )


def test_an_import_the_registry_does_not_hold_falls_back_to_the_tolerant_parser():
    # Given a file importing a file nobody has
    definition = """
    syntax = "proto3";
    import "acme/money.proto";
    message Order { int64 id = 1; acme.type.Money total = 2; }
    """

    # When it is parsed
    compiled = protoc.compile_definition(definition)
    result = parse_definition("PROTOBUF", definition)

    # Then protoc rejected it, and the columns come from the tolerant parser, the unknown type as written
    assert compiled is None
    assert result.columns == (Column("id", "int64", False), Column("total", "acme.type.Money", True))


def test_types_of_imported_files_are_leaves_named_in_full():
    # Given a field of a well-known file's type that is not shown as a well-known leaf, and an imported enum
    definition = """
    syntax = "proto3";
    package p;
    import "google/protobuf/type.proto";
    message M { google.protobuf.Option option = 1; google.protobuf.Syntax syntax = 2; }
    """

    # When it is parsed
    result = parse_definition("PROTOBUF", definition)

    # Then both are leaves named by their full name; the enum, a proto3 value, has no presence
    assert protoc.compile_definition(definition) is not None
    assert result.columns == (
        Column("option", "google.protobuf.Option", True),
        Column("syntax", "google.protobuf.Syntax", False),
    )


def test_detached_comments_join_the_leading_comment():
    # Given a field preceded by a paragraph between blank lines, then its own comment
    definition = """
    syntax = "proto3";
    message M {
      int32 before = 1;

      // Paragraph one.

      // The id.
      int32 id = 2;
    }
    """

    # When it is parsed
    result = parse_definition("PROTOBUF", definition)

    # Then the description holds both, as the tolerant parser reads them
    assert result.columns[1] == Column("id", "int32", False, "Paragraph one. The id.")
    assert result == protobuf_text.parse(definition)


def test_a_comment_right_below_a_field_and_followed_by_a_blank_line_is_that_fields():
    # Given protobuf's comment convention: such a comment trails the element above it
    definition = """
    syntax = "proto3";
    message M {
      int32 id = 1;
      // The key.

      int32 other = 2;
    }
    """

    # When it is parsed
    result = parse_definition("PROTOBUF", definition)

    # Then it describes the field above, not the one below
    assert result.columns == (Column("id", "int32", False, "The key."), Column("other", "int32", False))


@pytest.mark.parametrize(
    "definition",
    [
        "message { broken",
        'syntax = "proto3"; message M { int32 a = 1 }',
        'syntax = "proto3"; import "missing.proto"; message M { int32 a = 1; }',
        "message M { optional int32 a = 1; }",  # proto2 by default: protoc logs a warning about it
    ],
)
def test_protoc_prints_nothing_to_the_process_stderr(definition, capfd):
    # Given definitions protoc rejects or warns about
    # When they are compiled
    protoc.compile_definition(definition)

    # Then nothing reached file descriptor 2 (the function's log stream)
    assert capfd.readouterr().err == ""


def test_a_wide_envelope_takes_the_compiled_path(monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a 120-column Debezium envelope (wider than 97% of the benchmark's tables), and the tolerant
    # parser made to fail loudly if it is reached (its CPU cost is what the compiled path avoids; the figures
    # are measured by `make bench`, not asserted here)
    definition = debezium.synthetic_table("dbserver1.shop.wide", 120, "PROTOBUF")

    def not_expected(text: str) -> None:
        raise AssertionError("fell back to the tolerant parser")

    monkeypatch.setattr(protobuf_text, "parse", not_expected)
    # When it is parsed
    parsed = parse_definition("PROTOBUF", definition)
    # Then protoc compiled it: every column, no warning
    assert parsed.warning is None
    assert len([c for c in parsed.columns if c.name.startswith("after.")]) == 120
