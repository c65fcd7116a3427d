"""One rendering of pydantic validation errors: `where: message` items joined by "; "."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import ValidationError

Location = tuple[int | str, ...]
# Renames the key at `position` of a location (e.g. to the environment variable or cdk.json key it came from).
KeyName = Callable[[Location, int], str]


def error_path(location: Location, name: KeyName | None = None) -> str:
    """`sources[0].clusterArn` for ("sources", 0, "clusterArn")."""
    path = ""
    for position, part in enumerate(location):
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            key = name(location, position) if name else part
            path += f".{key}" if path else key
    return path


def describe(
    error: ValidationError,
    *,
    root: str = "",
    where: str = "value",
    name: KeyName | None = None,
    first_only: bool = False,
) -> str:
    """Each error as `root.path: message` (`root`, else `where`, when the path is empty), joined by "; "."""
    items = error.errors()[:1] if first_only else error.errors()
    rendered = []
    for item in items:
        path = error_path(tuple(item["loc"]), name)
        label = f"{root}.{path}" if root and path else (path or root or where)
        rendered.append(f"{label}: {item['msg']}")
    return "; ".join(rendered)
