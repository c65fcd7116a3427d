"""Small builders for the drift tests: definitions in each format, and a compact view of a diff's changes."""

from __future__ import annotations

import json
from typing import Any

from kafka_lineage.drift import FieldDiff
from kafka_lineage.model.tables import GlueTable, TableColumn, TableRef

ACCOUNT = "123456789012"
REGION = "eu-west-1"


def avro(*fields: dict[str, Any], name: str = "Row", namespace: str = "shop") -> str:
    return json.dumps({"type": "record", "name": name, "namespace": namespace, "fields": list(fields)})


def json_schema(properties: dict[str, Any], required: list[str] | None = None, **extra: Any) -> str:
    document: dict[str, Any] = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}
    document["properties"] = properties
    if required is not None:
        document["required"] = required
    document.update(extra)
    return json.dumps(document)


def proto(body: str, syntax: str = "proto3", package: str = "shop") -> str:
    return f'syntax = "{syntax}";\npackage {package};\n\n{body}\n'


def changes(diff: FieldDiff) -> list[tuple[str, str, str | None, str | None]]:
    """(field, change, before, after) of every change, in the diff's order."""
    assert diff.complete, diff.warnings
    return [(c.field, c.change, c.before, c.after) for c in diff.changes]


def table(name: str, *columns: str, database: str = "lakehouse") -> GlueTable:
    return GlueTable(
        TableRef(database, name), tuple(TableColumn(c, "string") for c in columns), ACCOUNT, REGION
    )
