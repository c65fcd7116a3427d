"""One rendering of pydantic validation errors: `where: message` items joined by "; "."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator
from typing import Any

from pydantic import BaseModel, ValidationError

Location = tuple[int | str, ...]
# Renames the key at `position` of a location (e.g. to the environment variable or cdk.json key it came from);
# "" leaves the key out of the path (a model's part that its input does not spell).
KeyName = Callable[[Location, int], str]


def error_path(location: Location, name: KeyName | None = None) -> str:
    """`sources[0].clusterArn` for ("sources", 0, "clusterArn")."""
    path = ""
    for position, part in enumerate(location):
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            key = name(location, position) if name else part
            if key:
                path += f".{key}" if path else key
    return path


def describe(
    error: ValidationError,
    *,
    root: str = "",
    where: str = "value",
    name: KeyName | None = None,
    first_only: bool = False,
    model: type[BaseModel] | None = None,
) -> str:
    """Each error as `root.path: message` (`root`, else `where`, when the path is empty), joined by "; ".
    With the settings `model` validated, an unknown key is an unknown setting, reported with the keys its
    place knows (a typo shows)."""
    items = error.errors()[:1] if first_only else error.errors()
    rendered = []
    for item in items:
        location = tuple(item["loc"])
        path = error_path(location, name)
        label = f"{root}.{path}" if root and path else (path or root or where)
        message = item["msg"]
        if item["type"] == "extra_forbidden" and model is not None:
            known = known_keys(model, location[:-1]) if len(location) > 1 else []
            message = "unknown setting" + (f" (known: {', '.join(known)})" if known else "")
        rendered.append(f"{label}: {message}")
    return "; ".join(rendered)


def known_keys(model: type[BaseModel], location: Location) -> list[str]:
    """The keys (aliases, else names) of the model found at `location` inside `model`; none when a step of
    the location is not a nested model."""
    current: type[BaseModel] | None = model
    for part in location:
        if current is None:
            return []
        if isinstance(part, int):
            continue
        field = next(
            (f for n, f in current.model_fields.items() if part in (n, f.alias)),
            None,
        )
        current = next(_models_in(field.annotation), None) if field is not None else None
    if current is None:
        return []
    return [field.alias or name for name, field in current.model_fields.items()]


def _models_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for argument in typing.get_args(annotation):
        yield from _models_in(argument)
