"""Server-side checks of a request against its botocore input shape: what AWS enforces and botocore's
client does not.

botocore checks required members, types and minimum lengths; AWS also checks maximum lengths, numeric
ranges, regular-expression patterns and enums. Messages follow AWS's own format ("1 validation error
detected: Value 'x' at 'registryId.registryName' failed to satisfy constraint: Member must ..."), with the
member path in lower camel case, list elements as `name.N.member` (1-based) and map values as `name.<key>`.
"""

from __future__ import annotations

import functools
import logging
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import regex  # type: ignore[import-untyped]
from botocore.model import Shape

from local.standins.errors import ServiceError

log = logging.getLogger(__name__)

# Java's POSIX classes are US-ASCII only (Python's `regex` would read them as Unicode properties).
_JAVA_POSIX = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": r"\x00-\x7F",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": r"!-/:-@\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": r" \t",
    "Cntrl": r"\x00-\x1F\x7F",
    "XDigit": "0-9a-fA-F",
    "Space": r" \t\n\x0B\f\r",
}
_JAVA_POSIX_RE = re.compile(r"\\p\{(" + "|".join(_JAVA_POSIX) + r")\}")
# In Java a UTF-16 surrogate pair range spells "any supplementary character"; Python strings hold code points.
_SURROGATE_PAIR_RANGE = re.compile(r"\\uD800\\uDC00-\\uDBFF\\uDFFF", re.IGNORECASE)
# Java reads `[\w-\/]` as \w, '-', '/'; Python calls it a bad range.
_CLASS_THEN_HYPHEN = re.compile(r"(\\[wdsWDS])-")
_JAVA_HEX = re.compile(r"\\x\{([0-9A-Fa-f]{1,6})\}")


@functools.cache
def java_pattern(pattern: str) -> regex.Pattern[str] | None:
    """Compile a model pattern (Java syntax, no anchors) for `fullmatch`; None if it cannot be translated.

    Python's `regex` (a maintained superset of `re`) covers Java's \\p{L}-style classes, possessive
    quantifiers and nested/intersected classes (V1 mode); the rest is translated here.
    """
    translated = _SURROGATE_PAIR_RANGE.sub(r"\\U00010000-\\U0010FFFF", pattern)
    translated = _CLASS_THEN_HYPHEN.sub(r"\1\\-", translated)
    translated = _JAVA_POSIX_RE.sub(lambda m: f"[{_JAVA_POSIX[m[1]]}]", translated)
    translated = _JAVA_HEX.sub(lambda m: f"\\U{int(m[1], 16):08x}", translated)
    translated = translated.replace(r"\p{all}", r"[\s\S]")
    # DOTALL: Glue's SchemaDefinitionString pattern `.*\S.*` must admit multi-line definitions (every .proto
    # file is one, and Glue registers them), so `.` cannot stop at a line break.
    for flags in (regex.V1, regex.V0):
        try:
            return regex.compile(translated, flags | regex.DOTALL)
        except regex.error:
            continue
    log.warning("model pattern not checked (cannot translate): %s", pattern)
    return None


@dataclass(frozen=True)
class Problem:
    message: str
    serialization: bool = False  # a wrong type: AWS answers SerializationException, not ValidationException


_TYPES: dict[str, tuple[type, ...]] = {
    "structure": (dict,),
    "map": (dict,),
    "list": (list,),
    "string": (str,),
    "integer": (int,),
    "long": (int,),
    "float": (int, float),
    "double": (int, float),
    "boolean": (bool,),
    "blob": (bytes, bytearray),
    "timestamp": (datetime,),
}


def validate(shape: Shape | None, params: dict[str, Any]) -> None:
    """Raise the service's ValidationException (or SerializationException for a wrong type) if `params`,
    the request parsed into the input shape's member names, breaks the model."""
    if shape is None:
        return
    problems = problems_in(shape, params)
    wrong_types = [p for p in problems if p.serialization]
    if wrong_types:
        raise ServiceError("SerializationException", wrong_types[0].message, 400)
    if problems:
        count = len(problems)
        detail = "; ".join(p.message for p in problems)
        raise ServiceError(
            "ValidationException",
            f"{count} validation error{'s' if count > 1 else ''} detected: {detail}",
            400,
        )


