"""A dry run cannot write: at the composition root, every writer port of a dry run's bundle is replaced,
once, by a recorder that refuses (`refusing`).

A run computes its plan and, in a dry run, reports it: the plan alone. Its writer ports are never meant to
be reached then; should a new step reach one, the recorder keeps the call (what would have been written:
`DryRunWrites`) and raises `WroteInDryRun`, so the item fails loudly in the result, the logs and the tests
(tests/integration/*/test_dry_run_cannot_write.py run each function's dry run over writer ports that fail
on any call). Reads pass through: a dry run reads exactly what a real run reads.

Which methods of a port write is said once, next to each run's ports bundle (its `WRITERS`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, TypeVar, cast

T = TypeVar("T")


class WroteInDryRun(RuntimeError):
    """A writer port was called in a dry run: a bug (the plan alone must not write)."""


@dataclass
class DryRunWrites:
    """The writes a dry run's steps attempted (each refused): `port.method`, in order."""

    attempted: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, where: str) -> None:
        with self._lock:
            self.attempted.append(where)


class _Refusing:
    """`port`, but each of its `writers` records the call and raises."""

    def __init__(self, port: Any, writers: frozenset[str], name: str, writes: DryRunWrites) -> None:
        self._port, self._writers, self._name, self._writes = port, writers, name, writes

    def __getattr__(self, attribute: str) -> Any:
        if attribute in self._writers:
            return self._refuse(attribute)
        return getattr(self._port, attribute)

    def _refuse(self, method: str) -> Callable[..., Any]:
        def refused(*_: Any, **__: Any) -> Any:
            where = f"{self._name}.{method}"
            self._writes.record(where)
            raise WroteInDryRun(
                f"{where} was called in a dry run: a dry run reports its plan and writes nothing"
            )

        return refused


def refusing(port: T, writers: Iterable[str], name: str, writes: DryRunWrites | None = None) -> T:
    """`port` with its `writers` (method names) replaced by refusing recorders; its reads as they are."""
    return cast(T, _Refusing(port, frozenset(writers), name, writes or DryRunWrites()))


Bundle = TypeVar("Bundle")


def dry_bundle(
    bundle: Bundle, writers: Mapping[str, Iterable[str]], writes: DryRunWrites | None = None
) -> Bundle:
    """A ports bundle (a dataclass) for a dry run: each member `writers` names (field -> its writer methods)
    refuses those methods; a member that is None stays None. A writer field that is not the bundle's is a
    bug here, not a silently unguarded port."""
    names = {item.name for item in fields(cast(Any, bundle))}
    unknown = set(writers) - names
    if unknown:
        raise ValueError(f"no such ports in {type(bundle).__name__}: {sorted(unknown)}")
    kept = writes or DryRunWrites()
    changes = {
        name: refusing(getattr(bundle, name), methods, name, kept)
        for name, methods in writers.items()
        if getattr(bundle, name) is not None
    }
    return cast(Bundle, replace(cast(Any, bundle), **changes))
