"""A parser for the subset of the Smithy IDL that DataZone form types use, and a validator of form content.

Hand-written because no maintained Python library parses the Smithy IDL: the reference implementation is
the Java smithy CLI, and the Python `smithy-*` packages are code-generation runtimes that read no IDL.

Supported: `$version`, `metadata`, `namespace`, `use`; `structure`, `union`, `list`, `set`, `map`, `enum`,
`intEnum` and every simple shape; traits with or without arguments (`@required`, `@documentation("..")`,
`@length(min: 1)`, `@amazon.datazone#searchable(modes: ["LEXICAL"])`); `///` documentation comments;
member defaults (`= value`). Not supported (rejected with SmithyError): `apply`, mixins (`with`),
resources, services, operations and target elision (`$member`).

Content is validated the way DataZone reports it: JSON-Schema-style messages rooted at `$.<FormName>`,
e.g. `$.MyForm.columns[0].columnName: is missing but it is required`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

PRELUDE = "smithy.api"

# Prelude shape name -> the simple type it is.
_PRELUDE_SHAPES: dict[str, str] = {
    "Blob": "blob",
    "Boolean": "boolean",
    "String": "string",
    "Byte": "byte",
    "Short": "short",
    "Integer": "integer",
    "Long": "long",
    "Float": "float",
    "Double": "double",
    "BigInteger": "bigInteger",
    "BigDecimal": "bigDecimal",
    "Timestamp": "timestamp",
    "Document": "document",
    "PrimitiveBoolean": "boolean",
    "PrimitiveByte": "byte",
    "PrimitiveShort": "short",
    "PrimitiveInteger": "integer",
    "PrimitiveLong": "long",
    "PrimitiveFloat": "float",
    "PrimitiveDouble": "double",
}
SIMPLE_TYPES = frozenset(_PRELUDE_SHAPES.values())
AGGREGATE_TYPES = frozenset({"structure", "union", "list", "set", "map", "enum", "intEnum"})
_UNSUPPORTED_STATEMENTS = frozenset({"apply", "resource", "service", "operation"})

# Integer ranges per Smithy's integral types (bigInteger is unbounded).
_INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "byte": (-(2**7), 2**7 - 1),
    "short": (-(2**15), 2**15 - 1),
    "integer": (-(2**31), 2**31 - 1),
    "long": (-(2**63), 2**63 - 1),
}

REQUIRED = f"{PRELUDE}#required"
DOCUMENTATION = f"{PRELUDE}#documentation"
LENGTH = f"{PRELUDE}#length"
RANGE = f"{PRELUDE}#range"
PATTERN = f"{PRELUDE}#pattern"
ENUM_TRAIT = f"{PRELUDE}#enum"  # Smithy 1.0 style: @enum([{value: "A"}]) string Foo
SEARCHABLE = "amazon.datazone#searchable"
SORTABLE = "amazon.datazone#sortable"


class SmithyError(ValueError):
    """The model text is not valid (in the supported subset)."""


@dataclass(frozen=True)
class Member:
    name: str
    target: str  # absolute shape id, e.g. "smithy.api#String" or "ns#Columns"
    traits: dict[str, Any] = field(default_factory=dict)
    default: Any = None

    @property
    def required(self) -> bool:
        return REQUIRED in self.traits

    @property
    def searchable(self) -> bool:
        return SEARCHABLE in self.traits

    @property
    def sortable(self) -> bool:
        return SORTABLE in self.traits


@dataclass(frozen=True)
class Shape:
    shape_id: str  # "ns#Name"; a model without a namespace statement uses "" as namespace
    type: str  # a simple type name or one of AGGREGATE_TYPES
    members: dict[str, Member] = field(default_factory=dict)
    traits: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.shape_id.split("#", 1)[1]


@dataclass(frozen=True)
class SmithyModel:
    """A parsed model. Equal models compare equal (whitespace and comments aside)."""

    namespace: str
    shapes: dict[str, Shape]  # by absolute shape id

    def shape(self, shape_id: str) -> Shape:
        """The shape with this id, prelude shapes included."""
        if shape_id in self.shapes:
            return self.shapes[shape_id]
        namespace, _, name = shape_id.partition("#")
        if namespace == PRELUDE and name in _PRELUDE_SHAPES:
            return Shape(shape_id, _PRELUDE_SHAPES[name])
        raise KeyError(shape_id)

    def local(self, name: str) -> Shape | None:
        """The shape this model defines under `name`, or None."""
        return self.shapes.get(f"{self.namespace}#{name}")

    def searchable_members(self, structure_name: str) -> dict[str, Member]:
        """Top-level members of the structure annotated @amazon.datazone#searchable."""
        shape = self.local(structure_name)
        if shape is None:
            return {}
        return {name: member for name, member in shape.members.items() if member.searchable}


