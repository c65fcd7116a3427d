"""local.debezium: realistic Debezium definitions, checked with the formats' own libraries and parsed back."""

from __future__ import annotations

import base64
import io
import json
import time
from decimal import Decimal
from typing import Any

import fastavro
import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_lineage.schemas import Column, parse_definition, row_fields
from local import debezium

# Glue Schema Registry schema names: [a-zA-Z0-9-_$#.]{1,255}
registry_names = st.text(alphabet=st.sampled_from("abcXYZ019-_$#."), min_size=1, max_size=255)


def sample(field: debezium.Field, binary: bool = True) -> Any:
    """A value of a Connect field, as the Avro (binary=True) or JSON converter would carry it."""
    if field.struct is not None:
        return {f.name: sample(f, binary) for f in field.struct.fields}
    if field.semantic == "io.debezium.data.Enum":
        return field.parameters["allowed"].split(",")[0]
    if field.semantic == "org.apache.kafka.connect.data.Decimal":
        return Decimal("12.34") if binary else base64.b64encode(b"\x04\xd2").decode()
    if field.type == "bytes":
        return b"\x01\x02" if binary else base64.b64encode(b"\x01\x02").decode()
    return {
        "int8": 1,
        "int16": 2,
        "int32": 1001,
        "int64": 1_700_000_000_000,
        "float32": 3.5,
        "float64": 0.25,
        "boolean": True,
        "string": "sally.thomas@acme.com",
    }[field.type]


def change_event(columns: tuple[debezium.Field, ...], binary: bool = True) -> dict[str, Any]:
    """A create event for a row, with every column set."""
    return {
        "before": None,
        "after": {column.name: sample(column, binary) for column in columns},
        "source": {f.name: sample(f, binary) for f in debezium.MYSQL_SOURCE.fields},
        "transaction": None,
        "op": "c",
        "ts_ms": 1_700_000_000_123,
        "ts_us": 1_700_000_000_123_456,
        "ts_ns": None,
    }


def test_inventory_lists_the_tutorial_topics_and_the_heartbeat():
    # Given the demo's topic list
    topics = [schema.topic for schema in debezium.INVENTORY]

    # Then it holds the six tutorial tables and the heartbeat topic, as AVRO
    assert topics == [
        "dbserver1.inventory.customers",
        "dbserver1.inventory.addresses",
        "dbserver1.inventory.orders",
        "dbserver1.inventory.products",
        "dbserver1.inventory.products_on_hand",
        "dbserver1.inventory.geom",
        "__debezium-heartbeat.dbserver1",
    ]
    assert {schema.data_format for schema in debezium.INVENTORY} == {"AVRO"}
    assert [s.topic for s in debezium.inventory("PROTOBUF")] == topics


@pytest.mark.parametrize("data_format", debezium.DATA_FORMATS)
@pytest.mark.parametrize("table", sorted(debezium.TABLES))
def test_every_table_envelope_parses_to_its_row(table, data_format):
    # Given a tutorial table's value schema in a format
    definition = debezium.table_envelope(table, data_format)

    # When it is parsed
    result = parse_definition(data_format, definition)

    # Then it parses cleanly, the row is the table's columns, and the envelope is complete
    assert result.warning is None
    assert list(row_fields(result.columns)) == [column.name for column in debezium.TABLES[table]]
    top_level = [c.name for c in result.columns if "." not in c.name]
    assert top_level == ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"]
    source = [c.name.removeprefix("source.") for c in result.columns if c.name.startswith("source.")]
    assert source == [f.name for f in debezium.MYSQL_SOURCE.fields]


@pytest.mark.parametrize("table", sorted(debezium.TABLES))
def test_avro_and_json_renderings_give_identical_columns(table):
    # Given the AVRO and JSON value schemas of a table (the formats share Connect's type vocabulary)
    # When both are parsed
    avro = parse_definition("AVRO", debezium.table_envelope(table, "AVRO")).columns
    json_ = parse_definition("JSON", debezium.table_envelope(table, "JSON")).columns

    # Then every column matches: name, type, nullability
    assert avro == json_


@pytest.mark.parametrize("table", sorted(debezium.TABLES))
def test_protobuf_rendering_has_the_same_columns(table):
    # Given the AVRO and PROTOBUF value schemas of a table
    avro = parse_definition("AVRO", debezium.table_envelope(table, "AVRO")).columns
    proto = parse_definition("PROTOBUF", debezium.table_envelope(table, "PROTOBUF")).columns

    # Then the same columns exist, and scalar columns agree on nullability
    # (protobuf message fields always have presence, so records may differ)
    assert [c.name for c in proto] == [c.name for c in avro]
    scalars = [
        (a.name, a.nullable, p.nullable)
        for a, p in zip(avro, proto, strict=True)
        if "record" not in a.data_type
    ]
    assert all(a == p for _, a, p in scalars), scalars


