"""Per-field facts the columns do not carry (defaults, Avro aliases, Protobuf field numbers), by column path.

Each function reads the definition with the library its column parser uses and names fields exactly as the
parser names columns; callers keep only the paths that are columns, so a path this module names differently
can only lose a fact (no rename or default change seen), never invent one.
  - AVRO and JSON reuse the parsers' own walkers (fastavro's parsed schema; the JSON Schema and Kafka
    Connect walkers), recording the field's declaration on the way, so paths match by construction.
  - PROTOBUF walks proto-schema-parser's syntax tree with the rules `kafka_lineage.schemas.protobuf`
    documents (root message, protoc scoping, oneof members in place, map values and groups, well-known types
    as leaves). It only reads what identifies a field (its number) and its proto2 / editions `default`
    option; proto3 has no custom defaults.
"""

from __future__ import annotations

import json
import math
import threading
from typing import Any

import fastavro
from antlr4.error.ErrorListener import ErrorListener
from proto_schema_parser import ast
from proto_schema_parser.parser import Parser

from kafka_lineage.drift.model import FieldFacts
from kafka_lineage.schemas import avro, json_schema, protobuf
from kafka_lineage.schemas.model import MAX_COLUMNS, MAX_DEPTH

# Defaults are shown in events and reports: a long one (a whole object) is cut to this many characters.
MAX_DEFAULT_CHARS = 200

Facts = dict[str, FieldFacts]


def field_facts(data_format: str, definition: str) -> Facts:
    """Facts by column path; empty when the definition cannot be read (the column parser says why)."""
    reader = {"AVRO": _avro, "JSON": _json, "PROTOBUF": _protobuf}.get(data_format.strip().upper())
    if reader is None:
        return {}
    return reader(definition)


def default_text(value: Any) -> str:
    """A default as compact JSON (NaN and infinities as JSON's readers write them), cut when long."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return text if len(text) <= MAX_DEFAULT_CHARS else text[: MAX_DEFAULT_CHARS - 1] + "…"


# -- AVRO ---------------------------------------------------------------------------------------------


def _avro(definition: str) -> Facts:
    try:
        raw = json.loads(definition)
        avro._drop_invalid_decimals(raw)  # as the column parser does, so both read the same schema
        named: dict[str, Any] = {}
        parsed = fastavro.parse_schema(raw, named_schemas=named)
    except Exception:  # unreadable: the column parser reports it
        return {}
    walker = _AvroFacts(named)
    walker.walk(parsed)
    return walker.facts


class _AvroFacts(avro._Walker):
    def __init__(self, named: dict[str, Any]) -> None:
        super().__init__(named)
        self.facts: Facts = {}

    def _fields(self, record: dict[str, Any], prefix: str, depth: int, open_records: frozenset[str]) -> None:
        for field in record.get("fields", []):
            aliases = field.get("aliases")
            self.facts.setdefault(
                prefix + str(field["name"]),
                FieldFacts(
                    default=default_text(field["default"]) if "default" in field else None,
                    aliases=tuple(str(a) for a in aliases) if isinstance(aliases, list) else (),
                ),
            )
        super()._fields(record, prefix, depth, open_records)


# -- JSON ---------------------------------------------------------------------------------------------


def _json(definition: str) -> Facts:
    try:
        document = json.loads(definition)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(document, dict):
        return {}
    embedded = document.get("schema")
    if json_schema._is_connect_struct(document):
        connect: _ConnectFacts | None = _ConnectFacts()
        struct = document
    elif "payload" in document and isinstance(embedded, dict) and json_schema._is_connect_struct(embedded):
        connect, struct = _ConnectFacts(), embedded
    else:
        connect = None
    if connect is not None:
        connect.walk(struct)
        return connect.facts
    walker = _JsonSchemaFacts(document)
    walker.walk()
    return walker.facts


class _JsonSchemaFacts(json_schema._SchemaWalker):
    def __init__(self, document: dict[str, Any]) -> None:
        super().__init__(document)
        self.facts: Facts = {}

    def _columns(self, members: Any, prefix: str, depth: int) -> None:
        for name, subschema in members.properties:
            self.facts.setdefault(prefix + name, FieldFacts(default=self._default(subschema, members.refs)))
        super()._columns(members, prefix, depth)

    def _default(self, subschema: Any, refs: frozenset[str]) -> str | None:
        """The property's own `default`, else that of the schema its `$ref` names."""
        if isinstance(subschema, dict) and "default" in subschema:
            return default_text(subschema["default"])
        target, _, stop = self._deref(subschema, refs)
        if stop is None and isinstance(target, dict) and "default" in target:
            return default_text(target["default"])
        return None


class _ConnectFacts(json_schema._ConnectWalker):
    def __init__(self) -> None:
        super().__init__()
        self.facts: Facts = {}

    def _fields(self, fields: list[Any], prefix: str, depth: int) -> None:
        for field in fields:
            if isinstance(field, dict) and isinstance(field.get("field"), str):
                default = default_text(field["default"]) if "default" in field else None
                self.facts.setdefault(prefix + field["field"], FieldFacts(default=default))
        super()._fields(fields, prefix, depth)


# -- PROTOBUF -----------------------------------------------------------------------------------------

# ANTLR's Python runtime shares prediction caches between parsers without locking: share the column
# parser's lock when it has one, so the two never parse at the same time.
_PARSE_LOCK = getattr(protobuf, "_PARSE_LOCK", None) or threading.Lock()
_ProtoNode = ast.Message | ast.Enum | ast.Group


