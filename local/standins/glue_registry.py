"""Glue Schema Registry listings and deletions that moto 5.2 lacks or simplifies, on moto's own data.

moto keeps registries, schemas and versions (made by CreateRegistry, CreateSchema and RegisterSchemaVersion
through the front door) but has no ListSchemas, ListSchemaVersions or DeleteSchemaVersions, deletes schemas
and registries at once, and never moves a schema's UpdatedTime. This module answers those calls from moto's
data and, through `before`/`after` hooks around the forwarded calls, keeps what AWS's asynchronous deletion
would still show. Undocumented behaviour follows `Readings`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from local.standins import paging
from local.standins.errors import ServiceError
from local.standins.readings import Readings

DEFAULT_PAGE = 25  # ListSchemas/ListSchemaVersions docs: "defaulted to 25 per page"
DELETING = "DELETING"


def _glue_time(value: datetime) -> str:
    """Glue's registry answers times as strings (CreatedTimestamp is a string shape): ISO 8601, UTC, ms."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _not_found(message: str) -> ServiceError:
    return ServiceError("EntityNotFoundException", message, 400)


def _invalid(message: str) -> ServiceError:
    return ServiceError("InvalidInputException", message, 400)


@dataclass
class _Lingering:
    # Counted here, not on moto's state manager (lifecycle.py): moto has already deleted the schema (its
    # DeleteSchema is synchronous), so what lingers is a snapshot, and a deleted registry lingers for as long
    # as any of its schemas does; a deleted version likewise lingers until it is removed from moto's schema.
    item: dict[str, Any]  # the ListSchemas item, SchemaStatus DELETING
    remaining: int  # listings it still appears in


