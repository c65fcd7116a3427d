"""A parsed Smithy model: shapes by absolute id, their members and traits, and the prelude they may target."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PRELUDE = "smithy.api"

# Prelude shape name -> the simple type it is.
PRELUDE_SHAPES: dict[str, str] = {
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
SIMPLE_TYPES = frozenset(PRELUDE_SHAPES.values())
AGGREGATE_TYPES = frozenset({"structure", "union", "list", "set", "map", "enum", "intEnum"})

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
        if namespace == PRELUDE and name in PRELUDE_SHAPES:
            return Shape(shape_id, PRELUDE_SHAPES[name])
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
