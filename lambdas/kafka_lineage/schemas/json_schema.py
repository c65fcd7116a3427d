"""JSON definitions -> columns.

Two shapes are read:
  - JSON Schema (drafts 4 to 2020-12), what the Glue Schema Registry stores for data format JSON. This walks
    the properties by hand: the `jsonschema` library validates instances and resolves references while
    validating, but offers no walk over a schema's structure, and it is not in the Lambda bundle. Rules:
      * the root must describe an object; its properties (and those of `allOf` branches) are the columns;
      * a property is nullable when its type admits null (`"type": ["x", "null"]`, a null branch of
        `oneOf` / `anyOf`, OpenAPI's `"nullable": true`) or when it is not `required`. Exception: schemas
        written by the Glue Schema Registry's Kafka Connect JsonSchemaConverter (properties carry
        `connect.index`) never list `required` and mark optional fields with a `oneOf` null branch; for
        those only the null branch counts;
      * `$ref` to a local JSON pointer (`#/$defs/X`, `#/definitions/X`, `#`) is followed; a reference
        already open on the current path is marked recursive; a reference that cannot be resolved is shown
        as "reference (<uri>)";
      * `oneOf` / `anyOf` with one non-null branch is that branch; with several it is "union<a,b>";
      * objects inside arrays and map values (`additionalProperties`) are expanded like nested objects;
      * Kafka Connect annotations (`connect.type`, `connect.name`, `connect.parameters`) refine the type as in
        `model`; a string `format` shows as "string (date-time)".
  - Kafka Connect's own JSON schema shape (`{"type": "struct", "fields": [...]}`, what the JsonConverter
    embeds with `schemas.enable`, or a whole `{"schema": ..., "payload": ...}` message): fields by `field`,
    nullability by `optional`, semantic types by `name`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

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
    quote,
)

_JSON_TYPES = ("object", "array", "string", "integer", "number", "boolean", "null")


def parse(definition: str) -> ParsedSchema:
    document, unreadable = load_json(definition, "JSON")
    if unreadable is not None:
        return unreadable
    if not isinstance(document, dict):
        return failed(f"JSON definition is a {type(document).__name__}, not a schema object: no columns")
    if _is_connect_struct(document):
        return _ConnectWalker().walk(document)
    embedded = document.get("schema")
    if "payload" in document and isinstance(embedded, dict) and _is_connect_struct(embedded):
        return _ConnectWalker().walk(embedded)
    return _SchemaWalker(document).walk()


def _is_connect_struct(node: dict[str, Any]) -> bool:
    return node.get("type") == "struct" and isinstance(node.get("fields"), list)


@dataclass(frozen=True)
class _Members:
    """The properties of an object schema, as child columns."""

    properties: tuple[tuple[str, Any], ...]
    required: frozenset[str]
    lists_required: bool
    connect_generated: bool
    refs: frozenset[str]


@dataclass(frozen=True)
class _Node:
    data_type: str
    nullable: bool = False
    description: str | None = None
    members: _Members | None = None


class _SchemaWalker:
    def __init__(self, document: dict[str, Any]) -> None:
        self._document = document
        root_id = document.get("$id", document.get("id"))
        self._root_id = root_id.split("#", 1)[0] if isinstance(root_id, str) else None
        self._sink = ColumnSink()

    def walk(self) -> ParsedSchema:
        root = self._analyze(self._document, frozenset({"#"}), 0)
        if root.members is None:
            return failed(f"the JSON schema's root is {root.data_type}, not an object: no columns")
        self._columns(root.members, "", 1)
        return self._sink.result()

    def _columns(self, members: _Members, prefix: str, depth: int) -> None:
        only_null_branch = members.connect_generated and not members.lists_required
        for name, subschema in members.properties:
            if self._sink.full:
                return
            path = prefix + name
            node = self._analyze(subschema, members.refs, 0)
            nullable = node.nullable or (not only_null_branch and name not in members.required)
            description = documentation(subschema, "description") or node.description
            column = Column(path, node.data_type, nullable, description)
            if self._sink.add_parent(column, depth, node.members is not None) and node.members is not None:
                self._columns(node.members, path + ".", depth + 1)

    # -- one schema: its readable type, nullability and (for objects) the members to expand --

    def _analyze(self, schema: Any, refs: frozenset[str], depth: int) -> _Node:
        if depth > MAX_DEPTH:
            return _Node("…")
        schema, refs, stop = self._deref(schema, refs)
        if stop is not None:
            return _Node(stop)
        if schema is True or schema == {}:
            return _Node("any", nullable=True)
        if not isinstance(schema, dict):
            return _Node("never" if schema is False else type(schema).__name__)
        description = documentation(schema, "description")
        nullable = schema.get("nullable") is True  # OpenAPI 3.0 style
        node = self._typed(schema, refs, depth, nullable)
        # The schema's own nullability and description hold whatever node it turns out to be.
        return _Node(node.data_type, nullable or node.nullable, description or node.description, node.members)

    def _typed(self, schema: dict[str, Any], refs: frozenset[str], depth: int, nullable: bool) -> _Node:
        combined = self._combinator(schema, refs, depth)
        if combined is not None:
            return combined
        types = _types(schema)
        if "null" in types:
            nullable = True
            types = [kind for kind in types if kind != "null"]
        if len(types) > 1:
            return _Node("union<" + ",".join(types) + ">", nullable)
        kind = types[0] if types else "null" if nullable and "type" in schema else "any"
        if kind == "object":
            return self._object(schema, refs, depth)
        if kind == "array":
            return self._array(schema, refs, depth)
        return _Node(_scalar_type(schema, kind), nullable)

    def _combinator(self, schema: dict[str, Any], refs: frozenset[str], depth: int) -> _Node | None:
        """A schema that is only a `oneOf` / `anyOf` (no type of its own): its one non-null branch, or a
        union of the branches; None for any other schema."""
        for combinator in ("oneOf", "anyOf"):
            branches = schema.get(combinator)
            if not isinstance(branches, list) or not branches or _has_own_type(schema):
                continue
            real = [branch for branch in branches if not self._is_null(branch, refs)]
            nullable = len(real) < len(branches)
            if len(real) == 1:
                inner = self._analyze(real[0], refs, depth + 1)
                return _Node(inner.data_type, nullable or inner.nullable, inner.description, inner.members)
            names = ",".join(self._analyze(branch, refs, depth + 1).data_type for branch in real)
            return _Node(f"union<{names}>", nullable)
        return None

    def _object(self, schema: dict[str, Any], refs: frozenset[str], depth: int) -> _Node:
        members = self._members(schema, refs)
        extra = schema.get("additionalProperties")
        if not members.properties and isinstance(extra, dict):
            values = self._analyze(extra, refs, depth + 1)
            return _Node(f"map<string,{values.data_type}>", members=values.members)
        base = "record" if members.properties else "object"
        return _Node(annotate(base, schema.get("connect.name")), members=members)

    def _array(self, schema: dict[str, Any], refs: frozenset[str], depth: int) -> _Node:
        items = schema.get("items")
        if isinstance(items, dict | bool):
            element = self._analyze(items, refs, depth + 1)
            return _Node(f"array<{element.data_type}>", members=element.members)
        tuple_items = schema.get("prefixItems", items)
        if isinstance(tuple_items, list) and tuple_items:
            names = ",".join(self._analyze(item, refs, depth + 1).data_type for item in tuple_items)
            return _Node(f"array<union<{names}>>")
        return _Node("array<any>")

    def _members(self, schema: dict[str, Any], refs: frozenset[str]) -> _Members:
        properties: dict[str, Any] = {}
        required: set[str] = set()
        lists_required = False
        pending: list[tuple[Any, int]] = [(schema, 0)]
        while (
            pending
        ):  # this object and its allOf branches, breadth first; refinements keep the first definition
            current, level = pending.pop(0)
            current, _, stop = self._deref(current, refs)
            if stop is not None or not isinstance(current, dict):
                continue
            props = current.get("properties")
            if isinstance(props, dict):
                for name, subschema in props.items():
                    properties.setdefault(str(name), subschema)
            if isinstance(current.get("required"), list):
                lists_required = True
                required.update(str(name) for name in current["required"])
            if isinstance(current.get("allOf"), list) and level < MAX_DEPTH:
                pending.extend((branch, level + 1) for branch in current["allOf"])
        connect_generated = any(_has_connect_index(sub) for sub in properties.values())
        return _Members(
            tuple(properties.items()), frozenset(required), lists_required, connect_generated, refs
        )

    def _is_null(self, schema: Any, refs: frozenset[str]) -> bool:
        schema, _, stop = self._deref(schema, refs)
        if stop is not None or not isinstance(schema, dict):
            return False
        return (
            schema.get("type") == "null"
            or schema.get("type") == ["null"]
            or ("const" in schema and schema["const"] is None)
            or schema.get("enum") == [None]
        )

    # -- references --

    def _deref(self, schema: Any, refs: frozenset[str]) -> tuple[Any, frozenset[str], str | None]:
        """Follow `$ref`s. Returns the target (siblings of `$ref` laid over it), the references now open on
        the path, and, when the walk must stop here, the type to show instead."""
        opened = set(refs)
        for _ in range(MAX_DEPTH):
            if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
                return schema, frozenset(opened), None
            ref = schema["$ref"]
            if ref in opened:
                return schema, refs, f"record (recursive: {ref})"
            target = self._pointer(ref)
            if target is None:
                return schema, refs, f"reference ({ref})"
            siblings = {key: value for key, value in schema.items() if key != "$ref"}
            schema = {**target, **siblings} if isinstance(target, dict) else target
            opened.add(ref)
        return schema, refs, f"reference ({quote(str(schema.get('$ref')))})"

    def _pointer(self, ref: str) -> Any:
        """Resolve a reference inside this document (a JSON pointer fragment); None when it is elsewhere."""
        if self._root_id and ref.startswith(self._root_id + "#"):
            ref = ref[len(self._root_id) :]
        if not ref.startswith("#"):
            return None
        node: Any = self._document
        for escaped in unquote(ref[1:]).split("/")[1:] if ref != "#" else []:
            token = escaped.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                return None
        return node


class _ConnectWalker:
    """Kafka Connect's JSON schema shape: struct `fields`, each with `field`, `type`, `optional`, `name`."""

    def __init__(self) -> None:
        self._sink = ColumnSink()

    def walk(self, struct: dict[str, Any]) -> ParsedSchema:
        self._fields(struct["fields"], "", 1)
        return self._sink.result()

    def _fields(self, fields: list[Any], prefix: str, depth: int) -> None:
        for field in fields:
            if self._sink.full:
                return
            if not isinstance(field, dict) or not isinstance(field.get("field"), str):
                self._sink.note(
                    f"a field without a name under {quote(prefix.rstrip('.') or '(root)')} is left out"
                )
                continue
            path = prefix + field["field"]
            data_type, children = self._type(field, 0)
            column = Column(path, data_type, field.get("optional") is True, field.get("doc"))
            if self._sink.add_parent(column, depth, bool(children)) and children:
                self._fields(children, path + ".", depth + 1)

    def _type(self, schema: Any, depth: int) -> tuple[str, list[Any] | None]:
        if not isinstance(schema, dict) or depth > MAX_DEPTH:
            return "…" if depth > MAX_DEPTH else "any", None
        kind = schema.get("type")
        children: list[Any] | None = None
        if kind == "struct":
            base = "record"
            children = schema["fields"] if isinstance(schema.get("fields"), list) else []
        elif kind == "array":
            element, children = self._type(schema.get("items"), depth + 1)
            base = f"array<{element}>"
        elif kind == "map":
            key, _ = self._type(schema.get("keys"), depth + 1)
            value, children = self._type(schema.get("values"), depth + 1)
            base = f"map<{key},{value}>"
        else:
            base = CONNECT_TYPES.get(kind, str(kind)) if isinstance(kind, str) else "any"
        return annotate(base, schema.get("name"), schema.get("parameters")), children


