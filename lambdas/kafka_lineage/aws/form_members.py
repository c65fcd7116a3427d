"""The member paths a DataZone form type's Smithy model declares (enough of the IDL for form types).

Used to write into DataZone's managed form types only what their model, as GetFormType returns it,
declares: AWS documents those models by example only, so the model itself is the authority.
"""

from __future__ import annotations

import re

_TEXT_BLOCK = re.compile(r'"""(?:.|\n)*?"""')
_STRING = re.compile(r'"(?:\\.|[^"\\])*"')
_COMMENT = re.compile(r"//[^\n]*")
_TRAIT = re.compile(r"@[\w.#]+(?:\s*\([^()]*\))?")
_SHAPE = re.compile(r"\b(structure|union|list|set|map)\s+(\w+)\s*(?:with\s*\[[^\]]*\]\s*)?\{([^{}]*)\}")
_MEMBER = re.compile(r"\b(\w+)\s*:\s*([\w.#$]+)")
_MAX_DEPTH = 6


def declared_paths(smithy: str, structure: str) -> frozenset[str]:
    """Dotted member paths of `structure` and of the structures its members hold (directly or as list
    elements), e.g. {"tableName", "columns", "columns.columnName"}. Empty when the structure is absent."""
    text = _COMMENT.sub("", _STRING.sub('""', _TEXT_BLOCK.sub('""', smithy)))
    text = _TRAIT.sub("", text)
    shapes: dict[str, tuple[str, dict[str, str]]] = {}
    for kind, name, body in _SHAPE.findall(text):
        members = {member: target.split("#")[-1] for member, target in _MEMBER.findall(body)}
        shapes[name] = (kind, members)
    paths: set[str] = set()

    def walk(name: str, prefix: str, depth: int) -> None:
        kind, members = shapes.get(name, ("", {}))
        if kind not in ("structure", "union") or depth > _MAX_DEPTH:
            return
        for member, target in members.items():
            paths.add(prefix + member)
            inner_kind, inner = shapes.get(target, ("", {}))
            element = inner["member"] if inner_kind in ("list", "set") and "member" in inner else target
            walk(element, f"{prefix}{member}.", depth + 1)

    walk(structure, "", 0)
    return frozenset(paths)
