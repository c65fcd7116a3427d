"""Java regular expressions (as Kafka Connect, Debezium and the Iceberg sink compile them) in Python.

Both engines share most syntax; where they differ this module translates, and where a Java construct has
no faithful Python form it refuses (`UnsupportedRegex`) rather than match something else:

- Java's `matches()` is a full match: callers use `fullmatch`.
- `\\d \\w \\s \\b` and case-insensitivity are ASCII-only in Java unless UNICODE_CHARACTER_CLASS: compile
  with `re.ASCII`.
- `(?<name>...)` / `\\k<name>` become `(?P<name>...)` / `(?P=name)`; `\\Q...\\E` quotes literally; `\\z` is
  Python's `\\Z`, and Java's `\\Z` (end, before a final line terminator) becomes a lookahead.
- `\\p{Lower}`-style POSIX classes (ASCII in Java) are expanded; `\\h` and `\\v` become their Java classes;
  a `-` after a class escape inside `[...]` is a literal, as Java reads it.
- Refused: character-class intersection or nesting (`[a-z&&[^e]]`, `[a[b]]`), inline flags after the start
  (Java scopes them to the rest of the group; Python 3.11 rejects them), `\\p{...}` other than the POSIX
  classes, `\\R`, `\\X`, `\\G`, and anything Python itself cannot compile.
Possessive quantifiers and atomic groups exist in both (Python 3.11+).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import ClassVar

POSIX_CLASSES = {
    "Lower": "a-z",
    "Upper": "A-Z",
    "ASCII": "\\x00-\\x7f",
    "Alpha": "a-zA-Z",
    "Digit": "0-9",
    "Alnum": "a-zA-Z0-9",
    "Punct": "!-/:-@\\[-`{-~",
    "Graph": "!-~",
    "Print": " -~",
    "Blank": " \\t",
    "Cntrl": "\\x00-\\x1f\\x7f",
    "XDigit": "0-9a-fA-F",
    "Space": " \\t\\n\\x0b\\f\\r",
}
# Java's \h (horizontal) and \v (vertical whitespace, Java 8+); Python's \v is only the vertical tab.
JAVA_H = " \\t\\xa0\\u1680\\u180e\\u2000-\\u200a\\u202f\\u205f\\u3000"
JAVA_V = "\\n\\x0b\\f\\r\\x85\\u2028\\u2029"
REFUSED_ESCAPES = {
    "R": "\\R (linebreak matcher)",
    "X": "\\X (grapheme cluster)",
    "G": "\\G (end of previous match)",
}
INLINE_FLAGS = re.compile(r"\(\?[a-zA-Z]*(?:-[a-zA-Z]+)?\)")
JAVA_FLAGS = set("idmsuxU")


class UnsupportedRegex(ValueError):
    """A Java pattern this module cannot translate faithfully, or one that does not compile."""


def compile_java(pattern: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    """Translate `pattern` from Java syntax and compile it (ASCII classes, like Java's defaults)."""
    flags = re.ASCII | (re.IGNORECASE if ignore_case else 0)
    translated = translate(pattern)
    try:
        return re.compile(translated, flags)
    except re.error as error:
        raise UnsupportedRegex(f"{pattern!r} is not a valid regular expression: {error}") from error


def translate(pattern: str) -> str:
    """`pattern` in Python's syntax, with Java's meaning (see the module doc); UnsupportedRegex otherwise."""
    return _Translator(pattern).run()


class _Translator:
    """One left-to-right pass over a Java pattern, writing its Python form.

    Each construct has its step: an escape (translated by `_ESCAPES`, refused, or copied), a member of a
    character class, the opening of a class, a group opening (inline flags, a named group), or a literal.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.out: list[str] = []
        self.i = 0
        self.in_class = 0  # depth of [...]
        self.at_start = True  # before any construct other than leading inline flags

    def run(self) -> str:
        while self.i < len(self.pattern):
            char = self.pattern[self.i]
            if char == "\\":
                self._escape()
            elif self.in_class:
                self._class_member(char)
            elif char == "[":
                self._open_class()
            elif not (char == "(" and self._group_opening()):
                self._literal(char)
        if self.in_class:
            raise UnsupportedRegex(f"{self.pattern!r}: unterminated character class")
        return "".join(self.out)

    # -- escapes

    def _escape(self) -> None:
        if self.i + 1 >= len(self.pattern):
            raise UnsupportedRegex(f"{self.pattern!r} ends with a lone backslash")
        escape = self.pattern[self.i + 1]
        if escape in REFUSED_ESCAPES:
            raise UnsupportedRegex(f"{self.pattern!r}: {REFUSED_ESCAPES[escape]} has no Python equivalent")
        self._ESCAPES.get(escape, _Translator._copy_escape)(self, escape)
        self._dash_after_class_escape(escape)
        self.at_start = False

    def _copy_escape(self, _escape: str) -> None:
        """An escape both engines read alike."""
        self.out.append(self.pattern[self.i : self.i + 2])
        self.i += 2

    def _quote(self, _escape: str) -> None:
        """`\\Q...\\E` (or to the end): the text between, literally."""
        end = self.pattern.find("\\E", self.i + 2)
        literal = self.pattern[self.i + 2 :] if end < 0 else self.pattern[self.i + 2 : end]
        self.out.append(re.escape(literal) if not self.in_class else _escape_in_class(literal))
        self.i = len(self.pattern) if end < 0 else end + 2

    def _backreference(self, escape: str) -> None:
        """`\\k<name>` is `(?P=name)`."""
        if not self.pattern.startswith("<", self.i + 2):
            self._copy_escape(escape)
            return
        end = self.pattern.find(">", self.i + 3)
        if end < 0:
            raise UnsupportedRegex(f"{self.pattern!r}: unterminated \\k<name>")
        self.out.append(f"(?P={self.pattern[self.i + 3 : end]})")
        self.i = end + 1

    def _property(self, escape: str) -> None:
        """`\\p{Name}` / `\\P{Name}`: a POSIX class, expanded; any other property is refused."""
        pattern = self.pattern
        if not (self.i + 2 < len(pattern) and pattern[self.i + 2] == "{"):
            self._copy_escape(escape)
            return
        end = pattern.find("}", self.i + 3)
        name = pattern[self.i + 3 : end] if end > 0 else ""
        name = name[2:] if name.startswith("Is") and name[2:] in POSIX_CLASSES else name
        if name not in POSIX_CLASSES:
            raise UnsupportedRegex(f"{pattern!r}: \\{escape}{{{name}}} has no Python equivalent here")
        body = POSIX_CLASSES[name]
        if self.in_class:
            if escape == "P":
                raise UnsupportedRegex(f"{pattern!r}: a negated property inside a class")
            self.out.append(body)
        else:
            self.out.append(f"[{'^' if escape == 'P' else ''}{body}]")
        self.i = end + 1

    def _java_space(self, escape: str) -> None:
        """`\\h \\H \\v \\V`: Java's horizontal and vertical whitespace classes."""
        body = JAVA_H if escape in "hH" else JAVA_V
        negated = escape in "HV"
        if self.in_class and negated:
            raise UnsupportedRegex(f"{self.pattern!r}: \\{escape} inside a class")
        self.out.append(body if self.in_class else f"[{'^' if negated else ''}{body}]")
        self.i += 2

    def _absolute_end(self, _escape: str) -> None:
        """Java's `\\z` is Python's `\\Z`."""
        self.out.append("\\Z")
        self.i += 2

    def _end_before_terminator(self, escape: str) -> None:
        """Java's `\\Z`: the end, or before a final line terminator."""
        if self.in_class:
            self._copy_escape(escape)
            return
        self.out.append("(?=[\\n\\r\\x85\\u2028\\u2029]?\\Z)")
        self.i += 2

    _ESCAPES: ClassVar[dict[str, Callable[[_Translator, str], None]]] = {
        "Q": _quote,
        "k": _backreference,
        "p": _property,
        "P": _property,
        "h": _java_space,
        "H": _java_space,
        "v": _java_space,
        "V": _java_space,
        "z": _absolute_end,
        "Z": _end_before_terminator,
    }

    def _dash_after_class_escape(self, escape: str) -> None:
        # Java reads `[\w-.]` as \w, '-', '.'; Python calls a range from a class a bad range.
        if (
            self.in_class
            and escape in "wdsWDSpPhv"
            and self.pattern.startswith("-", self.i)
            and not self.pattern.startswith("-]", self.i)
        ):
            self.out.append("\\-")
            self.i += 1

    # -- character classes

    def _class_member(self, char: str) -> None:
        if char == "[":
            raise UnsupportedRegex(
                f"{self.pattern!r}: nested character classes (Java union) are not supported"
            )
        if char == "&" and self.pattern.startswith("&&", self.i):
            raise UnsupportedRegex(f"{self.pattern!r}: character-class intersection (&&) is not supported")
        if char == "]":
            self.in_class -= 1
        self.out.append(char)
        self.i += 1

    def _open_class(self) -> None:
        self.in_class += 1
        self.out.append("[")
        self.i += 1
        if self.pattern.startswith("^", self.i):
            self.out.append("^")
            self.i += 1
        if self.pattern.startswith("]", self.i):  # a leading ']' is a literal in both engines
            self.out.append("\\]")
            self.i += 1
        self.at_start = False

    # -- groups and the rest

    def _group_opening(self) -> bool:
        """Inline flags or a named group at `(`; False when the `(` is for `_literal`."""
        pattern, i = self.pattern, self.i
        if not pattern.startswith("(?", i):
            return False
        flags = INLINE_FLAGS.match(pattern, i)
        if flags:
            letters = set(flags.group().strip("(?)").replace("-", ""))
            if not letters <= JAVA_FLAGS:
                raise UnsupportedRegex(f"{pattern!r}: unknown inline flag in {flags.group()}")
            if not self.at_start:
                raise UnsupportedRegex(f"{pattern!r}: inline flags after the start ({flags.group()})")
            self.out.append(_python_flags(flags.group(), pattern))
            self.i = flags.end()
            return True
        if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
            self.out.append("(?P<")
            self.i += 3
            self.at_start = False
            return True
        return False

    def _literal(self, char: str) -> None:
        self.out.append(char)
        self.i += 1
        self.at_start = False


def _escape_in_class(literal: str) -> str:
    return "".join("\\" + c if c in "\\]^-[" else c for c in literal)


def _python_flags(group: str, pattern: str) -> str:
    letters = group.strip("(?)")
    on, _, off = letters.partition("-")
    if off:
        raise UnsupportedRegex(f"{pattern!r}: turning flags off ({group}) at the start is not supported")
    # Java's u (Unicode case) and U (Unicode classes) widen matching beyond ASCII: refuse rather than differ.
    if set(on) & {"u", "U"}:
        raise UnsupportedRegex(f"{pattern!r}: Unicode matching flags ({group}) are not supported")
    # Java's comments mode also ignores whitespace inside classes, Python's does not.
    if "x" in on:
        raise UnsupportedRegex(f"{pattern!r}: comments mode ({group}) is not supported")
    # d (UNIX_LINES) only changes which terminators `.`, `^` and `$` see: topic names contain none.
    kept = "".join(c for c in on if c in "ims")
    return f"(?{kept})" if kept else ""