# ---------------------------------------------------------------------------------------------- lexer


@dataclass(frozen=True)
class _Token:
    kind: str  # "ident", "string", "number", "punct", "doc", "eof"
    value: Any
    line: int


_IDENT = re.compile(
    r"[A-Za-z_$][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:#[A-Za-z_][A-Za-z0-9_]*)?(?:\$[A-Za-z_][A-Za-z0-9_]*)?"
)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _tokenize(text: str) -> Iterator[_Token]:
    position, line, size = 0, 1, len(text)
    while position < size:
        char = text[position]
        if char == "\n":
            line += 1
            position += 1
        elif char in " \t\r,":  # commas are whitespace in Smithy IDL 2
            position += 1
        elif text.startswith("///", position):
            end = text.find("\n", position)
            end = size if end == -1 else end
            yield _Token("doc", text[position + 3 : end].strip(), line)
            position = end
        elif text.startswith("//", position):
            end = text.find("\n", position)
            position = size if end == -1 else end
        elif text.startswith('"""', position):
            end = text.find('"""', position + 3)
            if end == -1:
                raise SmithyError(f"line {line}: unterminated text block")
            body = text[position + 3 : end]
            yield _Token("string", _text_block(body), line)
            line += body.count("\n")
            position = end + 3
        elif char == '"':
            value, position, line = _string(text, position, line)
            yield _Token("string", value, line)
        elif char in "@(){}[]:=":
            yield _Token("punct", char, line)
            position += 1
        elif (number := _NUMBER.match(text, position)) and (char.isdigit() or char == "-"):
            raw = number.group(0)
            yield _Token("number", float(raw) if any(c in raw for c in ".eE") else int(raw), line)
            position = number.end()
        elif ident := _IDENT.match(text, position):
            yield _Token("ident", ident.group(0), line)
            position = ident.end()
        else:
            raise SmithyError(f"line {line}: unexpected character {char!r}")
    yield _Token("eof", None, line)


def _string(text: str, position: int, line: int) -> tuple[str, int, int]:
    chars: list[str] = []
    position += 1
    while position < len(text):
        char = text[position]
        if char == '"':
            return "".join(chars), position + 1, line
        if char == "\\":
            escape = text[position + 1 : position + 2]
            if escape == "u":
                chars.append(chr(int(text[position + 2 : position + 6], 16)))
                position += 6
                continue
            if escape == "\n":  # line continuation
                line += 1
                position += 2
                continue
            if escape not in _ESCAPES:
                raise SmithyError(f"line {line}: invalid escape \\{escape}")
            chars.append(_ESCAPES[escape])
            position += 2
            continue
        if char == "\n":
            line += 1
        chars.append(char)
        position += 1
    raise SmithyError(f"line {line}: unterminated string")


def _text_block(body: str) -> str:
    """Smithy text blocks: the first line break is dropped and common indentation is removed."""
    if not body.startswith("\n"):
        raise SmithyError("a text block must start with a line break")
    lines = body[1:].split("\n")
    indents = [len(x) - len(x.lstrip(" ")) for x in lines if x.strip()]
    if lines and not lines[-1].strip():
        indents.append(len(lines[-1]))  # the closing delimiter's line counts
    cut = min(indents) if indents else 0
    return "\n".join(x[cut:].rstrip(" ") for x in lines)


