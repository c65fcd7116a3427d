"""PROTOBUF definitions -> columns, the tolerant path: proto-schema-parser (ANTLR, pure Python).

`protobuf.parse` uses protoc first (fast and exact) and comes here only when protoc rejects the file, most
often because it imports a file the registry does not hold. This parser needs no imports: a type name that
resolves nowhere stays as written. The column rules are those of `protobuf`'s docstring.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from antlr4.error.ErrorListener import ErrorListener
from proto_schema_parser import ast
from proto_schema_parser.parser import Parser

from kafka_lineage.schemas.model import Column, ParsedSchema, failed, quote
from kafka_lineage.schemas.protobuf_columns import Label, Place, ProtoWalker

SCALARS = frozenset(
    {
        "double", "float", "int32", "int64", "uint32", "uint64", "sint32", "sint64",
        "fixed32", "fixed64", "sfixed32", "sfixed64", "bool", "string", "bytes",
    }
)  # fmt: skip

# Well-known and common Google types, shown as leaves. additionalTypes.Decimal is what the Glue Schema
# Registry's Kafka Connect converter writes for Connect decimals.
WELL_KNOWN: dict[str, str] = {
    "google.protobuf.Timestamp": "timestamp",
    "google.protobuf.Duration": "duration",
    "google.protobuf.DoubleValue": "double",
    "google.protobuf.FloatValue": "float",
    "google.protobuf.Int64Value": "int64",
    "google.protobuf.UInt64Value": "uint64",
    "google.protobuf.Int32Value": "int32",
    "google.protobuf.UInt32Value": "uint32",
    "google.protobuf.BoolValue": "bool",
    "google.protobuf.StringValue": "string",
    "google.protobuf.BytesValue": "bytes",
    "google.protobuf.Struct": "json",
    "google.protobuf.Value": "json",
    "google.protobuf.ListValue": "array<json>",
    "google.protobuf.Any": "any",
    "google.protobuf.Empty": "record",
    "google.protobuf.FieldMask": "field-mask",
    "google.type.Date": "date",
    "google.type.TimeOfDay": "time",
    "google.type.DateTime": "timestamp",
    "google.type.Decimal": "decimal",
    "google.type.Money": "money",
    "google.type.LatLng": "lat-lng",
    "additionalTypes.Decimal": "decimal",
}

_LABELS: dict[ast.FieldCardinality | None, Label] = {
    ast.FieldCardinality.OPTIONAL: Label.OPTIONAL,
    ast.FieldCardinality.REQUIRED: Label.REQUIRED,
    ast.FieldCardinality.REPEATED: Label.REPEATED,
}
_MAX_SYNTAX_ERRORS = 3
# ANTLR's Python runtime shares its prediction caches between parser instances without locking; parsing is
# CPU-bound under the GIL anyway, so serialising it costs nothing and keeps callers on threads safe.
_PARSE_LOCK = threading.Lock()


class _Errors(ErrorListener):
    """Collects ANTLR syntax errors instead of printing them to stderr; any error makes the file invalid."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[str] = []

    def syntaxError(
        self, recognizer: Any, offendingSymbol: Any, line: int, column: int, msg: str, e: Any
    ) -> None:
        self.messages.append(f"line {line}:{column} {msg}")


def _listen(errors: _Errors) -> Any:
    def setup(recognizer: Any) -> None:
        recognizer.removeErrorListeners()
        recognizer.addErrorListener(errors)

    return setup


def parse(definition: str) -> ParsedSchema:
    errors = _Errors()
    try:
        with _PARSE_LOCK:
            proto = Parser(setup_lexer=_listen(errors), setup_parser=_listen(errors)).parse(definition)
    except RecursionError:
        return failed("PROTOBUF definition is nested too deeply to read")
    except (
        Exception
    ) as exc:  # the parser's tree visitor fails on some malformed input instead of reporting it
        return failed(f"PROTOBUF definition does not parse: {type(exc).__name__}: {exc}")
    if errors.messages:
        shown = "; ".join(quote(message) for message in errors.messages[:_MAX_SYNTAX_ERRORS])
        more = len(errors.messages) - _MAX_SYNTAX_ERRORS
        return failed(
            f"PROTOBUF definition does not parse: {shown}" + (f" (+{more} more)" if more > 0 else "")
        )
    return _Walker(proto).walk()


@dataclass(frozen=True)
class _Symbol:
    full_name: str
    node: ast.Message | ast.Enum | ast.Group


