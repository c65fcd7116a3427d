"""What lies downstream of a table in DataZone's lineage graph, as the drift impact reports it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DownstreamNode:
    """A lineage node downstream of an impacted table (DataZone LineageNodeItem members), `hops` away."""

    id: str
    type_name: str
    hops: int
    name: str | None = None
    source_identifier: str | None = None

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"id": self.id, "typeName": self.type_name, "hops": self.hops}
        if self.name is not None:
            found["name"] = self.name
        if self.source_identifier is not None:
            found["sourceIdentifier"] = self.source_identifier
        return found