# --------------------------------------------------------------------------------------------- parser


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = list(_tokenize(text))
        self.index = 0
        self.namespace = ""
        self.uses: dict[str, str] = {}  # simple name -> absolute id
        self.raw_shapes: list[
            tuple[str, str, list[tuple[str, str, dict[str, Any], Any]], dict[str, Any]]
        ] = []

    # token helpers
    def peek(self, offset: int = 0) -> _Token:
        return self.tokens[min(self.index + offset, len(self.tokens) - 1)]

    def next(self) -> _Token:
        token = self.peek()
        self.index += 1
        return token

    def expect(self, kind: str, value: Any = None) -> _Token:
        token = self.next()
        if token.kind != kind or (value is not None and token.value != value):
            wanted = repr(value) if value is not None else kind
            raise SmithyError(f"line {token.line}: expected {wanted}, found {token.value!r}")
        return token

    def at(self, kind: str, value: Any = None) -> bool:
        token = self.peek()
        return token.kind == kind and (value is None or token.value == value)

    # grammar
    def parse(self) -> SmithyModel:
        while not self.at("eof"):
            traits = self.traits()
            token = self.peek()
            if token.kind != "ident":
                raise SmithyError(f"line {token.line}: expected a statement, found {token.value!r}")
            word = token.value
            if word.startswith("$"):
                self.control(traits)
            elif word == "metadata":
                self.metadata(traits)
            elif word == "namespace":
                self.namespace_statement(traits)
            elif word == "use":
                self.use(traits)
            elif word in _UNSUPPORTED_STATEMENTS:
                raise SmithyError(f"line {token.line}: '{word}' is not supported by this parser")
            elif word in SIMPLE_TYPES or word in AGGREGATE_TYPES:
                self.shape(traits)
            else:
                raise SmithyError(f"line {token.line}: unknown statement {word!r}")
        return self.resolve()

    def no_traits(self, traits: dict[str, Any], what: str) -> None:
        if traits:
            raise SmithyError(f"line {self.peek().line}: traits cannot apply to {what}")

    def control(self, traits: dict[str, Any]) -> None:
        self.no_traits(traits, "a control statement")
        token = self.next()
        self.expect("punct", ":")
        value = self.node()
        if token.value == "$version" and str(value).split(".")[0] not in ("1", "2"):
            raise SmithyError(f"line {token.line}: unsupported Smithy version {value!r}")

    def metadata(self, traits: dict[str, Any]) -> None:
        self.no_traits(traits, "metadata")
        self.next()
        key = self.next()
        if key.kind not in ("ident", "string"):
            raise SmithyError(f"line {key.line}: expected a metadata key")
        self.expect("punct", "=")
        self.node()

    def namespace_statement(self, traits: dict[str, Any]) -> None:
        self.no_traits(traits, "a namespace")
        token = self.next()
        if self.namespace or self.raw_shapes:
            raise SmithyError(f"line {token.line}: the namespace must be declared once, before any shape")
        name = self.expect("ident").value
        if "#" in name or "$" in name:
            raise SmithyError(f"line {token.line}: invalid namespace {name!r}")
        self.namespace = name

    def use(self, traits: dict[str, Any]) -> None:
        self.no_traits(traits, "a use statement")
        token = self.next()
        target = self.expect("ident").value
        if "#" not in target:
            raise SmithyError(f"line {token.line}: 'use' needs an absolute shape id, got {target!r}")
        self.uses[target.split("#", 1)[1]] = target

    def shape(self, traits: dict[str, Any]) -> None:
        type_token = self.next()
        shape_type = type_token.value
        name_token = self.expect("ident")
        name = name_token.value
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise SmithyError(f"line {name_token.line}: invalid shape name {name!r}")
        if self.at("ident", "with") or self.at("ident", "for"):
            raise SmithyError(f"line {name_token.line}: mixins and target elision are not supported")
        members: list[tuple[str, str, dict[str, Any], Any]] = []
        if shape_type in AGGREGATE_TYPES:
            members = self.members(shape_type, name)
        elif self.at("punct", "{"):
            raise SmithyError(f"line {name_token.line}: simple shape {name} cannot have members")
        self.raw_shapes.append((name, shape_type, members, traits))

    def members(self, shape_type: str, shape_name: str) -> list[tuple[str, str, dict[str, Any], Any]]:
        self.expect("punct", "{")
        members: list[tuple[str, str, dict[str, Any], Any]] = []
        seen: set[str] = set()
        while not self.at("punct", "}"):
            traits = self.traits()
            name_token = self.expect("ident")
            name = name_token.value
            if name.startswith("$"):
                raise SmithyError(f"line {name_token.line}: target elision ({name}) is not supported")
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                raise SmithyError(f"line {name_token.line}: invalid member name {name!r}")
            if name in seen:
                raise SmithyError(f"line {name_token.line}: duplicate member {shape_name}${name}")
            seen.add(name)
            if shape_type in ("enum", "intEnum"):
                value: Any = name if shape_type == "enum" else None
                if self.at("punct", "="):
                    self.next()
                    value = self.node()
                if shape_type == "intEnum" and not isinstance(value, int):
                    raise SmithyError(f"line {name_token.line}: intEnum member {name} needs an integer value")
                members.append((name, "smithy.api#Unit", traits, value))
                continue
            self.expect("punct", ":")
            target = self.expect("ident").value
            default: Any = None
            if self.at("punct", "="):
                self.next()
                default = self.node()
            members.append((name, target, traits, default))
        self.expect("punct", "}")
        self.check_member_names(shape_type, shape_name, [m[0] for m in members])
        return members

    @staticmethod
    def check_member_names(shape_type: str, shape_name: str, names: list[str]) -> None:
        wanted = {"list": {"member"}, "set": {"member"}, "map": {"key", "value"}}.get(shape_type)
        if wanted is not None and set(names) != wanted:
            raise SmithyError(f"{shape_type} {shape_name} must have exactly the members {sorted(wanted)}")

    def traits(self) -> dict[str, Any]:
        traits: dict[str, Any] = {}
        docs: list[str] = []
        while self.at("punct", "@") or self.at("doc"):
            if self.at("doc"):
                docs.append(self.next().value)
                continue
            self.next()
            name = self.expect("ident").value
            value: Any = {}
            if self.at("punct", "("):
                value = self.trait_arguments()
            traits[name] = value
        if docs:
            traits.setdefault("documentation", "\n".join(docs))
        return traits

    def trait_arguments(self) -> Any:
        self.expect("punct", "(")
        if self.at("punct", ")"):
            self.next()
            return {}
        # Either a single node value or `key: value` pairs.
        if (
            self.peek().kind in ("ident", "string")
            and self.peek(1).kind == "punct"
            and self.peek(1).value == ":"
        ):
            pairs: dict[str, Any] = {}
            while not self.at("punct", ")"):
                key = self.next()
                if key.kind not in ("ident", "string"):
                    raise SmithyError(f"line {key.line}: expected a trait argument name")
                self.expect("punct", ":")
                pairs[key.value] = self.node()
            self.next()
            return pairs
        value = self.node()
        self.expect("punct", ")")
        return value

    def node(self) -> Any:
        token = self.next()
        if token.kind in ("string", "number"):
            return token.value
        if token.kind == "ident":
            return {"true": True, "false": False, "null": None}.get(token.value, token.value)
        if token.kind == "punct" and token.value == "[":
            items = []
            while not self.at("punct", "]"):
                items.append(self.node())
            self.next()
            return items
        if token.kind == "punct" and token.value == "{":
            entries: dict[str, Any] = {}
            while not self.at("punct", "}"):
                key = self.next()
                if key.kind not in ("ident", "string"):
                    raise SmithyError(f"line {key.line}: expected an object key")
                self.expect("punct", ":")
                entries[key.value] = self.node()
            self.next()
            return entries
        raise SmithyError(f"line {token.line}: expected a value, found {token.value!r}")

    # resolution of names to absolute shape ids
    def absolute_trait(self, name: str) -> str:
        if "#" in name:
            return name
        if name in self.uses:
            return self.uses[name]
        return f"{PRELUDE}#{name}"

    def absolute_target(self, name: str, local: set[str]) -> str:
        if "#" in name:
            return name
        if name in local:
            return f"{self.namespace}#{name}"
        if name in self.uses:
            return self.uses[name]
        if name in _PRELUDE_SHAPES or name == "Unit":
            return f"{PRELUDE}#{name}"
        raise SmithyError(f"unresolved shape {name!r}")

    def resolve(self) -> SmithyModel:
        local = {name for name, *_ in self.raw_shapes}
        shapes: dict[str, Shape] = {}
        for name, shape_type, raw_members, raw_traits in self.raw_shapes:
            shape_id = f"{self.namespace}#{name}"
            if shape_id in shapes:
                raise SmithyError(f"duplicate shape {name}")
            members = {
                member_name: Member(
                    member_name,
                    target if shape_type in ("enum", "intEnum") else self.absolute_target(target, local),
                    {self.absolute_trait(k): v for k, v in traits.items()},
                    default,
                )
                for member_name, target, traits, default in raw_members
            }
            shapes[shape_id] = Shape(
                shape_id, shape_type, members, {self.absolute_trait(k): v for k, v in raw_traits.items()}
            )
        model = SmithyModel(self.namespace, shapes)
        for shape in shapes.values():
            for member in shape.members.values():
                if shape.type in ("enum", "intEnum"):
                    continue
                try:
                    model.shape(member.target)
                except KeyError:
                    raise SmithyError(
                        f"{shape.name}${member.name} targets unknown shape {member.target}"
                    ) from None
        return model