def test_the_customers_envelope_in_detail():
    # Given the customers topic's Avro schema
    definition = json.loads(debezium.table_envelope("customers"))

    # Then `Value` is defined in `before` and referenced by full name in `after`, as the converter writes it
    fields = {field["name"]: field for field in definition["fields"]}
    assert definition["name"] == "Envelope"
    assert definition["namespace"] == "dbserver1.inventory.customers"
    assert fields["before"]["type"][1]["name"] == "Value"
    assert fields["after"]["type"] == ["null", "dbserver1.inventory.customers.Value"]
    assert fields["source"]["type"]["connect.name"] == "io.debezium.connector.mysql.Source"
    assert fields["op"]["type"] == "string"
    assert fields["ts_ms"] == {"name": "ts_ms", "type": ["null", "long"], "default": None}

    # And parsed, the row and the metadata have the expected types
    columns = {c.name: c for c in parse_definition("AVRO", json.dumps(definition)).columns}
    assert columns["after"] == Column("after", "record (dbserver1.inventory.customers.Value)", True)
    assert columns["after.id"] == Column("after.id", "int", False)
    assert columns["after.email"] == Column("after.email", "string", False)
    assert columns["source.snapshot"] == Column("source.snapshot", "string (io.debezium.data.Enum)", True)
    assert columns["transaction"] == Column("transaction", "record (event.block)", True)


def test_semantic_types_of_the_inventory_tables():
    # Given the tables with MySQL types Debezium maps to semantic types
    addresses = {c.name: c for c in parse_definition("AVRO", debezium.table_envelope("addresses")).columns}
    orders = {c.name: c for c in parse_definition("AVRO", debezium.table_envelope("orders")).columns}
    products = {c.name: c for c in parse_definition("AVRO", debezium.table_envelope("products")).columns}
    geom = {c.name: c for c in parse_definition("AVRO", debezium.table_envelope("geom")).columns}

    # Then ENUM, DATE, FLOAT and GEOMETRY appear as Debezium emits them
    assert addresses["after.type"].data_type == "string (io.debezium.data.Enum)"
    assert orders["after.order_date"].data_type == "int (io.debezium.time.Date)"
    assert products["after.weight"] == Column("after.weight", "float", True)
    assert products["after.description"] == Column("after.description", "string", True)
    assert geom["after.g"] == Column(
        "after.g", "record (io.debezium.data.geometry.Geometry)", False, "Geometry"
    )
    assert geom["after.h"].nullable is True
    assert [name for name in geom if name.startswith("after.h.")] == ["after.h.wkb", "after.h.srid"]


@pytest.mark.parametrize("table", sorted(debezium.TABLES))
def test_avro_envelopes_serialize_real_change_events(table):
    # Given a table's Avro schema and a create event for one of its rows
    schema = fastavro.parse_schema(json.loads(debezium.table_envelope(table)))
    event = change_event(debezium.TABLES[table])

    # When the event is written and read back with fastavro
    buffer = io.BytesIO()
    fastavro.schemaless_writer(buffer, schema, event)
    buffer.seek(0)
    decoded = fastavro.schemaless_reader(buffer, schema, None)

    # Then it round-trips
    assert decoded == event


@pytest.mark.parametrize("table", sorted(debezium.TABLES))
def test_json_envelopes_are_valid_json_schemas_that_accept_real_events(table):
    # Given a table's JSON schema and a create event as the JSON converter writes it
    schema = json.loads(debezium.table_envelope(table, "JSON"))
    event = change_event(debezium.TABLES[table], binary=False)

    # Then the schema is a valid draft-07 schema, accepts the event and rejects a broken one
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    validator.validate(event)
    assert not validator.is_valid({**event, "op": 5})
    assert not validator.is_valid({**event, "after": {**event["after"], debezium.TABLES[table][0].name: "x"}})


@pytest.mark.parametrize("data_format", debezium.DATA_FORMATS)
@pytest.mark.parametrize("table", sorted(debezium.TABLES))
def test_version_2_adds_one_nullable_column(table, data_format):
    # Given versions 1 and 2 of a table's schema
    v1 = parse_definition(data_format, debezium.table_envelope(table, data_format))
    v2 = parse_definition(data_format, debezium.table_v2(table, data_format))

    # Then version 2's row is version 1's plus the new column, which is nullable
    added = debezium.V2_COLUMNS[table].name
    assert v2.warning is None
    assert list(row_fields(v2.columns)) == [*row_fields(v1.columns), added]
    assert next(c for c in v2.columns if c.name == f"after.{added}").nullable is True


@pytest.mark.parametrize("table", sorted(debezium.TABLES))
def test_version_2_is_backward_and_forward_compatible_in_avro(table):
    # Given the Avro schemas of versions 1 and 2 and an event written with each
    v1 = fastavro.parse_schema(json.loads(debezium.table_envelope(table)))
    v2 = fastavro.parse_schema(json.loads(debezium.table_v2(table)))
    old_event = change_event(debezium.TABLES[table])
    new_event = change_event((*debezium.TABLES[table], debezium.V2_COLUMNS[table]))

    def read(writer: Any, reader: Any, event: dict[str, Any]) -> Any:
        buffer = io.BytesIO()
        fastavro.schemaless_writer(buffer, writer, event)
        buffer.seek(0)
        return fastavro.schemaless_reader(buffer, writer, reader)

    # When a v2 reader reads v1 data (BACKWARD) and a v1 reader reads v2 data (FORWARD)
    upgraded = read(v1, v2, old_event)
    downgraded = read(v2, v1, new_event)

    # Then both work: the new column defaults to null, and old readers skip it
    assert upgraded["after"][debezium.V2_COLUMNS[table].name] is None
    assert downgraded == old_event


