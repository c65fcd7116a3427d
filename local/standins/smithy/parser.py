"""Smithy IDL tokens -> a resolved model: statements, shapes, members, traits and node values."""

from __future__ import annotations

import re
from typing import Any

from local.standins.smithy.lexer import Token, tokenize
from local.standins.smithy.model import (
    AGGREGATE_TYPES,
    PRELUDE,
    PRELUDE_SHAPES,
    SIMPLE_TYPES,
    Member,
    Shape,
    SmithyError,
    SmithyModel,
)

_UNSUPPORTED_STATEMENTS = frozenset({"apply", "resource", "service", "operation"})


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = list(tokenize(text))
        self.index = 0
        self.namespace = ""
        self.uses: dict[str, str] = {}  # simple name -> absolute id
        self.raw_shapes: list[
            tuple[str, str, list[tuple[str, str, dict[str, Any], Any]], dict[str, Any]]
        ] = []

    # token helpers
    def peek(self, offset: int = 0) -> Token:
        return self.tokens[min(self.index + offset, len(self.tokens) - 1)]

    def next(self) -> Token:
        token = self.peek()
        self.index += 1
        return token

    def expect(self, kind: str, value: Any = None) -> Token:
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
        if name in PRELUDE_SHAPES or name == "Unit":
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