def _types(schema: dict[str, Any]) -> list[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [kind for kind in declared if isinstance(kind, str)]
    # No `type`: infer from the keywords present, as a reader would.
    if any(key in schema for key in ("properties", "additionalProperties", "allOf", "required")):
        return ["object"]
    if "items" in schema or "prefixItems" in schema:
        return ["array"]
    if "const" in schema:
        return [_json_type(schema["const"])]
    if isinstance(schema.get("enum"), list):
        kinds = sorted({_json_type(value) for value in schema["enum"]} - {"null"})
        return kinds if len(kinds) == 1 and kinds[0] != "string" else []
    return []


def _scalar_type(schema: dict[str, Any], kind: str) -> str:
    """The readable type of a schema that is neither an object nor an array: an enum, a Kafka Connect type
    (`connect.type`, refined by `connect.name` and `connect.parameters`), or the JSON type with its string
    `format`."""
    base = "enum" if "enum" in schema and kind in ("string", "any") else kind
    connect_type = schema.get("connect.type")
    if isinstance(connect_type, str) and connect_type in CONNECT_TYPES:
        base = CONNECT_TYPES[connect_type]
    connect_name = schema.get("connect.name")
    if base == "string" and isinstance(schema.get("format"), str) and not isinstance(connect_name, str):
        base = f"string ({schema['format']})"
    return annotate(base, connect_name, schema.get("connect.parameters"))


def _has_own_type(schema: dict[str, Any]) -> bool:
    """A schema with `type` or `properties` next to `oneOf` is that type, constrained; not a plain union."""
    return "properties" in schema or (isinstance(schema.get("type"), str) and schema["type"] != "null")


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _has_connect_index(schema: Any) -> bool:
    return isinstance(schema, dict) and "connect.index" in schema
