"""What the Glue Schema Registry says of schemas: listing rows, details, versions, a version's definition."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ListedSchema:
    """One row of ListSchemas."""

    registry_name: str
    schema_name: str
    schema_arn: str
    status: str  # AVAILABLE | PENDING | DELETING
    created_time: str
    updated_time: str


@dataclass(frozen=True)
class SchemaVersion:
    number: int
    version_id: str
    status: str
    created_time: str


@dataclass(frozen=True)
class SchemaDetails:
    """GetSchema's answer and the version history (the definition is read separately, only when needed)."""

    schema_arn: str
    registry_name: str
    registry_arn: str
    schema_name: str
    data_format: str
    compatibility: str
    description: str
    status: str
    created_time: str
    updated_time: str
    versions: tuple[SchemaVersion, ...]
    latest: SchemaVersion | None  # the latest AVAILABLE version


@dataclass(frozen=True)
class VersionDefinition:
    definition: str
    data_format: str
    created_time: str
    version_id: str
