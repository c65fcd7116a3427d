"""An explicit topic -> Glue table mapping: one SSM String parameter's JSON value.

The stack writes the mappings of `cdk.json` in this shape (docs/lineage.md, "Explicit mappings"), operators
write their own, and lineage-emission reads both with this same model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from kafka_lineage.model.names import FederatedCatalogName, GlueCatalogName, GlueName, SourceKey


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

    catalog: FederatedCatalogName | None = Field(
        default=None,
        description="The Glue catalog below the account's root catalog that holds the table, e.g. "
        '"s3tablescatalog/<table bucket>" for S3 Tables; none: the root (default) catalog.',
    )

    @property
    def database_path(self) -> str:
        """`{database}`, or `{catalog}/{database}` in a federated catalog (what the stack grants reading)."""
        return f"{self.catalog}/{self.database}" if self.catalog else self.database

    def parameter_value(self) -> str:
        """The value: compact JSON with sorted keys, `registryName` and `catalog` only when set."""
        body: dict[str, str] = {"topic": self.topic, "database": self.database, "table": self.table}
        if self.registry_name is not None:
            body["registryName"] = self.registry_name
        if self.catalog is not None:
            body["catalog"] = self.catalog
        return json.dumps(body, separators=(",", ":"), sort_keys=True)


@dataclass(frozen=True)
class MappingParameter:
    """One SSM parameter below `table-mappings/`, as GetParametersByPath returned it."""

    name: str
    value: str
    type: str = "String"
    last_modified: datetime | None = None
