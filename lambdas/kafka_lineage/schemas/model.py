"""What every format parser produces (`Column`, `ParsedSchema`) and the pieces they share.

Columns come out in definition order, depth first: a record column is followed by its children, whose names
extend the record's with a dot ("after", "after.id", "after.email", "source", ...). Records are columns too,
of type "record": the reader of the table sees where a block starts, what it is (Debezium's `Value`, `Source`)
and whether the whole block may be null (`before` is null on inserts), which its children cannot say. Column
names are unique within one result.

`data_type` is a readable type, the same vocabulary across formats where the formats agree:
  - primitives as the format names them ("string", "int", "long", "double", "bytes"; protobuf keeps its own
    scalar names: "int32", "sint64", "bool", ...);
  - logical types replace their base type: "date", "timestamp-millis", "decimal(10,2)", "uuid", ...;
  - "record" for a nested record / struct / message, "enum", "fixed(16)", "array<T>", "map<K,V>",
    "union<A,B>" for a union that is not just "nullable X";
  - a Kafka Connect semantic type (Debezium's `connect.name`, e.g. io.debezium.time.MicroTimestamp) follows in
    parentheses: "long (io.debezium.time.MicroTimestamp)", "record (dbserver1.inventory.customers.Value)".
    Kafka Connect's own logical types (org.apache.kafka.connect.data.Decimal/Date/Time/Timestamp) are shown as
    the logical type itself ("decimal(10,2)", "date", ...);
  - a reference back to a record already open on the current path is not expanded: its column reads
    "... (recursive: <full name>)" and has no children.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Deepest record nesting that is expanded into columns. Real CDC schemas nest 2-4 levels; the cap keeps every
# walker far from Python's recursion limit whatever a 170,000-character definition contains.
MAX_DEPTH = 32
# Upper bound on columns from one definition. Named types referenced many times can expand exponentially; the
# cap bounds time and memory. (A 2,000-column Debezium table gives ~4,030 columns: before.*, after.*, ...)
MAX_COLUMNS = 10_000
# Longest path quoted in a warning, so warnings stay short whatever the input.
_QUOTE_LIMIT = 120


@dataclass(frozen=True)
class Column:
    """One column of a topic's schema as DataZone shows it (RelationalTableFormType)."""

    name: str
    """Dotted path for nested fields, e.g. "after.customer_id"."""
    data_type: str
    nullable: bool
    description: str | None = None


@dataclass(frozen=True)
class ParsedSchema:
    """Columns of one schema definition.

    `warning` says what went wrong. With no columns, the definition could not be read at all or declares no
    fields (the caller still creates the asset, without columns). With columns, the result is usable but
    partial (nesting deeper than MAX_DEPTH, more than MAX_COLUMNS columns, duplicate names left out).
    Every result has columns, a warning, or both.
    """

    columns: tuple[Column, ...]
    warning: str | None = None


def failed(reason: str) -> ParsedSchema:
    return ParsedSchema(columns=(), warning=reason)


def load_json(definition: str, data_format: str) -> tuple[Any, ParsedSchema | None]:
    """The JSON document an AVRO or JSON definition is, or (None, why it cannot be read)."""
    try:
        return json.loads(definition), None
    except RecursionError:
        return None, failed(f"{data_format} definition is nested too deeply to read")
    except ValueError as exc:
        return None, failed(f"{data_format} definition is not valid JSON: {exc}")


def quote(text: str) -> str:
    """A short, safe rendering of user-controlled text for warnings."""
    return repr(text if len(text) <= _QUOTE_LIMIT else text[: _QUOTE_LIMIT - 1] + "…")


