"""The registry listings of a run, read on a thread of their own while the run reads the rest of what it
triages on (the asset type, the asset records, each cluster's topics): the triage needs all of them, and
none needs another. A listing is a page at a time (a hundred pages at 10,000 schemas), and the asset records
a GetParametersByPath page per ten parameters: one after the other, each invocation of a chain waited for
the sum of both before its first read.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from kafka_lineage.model import clock
from kafka_lineage.model.registry import ListedSchema
from kafka_lineage.sync.ports import SchemaRegistry


class Listings:
    """Each registry's listing (or why it could not be listed), read from the moment it is made; `of`
    waits for it. `seconds` and `calls` say how long the listings took, and in how many pages."""

    def __init__(self, registry: SchemaRegistry, names: Sequence[str]) -> None:
        self._found: dict[str, list[ListedSchema] | Exception] = {}
        self.seconds = 0.0
        self.calls = 0
        self._thread = threading.Thread(target=self._list, args=(registry, tuple(names)), daemon=True)
        self._thread.start()

    def _list(self, registry: SchemaRegistry, names: Sequence[str]) -> None:
        started, before = clock.monotonic(), registry.calls
        for name in names:
            try:
                self._found[name] = registry.list_schemas(name)
            except Exception as error:  # the triage reports it, as when it listed the registry itself
                self._found[name] = error
        self.seconds, self.calls = clock.monotonic() - started, registry.calls - before

    def wait(self) -> None:
        self._thread.join()

    def of(self, name: str) -> list[ListedSchema]:
        """The registry's listing; raises what listing it raised."""
        self.wait()
        found = self._found[name]
        if isinstance(found, Exception):
            raise found
        return found
