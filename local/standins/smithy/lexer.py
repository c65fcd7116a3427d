"""Smithy IDL text -> tokens: strings and text blocks, numbers, identifiers, punctuation, `///` docs."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from local.standins.smithy.model import SmithyError


@dataclass(frozen=True)
class Token:
    kind: str  # "ident", "string", "number", "punct", "doc", "eof"
    value: Any
    line: int


_IDENT = re.compile(
    r"[A-Za-z_$][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:#[A-Za-z_][A-Za-z0-9_]*)?(?:\$[A-Za-z_][A-Za-z0-9_]*)?"
)
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def tokenize(text: str) -> Iterator[Token]:
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
            yield Token("doc", text[position + 3 : end].strip(), line)
            position = end
        elif text.startswith("//", position):
            end = text.find("\n", position)
            position = size if end == -1 else end
        elif text.startswith('"""', position):
            end = text.find('"""', position + 3)
            if end == -1:
                raise SmithyError(f"line {line}: unterminated text block")
            body = text[position + 3 : end]
            yield Token("string", _text_block(body), line)
            line += body.count("\n")
            position = end + 3
        elif char == '"':
            value, position, line = _string(text, position, line)
            yield Token("string", value, line)
        elif char in "@(){}[]:=":
            yield Token("punct", char, line)
            position += 1
        elif (number := _NUMBER.match(text, position)) and (char.isdigit() or char == "-"):
            raw = number.group(0)
            yield Token("number", float(raw) if any(c in raw for c in ".eE") else int(raw), line)
            position = number.end()
        elif ident := _IDENT.match(text, position):
            yield Token("ident", ident.group(0), line)
            position = ident.end()
        else:
            raise SmithyError(f"line {line}: unexpected character {char!r}")
    yield Token("eof", None, line)


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
