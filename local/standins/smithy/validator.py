"""Form content (parsed JSON) checked against a structure of a Smithy model, in DataZone's message style."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from local.standins.smithy.model import ENUM_TRAIT, LENGTH, PATTERN, RANGE, Member, Shape, SmithyModel

# Integer ranges per Smithy's integral types (bigInteger is unbounded).
_INTEGER_RANGES: dict[str, tuple[int, int]] = {
    "byte": (-(2**7), 2**7 - 1),
    "short": (-(2**15), 2**15 - 1),
    "integer": (-(2**31), 2**31 - 1),
    "long": (-(2**63), 2**63 - 1),
}


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