class ColumnSink:
    """Collects columns with the limits every walker shares, and the warnings about what was left out."""

    def __init__(self) -> None:
        self._columns: list[Column] = []
        self._names: set[str] = set()
        self._too_deep: list[str] = []
        self._duplicates: list[str] = []
        self._notes: list[str] = []
        self.full = False

    def add(self, name: str, data_type: str, nullable: bool, description: str | None = None) -> bool:
        """Record a column; False when it was left out (duplicate name, or the column cap is reached)."""
        if self.full:
            return False
        if name in self._names:
            self._duplicates.append(name)
            return False
        if len(self._columns) >= MAX_COLUMNS:
            self.full = True
            return False
        self._names.add(name)
        self._columns.append(Column(name, data_type, nullable, clean_text(description)))
        return True

    def too_deep(self, path: str) -> None:
        self._too_deep.append(path)

    def add_parent(self, column: Column, depth: int, has_children: bool) -> bool:
        """Record a column that may have children; True when the walk goes on into them: the column was
        added, it has children, and it sits above MAX_DEPTH (one at MAX_DEPTH is noted as too deep)."""
        if not self.add(column.name, column.data_type, column.nullable, column.description):
            return False
        if not has_children:
            return False
        if depth >= MAX_DEPTH:
            self.too_deep(column.name)
            return False
        return True

    def add_record(
        self, column: Column, depth: int, record: str | None, open_records: frozenset[str]
    ) -> bool:
        """`add_parent` for a column that holds the record named `record` (None: no record): a record
        already open on the path is not expanded, its column reads "... (recursive: <name>)"."""
        if record is not None and record in open_records:
            recursive = f"{column.data_type} (recursive: {record})"
            self.add(column.name, recursive, column.nullable, column.description)
            return False
        return self.add_parent(column, depth, record is not None)

    def note(self, message: str) -> None:
        self._notes.append(message)

    def result(self) -> ParsedSchema:
        warnings = list(self._notes)
        if self._too_deep:
            warnings.append(
                f"nesting deeper than {MAX_DEPTH} levels is not expanded ({len(self._too_deep)} place(s), "
                f"first at {quote(self._too_deep[0])})"
            )
        if self.full:
            warnings.append(f"more than {MAX_COLUMNS} columns: the rest are left out")
        if self._duplicates:
            warnings.append(
                f"{len(self._duplicates)} duplicate column name(s) left out, "
                f"first {quote(self._duplicates[0])}"
            )
        if not self._columns and not warnings:
            warnings.append("the schema declares no fields: no columns")
        return ParsedSchema(tuple(self._columns), "; ".join(warnings) if warnings else None)


def documentation(node: Any, own_key: str) -> str | None:
    """A node's documentation: the format's own key (Avro's `doc`, JSON Schema's `description`), else the
    `connect.doc` Kafka Connect's converters write; None when neither is text."""
    if isinstance(node, dict):
        for key in (own_key, "connect.doc"):
            if isinstance(node.get(key), str):
                return str(node[key])
    return None


def clean_text(text: object) -> str | None:
    """A description as one trimmed line, or None when there is none."""
    if not isinstance(text, str):
        return None
    collapsed = " ".join(text.split())
    return collapsed or None


# Kafka Connect schema types (as Debezium's converters record them in `connect.type` or, for the
# JsonConverter's own schema shape, in `type`) -> the readable names used across formats.
CONNECT_TYPES: dict[str, str] = {
    "int8": "byte",
    "int16": "short",
    "int32": "int",
    "int64": "long",
    "float32": "float",
    "float": "float",
    "float64": "double",
    "double": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "bytes",
    "struct": "record",
    "array": "array",
    "map": "map",
}

CONNECT_DECIMAL = "org.apache.kafka.connect.data.Decimal"
# Kafka Connect's built-in logical types, shown as the logical type they are.
_CONNECT_LOGICAL = {
    "org.apache.kafka.connect.data.Date": "date",
    "org.apache.kafka.connect.data.Time": "time-millis",
    "org.apache.kafka.connect.data.Timestamp": "timestamp-millis",
}


def connect_decimal(parameters: object) -> str:
    """Connect's Decimal carries its scale (and, from Debezium, its precision) as string parameters."""
    params: Mapping[str, Any] = parameters if isinstance(parameters, Mapping) else {}
    scale = params.get("scale")
    precision = params.get("connect.decimal.precision")
    if precision is not None and scale is not None:
        return f"decimal({precision},{scale})"
    if scale is not None:
        return f"decimal(scale={scale})"
    return "decimal"


def annotate(base: str, connect_name: object, parameters: object = None, logical_shown: bool = False) -> str:
    """Add a Kafka Connect semantic type name to a readable base type (see the module docstring)."""
    if not isinstance(connect_name, str) or not connect_name:
        return base
    if connect_name == CONNECT_DECIMAL:
        return base if logical_shown else connect_decimal(parameters)
    if connect_name in _CONNECT_LOGICAL:
        return base if logical_shown else _CONNECT_LOGICAL[connect_name]
    return f"{base} ({connect_name})"


def is_container(data_type: str) -> bool:
    """True for column types that may be followed by child columns."""
    return data_type == "record" or data_type.startswith(("record (", "array<", "map<"))
