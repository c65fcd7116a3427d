"""Glue reads for lineage: Data Catalog tables (their columns) and the schema version a run describes.

Tables are read in batches: one GetTables per database (paginated; with the CatalogId `<account>:<catalog>`
for a database of a federated catalog, such as S3 Tables' `s3tablescatalog/<table bucket>`), filtered
server-side by an Expression naming the wanted tables. Glue documents Expression only as "a regular
expression pattern", so nothing here depends on how it matches: results are filtered by exact name, and a
wanted table the batch did not return is confirmed with GetTable (a missing table costs one call, and a
too-clever Expression can only cost calls).

The table's ARN parts come from the answer itself: the account is the table's CatalogId (its part before a
`:`, for a federated catalog's qualified id) and the region and
partition those of the Glue client that read it, so the lineage node is exactly the table that was read (no
STS call, and right for a catalog in another account too).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import Stopped, instrument, pages_until
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.model.failures import AwsError, NotFound, describe_failure
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.tables import GlueTable, TableColumn, TableReads, TableRef

if TYPE_CHECKING:
    from mypy_boto3_glue import GlueClient

PAGE_SIZE = 100  # GetTables MaxResults maximum (botocore glue CatalogGetterPageSize)
EXPRESSION_MAX = 2048  # GetTables Expression: FilterString max length
# Iceberg's Glue catalog keeps dropped columns, marked with this parameter set to "false".
ICEBERG_CURRENT = "iceberg.field.current"


def expressions(names: Iterable[str], limit: int = EXPRESSION_MAX) -> list[str]:
    """`a|b|c` alternations of the names, each within Glue's Expression length limit."""
    chunks: list[str] = []
    current = ""
    for name in sorted(set(names)):
        candidate = f"{current}|{name}" if current else name
        if len(candidate) > limit and current:
            chunks.append(current)
            candidate = name
        current = candidate
    if current:
        chunks.append(current)
    return chunks


class GlueTables:
    def __init__(self, glue: GlueClient, limiter: Pacer | None = None, account: str = "") -> None:
        self.glue = instrument(glue, limiter)
        self.limiter = limiter
        # Only for an answer without CatalogId (Glue always sends it; a stand-in might not).
        self.account = account

    @property
    def region(self) -> str:
        return str(self.glue.meta.region_name)

    @property
    def partition(self) -> str:
        return str(getattr(self.glue.meta, "partition", "aws") or "aws")

    def read(self, wanted: Iterable[TableRef], stop: Callable[[], bool] | None = None) -> TableReads:
        """Every wanted table (None for one that does not exist, nor its database), and per database the error
        that kept it from being read (access denied, say): one database's trouble fails only its topics.
        Once `stop()` says so, no further call starts and the answer says `stopped`. A table of a federated
        catalog (`TableRef.glue_catalog`) is read with the CatalogId `<account>:<catalog>`."""
        by_database: dict[tuple[str, str], set[str]] = {}
        for ref in wanted:
            by_database.setdefault((ref.glue_catalog, ref.database), set()).add(ref.table)
        reads = TableReads()
        for (glue_catalog, database), names in sorted(by_database.items()):
            try:
                reads.tables.update(self._read_database(database, names, stop, glue_catalog))
            except Stopped:
                reads.stopped = True
                return reads
            except (AwsError, ValueError) as error:
                where = TableRef(database, "", glue_catalog=glue_catalog).database_path
                reads.errors[where] = describe_failure(error)
        return reads

    def _catalog_id(self, glue_catalog: str) -> dict[str, Any]:
        if not glue_catalog:
            return {}
        if not self.account:
            raise ValueError(f"the account of catalog {glue_catalog} is unknown: it cannot be read")
        return {"CatalogId": f"{self.account}:{glue_catalog}"}

    def _read_database(
        self, database: str, names: set[str], stop: Callable[[], bool] | None = None, glue_catalog: str = ""
    ) -> dict[TableRef, GlueTable | None]:
        found: dict[TableRef, GlueTable | None] = {}
        paginator = self.glue.get_paginator("get_tables")
        catalog_id = self._catalog_id(glue_catalog)
        try:
            for expression in expressions(names):
                if stop is not None and stop():
                    raise Stopped
                pages = paginator.paginate(
                    DatabaseName=database,
                    Expression=expression,
                    PaginationConfig={"PageSize": PAGE_SIZE},
                    **catalog_id,
                )
                for page in pages_until(pages, stop):
                    for table in page.get("TableList", []):
                        name = str(table.get("Name", "")).lower()
                        if name in names:
                            ref = TableRef(database, name, glue_catalog=glue_catalog)
                            found[ref] = self._table(database, table, glue_catalog)
        except NotFound:  # the database does not exist: neither do its tables
            return {TableRef(database, name, glue_catalog=glue_catalog): None for name in names}
        for name in sorted(names):
            ref = TableRef(database, name, glue_catalog=glue_catalog)
            if ref not in found:
                if stop is not None and stop():
                    raise Stopped
                found[ref] = self._get_one(ref)
        return found

    def _get_one(self, ref: TableRef) -> GlueTable | None:
        try:
            answer = self.glue.get_table(
                DatabaseName=ref.database, Name=ref.table, **self._catalog_id(ref.glue_catalog)
            )
        except NotFound:
            return None
        return self._table(ref.database, answer["Table"], ref.glue_catalog)

    def _table(self, database: str, table: Mapping[str, Any], glue_catalog: str = "") -> GlueTable:
        descriptor = table.get("StorageDescriptor") or {}
        columns = [*descriptor.get("Columns", []), *table.get("PartitionKeys", [])]
        return GlueTable(
            ref=TableRef(database, str(table["Name"]).lower(), glue_catalog=glue_catalog),
            columns=tuple(
                TableColumn(
                    # Names and types repeat across thousands of tables: one shared string each.
                    name=sys.intern(str(column["Name"])),
                    type=sys.intern(str(column.get("Type", ""))),
                    comment=str(column.get("Comment", "") or ""),
                )
                for column in columns
                if (column.get("Parameters") or {}).get(ICEBERG_CURRENT, "true") != "false"
            ),
            catalog_id=self._account(table),
            region=self.region,
            partition=self.partition,
            resource_link=bool(table.get("TargetTable")),
        )

    def _account(self, table: Mapping[str, Any]) -> str:
        # A federated catalog's tables may answer the qualified id `<account>:<catalog>` (Glue's reference
        # does not say): the account is the part before the colon either way.
        account = str(table.get("CatalogId") or self.account).partition(":")[0]
        if not account:
            raise ValueError(
                f"Glue returned table {table.get('Name')!r} without CatalogId; its ARN is unknown"
            )
        return account


