"""Realistic Debezium CDC schema definitions for the demo, the tests and the benchmarks.

Debezium describes each change event with Kafka Connect schemas; a converter turns them into what the Glue
Schema Registry stores. This module models the Connect schemas once (`Struct`, `Field`) and renders them the
way the converters do:
  - AVRO as the Avro converters write it: `["null", T]` with `"default": null` for optional fields, named
    records defined once and referenced by full name afterwards (`before` defines `Value`, `after` refers to
    it), Connect metadata in `connect.name` / `connect.version` / `connect.parameters`, Connect decimals as
    the `decimal` logical type;
  - JSON as the Glue Schema Registry's Kafka Connect JsonSchemaConverter writes it (`connect.type`,
    `connect.index`, optional fields as `oneOf` with null, no `required`), except that a struct used twice
    (`before` / `after`) is defined once under `definitions` and referenced, where the converter repeats it;
  - PROTOBUF as proto3, the way the registry's Kafka Connect protobuf converter writes it: one message per
    struct, proto3 `optional` for optional fields; semantic types, which protobuf cannot carry, as trailing
    comments.

The tables are those of Debezium's tutorial database (MySQL `inventory`), captured by a connector with
`topic.prefix` = dbserver1, so topics are `dbserver1.inventory.<table>`; the heartbeat topic is
`__debezium-heartbeat.dbserver1`. All definitions are compact (no indentation), as converters register them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import quote

SERVER = "dbserver1"
DATABASE = "inventory"
DATA_FORMATS = ("AVRO", "JSON", "PROTOBUF")
GLUE_DEFINITION_LIMIT = 170_000  # Glue Schema Registry: SchemaDefinitionString length

_DATE = "io.debezium.time.Date"
_TIMESTAMP = "io.debezium.time.Timestamp"
_MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp"
_ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp"
_MICRO_TIME = "io.debezium.time.MicroTime"
_YEAR = "io.debezium.time.Year"
_ENUM = "io.debezium.data.Enum"
_JSON = "io.debezium.data.Json"
_UUID = "io.debezium.data.Uuid"
_BITS = "io.debezium.data.Bits"
_DECIMAL = "org.apache.kafka.connect.data.Decimal"
_SNAPSHOT_VALUES = "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"


@dataclass(frozen=True)
class Struct:
    """A Kafka Connect struct schema: `name` is its full name (Avro namespace + name)."""

    name: str
    fields: tuple[Field, ...]
    version: int | None = None
    doc: str | None = None


@dataclass(frozen=True)
class Field:
    """A field of a Connect struct. `type` is a Connect type: int8 int16 int32 int64 float32 float64 boolean
    string bytes struct; `semantic` is the Connect schema name (Debezium's semantic type), if any."""

    name: str
    type: str
    optional: bool = False
    semantic: str | None = None
    parameters: Mapping[str, str] = field(default_factory=dict)
    struct: Struct | None = None
    default: str | None = None
    doc: str | None = None


@dataclass(frozen=True)
class TopicSchema:
    """One schema as the registry holds it: the schema name is the topic name."""

    topic: str
    data_format: str
    definition: str


# -- column constructors, named after the MySQL types Debezium maps (default modes: precise decimals,
#    adaptive_time_microseconds) --


def integer(name: str, nullable: bool = False) -> Field:
    return Field(name, "int32", nullable)


def bigint(name: str, nullable: bool = False) -> Field:
    return Field(name, "int64", nullable)


def smallint(name: str, nullable: bool = False) -> Field:
    return Field(name, "int16", nullable)


def varchar(name: str, nullable: bool = False) -> Field:
    return Field(name, "string", nullable)


def float_(name: str, nullable: bool = False) -> Field:
    return Field(name, "float32", nullable)


def double(name: str, nullable: bool = False) -> Field:
    return Field(name, "float64", nullable)


def boolean(name: str, nullable: bool = False) -> Field:
    return Field(name, "boolean", nullable)


def decimal(name: str, precision: int, scale: int, nullable: bool = False) -> Field:
    params = {"scale": str(scale), "connect.decimal.precision": str(precision)}
    return Field(name, "bytes", nullable, _DECIMAL, params)


def date(name: str, nullable: bool = False) -> Field:
    return Field(name, "int32", nullable, _DATE)


def datetime(name: str, fsp: int = 0, nullable: bool = False) -> Field:
    return Field(name, "int64", nullable, _MICRO_TIMESTAMP if fsp > 3 else _TIMESTAMP)


def timestamp(name: str, nullable: bool = False) -> Field:
    return Field(name, "string", nullable, _ZONED_TIMESTAMP)


def time(name: str, nullable: bool = False) -> Field:
    return Field(name, "int64", nullable, _MICRO_TIME)


def year(name: str, nullable: bool = False) -> Field:
    return Field(name, "int32", nullable, _YEAR)


def enum(name: str, allowed: Iterable[str], nullable: bool = False) -> Field:
    return Field(name, "string", nullable, _ENUM, {"allowed": ",".join(allowed)})


def json_column(name: str, nullable: bool = False) -> Field:
    return Field(name, "string", nullable, _JSON)


def uuid(name: str, nullable: bool = False) -> Field:
    return Field(name, "string", nullable, _UUID)


def bits(name: str, length: int, nullable: bool = False) -> Field:
    return Field(name, "bytes", nullable, _BITS, {"length": str(length)})


GEOMETRY = Struct(
    "io.debezium.data.geometry.Geometry",
    (Field("wkb", "bytes"), Field("srid", "int32", optional=True)),
    version=1,
    doc="Geometry",
)
POINT = Struct(
    "io.debezium.data.geometry.Point",
    (
        Field("x", "float64"),
        Field("y", "float64"),
        Field("wkb", "bytes", optional=True),
        Field("srid", "int32", optional=True),
    ),
    version=1,
    doc="Geometry (POINT)",
)


def geometry(name: str, nullable: bool = False) -> Field:
    return Field(name, "struct", nullable, GEOMETRY.name, struct=GEOMETRY)


def point(name: str, nullable: bool = False) -> Field:
    return Field(name, "struct", nullable, POINT.name, struct=POINT)


# -- Debezium's own blocks --

MYSQL_SOURCE = Struct(
    "io.debezium.connector.mysql.Source",
    (
        varchar("version"),
        varchar("connector"),
        varchar("name"),
        bigint("ts_ms"),
        Field(
            "snapshot",
            "string",
            optional=True,
            semantic=_ENUM,
            parameters={"allowed": _SNAPSHOT_VALUES},
            default="false",
        ),
        varchar("db"),
        varchar("sequence", nullable=True),
        bigint("ts_us", nullable=True),
        bigint("ts_ns", nullable=True),
        varchar("table", nullable=True),
        bigint("server_id"),
        varchar("gtid", nullable=True),
        varchar("file"),
        bigint("pos"),
        integer("row"),
        bigint("thread", nullable=True),
        varchar("query", nullable=True),
    ),
    version=1,
)
TRANSACTION_BLOCK = Struct(
    "event.block",
    (varchar("id"), bigint("total_order"), bigint("data_collection_order")),
    version=1,
)
HEARTBEAT_KEY = Struct("io.debezium.connector.common.ServerNameKey", (varchar("serverName"),), version=1)
HEARTBEAT_VALUE = Struct("io.debezium.connector.common.Heartbeat", (bigint("ts_ms"),), version=1)

# -- the tutorial's inventory database --

TABLES: dict[str, tuple[Field, ...]] = {
    "customers": (integer("id"), varchar("first_name"), varchar("last_name"), varchar("email")),
    "addresses": (
        integer("id"),
        integer("customer_id"),
        varchar("street"),
        varchar("city"),
        varchar("state"),
        varchar("zip"),
        enum("type", ("SHIPPING", "BILLING", "LIVING")),
    ),
    "orders": (
        integer("order_number"),
        date("order_date"),
        integer("purchaser"),
        integer("quantity"),
        integer("product_id"),
    ),
    "products": (
        integer("id"),
        varchar("name"),
        varchar("description", nullable=True),
        float_("weight", nullable=True),
    ),
    "products_on_hand": (integer("product_id"), integer("quantity")),
    "geom": (integer("id"), geometry("g"), geometry("h", nullable=True)),
}
PRIMARY_KEYS: dict[str, tuple[str, ...]] = {
    "customers": ("id",),
    "addresses": ("id",),
    "orders": ("order_number",),
    "products": ("id",),
    "products_on_hand": ("product_id",),
    "geom": ("id",),
}
# The column each table gains in its second version: nullable, so the change is compatible both ways.
V2_COLUMNS: dict[str, Field] = {
    "customers": varchar("phone", nullable=True),
    "addresses": varchar("country_code", nullable=True),
    "orders": datetime("shipped_at", fsp=6, nullable=True),
    "products": varchar("category", nullable=True),
    "products_on_hand": timestamp("updated_at", nullable=True),
    "geom": varchar("label", nullable=True),
}
HEARTBEAT_TOPIC = f"__debezium-heartbeat.{SERVER}"


def topic_for(table: str, server: str = SERVER, database: str = DATABASE) -> str:
    return f"{server}.{database}.{table}"


def envelope(topic: str, columns: Iterable[Field]) -> Struct:
    """Debezium's change-event value: before/after (the row), source, transaction, op and the timestamps."""
    value = Struct(f"{topic}.Value", tuple(columns))
    return Struct(
        f"{topic}.Envelope",
        (
            Field("before", "struct", optional=True, semantic=value.name, struct=value),
            Field("after", "struct", optional=True, semantic=value.name, struct=value),
            Field("source", "struct", semantic=MYSQL_SOURCE.name, struct=MYSQL_SOURCE),
            Field(
                "transaction",
                "struct",
                optional=True,
                semantic=TRANSACTION_BLOCK.name,
                struct=TRANSACTION_BLOCK,
            ),
            varchar("op"),
            bigint("ts_ms", nullable=True),
            bigint("ts_us", nullable=True),
            bigint("ts_ns", nullable=True),
        ),
        version=2,
    )


def table_envelope(
    table: str, data_format: str = "AVRO", *, server: str = SERVER, database: str = DATABASE
) -> str:
    """The value schema of a tutorial table's topic, e.g. `table_envelope("customers", "JSON")`."""
    topic = topic_for(table, server, database)
    return render(envelope(topic, TABLES[table]), data_format)


def table_v2(table: str, data_format: str = "AVRO", *, server: str = SERVER, database: str = DATABASE) -> str:
    """Version 2 of a table's value schema: V2_COLUMNS[table] appended (a compatible evolution)."""
    topic = topic_for(table, server, database)
    return render(envelope(topic, (*TABLES[table], V2_COLUMNS[table])), data_format)


def table_without(
    table: str,
    column: str,
    data_format: str = "AVRO",
    *,
    after_v2: bool = False,
    server: str = SERVER,
    database: str = DATABASE,
) -> str:
    """A version of a table's value schema without `column` (the column was dropped: a breaking change);
    `after_v2` starts from version 2's columns (table_v2)."""
    topic = topic_for(table, server, database)
    columns = (*TABLES[table], V2_COLUMNS[table]) if after_v2 else TABLES[table]
    kept = tuple(c for c in columns if c.name != column)
    if len(kept) == len(columns):
        raise ValueError(f"table {table} has no column {column}")
    return render(envelope(topic, kept), data_format)


def table_key(
    table: str, data_format: str = "AVRO", *, server: str = SERVER, database: str = DATABASE
) -> str:
    """The key schema of a table's topic (its primary key columns)."""
    topic = topic_for(table, server, database)
    columns = tuple(c for c in TABLES[table] if c.name in PRIMARY_KEYS[table])
    return render(Struct(f"{topic}.Key", columns), data_format)


def unwrapped(
    table: str, data_format: str = "AVRO", *, server: str = SERVER, database: str = DATABASE
) -> str:
    """The value schema after Debezium's ExtractNewRecordState SMT with `add.fields=op,table,source.ts_ms`:
    the row itself plus `__op`, `__table`, `__source_ts_ms`, `__deleted`."""
    topic = topic_for(table, server, database)
    extra = (
        varchar("__op", nullable=True),
        varchar("__table", nullable=True),
        bigint("__source_ts_ms", nullable=True),
        varchar("__deleted", nullable=True),
    )
    return render(Struct(f"{topic}.Value", (*TABLES[table], *extra)), data_format)


def heartbeat(data_format: str = "AVRO") -> str:
    """The value schema of `__debezium-heartbeat.<server>` (the same for every server): a record, `ts_ms`."""
    return render(HEARTBEAT_VALUE, data_format)


def heartbeat_key(data_format: str = "AVRO") -> str:
    """The key schema of the heartbeat topic: a record with the connector's `serverName`."""
    return render(HEARTBEAT_KEY, data_format)


def inventory(data_format: str = "AVRO") -> tuple[TopicSchema, ...]:
    """Every tutorial topic's value schema in one format, then the heartbeat topic's."""
    tables = tuple(TopicSchema(topic_for(t), data_format, table_envelope(t, data_format)) for t in TABLES)
    return (*tables, TopicSchema(HEARTBEAT_TOPIC, data_format, heartbeat(data_format)))


# -- synthetic tables for benchmarks --

# (column stem, constructor): a wide operational table is mostly plain numbers, strings and flags; a tenth of
# the columns carry a Debezium semantic type. The mix keeps a 2,000-column table's definition under Glue's
# 170,000-character limit in every format (JSON, the most verbose, takes about 166,000).
_SYNTHETIC_KINDS: tuple[tuple[str, Callable[[str], Field]], ...] = (
    ("customer_id", bigint),
    ("status", partial(varchar, nullable=True)),
    ("qty", partial(integer, nullable=True)),
    ("active", boolean),
    ("price", partial(double, nullable=True)),
    ("code", varchar),
    ("ref_id", partial(bigint, nullable=True)),
    ("score", partial(float_, nullable=True)),
    ("name", partial(varchar, nullable=True)),
    ("level", partial(smallint, nullable=True)),
    ("city", partial(varchar, nullable=True)),
    ("created_at", partial(datetime, fsp=6)),
    ("count", integer),
    ("note", partial(varchar, nullable=True)),
    ("rank", partial(integer, nullable=True)),
    ("tag", partial(varchar, nullable=True)),
    ("ratio", partial(double, nullable=True)),
    ("email", partial(varchar, nullable=True)),
    ("amount", partial(decimal, precision=12, scale=2, nullable=True)),
    ("zip", partial(varchar, nullable=True)),
)


def synthetic_columns(n_fields: int) -> tuple[Field, ...]:
    """`n_fields` columns: `id` (the key) then a realistic mix, named like `status_1`, `amount_2`, ..."""
    if n_fields < 1:
        raise ValueError("a table has at least one column")
    columns = [bigint("id")]
    for index in range(1, n_fields):
        stem, make = _SYNTHETIC_KINDS[(index - 1) % len(_SYNTHETIC_KINDS)]
        columns.append(make(f"{stem}_{index}"))
    return tuple(columns)


def synthetic_table(name: str, n_fields: int, data_format: str = "AVRO") -> str:
    """A Debezium envelope for topic `name` whose rows have `n_fields` columns (benchmarks, size tests).

    JSON uses `"type": [T, "null"]` for nullable columns: in the converter's `oneOf` form a 2,000-column table
    would take about 195,000 characters, more than the registry accepts.
    """
    return render(envelope(name, synthetic_columns(n_fields)), data_format, json_type_unions=True)


# -- rendering --


def render(struct: Struct, data_format: str, *, json_type_unions: bool = False) -> str:
    """The definition of a Connect struct as the registry stores it for `data_format`.

    `json_type_unions` writes nullable JSON primitives as `"type": [T, "null"]` instead of the converter's
    `oneOf` with a null branch: equivalent, and about 20 characters shorter per column.
    """
    fmt = data_format.upper()
    if fmt == "AVRO":
        return _compact(_AvroRenderer().record(struct))
    if fmt == "JSON":
        return _compact(_JsonRenderer(struct, json_type_unions).document())
    if fmt == "PROTOBUF":
        return _ProtoRenderer(struct).file()
    raise ValueError(f"unknown data format {data_format!r} (expected one of {', '.join(DATA_FORMATS)})")


def _compact(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"))


_AVRO_INVALID = re.compile(r"[^A-Za-z0-9_]")


def avro_name(text: str) -> str:
    """One Avro name component, adjusted as Debezium's `schema.name.adjustment.mode=avro` does."""
    adjusted = _AVRO_INVALID.sub("_", text) or "_"
    return adjusted if not adjusted[0].isdigit() else "_" + adjusted


def avro_full_name(name: str) -> str:
    return ".".join(avro_name(part) for part in name.split("."))


class _AvroRenderer:
    _PRIMITIVE = {
        "int8": "int",
        "int16": "int",
        "int32": "int",
        "int64": "long",
        "float32": "float",
        "float64": "double",
        "boolean": "boolean",
        "string": "string",
        "bytes": "bytes",
    }

    def __init__(self) -> None:
        self._defined: set[str] = set()

    def record(self, struct: Struct) -> Any:
        full_name = avro_full_name(struct.name)
        if full_name in self._defined:
            return full_name  # named types are defined once, then referenced by full name
        self._defined.add(full_name)
        namespace, _, name = full_name.rpartition(".")
        record: dict[str, Any] = {"type": "record", "name": name}
        if namespace:
            record["namespace"] = namespace
        record["fields"] = [self._field(f) for f in struct.fields]
        if struct.doc:
            record["connect.doc"] = struct.doc
        if struct.version is not None:
            record["connect.version"] = struct.version
        record["connect.name"] = full_name
        return record

    def _field(self, f: Field) -> dict[str, Any]:
        schema = self._type(f)
        if not f.optional:
            return {"name": avro_name(f.name), "type": schema}
        if f.default is not None:  # Avro: the default must match the union's first branch
            return {"name": avro_name(f.name), "type": [schema, "null"], "default": f.default}
        return {"name": avro_name(f.name), "type": ["null", schema], "default": None}

    def _type(self, f: Field) -> Any:
        if f.type == "struct":
            assert f.struct is not None
            return self.record(f.struct)
        base = self._PRIMITIVE[f.type]
        if f.semantic is None and f.type not in ("int8", "int16"):
            return base
        schema: dict[str, Any] = {"type": base}
        if f.type in ("int8", "int16"):
            schema["connect.type"] = f.type
        if f.semantic == _DECIMAL:
            schema.update(
                scale=int(f.parameters["scale"]), precision=int(f.parameters["connect.decimal.precision"])
            )
        if f.semantic is not None:
            schema["connect.version"] = 1
            if f.parameters:
                schema["connect.parameters"] = dict(f.parameters)
            if f.default is not None:
                schema["connect.default"] = f.default
            schema["connect.name"] = f.semantic
        if f.semantic == _DECIMAL:
            schema["logicalType"] = "decimal"
        return schema


class _JsonRenderer:
    def __init__(self, root: Struct, type_unions: bool = False) -> None:
        self._root = root
        self._type_unions = type_unions
        self._uses: dict[str, int] = {}
        self._count(root)
        self._definitions: dict[str, Any] = {}

    def _count(self, struct: Struct) -> None:
        for f in struct.fields:
            if f.struct is not None:
                self._uses[f.struct.name] = self._uses.get(f.struct.name, 0) + 1
                if self._uses[f.struct.name] == 1:
                    self._count(f.struct)

    def document(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "$schema": "http://json-schema.org/draft-07/schema#",
            **self._object(self._root),
        }
        if self._definitions:
            document["definitions"] = self._definitions
        return document

    def _object(self, struct: Struct) -> dict[str, Any]:
        properties = {f.name: self._property(f, index) for index, f in enumerate(struct.fields)}
        schema: dict[str, Any] = {"type": "object", "properties": properties}
        if struct.doc:
            schema["connect.doc"] = struct.doc
        if struct.version is not None:
            schema["connect.version"] = struct.version
        schema["connect.name"] = struct.name
        return schema

    def _property(self, f: Field, index: int) -> dict[str, Any]:
        schema = self._type(f)
        if f.optional and self._type_unions and f.struct is None and f.default is None:
            return {**schema, "type": [schema["type"], "null"], "connect.index": index}
        if f.optional:
            wrapped: dict[str, Any] = {"oneOf": [{"type": "null"}, schema], "connect.index": index}
            if f.default is not None:
                wrapped["default"] = f.default
            return wrapped
        return {**schema, "connect.index": index}

    def _type(self, f: Field) -> dict[str, Any]:
        if f.struct is not None:
            if self._uses.get(f.struct.name, 0) > 1:  # shared: define once, refer twice
                if f.struct.name not in self._definitions:
                    self._definitions[
                        f.struct.name
                    ] = {}  # reserve the slot first: keeps definition order stable
                    self._definitions[f.struct.name] = self._object(f.struct)
                return {"$ref": "#/definitions/" + quote(f.struct.name, safe="")}
            return self._object(f.struct)
        kinds = {
            "int8": "integer",
            "int16": "integer",
            "int32": "integer",
            "int64": "integer",
            "float32": "number",
            "float64": "number",
            "boolean": "boolean",
            "string": "string",
            "bytes": "string",
        }
        schema: dict[str, Any] = {"type": kinds[f.type]}
        if f.type not in ("string", "boolean"):
            schema["connect.type"] = f.type
        if f.semantic is not None:
            schema["connect.version"] = 1
            if f.parameters:
                schema["connect.parameters"] = dict(f.parameters)
            schema["connect.name"] = f.semantic
        return schema


class _ProtoRenderer:
    _SCALAR = {
        "int8": "int32",
        "int16": "int32",
        "int32": "int32",
        "int64": "int64",
        "float32": "float",
        "float64": "double",
        "boolean": "bool",
        "string": "string",
        "bytes": "bytes",
    }

    def __init__(self, root: Struct) -> None:
        self._root = root
        self._names: dict[str, str] = {}  # struct full name -> message name in this file
        self._messages: list[str] = []

    def file(self) -> str:
        package = avro_full_name(self._root.name.rpartition(".")[0] or self._root.name)
        self._message(self._root)
        header = f'syntax = "proto3";\npackage {package};\n'
        return header + "\n" + "\n".join(self._messages)

    def _message(self, struct: Struct) -> str:
        if struct.name in self._names:
            return self._names[struct.name]
        name = avro_name(struct.name.rpartition(".")[2])
        while name in self._names.values():
            name += "_"
        self._names[struct.name] = name
        slot = len(self._messages)
        self._messages.append("")  # root first: the message order the parser's root rule does not rely on
        lines = [f"// {struct.name}" + (f": {struct.doc}" if struct.doc else ""), f"message {name} {{"]
        for number, f in enumerate(struct.fields, start=1):
            lines.append(self._field(f, number))
        lines.append("}\n")
        self._messages[slot] = "\n".join(lines)
        return name

    def _field(self, f: Field, number: int) -> str:
        kind = self._message(f.struct) if f.struct is not None else self._SCALAR[f.type]
        label = "optional " if f.optional else ""
        note = ""
        if f.semantic is not None and f.struct is None:
            params = " ".join(f"{key}={value}" for key, value in f.parameters.items())
            note = f" // {f.semantic}" + (f" {params}" if params else "")
        return f"  {label}{kind} {avro_name(f.name)} = {number};{note}"


# The demo's topics: the tutorial tables and the heartbeat, as the Avro converter registers them.
INVENTORY: tuple[TopicSchema, ...] = inventory("AVRO")
