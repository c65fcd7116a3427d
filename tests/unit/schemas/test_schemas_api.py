"""parse_definition (dispatch, never raises) and row_fields (which columns carry a CDC row)."""

from __future__ import annotations

import dataclasses
import json
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_lineage import schemas
from kafka_lineage.schemas import Column, ParsedSchema, parse_definition, row_fields
from local import debezium


@pytest.mark.parametrize("data_format", ["AVRO", "avro", " Avro ", "JSON", "json", "PROTOBUF", "protobuf"])
def test_data_formats_are_matched_without_regard_to_case(data_format):
    # Given a valid definition in the named format
    definition = debezium.table_envelope("customers", data_format.strip().upper())

    # When it is parsed under a differently written format name
    result = parse_definition(data_format, definition)

    # Then it parses
    assert result.warning is None
    assert len(result.columns) > 0


@pytest.mark.parametrize("data_format", ["XML", "", "AVRO2", "CSV"])
def test_an_unsupported_format_is_a_warning(data_format):
    # Given a data format the registry does not have
    # When a definition in it is parsed
    result = parse_definition(data_format, '{"type": "string"}')

    # Then the warning names the format and there are no columns
    assert result == ParsedSchema((), result.warning)
    assert result.warning is not None
    assert "not supported" in result.warning


@pytest.mark.parametrize("definition", ["", "   \n"])
@pytest.mark.parametrize("data_format", debezium.DATA_FORMATS)
def test_an_empty_definition_is_a_warning(data_format, definition):
    # Given an empty definition
    # When it is parsed
    result = parse_definition(data_format, definition)

    # Then it is reported, not raised
    assert result.columns == ()
    assert result.warning == f"{data_format} definition is empty"


def test_results_are_immutable():
    # Given a parsed result
    result = parse_definition("AVRO", debezium.heartbeat("AVRO"))

    # When someone tries to change it
    # Then it refuses
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.columns[0].name = "other"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.warning = "x"  # type: ignore[misc]


def test_a_parser_bug_degrades_to_a_warning(monkeypatch):
    # Given a parser that fails in a way it should not (a bug, not bad input)
    def broken(definition: str) -> ParsedSchema:
        raise KeyError("boom")

    monkeypatch.setitem(schemas._PARSERS, "AVRO", broken)

    # When a definition is parsed
    result = parse_definition("AVRO", debezium.heartbeat("AVRO"))

    # Then the caller still gets a result: no columns, and a warning naming the failure
    assert result.columns == ()
    assert result.warning == "AVRO definition could not be read: KeyError: 'boom'"


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(
        ["record", "null", "string", "object", "array", "$ref", "#", "#/$defs/A", "fields", "type"]
    ),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.sampled_from(
                [
                    "type",
                    "name",
                    "fields",
                    "items",
                    "values",
                    "properties",
                    "$ref",
                    "$defs",
                    "oneOf",
                    "anyOf",
                    "allOf",
                    "required",
                    "symbols",
                    "logicalType",
                    "namespace",
                    "additionalProperties",
                    "connect.name",
                    "connect.index",
                    "optional",
                    "field",
                    "size",
                    "precision",
                    "scale",
                ]
            ),
            children,
            max_size=5,
        )
    ),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=json_values, data_format=st.sampled_from(["AVRO", "JSON"]))
def test_any_json_document_gives_a_result_never_an_exception(document, data_format):
    # Given an arbitrary JSON document built from schema keywords
    definition = json.dumps(document)

    # When it is parsed as AVRO or JSON
    result = parse_definition(data_format, definition)

    # Then the result is columns with unique names, or a warning (or both)
    assert isinstance(result, ParsedSchema)
    names = [column.name for column in result.columns]
    assert len(names) == len(set(names))
    assert result.columns or result.warning is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    data_format=st.sampled_from(debezium.DATA_FORMATS),
    table=st.sampled_from(sorted(debezium.TABLES)),
)
def test_a_damaged_real_definition_gives_a_result_never_an_exception(data, data_format, table):
    # Given a real Debezium definition with a slice cut out or replaced by junk
    definition = debezium.table_envelope(table, data_format)
    start = data.draw(st.integers(0, len(definition) - 1))
    end = data.draw(st.integers(start, min(len(definition), start + 40)))
    junk = data.draw(st.text(alphabet=string.printable, max_size=5))
    damaged = definition[:start] + junk + definition[end:]

    # When it is parsed
    result = parse_definition(data_format, damaged)

    # Then the result is columns, a warning, or both; never an exception
    assert isinstance(result, ParsedSchema)
    assert result.columns or result.warning is not None


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=200), data_format=st.sampled_from(debezium.DATA_FORMATS))
def test_arbitrary_text_gives_a_result_never_an_exception(text, data_format):
    # Given any text
    # When it is parsed
    result = parse_definition(data_format, text)

    # Then a result comes back: columns, a warning, or both
    assert isinstance(result, ParsedSchema)
    assert result.columns or result.warning is not None


