"""An explicit topic -> Glue table mapping: one SSM String parameter's JSON value.

The stack writes the mappings of `cdk.json` in this shape (docs/lineage.md, "Explicit mappings"), operators
write their own, and lineage-emission reads both with this same model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from kafka_lineage.model.names import GlueCatalogName, GlueName, SourceKey


class TableMapping(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    topic: GlueName = Field(description="The topic (its schema's name in the registry).")
    database: GlueCatalogName = Field(
        description="The Glue Data Catalog database of the table the topic feeds."
    )
    table: GlueCatalogName = Field(description="The Glue table the topic feeds.")
    # the source: a registry name, or `<account>:<registry>` for a source in another account
    registry_name: SourceKey | None = Field(
        default=None,
        alias="registryName",
        description="The source: a registry name, or `<account>:<registryName>` for a source read through a "
        "role; none: the topic of that name in any source.",
    )

    def parameter_value(self) -> str:
        """The parameter's value: compact JSON with sorted keys, `registryName` only when set."""
        body: dict[str, str] = {"topic": self.topic, "database": self.database, "table": self.table}
        if self.registry_name is not None:
            body["registryName"] = self.registry_name
        return json.dumps(body, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class MappingParameter:
    """One SSM parameter below `table-mappings/`, as GetParametersByPath returned it."""

    name: str
    value: str
    type: str = "String"
    last_modified: datetime | None = None
