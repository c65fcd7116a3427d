"""Glue Schema Registry reader: listings (paginated), schema details, versions and definitions."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from typing import Any

from botocore.exceptions import ClientError

from kafka_lineage.aws.clients import RateLimiter
from kafka_lineage.config import Settings, Source
from kafka_lineage.model.failures import RegistryNotFound, SchemaNotFound
from kafka_lineage.model.registry import ListedSchema, SchemaDetails, SchemaVersion

LIST_PAGE_SIZE = 100  # ListSchemas / ListSchemaVersions maximum page size


def _text(value: Any) -> str:
    """Glue returns times as strings in its model; normalise datetimes too (moto, other SDK paths)."""
    if isinstance(value, datetime):
        return value.isoformat()
    return "" if value is None else str(value)


def _is(error: ClientError, *codes: str) -> bool:
    return error.response.get("Error", {}).get("Code") in codes


class RegistryReader:
    def __init__(self, glue: Any, limiter: RateLimiter | None = None) -> None:
        self.glue = glue
        self.limiter = limiter
        self.calls = 0  # calls made so far (a listing is one a page): what a run's timings are divided by

    def _call(self, operation: str, **kwargs: Any) -> dict[str, Any]:
        if self.limiter is not None:
            self.limiter.acquire()
        self.calls += 1
        result: dict[str, Any] = getattr(self.glue, operation)(**kwargs)
        return result

    def list_schemas(self, registry_name: str) -> list[ListedSchema]:
        schemas: list[ListedSchema] = []
        request: dict[str, Any] = {
            "RegistryId": {"RegistryName": registry_name},
            "MaxResults": LIST_PAGE_SIZE,
        }
        while True:
            try:
                page = self._call("list_schemas", **request)
            except ClientError as error:
                if _is(error, "EntityNotFoundException"):
                    raise RegistryNotFound(registry_name) from error
                raise
            for row in page.get("Schemas", []):
                schemas.append(
                    ListedSchema(
                        registry_name=row.get("RegistryName", registry_name),
                        schema_name=row["SchemaName"],
                        schema_arn=row["SchemaArn"],
                        status=row.get("SchemaStatus", "AVAILABLE"),
                        created_time=_text(row.get("CreatedTime")),
                        updated_time=_text(row.get("UpdatedTime")),
                    )
                )
            token = page.get("NextToken")
            if not token:
                return schemas
            request["NextToken"] = token

    def list_versions(self, schema_arn: str) -> list[SchemaVersion]:
        versions: list[SchemaVersion] = []
        request: dict[str, Any] = {"SchemaId": {"SchemaArn": schema_arn}, "MaxResults": LIST_PAGE_SIZE}
        while True:
            try:
                page = self._call("list_schema_versions", **request)
            except ClientError as error:
                if _is(error, "EntityNotFoundException"):
                    raise SchemaNotFound(schema_arn) from error
                raise
            for row in page.get("Schemas", []):
                versions.append(
                    SchemaVersion(
                        number=int(row["VersionNumber"]),
                        version_id=row.get("SchemaVersionId", ""),
                        status=row.get("Status", "AVAILABLE"),
                        created_time=_text(row.get("CreatedTime")),
                    )
                )
            token = page.get("NextToken")
            if not token:
                return sorted(versions, key=lambda version: version.number)
            request["NextToken"] = token

    def snapshot(self, registry_name: str, schema_name: str) -> SchemaDetails:
        """GetSchema + ListSchemaVersions: everything but the definition (two calls and their pages)."""
        try:
            schema = self._call(
                "get_schema", SchemaId={"RegistryName": registry_name, "SchemaName": schema_name}
            )
        except ClientError as error:
            if _is(error, "EntityNotFoundException"):
                raise SchemaNotFound(f"{registry_name}/{schema_name}") from error
            raise
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
            answer = self._call(
                "get_schema_version",
                SchemaId={"SchemaArn": schema_arn},
                SchemaVersionNumber={"VersionNumber": version_number},
            )
        except ClientError as error:
            if _is(error, "EntityNotFoundException"):
                raise SchemaNotFound(schema_arn) from error
            raise
        return str(answer.get("SchemaDefinition") or "")


class SourceRegistries(RegistryReader):
    """The registries of every source, addressed by source key (`Source.key`), each read with its source's
    Glue client (assumed-role sessions for sources in other accounts: kafka_lineage.aws.sessions).

    What it returns names the registry by the source key, so two accounts' registries of one name stay
    apart in everything built from it (asset records, plans, results); Glue is asked with the real name.
    """

    def __init__(self, settings: Settings, glue_of: Callable[[Source | None], Any], limiter_of: Any) -> None:
        super().__init__(glue=None)
        self.settings = settings
        self._glue_of = glue_of
        self._limiter_of = limiter_of  # account -> RateLimiter (Glue quotas are per account)
        self._readers: dict[str, RegistryReader] = {}
        self._lock = threading.Lock()

    def _reader(self, key: str) -> tuple[RegistryReader, str]:
        source = self.settings.source(key)
        name = source.registry_name if source is not None else key
        with self._lock:
            reader = self._readers.get(key)
            if reader is None:
                account = source.role_account if source is not None and source.role_arn else ""
                reader = RegistryReader(self._glue_of(source), self._limiter_of(account or ""))
                self._readers[key] = reader
        return reader, name

    def _count(self, reader: RegistryReader, before: int) -> None:
        with self._lock:
            self.calls += reader.calls - before

    def _key_of_arn(self, schema_arn: str) -> str:
        parts = schema_arn.split(":", 5)
        account = parts[4] if len(parts) > 5 else ""
        registry = parts[5].split("/")[1] if len(parts) > 5 and parts[5].count("/") >= 2 else ""
        return self.settings.source_key(account, registry)

    def list_schemas(self, registry_name: str) -> list[ListedSchema]:
        reader, name = self._reader(registry_name)
        before = reader.calls
        try:
            return [replace(row, registry_name=registry_name) for row in reader.list_schemas(name)]
        finally:
            self._count(reader, before)

    def list_versions(self, schema_arn: str) -> list[SchemaVersion]:
        reader, _ = self._reader(self._key_of_arn(schema_arn))
        before = reader.calls
        try:
            return reader.list_versions(schema_arn)
        finally:
            self._count(reader, before)

    def snapshot(self, registry_name: str, schema_name: str) -> SchemaDetails:
        reader, name = self._reader(registry_name)
        before = reader.calls
        try:
            return replace(reader.snapshot(name, schema_name), registry_name=registry_name)
        finally:
            self._count(reader, before)

    def definition(self, schema_arn: str, version_number: int) -> str:
        reader, _ = self._reader(self._key_of_arn(schema_arn))
        before = reader.calls
        try:
            return reader.definition(schema_arn, version_number)
        finally:
            self._count(reader, before)