def problems_in(shape: Shape, value: Any, path: str = "", sensitive: bool = False) -> list[Problem]:
    problems: list[Problem] = []
    _check(shape, value, path, sensitive, problems)
    return problems


def _member_path(path: str, name: str) -> str:
    name = name[:1].lower() + name[1:]
    return f"{path}.{name}" if path else name


def _show(value: Any) -> str:
    if isinstance(value, str):
        text = f"'{value}'"
    elif isinstance(value, list):
        text = "[" + ", ".join(str(v) for v in value) + "]"
    elif isinstance(value, bytes | bytearray):
        text = f"<{len(value)} bytes>"
    else:
        text = str(value)
    return text if len(text) <= 256 else text[:253] + "..."


def _fail(problems: list[Problem], path: str, value: Any, sensitive: bool, constraint: str) -> None:
    shown = "" if sensitive else f" {_show(value)}"
    problems.append(
        Problem(f"Value{shown} at '{path}' failed to satisfy constraint: Member must {constraint}")
    )


def _check(shape: Shape, value: Any, path: str, sensitive: bool, problems: list[Problem]) -> None:
    kind = shape.type_name
    sensitive = sensitive or bool(shape.metadata.get("sensitive"))
    expected = _TYPES.get(kind)
    if expected is not None and (
        not isinstance(value, expected) or (isinstance(value, bool) and kind != "boolean")
    ):
        problems.append(
            Problem(
                f"Cannot deserialize '{path or 'request'}': expected {kind}, got {type(value).__name__}",
                serialization=True,
            )
        )
        return
    meta = shape.metadata
    if kind == "structure":
        _check_structure(shape, value, path, sensitive, problems)
    elif kind == "list":
        _check_length(len(value), meta, path, value, sensitive, problems)
        for index, item in enumerate(value, start=1):
            _check(shape.member, item, f"{path}.{index}.member", sensitive, problems)
    elif kind == "map":
        _check_length(len(value), meta, path, value, sensitive, problems)
        for key, item in value.items():
            _check(shape.key, key, f"{path}.key", sensitive, problems)
            _check(shape.value, item, f"{path}.{key}", sensitive, problems)
    elif kind == "string":
        _check_length(len(value), meta, path, value, sensitive, problems)
        pattern = meta.get("pattern")
        compiled = java_pattern(pattern) if pattern else None
        if compiled is not None and compiled.fullmatch(value) is None:
            _fail(problems, path, value, sensitive, f"satisfy regular expression pattern: {pattern}")
        enum = meta.get("enum")
        if enum and value not in enum:
            _fail(problems, path, value, sensitive, f"satisfy enum value set: [{', '.join(enum)}]")
    elif kind == "blob":
        _check_length(len(value), meta, path, value, sensitive, problems)
    elif kind in ("integer", "long", "float", "double"):
        if "min" in meta and value < meta["min"]:
            _fail(problems, path, value, sensitive, f"have value greater than or equal to {meta['min']}")
        if "max" in meta and value > meta["max"]:
            _fail(problems, path, value, sensitive, f"have value less than or equal to {meta['max']}")


def _check_structure(
    shape: Shape, value: dict[str, Any], path: str, sensitive: bool, problems: list[Problem]
) -> None:
    members = shape.members
    for name in shape.required_members:
        if value.get(name) is None:
            where = _member_path(path, name)
            problems.append(
                Problem(f"Value null at '{where}' failed to satisfy constraint: Member must not be null")
            )
    if shape.metadata.get("union"):
        present = [name for name in members if value.get(name) is not None]
        if len(present) != 1:
            problems.append(
                Problem(
                    f"Value at '{path}' failed to satisfy constraint: Member must have exactly one member set"
                )
            )
    for name, item in value.items():
        if item is not None and name in members:
            _check(members[name], item, _member_path(path, name), sensitive, problems)


def _check_length(
    length: int, meta: dict[str, Any], path: str, value: Any, sensitive: bool, problems: list[Problem]
) -> None:
    if "min" in meta and length < meta["min"]:
        _fail(problems, path, value, sensitive, f"have length greater than or equal to {meta['min']}")
    if "max" in meta and length > meta["max"]:
        _fail(problems, path, value, sensitive, f"have length less than or equal to {meta['max']}")