class _Quiet(ErrorListener):
    """Counts syntax errors instead of printing them; any error makes the file unreadable."""

    def __init__(self) -> None:
        super().__init__()
        self.errors = 0

    def syntaxError(
        self, recognizer: Any, offendingSymbol: Any, line: int, column: int, msg: str, e: Any
    ) -> None:
        self.errors += 1


def _protobuf(definition: str) -> Facts:
    quiet = _Quiet()

    def setup(recognizer: Any) -> None:
        recognizer.removeErrorListeners()
        recognizer.addErrorListener(quiet)

    try:
        with _PARSE_LOCK:
            tree = Parser(setup_lexer=setup, setup_parser=setup).parse(definition)
    except Exception:  # unreadable: the column parser reports it
        return {}
    if quiet.errors:
        return {}
    return _ProtoFacts(tree).walk()


class _ProtoFacts:
    def __init__(self, tree: ast.File) -> None:
        self._tree = tree
        self._package = next((e.name for e in tree.file_elements if isinstance(e, ast.Package)), "")
        self._symbols: dict[str, _ProtoNode] = {}
        self.facts: Facts = {}
        pending: list[tuple[_ProtoNode, str]] = [
            (e, self._package) for e in reversed(tree.file_elements) if isinstance(e, ast.Message | ast.Enum)
        ]
        while pending:  # iterative: nesting depth is the input's to choose
            node, scope = pending.pop()
            full_name = f"{scope}.{node.name}" if scope else node.name
            self._symbols.setdefault(full_name, node)
            if isinstance(node, ast.Message | ast.Group):
                for element in reversed(node.elements):
                    if isinstance(element, ast.Message | ast.Enum | ast.Group):
                        pending.append((element, full_name))
                    elif isinstance(element, ast.OneOf):
                        pending.extend((g, full_name) for g in element.elements if isinstance(g, ast.Group))

    def walk(self) -> Facts:
        root = self._root()
        if root is not None:
            self._message(root, "", 1, frozenset({root}))
        return self.facts

    def _root(self) -> str | None:
        """The message no other message refers to (else the first), as the column parser picks it."""
        prefix = f"{self._package}." if self._package else ""
        tops = [prefix + e.name for e in self._tree.file_elements if isinstance(e, ast.Message)]
        if not tops:
            return None
        referenced: set[str] = set()
        for full_name, node in self._symbols.items():
            if not isinstance(node, ast.Message | ast.Group):
                continue
            for member in _members(node.elements):
                type_name = _type_of(member)
                target = self._lookup(type_name, full_name) if type_name is not None else None
                if target is not None and not (full_name + ".").startswith(target + "."):
                    referenced.add(target)
        return next((top for top in tops if top not in referenced), tops[0])

    def _lookup(self, type_name: str, scope: str) -> str | None:
        if type_name.startswith("."):
            return type_name[1:] if type_name[1:] in self._symbols else None
        parts = scope.split(".") if scope else []
        for end in range(len(parts), -1, -1):
            candidate = ".".join([*parts[:end], type_name])
            if candidate in self._symbols:
                return candidate
        return None

    def _message(self, full_name: str, prefix: str, depth: int, open_messages: frozenset[str]) -> None:
        node = self._symbols[full_name]
        assert isinstance(node, ast.Message | ast.Group)
        for member in _members(node.elements):
            if len(self.facts) >= MAX_COLUMNS:
                return
            if isinstance(member, ast.Group):
                path = prefix + member.name.lower()
                target: str | None = f"{full_name}.{member.name}"
                options: list[Any] = []
            else:
                path = prefix + member.name
                type_name = _type_of(member)
                target = self._lookup(type_name, full_name) if type_name is not None else None
                options = list(getattr(member, "options", []) or [])
            self.facts.setdefault(path, FieldFacts(default=_proto_default(options), number=member.number))
            if (
                target is None
                or target in protobuf.WELL_KNOWN
                or not isinstance(self._symbols.get(target), ast.Message | ast.Group)
                or target in open_messages
                or depth >= MAX_DEPTH
            ):
                continue
            self._message(target, path + ".", depth + 1, open_messages | {target})


_Member = ast.Field | ast.MapField | ast.Group


def _members(elements: list[Any]) -> list[_Member]:
    """Fields in declaration order, oneof members in place."""
    found: list[_Member] = []
    for element in elements:
        if isinstance(element, ast.OneOf):
            found.extend(_members(element.elements))
        elif isinstance(element, ast.Field | ast.MapField | ast.Group):
            found.append(element)
    return found


def _type_of(member: _Member) -> str | None:
    """The message or enum type a member may name (a map's value type); None for groups and scalars."""
    if isinstance(member, ast.MapField):
        type_name = member.value_type
    elif isinstance(member, ast.Field):
        type_name = member.type
    else:
        return None
    return None if type_name in protobuf.SCALARS else type_name


def _proto_default(options: list[Any]) -> str | None:
    for option in options:
        if getattr(option, "name", None) == "default":
            value = option.value
            if isinstance(value, ast.Identifier):  # an enum value's name
                return default_text(value.name)
            if isinstance(value, float) and not math.isfinite(value):
                return default_text(str(value))  # "inf", "-inf", "nan" as protobuf writes them
            return default_text(value)
    return None