@pytest.mark.parametrize("data_format", debezium.DATA_FORMATS)
def test_heartbeat_and_keys(data_format):
    # Given the heartbeat topic's schemas and a table's key schema
    value = parse_definition(data_format, debezium.heartbeat(data_format))
    key = parse_definition(data_format, debezium.heartbeat_key(data_format))
    table_key = parse_definition(data_format, debezium.table_key("orders", data_format))

    # Then the heartbeat carries ts_ms, its key the server name, a table's key its primary key
    assert [(c.name, c.nullable) for c in value.columns] == [("ts_ms", False)]
    assert row_fields(value.columns) == {"ts_ms": "ts_ms"}
    assert [c.name for c in key.columns] == ["serverName"]
    assert [c.name for c in table_key.columns] == ["order_number"]
    assert debezium.HEARTBEAT_TOPIC.startswith("__debezium-heartbeat.")


@pytest.mark.slow
@pytest.mark.parametrize("data_format", debezium.DATA_FORMATS)
def test_a_2000_column_table_fits_the_registry_and_parses(data_format, record_property):
    # Given a 2,000-column table under a 255-character topic name (the longest the registry allows)
    topic = "dbserver1.warehouse." + "t" * (255 - len("dbserver1.warehouse."))
    definition = debezium.synthetic_table(topic, 2000, data_format)

    # When it is parsed (timed, for the record: the protobuf grammar's lexer is the slow part)
    started = time.perf_counter()
    result = parse_definition(data_format, definition)
    record_property(f"parse_seconds_{data_format}", round(time.perf_counter() - started, 3))

    # Then the definition is within Glue's limit and every column is there
    assert len(definition) < debezium.GLUE_DEFINITION_LIMIT
    assert result.warning is None
    fields = row_fields(result.columns)
    assert list(fields) == [column.name for column in debezium.synthetic_columns(2000)]
    # before and after (each the record and its 2,000 columns), source, transaction, op and timestamps
    assert len(result.columns) == 2 * (1 + 2000) + (1 + len(debezium.MYSQL_SOURCE.fields)) + (1 + 3) + 4


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_fields=st.integers(1, 300), data_format=st.sampled_from(["AVRO", "JSON"]), name=registry_names)
def test_any_synthetic_table_parses_back_to_its_columns(n_fields, data_format, name):
    # Given a synthetic table of any width under any registry-valid name
    definition = debezium.synthetic_table(name, n_fields, data_format)

    # When it is parsed
    result = parse_definition(data_format, definition)

    # Then its rows have exactly the generated columns
    assert result.warning is None
    assert list(row_fields(result.columns)) == [c.name for c in debezium.synthetic_columns(n_fields)]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n_fields=st.integers(1, 40), name=registry_names)
def test_any_synthetic_protobuf_table_parses_back_to_its_columns(n_fields, name):
    # Given a synthetic table as protobuf (kept small: the protobuf grammar is slow to run in Python)
    definition = debezium.synthetic_table(name, n_fields, "PROTOBUF")

    # When it is parsed
    result = parse_definition("PROTOBUF", definition)

    # Then its rows have exactly the generated columns
    assert result.warning is None
    assert list(row_fields(result.columns)) == [c.name for c in debezium.synthetic_columns(n_fields)]


@settings(max_examples=30, deadline=None)
@given(name=registry_names)
def test_registry_names_give_valid_avro_and_json(name):
    # Given a topic name with the registry's odd characters ($ # - . _)
    avro = debezium.synthetic_table(name, 3, "AVRO")
    json_schema = json.loads(debezium.synthetic_table(name, 3, "JSON"))

    # Then Avro names are adjusted to valid names, and JSON references still resolve
    parsed: Any = fastavro.parse_schema(json.loads(avro))
    assert parsed["name"].endswith(".Envelope") or parsed["name"] == "Envelope"
    jsonschema.Draft7Validator.check_schema(json_schema)
    jsonschema.Draft7Validator(json_schema).validate(
        change_event(debezium.synthetic_columns(3), binary=False)
    )


def test_synthetic_columns_need_at_least_one():
    # Given a request for a table without columns
    # Then it is refused
    with pytest.raises(ValueError, match="at least one column"):
        debezium.synthetic_columns(0)


def test_render_refuses_an_unknown_format():
    # Given a struct
    # Then rendering it in an unknown format fails loudly
    with pytest.raises(ValueError, match="unknown data format"):
        debezium.render(debezium.HEARTBEAT_VALUE, "XML")
