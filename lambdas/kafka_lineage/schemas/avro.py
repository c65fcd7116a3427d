"""AVRO definitions -> columns.

fastavro validates the definition and resolves named types to full names (`parse_schema`, with the named types
collected in `named_schemas`); this module walks the parsed schema. Rules beyond those in `model`:
  - the root must be a record (or a nullable union of one record); its fields are the top-level columns;
  - ["null", X] is X, nullable; other unions are "union<a,b>" (named branches by full name) and are not
    expanded;
  - records inside arrays and map values are expanded like nested records ("lines" array<record>, then
    "lines.sku"), since that is what a reader of the table wants to see;
  - a named type referenced again (Debezium's `Value` in both `before` and `after`) is expanded at each use;
    a reference to a record already open on the current path is marked recursive and not expanded;
  - an invalid logical type is ignored, as the Avro specification says (the base type is shown).
"""

from __future__ import annotations

from typing import Any

import fastavro

from kafka_lineage.schemas.model import (
    CONNECT_TYPES,
    MAX_DEPTH,
    Column,
    ColumnSink,
    ParsedSchema,
    annotate,
    documentation,
    failed,
    load_json,
)

PRIMITIVES = frozenset({"null", "boolean", "int", "long", "float", "double", "bytes", "string"})
_COMPLEX = frozenset({"record", "error", "enum", "fixed", "array", "map"})
_KEYWORDS = PRIMITIVES | _COMPLEX
_NAMED = frozenset({"record", "error", "enum", "fixed"})

# logicalType -> the base types it may annotate (Avro 1.12 specification).
_LOGICAL_BASES: dict[str, frozenset[str]] = {
    "date": frozenset({"int"}),
    "time-millis": frozenset({"int"}),
    "time-micros": frozenset({"long"}),
    "timestamp-millis": frozenset({"long"}),
    "timestamp-micros": frozenset({"long"}),
    "timestamp-nanos": frozenset({"long"}),
    "local-timestamp-millis": frozenset({"long"}),
    "local-timestamp-micros": frozenset({"long"}),
    "local-timestamp-nanos": frozenset({"long"}),
    "uuid": frozenset({"string", "fixed"}),
    "duration": frozenset({"fixed"}),
    "big-decimal": frozenset({"bytes"}),
    "decimal": frozenset({"bytes", "fixed"}),
}


def parse(definition: str) -> ParsedSchema:
    raw, unreadable = load_json(definition, "AVRO")
    if unreadable is not None:
        return unreadable
    _drop_invalid_decimals(raw)
    named: dict[str, Any] = {}
    try:
        parsed = fastavro.parse_schema(raw, named_schemas=named)
    except RecursionError:
        return failed("AVRO definition is nested too deeply to read")
    except (
        Exception
    ) as exc:  # fastavro reports malformed schemas as SchemaParseException, KeyError, TypeError...
        return failed(f"AVRO definition is not a valid Avro schema: {type(exc).__name__}: {exc}")
    return _Walker(named).walk(parsed)


