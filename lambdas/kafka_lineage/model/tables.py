"""Glue Data Catalog tables as the lineage reads them: which table (`TableRef`), and what Glue said of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, order=True, slots=True)
class TableRef:
    """A Glue Data Catalog table (names as Glue stores them: lower case)."""

    database: str
    table: str
    # The source key (`Source.key`) whose account's catalog holds the table; "" for the functions' own.
    catalog: str = ""
    # The Glue catalog below the account's root catalog (`s3tablescatalog/<table bucket>`); "" for the root.
    glue_catalog: str = ""

    @property
    def name(self) -> str:
        """The OpenLineage dataset name DataZone matches to the Glue table: `{database}/{table}`, or
        `{catalog}/{database}/{table}` in a federated catalog (so that namespace + "/" + name is the table's
        Glue ARN, the sourceIdentifier of the federated table's node and asset)."""
        if self.glue_catalog:
            return f"{self.glue_catalog}/{self.database}/{self.table}"
        return f"{self.database}/{self.table}"

    @property
    def database_path(self) -> str:
        """The database as reads report it: `{database}`, or `{catalog}/{database}` in a federated catalog."""
        return f"{self.glue_catalog}/{self.database}" if self.glue_catalog else self.database


@dataclass(frozen=True, slots=True)
class TableColumn:
    name: str
    type: str
    comment: str = ""


@dataclass(frozen=True, slots=True)
class GlueTable:
    """A table as the Glue Data Catalog returned it, with where it lives (for its ARN)."""

    ref: TableRef
    columns: tuple[TableColumn, ...]
    catalog_id: str  # the account that owns the catalog (GetTables' CatalogId)
    region: str
    partition: str = "aws"
    # A resource link (GetTable's `TargetTable`) names a table elsewhere; Glue's lineage graph skips it.
    resource_link: bool = False

    @property
    def namespace(self) -> str:
        """OpenLineage namespace that, joined with `ref.name`, is the table ARN DataZone matches."""
        return f"arn:{self.partition}:glue:{self.region}:{self.catalog_id}:table"

    @property
    def arn(self) -> str:
        return f"{self.namespace}/{self.ref.name}"


@dataclass
class TableReads:
    """What one read of the mapped tables found: each table (None: not in the catalog), and what failed."""

    tables: dict[TableRef, GlueTable | None] = field(default_factory=dict)
    # `TableRef.database_path` -> why it could not be read
    errors: dict[str, str] = field(default_factory=dict)
    stopped: bool = False  # the caller's deadline came before every database was read


# Column lineage: which table columns a topic's row fields feed. One rule, for the lineage runs and for the
# impact of schema drift.


@dataclass(frozen=True)
class ColumnMatch:
    column: str
    field: str  # the topic field path feeding it


def match_columns(row_fields: Mapping[str, str], table: GlueTable) -> tuple[ColumnMatch, ...]:
    """Table columns fed by a row field of the same name (exact first, then case-insensitive), table order."""
    lowered: dict[str, str] = {}
    for name, row_path in row_fields.items():
        lowered.setdefault(name.lower(), row_path)
    matches = []
    for column in table.columns:
        path = row_fields.get(column.name) or lowered.get(column.name.lower())
        if path is not None:
            matches.append(ColumnMatch(column.name, path))
    return tuple(matches)