class GlueSchemaRegistry:
    OPERATIONS = frozenset({"ListSchemas", "ListSchemaVersions", "DeleteSchemaVersions"})

    def __init__(self, readings: Callable[[], Readings], account: str, region: Callable[[], str]) -> None:
        self._readings = readings
        self._account = account
        self._region = region
        self._lock = threading.RLock()
        self._deleted_schemas: dict[str, _Lingering] = {}  # schema ARN ->
        self._deleted_registries: dict[str, int] = {}  # registry name -> schemas of it still lingering
        self._deleted_versions: dict[str, int] = {}  # schema version id -> listings it still appears in

    def reset(self) -> None:
        with self._lock:
            self._deleted_schemas.clear()
            self._deleted_registries.clear()
            self._deleted_versions.clear()

    def _backend(self, region: str) -> Any:
        from moto.glue.models import glue_backends

        return glue_backends[self._account][region]

    # ------------------------------------------------------------------------------------------ handlers

    def handle(self, operation: str, params: dict[str, Any], region: str) -> dict[str, Any]:
        with self._lock:
            if operation == "ListSchemas":
                return self._list_schemas(params, region)
            if operation == "ListSchemaVersions":
                return self._list_schema_versions(params, region)
            if operation == "DeleteSchemaVersions":
                return self._delete_schema_versions(params, region)
        raise NotImplementedError(operation)

    def _registry_name(self, registry_id: dict[str, Any] | None, region: str) -> str | None:
        if not registry_id:
            return None
        name, arn = registry_id.get("RegistryName"), registry_id.get("RegistryArn")
        if name and arn:
            raise _invalid("One of RegistryName or RegistryArn has to be provided, both cannot be provided.")
        if arn:
            prefix = f"arn:aws:glue:{region}:{self._account}:registry/"
            if not arn.startswith(prefix):
                raise _not_found(f"Registry is not found. RegistryArn: {arn}")
            name = arn[len(prefix) :]
        if not name:
            raise _invalid("One of RegistryName or RegistryArn has to be provided.")
        if name not in self._backend(region).registries and name not in self._deleted_registries:
            raise _not_found(f"Registry is not found. RegistryName: {name}")
        return str(name)

    def _list_schemas(self, params: dict[str, Any], region: str) -> dict[str, Any]:
        registry = self._registry_name(params.get("RegistryId"), region)
        moves = self._readings().updated_time_moves_on_new_version
        items: dict[str, dict[str, Any]] = {}
        for reg in self._backend(region).registries.values():
            if registry not in (None, reg.name):
                continue
            for schema in reg.schemas.values():
                items[schema.schema_arn] = self._schema_item(schema, moves)
        for arn, lingering in list(self._deleted_schemas.items()):
            if arn in items:  # created again since
                del self._deleted_schemas[arn]
            elif registry in (None, lingering.item["RegistryName"]):
                items[arn] = lingering.item
        ordered = sorted(items.values(), key=lambda i: (i["RegistryName"], i["SchemaName"]))
        page, token = _page(
            ordered, params, ("ListSchemas", registry), lambda i: [i["RegistryName"], i["SchemaName"]]
        )
        for item in page:
            self._listed(item["SchemaArn"])
        return {"Schemas": page, "NextToken": token}

    def _schema_item(self, schema: Any, moves: bool) -> dict[str, Any]:
        updated: datetime = schema.updated_time
        if moves:
            versions = [
                v.created_time for v in schema.schema_versions.values() if v.schema_version_status != DELETING
            ]
            updated = max([updated, *versions])
        return {
            "RegistryName": schema.registry_name,
            "SchemaName": schema.schema_name,
            "SchemaArn": schema.schema_arn,
            "Description": schema.description,
            "SchemaStatus": schema.schema_status,
            "CreatedTime": _glue_time(schema.created_time),
            "UpdatedTime": _glue_time(updated),
        }

    def _listed(self, schema_arn: str) -> None:
        lingering = self._deleted_schemas.get(schema_arn)
        if lingering is None:
            return
        lingering.remaining -= 1
        if lingering.remaining <= 0:
            del self._deleted_schemas[schema_arn]
            registry = lingering.item["RegistryName"]
            if registry in self._deleted_registries:
                self._deleted_registries[registry] -= 1
                if self._deleted_registries[registry] <= 0:
                    del self._deleted_registries[registry]

    def _schema(self, schema_id: dict[str, Any], region: str) -> Any:
        arn, name, registry = (
            schema_id.get("SchemaArn"),
            schema_id.get("SchemaName"),
            schema_id.get("RegistryName"),
        )
        if arn and (name or registry):
            raise _invalid("One of SchemaArn or SchemaName has to be provided, both cannot be provided.")
        if arn:
            prefix = f"arn:aws:glue:{region}:{self._account}:schema/"
            registry, _, name = arn[len(prefix) :].partition("/") if arn.startswith(prefix) else ("", "", "")
        elif not (name and registry):
            raise _invalid("SchemaId: Either SchemaArn or SchemaName and RegistryName has to be provided.")
        reg = self._backend(region).registries.get(registry)
        schema = reg.schemas.get(name) if reg is not None else None
        if schema is None:
            raise _not_found(
                f"Schema is not found. RegistryName: {registry or 'null'}, SchemaName: {name or 'null'}, "
                f"SchemaArn: {arn or 'null'}"
            )
        return schema

    def _list_schema_versions(self, params: dict[str, Any], region: str) -> dict[str, Any]:
        schema = self._schema(params["SchemaId"], region)
        versions = sorted(schema.schema_versions.values(), key=lambda v: v.version_number)
        items = [
            {
                "SchemaArn": v.schema_arn,
                "SchemaVersionId": v.schema_version_id,
                "VersionNumber": v.version_number,
                "Status": v.schema_version_status,
                "CreatedTime": _glue_time(v.created_time),
            }
            for v in versions
        ]
        page, token = _page(
            items, params, ("ListSchemaVersions", schema.schema_arn), lambda i: i["VersionNumber"]
        )
        for item in page:
            if item["Status"] == DELETING:
                self._version_listed(schema, item["SchemaVersionId"])
        return {"Schemas": page, "NextToken": token}

    def _version_listed(self, schema: Any, version_id: str) -> None:
        remaining = self._deleted_versions.get(version_id, 1) - 1
        if remaining > 0:
            self._deleted_versions[version_id] = remaining
            return
        self._deleted_versions.pop(version_id, None)
        schema.schema_versions.pop(version_id, None)  # the hard delete AWS does afterwards

    def _delete_schema_versions(self, params: dict[str, Any], region: str) -> dict[str, Any]:
        schema = self._schema(params["SchemaId"], region)
        first, _, last = params["Versions"].partition("-")
        low, high = int(first), int(last or first)
        if low > high:
            raise _invalid(f"Invalid version range {params['Versions']}: the start must not exceed the end.")
        if low <= 1 <= high:
            raise _invalid("The first schema version can only be deleted by the DeleteSchema API.")
        if low <= schema.schema_checkpoint <= high:
            raise ServiceError(
                "ConcurrentModificationException",
                f"Version {schema.schema_checkpoint} is the schema's checkpoint; remove the checkpoint first",
                409,
            )
        by_number = {
            v.version_number: v
            for v in schema.schema_versions.values()
            if v.schema_version_status != DELETING
        }
        linger = self._readings().deleted_versions_linger
        errors = []
        for number in range(low, high + 1):
            version = by_number.get(number)
            if version is None:
                errors.append(
                    {
                        "VersionNumber": number,
                        "ErrorDetails": {
                            "ErrorCode": "EntityNotFoundException",
                            "ErrorMessage": f"Schema version is not found. VersionNumber: {number}",
                        },
                    }
                )
                continue
            if linger > 0:
                version.schema_version_status = DELETING
                self._deleted_versions[version.schema_version_id] = linger
            else:
                del schema.schema_versions[version.schema_version_id]
        alive = [
            v.version_number for v in schema.schema_versions.values() if v.schema_version_status != DELETING
        ]
        schema.latest_schema_version = max(alive)
        return {"SchemaVersionErrors": errors}

    # ------------------------------------------------------------- hooks around calls forwarded to moto

    def before(self, operation: str, params: dict[str, Any], region: str) -> list[dict[str, Any]]:
        """What a forwarded deletion is about to remove (as ListSchemas items), to list it as DELETING."""
        moves = self._readings().updated_time_moves_on_new_version
        with self._lock:
            try:
                if operation == "DeleteSchema":
                    return [self._schema_item(self._schema(params["SchemaId"], region), moves)]
                if operation == "DeleteRegistry":
                    name = self._registry_name(params.get("RegistryId"), region)
                    registry = self._backend(region).registries.get(name)
                    return (
                        [self._schema_item(s, moves) for s in registry.schemas.values()] if registry else []
                    )
            except ServiceError:
                return []  # moto answers the error itself
        return []

    def after(
        self, operation: str, params: dict[str, Any], region: str, removed: list[dict[str, Any]]
    ) -> None:
        """Called once moto has applied `operation` successfully."""
        with self._lock:
            if operation == "UpdateSchema":
                self._schema(params["SchemaId"], region).updated_time = datetime.now(UTC).replace(tzinfo=None)
            linger = self._readings().deleted_schemas_linger
            if linger <= 0 or not removed:
                return
            for item in removed:
                self._deleted_schemas[item["SchemaArn"]] = _Lingering(
                    {**item, "SchemaStatus": DELETING}, linger
                )
            if operation == "DeleteRegistry":
                self._deleted_registries[removed[0]["RegistryName"]] = len(removed)


def _page(
    items: list[dict[str, Any]],
    params: dict[str, Any],
    scope: tuple[Any, ...],
    key: Callable[[dict[str, Any]], Any],
) -> tuple[list[dict[str, Any]], str | None]:
    """One page after the item the NextToken names (by sort key, so deletions between pages skip nothing)."""
    size = params.get("MaxResults") or DEFAULT_PAGE
    return paging.page_after(items, size, params.get("NextToken"), {"scope": scope}, key, _invalid)
