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
    out: list[str] = []
    i = 0
    in_class = 0  # depth of [...]
    at_start = True  # before any construct other than leading inline flags
    n = len(pattern)
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 >= n:
                raise UnsupportedRegex(f"{pattern!r} ends with a lone backslash")
            escape = pattern[i + 1]
            if escape == "Q":
                end = pattern.find("\\E", i + 2)
                literal = pattern[i + 2 :] if end < 0 else pattern[i + 2 : end]
                out.append(re.escape(literal) if not in_class else _escape_in_class(literal))
                i = n if end < 0 else end + 2
            elif escape == "k" and pattern.startswith("<", i + 2):
                end = pattern.find(">", i + 3)
                if end < 0:
                    raise UnsupportedRegex(f"{pattern!r}: unterminated \\k<name>")
                out.append(f"(?P={pattern[i + 3 : end]})")
                i = end + 1
            elif escape in "pP" and i + 2 < n and pattern[i + 2] == "{":
                end = pattern.find("}", i + 3)
                name = pattern[i + 3 : end] if end > 0 else ""
                name = name[2:] if name.startswith("Is") and name[2:] in POSIX_CLASSES else name
                if name not in POSIX_CLASSES:
                    raise UnsupportedRegex(f"{pattern!r}: \\{escape}{{{name}}} has no Python equivalent here")
                body = POSIX_CLASSES[name]
                if in_class:
                    if escape == "P":
                        raise UnsupportedRegex(f"{pattern!r}: a negated property inside a class")
                    out.append(body)
                else:
                    out.append(f"[{'^' if escape == 'P' else ''}{body}]")
                i = end + 1
            elif escape in "hHvV":
                body = JAVA_H if escape in "hH" else JAVA_V
                negated = escape in "HV"
                if in_class and negated:
                    raise UnsupportedRegex(f"{pattern!r}: \\{escape} inside a class")
                out.append(body if in_class else f"[{'^' if negated else ''}{body}]")
                i += 2
            elif escape == "z":
                out.append("\\Z")
                i += 2
            elif escape == "Z" and not in_class:
                out.append("(?=[\\n\\r\\x85\\u2028\\u2029]?\\Z)")
                i += 2
            elif escape in REFUSED_ESCAPES:
                raise UnsupportedRegex(f"{pattern!r}: {REFUSED_ESCAPES[escape]} has no Python equivalent")
            else:
                out.append(pattern[i : i + 2])
                i += 2
            # Java reads `[\w-.]` as \w, '-', '.'; Python calls a range from a class a bad range.
            if (
                in_class
                and escape in "wdsWDSpPhv"
                and pattern.startswith("-", i)
                and not pattern.startswith("-]", i)
            ):
                out.append("\\-")
                i += 1
            at_start = False
            continue
        if in_class:
            if char == "[":
                raise UnsupportedRegex(
                    f"{pattern!r}: nested character classes (Java union) are not supported"
                )
            if char == "&" and pattern.startswith("&&", i):
                raise UnsupportedRegex(f"{pattern!r}: character-class intersection (&&) is not supported")
            if char == "]":
                in_class -= 1
            out.append(char)
            i += 1
            continue
        if char == "[":
            in_class += 1
            out.append(char)
            i += 1
            if i < n and pattern[i] == "^":
                out.append("^")
                i += 1
            if i < n and pattern[i] == "]":  # a leading ']' is a literal in both engines
                out.append("\\]")
                i += 1
            at_start = False
            continue
        if char == "(" and pattern.startswith("(?", i):
            flags = INLINE_FLAGS.match(pattern, i)
            if flags:
                letters = set(flags.group().strip("(?)").replace("-", ""))
                if not letters <= JAVA_FLAGS:
                    raise UnsupportedRegex(f"{pattern!r}: unknown inline flag in {flags.group()}")
                if not at_start:
                    raise UnsupportedRegex(f"{pattern!r}: inline flags after the start ({flags.group()})")
                out.append(_python_flags(flags.group(), pattern))
                i = flags.end()
                continue
            if pattern.startswith("(?<", i) and not pattern.startswith(("(?<=", "(?<!"), i):
                out.append("(?P<")
                i += 3
                at_start = False
                continue
        out.append(char)
        i += 1
        at_start = False
    if in_class:
        raise UnsupportedRegex(f"{pattern!r}: unterminated character class")
    return "".join(out)


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