def parse(text: str) -> SmithyModel:
    """Parse Smithy IDL text; raises SmithyError with the line of the first problem."""
    return _Parser(text).parse()


# ------------------------------------------------------------------------------------------ validator

_JSON_TYPE_NAMES = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"  # JSON 5.0 is not an integer for a strict reader
    return _JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def _length(value: Any) -> int:
    # Smithy counts Unicode scalar values for strings; Python str length does the same.
    return len(value)


@dataclass
class FormValidator:
    """Validates a form's parsed JSON content against its Smithy structure.

    Messages follow the JSON-Schema validator style DataZone answers with (`$.<Form>.<field>: ...`).
    `reject_unknown_members`: whether a member the model does not declare is an error (undocumented).
    """

    model: SmithyModel
    reject_unknown_members: bool = True
    errors: list[str] = field(default_factory=list)

    def validate(self, structure_name: str, content: Any, root: str) -> list[str]:
        shape = self.model.local(structure_name)
        if shape is None or shape.type != "structure":
            raise KeyError(f"no structure {structure_name} in the model")
        self.errors = []
        self.check(shape, content, f"$.{root}")
        return list(self.errors)

    def fail(self, path: str, message: str) -> None:
        self.errors.append(f"{path}: {message}")

    def check(self, shape: Shape, value: Any, path: str) -> None:
        kind = shape.type
        if kind in ("structure", "union"):
            self.check_structure(shape, value, path)
        elif kind in ("list", "set"):
            self.check_list(shape, value, path)
        elif kind == "map":
            self.check_map(shape, value, path)
        elif kind == "enum":
            self.check_enum(shape, value, path)
        elif kind == "intEnum":
            self.check_int_enum(shape, value, path)
        else:
            self.check_simple(kind, value, path)

    def check_structure(self, shape: Shape, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            self.fail(path, f"{_json_type(value)} found, object expected")
            return
        for name, member in shape.members.items():
            if member.required and value.get(name) is None:
                self.errors.append(f"{path}.{name}: is missing but it is required")
        for name in value:
            if name not in shape.members and self.reject_unknown_members:
                self.errors.append(
                    f"{path}.{name}: is not defined in the schema and the schema does not allow"
                    " additional properties"
                )
        present = [name for name in value if name in shape.members and value[name] is not None]
        if shape.type == "union" and len(present) != 1:
            self.fail(path, f"a union must set exactly one member, found {len(present)}")
        for name in present:
            self.check_member(shape.members[name], value[name], f"{path}.{name}")

    def check_member(self, member: Member, value: Any, path: str) -> None:
        target = self.model.shape(member.target)
        self.check(target, value, path)
        self.check_constraints({**target.traits, **member.traits}, value, path)

    def check_list(self, shape: Shape, value: Any, path: str) -> None:
        if not isinstance(value, list):
            self.fail(path, f"{_json_type(value)} found, array expected")
            return
        member = shape.members["member"]
        for index, item in enumerate(value):
            if item is None:
                self.fail(f"{path}[{index}]", "null found, a value expected")
                continue
            self.check_member(member, item, f"{path}[{index}]")
        if shape.type == "set" and len({repr(x) for x in value}) != len(value):
            self.fail(path, "the items in the array must be unique")

    def check_map(self, shape: Shape, value: Any, path: str) -> None:
        if not isinstance(value, dict):
            self.fail(path, f"{_json_type(value)} found, object expected")
            return
        key_member, value_member = shape.members["key"], shape.members["value"]
        for key, item in value.items():
            self.check_member(key_member, key, f"{path}.{key}")
            if item is None:
                self.fail(f"{path}.{key}", "null found, a value expected")
                continue
            self.check_member(value_member, item, f"{path}.{key}")

    def check_enum(self, shape: Shape, value: Any, path: str) -> None:
        allowed = [m.default for m in shape.members.values()]
        if not isinstance(value, str):
            self.fail(path, f"{_json_type(value)} found, string expected")
        elif value not in allowed:
            self.fail(path, f"does not have a value in the enumeration {allowed}")

    def check_int_enum(self, shape: Shape, value: Any, path: str) -> None:
        allowed = [m.default for m in shape.members.values()]
        if _json_type(value) != "integer":
            self.fail(path, f"{_json_type(value)} found, integer expected")
        elif value not in allowed:
            self.fail(path, f"does not have a value in the enumeration {allowed}")

    def check_simple(self, kind: str, value: Any, path: str) -> None:
        found = _json_type(value)
        if kind in ("string", "blob"):
            if found != "string":
                self.fail(path, f"{found} found, string expected")
        elif kind == "boolean":
            if found != "boolean":
                self.fail(path, f"{found} found, boolean expected")
        elif kind in _INTEGER_RANGES or kind == "bigInteger":
            if found != "integer":
                self.fail(path, f"{found} found, integer expected")
            elif kind in _INTEGER_RANGES:
                low, high = _INTEGER_RANGES[kind]
                if not low <= value <= high:
                    self.fail(path, f"must be between {low} and {high} ({kind})")
        elif kind in ("float", "double", "bigDecimal"):
            if found not in ("integer", "number"):
                self.fail(path, f"{found} found, number expected")
        elif kind == "timestamp":
            self.check_timestamp(value, path)
        # document: any JSON value

    def check_timestamp(self, value: Any, path: str) -> None:
        # Undocumented how DataZone reads timestamps in form content: epoch seconds or an ISO-8601 string.
        if _json_type(value) in ("integer", "number"):
            return
        if isinstance(value, str):
            try:
                datetime.fromisoformat(value)
                return
            except ValueError:
                pass
        self.fail(path, f"{_json_type(value)} found, timestamp (epoch seconds or ISO-8601) expected")

    def check_constraints(self, traits: Mapping[str, Any], value: Any, path: str) -> None:
        if LENGTH in traits and isinstance(value, str | list | dict):
            bounds = traits[LENGTH]
            size = _length(value)
            unit = "characters" if isinstance(value, str) else "items"
            if "min" in bounds and size < bounds["min"]:
                self.fail(path, f"must be at least {bounds['min']} {unit} long")
            if "max" in bounds and size > bounds["max"]:
                self.fail(path, f"may only be {bounds['max']} {unit} long")
        if RANGE in traits and _json_type(value) in ("integer", "number"):
            bounds = traits[RANGE]
            if "min" in bounds and value < bounds["min"]:
                self.fail(path, f"must have a minimum value of {bounds['min']}")
            if "max" in bounds and value > bounds["max"]:
                self.fail(path, f"must have a maximum value of {bounds['max']}")
        if ENUM_TRAIT in traits and isinstance(value, str):
            allowed = [entry.get("value") for entry in traits[ENUM_TRAIT] if isinstance(entry, dict)]
            if value not in allowed:
                self.fail(path, f"does not have a value in the enumeration {allowed}")
        if PATTERN in traits and isinstance(value, str) and not re.search(traits[PATTERN], value):
            # Smithy @pattern is an ECMA 262 search (not anchored); Python's re is close enough here.
            self.fail(path, f"does not match the regex pattern {traits[PATTERN]}")
