"""Glue names as constrained types, so that every model checks them the same way."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator

# Glue Schema Registry names (registry and schema): botocore glue SchemaRegistryNameString.
GLUE_REGISTRY_NAME = re.compile(r"[a-zA-Z0-9-_$#.]{1,255}")
# A source's key where a registry name once named the source: the registry name for a source read with the
# functions' own role, `<account>:<registry name>` for one read through a role (registry names have no ':').
SOURCE_KEY = re.compile(r"(?:\d{12}:)?[a-zA-Z0-9-_$#.]{1,255}")
# Glue Data Catalog database / table names as they are stored (lower-cased, 1-255).
GLUE_CATALOG_NAME = re.compile(r"[a-z0-9_][a-z0-9_\-.]{0,254}")

# A Glue catalog below the account's root catalog: `s3tablescatalog/<table bucket>` for S3 Tables, or a
# catalog of one level. The path of botocore firehose GlueDataCatalogARN (`catalog(/[a-z0-9_-]+){1,2}`).
FEDERATED_CATALOG_NAME = re.compile(r"[a-z0-9_-]+(?:/[a-z0-9_-]+)?")


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


def federated_catalog_name(value: str) -> str:
    lowered = value.lower()
    if not FEDERATED_CATALOG_NAME.fullmatch(lowered) or len(lowered) > 255:
        raise ValueError(
            f"{value!r} is not a Glue catalog below the root catalog (e.g. s3tablescatalog/<table bucket>)"
        )
    return lowered


def glue_database_path(value: str) -> str:
    """`<database>`, or `<catalog>/<database>` for a database of a federated catalog."""
    catalog, slash, database = value.rpartition("/")
    return (
        f"{federated_catalog_name(catalog)}/{glue_catalog_name(database)}"
        if slash
        else glue_catalog_name(value)
    )


def source_key(value: str) -> str:
    if not SOURCE_KEY.fullmatch(value):
        raise ValueError(f"{value!r} is not a registry name, nor <account>:<registry name>")
    return value


# A registry or schema name (a topic is its schema's name).
GlueName = Annotated[str, AfterValidator(glue_name)]
# A Data Catalog database or table name, lower-cased.
GlueCatalogName = Annotated[str, AfterValidator(glue_catalog_name)]
# Which source: a registry name, or `<account>:<registry name>` for a source in another account.
SourceKey = Annotated[str, AfterValidator(source_key)]
# A federated Glue catalog's name (`s3tablescatalog/<table bucket>`), lower-cased.
FederatedCatalogName = Annotated[str, AfterValidator(federated_catalog_name)]
# A database of the root catalog, or `<catalog>/<database>` of a federated one, lower-cased.
GlueDatabasePath = Annotated[str, AfterValidator(glue_database_path)]
