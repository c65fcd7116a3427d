"""Glue Schema Registry reader: listings (paginated), schema details, versions and definitions."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import calls_of, instrument
from kafka_lineage.aws.pacing import Pacer
from kafka_lineage.config import Settings, Source
from kafka_lineage.model.failures import NotFound, RegistryNotFound, SchemaNotFound
from kafka_lineage.model.registry import ListedSchema, SchemaDetails, SchemaVersion

if TYPE_CHECKING:
    from mypy_boto3_glue import GlueClient

LIST_PAGE_SIZE = 100  # ListSchemas / ListSchemaVersions maximum page size
# What a reader asks Glue (its `calls` counts these on its client).
OPERATIONS = ("ListSchemas", "ListSchemaVersions", "GetSchema", "GetSchemaVersion")


def _text(value: Any) -> str:
    """Glue returns times as strings in its model; normalise datetimes too (moto, other SDK paths)."""
    if isinstance(value, datetime):
        return value.isoformat()
    return "" if value is None else str(value)


class RegistryReader:
    def __init__(self, glue: GlueClient, limiter: Pacer | None = None) -> None:
        self.glue = instrument(glue, limiter)
        self.limiter = limiter
        self._calls_before = calls_of(glue).count(*OPERATIONS)

    @property
    def calls(self) -> int:
        """Calls made so far (a listing is one a page): what a run's timings are divided by. Counted by
        the client's hook, of the operations a reader makes, since this reader was made."""
        return calls_of(self.glue).count(*OPERATIONS) - self._calls_before

    def list_schemas(self, registry_name: str) -> list[ListedSchema]:
        pages = self.glue.get_paginator("list_schemas").paginate(
            RegistryId={"RegistryName": registry_name}, PaginationConfig={"PageSize": LIST_PAGE_SIZE}
        )
        try:
            return [
                ListedSchema(
                    registry_name=row.get("RegistryName", registry_name),
                    schema_name=row["SchemaName"],
                    schema_arn=row["SchemaArn"],
                    status=row.get("SchemaStatus", "AVAILABLE"),
                    created_time=_text(row.get("CreatedTime")),
                    updated_time=_text(row.get("UpdatedTime")),
                )
                for page in pages
                for row in page.get("Schemas", [])
            ]
        except NotFound as error:
            raise RegistryNotFound(registry_name) from error

    def list_versions(self, schema_arn: str) -> list[SchemaVersion]:
        pages = self.glue.get_paginator("list_schema_versions").paginate(
            SchemaId={"SchemaArn": schema_arn}, PaginationConfig={"PageSize": LIST_PAGE_SIZE}
        )
        try:
            versions = [
                SchemaVersion(
                    number=int(row["VersionNumber"]),
                    version_id=row.get("SchemaVersionId", ""),
                    status=row.get("Status", "AVAILABLE"),
                    created_time=_text(row.get("CreatedTime")),
                )
                for page in pages
                for row in page.get("Schemas", [])
            ]
        except NotFound as error:
            raise SchemaNotFound(schema_arn) from error
        return sorted(versions, key=lambda version: version.number)

    def snapshot(self, registry_name: str, schema_name: str) -> SchemaDetails:
        """GetSchema + ListSchemaVersions: everything but the definition (two calls and their pages)."""
        try:
            schema = self.glue.get_schema(SchemaId={"RegistryName": registry_name, "SchemaName": schema_name})
        except NotFound as error:
            raise SchemaNotFound(f"{registry_name}/{schema_name}") from error
        schema_arn = schema["SchemaArn"]
        versions = tuple(self.list_versions(schema_arn))
        available = [version for version in versions if version.status == "AVAILABLE"]
        return SchemaDetails(
            schema_arn=schema_arn,
            registry_name=schema["RegistryName"],
            registry_arn=schema.get("RegistryArn", ""),
            schema_name=schema["SchemaName"],
            data_format=schema.get("DataFormat", ""),
            compatibility=schema.get("Compatibility", ""),
            description=schema.get("Description", "") or "",
            status=schema.get("SchemaStatus", "AVAILABLE"),
            created_time=_text(schema.get("CreatedTime")),
            updated_time=_text(schema.get("UpdatedTime")),
            versions=versions,
            latest=available[-1] if available else None,
        )

    def definition(self, schema_arn: str, version_number: int) -> str:
        try:
            answer = self.glue.get_schema_version(
                SchemaId={"SchemaArn": schema_arn}, SchemaVersionNumber={"VersionNumber": version_number}
            )
        except NotFound as error:
            raise SchemaNotFound(schema_arn) from error
        return str(answer.get("SchemaDefinition") or "")


class SourceRegistries(RegistryReader):
    """The registries of every source, addressed by source key (`Source.key`), each read with its source's
    Glue client (assumed-role sessions for sources in other accounts: kafka_lineage.aws.sessions).

    What it returns names the registry by the source key, so two accounts' registries of one name stay
    apart in everything built from it (asset records, plans, results); Glue is asked with the real name.
    """

    def __init__(
        self,
        settings: Settings,
        glue_of: Callable[[Source | None], GlueClient],
        limiter_of: Callable[[str], Pacer | None],
    ) -> None:
        # No client of its own: each source's reader has its source's (so no super().__init__).
        self.settings = settings
        self._glue_of = glue_of
        self._limiter_of = limiter_of  # account -> its Pacing (Glue quotas are per account)
        self._readers: dict[str, RegistryReader] = {}
        # Each distinct client once (sources of one account share it), with its count when first used.
        self._clients: dict[int, tuple[GlueClient, int]] = {}
        self._lock = threading.Lock()

    @property
    def calls(self) -> int:
        with self._lock:
            clients = list(self._clients.values())
        return sum(calls_of(glue).count(*OPERATIONS) - before for glue, before in clients)

    def _reader(self, key: str) -> tuple[RegistryReader, str]:
        source = self.settings.source(key)
        name = source.registry_name if source is not None else key
        with self._lock:
            reader = self._readers.get(key)
            if reader is None:
                account = source.role_account if source is not None and source.role_arn else ""
                reader = RegistryReader(self._glue_of(source), self._limiter_of(account or ""))
                self._readers[key] = reader
                self._clients.setdefault(id(reader.glue), (reader.glue, reader._calls_before))
        return reader, name

    def _key_of_arn(self, schema_arn: str) -> str:
        parts = schema_arn.split(":", 5)
        account = parts[4] if len(parts) > 5 else ""
        registry = parts[5].split("/")[1] if len(parts) > 5 and parts[5].count("/") >= 2 else ""
        return self.settings.source_key(account, registry)

    def list_schemas(self, registry_name: str) -> list[ListedSchema]:
        reader, name = self._reader(registry_name)
        return [replace(row, registry_name=registry_name) for row in reader.list_schemas(name)]

    def list_versions(self, schema_arn: str) -> list[SchemaVersion]:
        reader, _ = self._reader(self._key_of_arn(schema_arn))
        return reader.list_versions(schema_arn)

    def snapshot(self, registry_name: str, schema_name: str) -> SchemaDetails:
        reader, name = self._reader(registry_name)
        return replace(reader.snapshot(name, schema_name), registry_name=registry_name)

    def definition(self, schema_arn: str, version_number: int) -> str:
        reader, _ = self._reader(self._key_of_arn(schema_arn))
        return reader.definition(schema_arn, version_number)
