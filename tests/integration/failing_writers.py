"""Writer ports that fail on any call: a dry run must run over them and pass (issue: "a dry run that cannot
write"). Independent of the run's own guard (engine/dry.py's refusing recorders): these fail the test, not
the item, and they are put in before the function's composition root makes its dry run's ports."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields, replace
from typing import Any


class WriterReached(AssertionError):
    """A writer port was called in a dry run."""


class _Failing:
    def __init__(self, port: Any, writers: frozenset[str], name: str, reached: list[str]) -> None:
        self._port, self._writers, self._name, self._reached = port, writers, name, reached

    def __getattr__(self, attribute: str) -> Any:
        if attribute not in self._writers:
            return getattr(self._port, attribute)

        def reached(*_: Any, **__: Any) -> Any:
            self._reached.append(f"{self._name}.{attribute}")
            raise WriterReached(f"{self._name}.{attribute} was called")

        return reached


def failing(bundle: Any, writers: Mapping[str, frozenset[str]], reached: list[str]) -> Any:
    """`bundle` (a ports dataclass) with every writer method of `writers` failing, each call noted in
    `reached`; a writer field the bundle does not have fails the test at once."""
    names = {item.name for item in fields(bundle)}
    assert set(writers) <= names, f"writers {sorted(set(writers) - names)} are no ports of {type(bundle)}"
    changes = {
        name: _Failing(getattr(bundle, name), methods, name, reached)
        for name, methods in writers.items()
        if getattr(bundle, name) is not None
    }
    return replace(bundle, **changes)