class SchemaVersions:
    """GetSchemaVersion for the version a run describes: its definition and registration time."""

    def __init__(self, glue: GlueClient, limiter: Pacer | None = None) -> None:
        self.glue = instrument(glue, limiter)
        self.limiter = limiter

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition:
        answer = self.glue.get_schema_version(
            SchemaId={"SchemaArn": schema_arn}, SchemaVersionNumber={"VersionNumber": version_number}
        )
        return VersionDefinition(
            definition=str(answer.get("SchemaDefinition") or ""),
            data_format=str(answer.get("DataFormat") or ""),
            created_time=str(answer.get("CreatedTime") or ""),
            version_id=str(answer.get("SchemaVersionId") or ""),
        )


class SourceTables(GlueTables):
    """Tables in several accounts' catalogs: each `TableRef.catalog` (a source key, "" for the functions' own
    account) is read with that source's Glue client, and the answers keep the catalog in their refs. A
    catalog that cannot be read (its role cannot be assumed, say) fails its databases, not the others."""

    def __init__(
        self,
        glue_of: Callable[[str], GlueClient],
        limiter_of: Callable[[str], Pacer | None],
        account_of: Callable[[str], str],
    ) -> None:
        super().__init__(glue_of(""), limiter_of(""), account_of(""))
        self._glue_of, self._limiter_of, self._account_of = glue_of, limiter_of, account_of
        self._readers: dict[str, GlueTables] = {"": GlueTables(self.glue, self.limiter, self.account)}

    def _reader(self, catalog: str) -> GlueTables:
        reader = self._readers.get(catalog)
        if reader is None:
            reader = GlueTables(self._glue_of(catalog), self._limiter_of(catalog), self._account_of(catalog))
            self._readers[catalog] = reader
        return reader

    def read(self, wanted: Iterable[TableRef], stop: Callable[[], bool] | None = None) -> TableReads:
        by_catalog: dict[str, set[TableRef]] = {}
        for ref in wanted:
            by_catalog.setdefault(ref.catalog, set()).add(replace(ref, catalog=""))
        reads = TableReads()
        for catalog, refs in sorted(by_catalog.items()):
            try:
                part = self._reader(catalog).read(refs, stop)
            except Exception as error:  # the catalog's session: only its databases fail
                why = describe_failure(error)
                part = TableReads(errors={ref.database_path: why for ref in refs})
            for ref, table in part.tables.items():
                qualified = replace(ref, catalog=catalog)
                reads.tables[qualified] = None if table is None else replace(table, ref=qualified)
            # Errors are keyed by database, as the plan looks them up (a database of that name in another
            # catalog fails with it: never a wrong edge, at worst a retried topic).
            reads.errors.update(part.errors)
            if part.stopped:
                reads.stopped = True
                return reads
        return reads


class SourceSchemaVersions(SchemaVersions):
    """GetSchemaVersion with the Glue client of the schema's source, told by its ARN's account and registry
    (`glue_of` gets the source key, see kafka_lineage.config.Settings.source_key)."""

    def __init__(
        self,
        key_of: Callable[[str, str], str],
        glue_of: Callable[[str], GlueClient],
        limiter_of: Callable[[str], Pacer | None],
    ) -> None:
        super().__init__(glue_of(""), limiter_of(""))
        self._key_of, self._glue_of, self._limiter_of = key_of, glue_of, limiter_of
        self._readers: dict[str, SchemaVersions] = {}

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition:
        # arn:<partition>:glue:<region>:<account>:schema/<registry>/<schema>
        parts = schema_arn.split(":", 5)
        path = parts[5].split("/") if len(parts) > 5 else []
        key = self._key_of(parts[4], path[1]) if len(path) >= 3 else ""
        reader = self._readers.get(key)
        if reader is None:
            reader = SchemaVersions(self._glue_of(key), self._limiter_of(key))
            self._readers[key] = reader
        return reader.read(schema_arn, version_number)