class _Walker(ProtoWalker[_Symbol]):
    def __init__(self, proto: ast.File) -> None:
        super().__init__(explicit_presence=proto.edition is not None, proto3=proto.syntax == "proto3")
        self._proto = proto
        package = next((e.name for e in proto.file_elements if isinstance(e, ast.Package)), "")
        self._package = package
        self._symbols: dict[str, _Symbol] = {}
        for element in proto.file_elements:
            if isinstance(element, ast.Message | ast.Enum):
                self._declare(element, package)

    def _declare(self, top: ast.Message | ast.Enum, scope: str) -> None:
        pending: list[tuple[ast.Message | ast.Enum | ast.Group, str]] = [(top, scope)]
        while pending:  # iterative: nesting depth is the input's to choose
            node, parent = pending.pop()
            full_name = f"{parent}.{node.name}" if parent else node.name
            self._symbols.setdefault(full_name, _Symbol(full_name, node))
            if isinstance(node, ast.Message | ast.Group):
                for element in node.elements:
                    if isinstance(element, ast.Message | ast.Enum | ast.Group):
                        pending.append((element, full_name))
                    elif isinstance(element, ast.OneOf):
                        pending.extend((g, full_name) for g in element.elements if isinstance(g, ast.Group))

    def _root(self) -> _Symbol | None:
        prefix = f"{self._package}." if self._package else ""
        tops = [
            self._symbols[prefix + e.name] for e in self._proto.file_elements if isinstance(e, ast.Message)
        ]
        if not tops:
            return None
        referenced: set[str] = set()
        for symbol in self._symbols.values():
            if not isinstance(symbol.node, ast.Message | ast.Group):
                continue
            for type_name in _field_types(symbol.node):
                target = self._lookup(type_name, symbol.full_name)
                # A message's own nested types referring back to it don't make it a part of something else.
                if target is not None and not (symbol.full_name + ".").startswith(target.full_name + "."):
                    referenced.add(target.full_name)
        return next((top for top in tops if top.full_name not in referenced), tops[0])

    def _lookup(self, type_name: str, scope: str) -> _Symbol | None:
        """protoc's scoping: a leading dot is absolute; otherwise the innermost scope first, then outwards."""
        if type_name.startswith("."):
            return self._symbols.get(type_name[1:])
        parts = scope.split(".") if scope else []
        for end in range(len(parts), -1, -1):
            candidate = ".".join([*parts[:end], type_name])
            if candidate in self._symbols:
                return self._symbols[candidate]
        return None

    # -- columns --

    def _fields(self, message: _Symbol, place: Place) -> None:
        node = message.node
        assert isinstance(node, ast.Message | ast.Group)
        for element, description, oneof in _members(node.elements):
            if self._sink.full:
                return
            if isinstance(element, ast.MapField):
                self._map(element, message, place, description)
            elif isinstance(element, ast.Group):
                self._group(element, message, place, description, oneof)
            else:
                self._field(element, message, place, description, oneof)

    def _field(
        self, field: ast.Field, message: _Symbol, place: Place, description: str | None, oneof: str | None
    ) -> None:
        element_type, target = self._element(field.type, message.full_name)
        # Unknown types have presence, like messages.
        is_value = field.type in SCALARS or (target is not None and isinstance(target.node, ast.Enum))
        label = _LABELS.get(field.cardinality, Label.NONE)
        column = self._field_column(
            place.prefix + field.name, element_type, label, oneof, is_value, description
        )
        self._emit(column, target, place)

    def _map(self, field: ast.MapField, message: _Symbol, place: Place, description: str | None) -> None:
        value_type, target = self._element(field.value_type, message.full_name)
        column = Column(place.prefix + field.name, f"map<{field.key_type},{value_type}>", False, description)
        self._emit(column, target, place)

    def _group(
        self, group: ast.Group, message: _Symbol, place: Place, description: str | None, oneof: str | None
    ) -> None:
        # proto2 groups: a nested message type and a field named after it in lower case.
        target = self._symbols.get(f"{message.full_name}.{group.name}")
        repeated = group.cardinality == ast.FieldCardinality.REPEATED
        nullable = not repeated and group.cardinality != ast.FieldCardinality.REQUIRED
        data_type = "array<record>" if repeated else "record"
        column = Column(place.prefix + group.name.lower(), data_type, nullable, description)
        self._emit(column, target, place)

    def _emit(self, column: Column, message: _Symbol | None, place: Place) -> None:
        # An enum is a leaf.
        expands = message is not None and isinstance(message.node, ast.Message | ast.Group)
        super()._emit(column, message if expands else None, place)

    def _element(self, type_name: str, scope: str) -> tuple[str, _Symbol | None]:
        """The readable type of a field's (element) type, and the local message or enum it names, if any."""
        if type_name in SCALARS:
            return type_name, None
        target = self._lookup(type_name, scope)
        if target is not None and target.full_name in WELL_KNOWN:
            return f"{WELL_KNOWN[target.full_name]} ({target.full_name})", None
        if target is not None:
            return ("enum" if isinstance(target.node, ast.Enum) else "record"), target
        bare = type_name.lstrip(".")
        if bare in WELL_KNOWN:
            return f"{WELL_KNOWN[bare]} ({bare})", None
        return bare, None


def _field_types(message: ast.Message | ast.Group) -> list[str]:
    names: list[str] = []
    for element in message.elements:
        if isinstance(element, ast.Field):
            names.append(element.type)
        elif isinstance(element, ast.MapField):
            names.append(element.value_type)
        elif isinstance(element, ast.OneOf):
            names.extend(member.type for member in element.elements if isinstance(member, ast.Field))
    return names


_Member = ast.Field | ast.MapField | ast.Group


def _members(elements: list[Any]) -> list[tuple[_Member, str | None, str | None]]:
    """Fields in declaration order (oneof members in place) with their comments and their oneof's name."""
    found: list[tuple[_Member, str | None, str | None]] = []
    _collect(elements, None, found)
    return found


def _collect(
    elements: list[Any], oneof: str | None, found: list[tuple[_Member, str | None, str | None]]
) -> None:
    leading: list[str] = []
    for index, element in enumerate(elements):
        if isinstance(element, ast.Comment):
            if not element.inline:
                leading.append(_comment_text(element.text))
            continue
        if isinstance(element, ast.OneOf):
            _collect(element.elements, element.name, found)
        elif isinstance(element, ast.Field | ast.MapField | ast.Group):
            trailing = elements[index + 1] if index + 1 < len(elements) else None
            text = " ".join(part for part in leading if part)
            if not text and isinstance(trailing, ast.Comment) and trailing.inline:
                text = _comment_text(trailing.text)
            found.append((element, text or None, oneof))
        leading = []


def _comment_text(text: str) -> str:
    text = text.strip()
    if text.startswith("//"):
        return text[2:].strip()
    if text.startswith("/*"):
        body = text[2:-2] if text.endswith("*/") else text[2:]
        lines = (line.strip().lstrip("*").strip() for line in body.splitlines())
        return " ".join(line for line in lines if line)
    return text