class _Walker:
    def __init__(self, named: dict[str, Any]) -> None:
        self._named = named
        self._sink = ColumnSink()

    def walk(self, parsed: Any) -> ParsedSchema:
        root, _ = self._unwrap_nullable(self._resolve(parsed))
        root = self._resolve(root)
        if not _is_record(root):
            return failed(f"the AVRO schema's root is {self._type_name(root, 0)}, not a record: no columns")
        self._fields(root, "", 1, frozenset({root["name"]}))
        return self._sink.result()

    def _fields(self, record: dict[str, Any], prefix: str, depth: int, open_records: frozenset[str]) -> None:
        for field in record.get("fields", []):
            if self._sink.full:
                return
            self._field(prefix + str(field["name"]), field["type"], field.get("doc"), depth, open_records)

    def _field(self, path: str, avro_type: Any, doc: Any, depth: int, open_records: frozenset[str]) -> None:
        inner, nullable = self._unwrap_nullable(self._resolve(avro_type))
        inner = self._resolve(inner)
        data_type = self._type_name(inner, 0)
        description = doc if isinstance(doc, str) else documentation(inner, "doc")
        record = self._record_within(inner)
        name = None if record is None else str(record["name"])
        column = Column(path, data_type, nullable, description)
        if self._sink.add_record(column, depth, name, open_records) and record is not None:
            self._fields(record, path + ".", depth + 1, open_records | {record["name"]})

    def _record_within(self, avro_type: Any) -> dict[str, Any] | None:
        """The record whose fields become child columns: itself, an array's items or a map's values."""
        if _is_record(avro_type):
            return dict(avro_type)
        if isinstance(avro_type, dict) and avro_type.get("type") in ("array", "map"):
            key = "items" if avro_type["type"] == "array" else "values"
            element, _ = self._unwrap_nullable(self._resolve(avro_type.get(key)))
            element = self._resolve(element)
            if _is_record(element):
                return dict(element)
        return None

    def _unwrap_nullable(self, avro_type: Any) -> tuple[Any, bool]:
        if not isinstance(avro_type, list):
            return avro_type, False
        branches = [branch for branch in avro_type if branch != "null"]
        nullable = len(branches) < len(avro_type)
        if len(branches) == 1:
            return branches[0], nullable
        return branches, nullable

    def _resolve(self, avro_type: Any) -> Any:
        """Follow named references (full names after fastavro) and {"type": <schema>} wrappings."""
        for _ in range(8):  # references never chain deeper than a wrapping around a name
            if isinstance(avro_type, str) and avro_type in self._named:
                avro_type = self._named[avro_type]
                continue
            if isinstance(avro_type, dict):
                inner = avro_type.get("type")
                if isinstance(inner, dict | list) or (isinstance(inner, str) and inner not in _KEYWORDS):
                    avro_type = inner
                    continue
            return avro_type
        return avro_type

    def _branch_name(self, avro_type: Any, depth: int) -> str:
        """A union branch: named types by their full name, so "union<shop.Card,shop.Transfer>" says which."""
        resolved = self._resolve(avro_type)
        if (
            isinstance(resolved, dict)
            and resolved.get("type") in _NAMED
            and isinstance(resolved.get("name"), str)
        ):
            return str(resolved["name"])
        return self._type_name(resolved, depth)

    def _type_name(self, avro_type: Any, depth: int) -> str:
        if depth > MAX_DEPTH:
            return "…"
        avro_type = self._resolve(avro_type)
        if isinstance(avro_type, str):
            return avro_type
        if isinstance(avro_type, list):
            branches = [branch for branch in avro_type if branch != "null"]
            if len(branches) == 1:
                return self._type_name(branches[0], depth + 1)
            return "union<" + ",".join(self._branch_name(branch, depth + 1) for branch in branches) + ">"
        if not isinstance(avro_type, dict):
            return type(avro_type).__name__
        kind = avro_type.get("type")
        if kind in ("record", "error"):
            base = "record"
        elif kind == "enum":
            base = "enum"
        elif kind == "fixed":
            base = f"fixed({avro_type.get('size')})"
        elif kind == "array":
            base = f"array<{self._type_name(avro_type.get('items'), depth + 1)}>"
        elif kind == "map":
            base = f"map<string,{self._type_name(avro_type.get('values'), depth + 1)}>"
        else:
            connect_type = avro_type.get("connect.type")
            base = CONNECT_TYPES.get(connect_type, str(kind)) if isinstance(connect_type, str) else str(kind)
        logical = _logical(avro_type, str(kind))
        return annotate(
            logical or base,
            avro_type.get("connect.name"),
            avro_type.get("connect.parameters"),
            logical_shown=logical is not None,
        )


def _is_record(avro_type: Any) -> bool:
    return isinstance(avro_type, dict) and avro_type.get("type") in ("record", "error")


def _logical(avro_type: dict[str, Any], kind: str) -> str | None:
    """The logical type's readable name when valid for its base type; None otherwise (spec: ignore it)."""
    logical = avro_type.get("logicalType")
    if not isinstance(logical, str) or kind not in _LOGICAL_BASES.get(logical, ()):
        return None
    if logical == "decimal":
        precision, scale = avro_type.get("precision"), avro_type.get("scale", 0)
        valid = (
            isinstance(precision, int)
            and isinstance(scale, int)
            and 0 <= scale <= precision
            and precision > 0
        )
        return f"decimal({precision},{scale})" if valid else None
    if logical == "uuid" and kind == "fixed" and avro_type.get("size") != 16:
        return None
    if logical == "duration" and avro_type.get("size") != 12:
        return None
    return logical


def _drop_invalid_decimals(raw: Any) -> None:
    """Remove decimal logical types with impossible precision/scale, in place.

    The Avro specification (and the Java library the registry validates with) ignores an invalid logical type;
    fastavro rejects the whole schema instead. Iterative, so any nesting depth is fine.
    """
    pending = [raw]
    while pending:
        node = pending.pop()
        if isinstance(node, list):
            pending.extend(node)
        elif isinstance(node, dict):
            if node.get("logicalType") == "decimal" and _logical(node, str(node.get("type"))) is None:
                del node["logicalType"]
            pending.extend(value for value in node.values() if isinstance(value, dict | list))
