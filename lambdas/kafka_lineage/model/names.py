"""Glue names as constrained types, so that every model checks them the same way."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

# Glue Schema Registry names (registry and schema): botocore glue SchemaRegistryNameString.
GLUE_REGISTRY_NAME = re.compile(r"[a-zA-Z0-9-_$#.]{1,255}")
# Glue Data Catalog database / table names as they are stored (lower-cased, 1-255).
GLUE_CATALOG_NAME = re.compile(r"[a-z0-9_][a-z0-9_\-.]{0,254}")


def glue_name(value: str) -> str:
    if not GLUE_REGISTRY_NAME.fullmatch(value):
        raise ValueError(f"{value!r} is not a Glue Schema Registry name ({GLUE_REGISTRY_NAME.pattern})")
    return value


def glue_catalog_name(value: str) -> str:
    # Glue stores catalog names in lower case; keep, compare and emit them that way.
    lowered = value.lower()
    if not GLUE_CATALOG_NAME.fullmatch(lowered):
        raise ValueError(f"{value!r} is not a Glue Data Catalog name ({GLUE_CATALOG_NAME.pattern})")
    return lowered


# A registry or schema name (a topic is its schema's name).
GlueName = Annotated[str, AfterValidator(glue_name)]
# A Data Catalog database or table name, lower-cased.
GlueCatalogName = Annotated[str, AfterValidator(glue_catalog_name)]