# -- row_fields ----------------------------------------------------------------------------------------------


def cols(*specs: tuple[str, str]) -> tuple[Column, ...]:
    return tuple(Column(name, data_type, True) for name, data_type in specs)


def test_row_fields_of_an_envelope_are_the_direct_children_of_after():
    # Given an envelope whose row has a nested record
    columns = cols(
        ("before", "record (t.Value)"),
        ("before.Id", "int"),
        ("before.addr", "record"),
        ("before.addr.city", "string"),
        ("after", "record (t.Value)"),
        ("after.Id", "int"),
        ("after.addr", "record"),
        ("after.addr.city", "string"),
        ("after.Tags", "array<string>"),
        ("source", "record"),
        ("source.ts_ms", "long"),
        ("op", "string"),
        ("ts_ms", "long"),
    )

    # When the row fields are read
    fields = row_fields(columns)

    # Then they are after's direct children, in their original case
    assert fields == {"Id": "after.Id", "addr": "after.addr", "Tags": "after.Tags"}


def test_an_envelope_is_recognised_by_before_even_without_op():
    # Given before/after records and no op column
    columns = cols(("before", "record"), ("before.id", "int"), ("after", "record"), ("after.id", "int"))

    # When the row fields are read
    # Then after's children are the row
    assert row_fields(columns) == {"id": "after.id"}


@pytest.mark.parametrize(
    "columns",
    [
        # A table with columns that happen to be called before/after/op.
        cols(("id", "int"), ("before", "string"), ("after", "string"), ("op", "string")),
        # A record called after, with nothing else of an envelope.
        cols(("id", "int"), ("after", "record"), ("after.x", "int")),
        # `after` is an array of records, not a record.
        cols(("after", "array<record>"), ("after.x", "int"), ("op", "string")),
    ],
)
def test_something_that_is_not_an_envelope_is_read_as_a_row(columns):
    # Given columns that only look a little like an envelope
    # When the row fields are read
    fields = row_fields(columns)

    # Then the top-level columns are the row
    assert fields == {column.name: column.name for column in columns if "." not in column.name}


def test_row_fields_of_an_unwrapped_record_are_its_top_level_columns():
    # Given what ExtractNewRecordState leaves: the row plus its metadata fields
    result = parse_definition("AVRO", debezium.unwrapped("customers"))

    # When the row fields are read
    fields = row_fields(result.columns)

    # Then every top-level column is a row field, the SMT's included
    assert fields == {
        "id": "id",
        "first_name": "first_name",
        "last_name": "last_name",
        "email": "email",
        "__op": "__op",
        "__table": "__table",
        "__source_ts_ms": "__source_ts_ms",
        "__deleted": "__deleted",
    }


@pytest.mark.parametrize(
    ("data_format", "definition"),
    [
        ("AVRO", '{"type": "record", "name": "Empty", "fields": []}'),
        ("JSON", '{"type": "object"}'),
        ("JSON", '{"type": "struct", "fields": []}'),
        ("PROTOBUF", 'syntax = "proto3"; message Empty {}'),
    ],
)
def test_a_schema_without_fields_says_so(data_format, definition):
    # Given a valid schema that declares no fields
    # When it is parsed
    result = parse_definition(data_format, definition)

    # Then there are no columns and the warning says why
    assert result == ParsedSchema((), "the schema declares no fields: no columns")


def test_row_fields_of_nothing_is_nothing():
    # Given no columns (a definition that could not be parsed)
    # When the row fields are read
    # Then there are none
    assert row_fields(()) == {}
