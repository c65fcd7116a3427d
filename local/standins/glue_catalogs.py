"""Federated Glue Data Catalogs: S3 Tables' `s3tablescatalog/<table bucket>` and other catalogs below the
account's root catalog, read with a `CatalogId` of `<account>:<catalog>` (moto's Glue knows only the root
catalog and ignores such an id).

GetTable, GetTables and GetDatabase whose `CatalogId` names a federated catalog (it has a `:` after the
account) are answered here; every other Glue call goes to moto. Per the Glue API reference: an unknown
catalog, database or table is EntityNotFoundException; GetTables filters by `Expression` (a regular
expression, matched here in full) and pages with `NextToken` / `MaxResults` (1-100).

The `CatalogId` of a table in the answer is a reading (`readings.federated_catalog_id_in_answer`): Glue's
reference says only "the ID of the Data Catalog in which the table resides"; "qualified" answers the id the
caller sent (`<account>:s3tablescatalog/<bucket>`), "account" the account alone.

`add_table()` is the test hook: S3 Tables (or a catalog federation) makes these tables, not Glue's
CreateTable.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from local.standins import paging
from local.standins.errors import ServiceError
from local.standins.readings import Readings

OPERATIONS = frozenset({"GetTable", "GetTables", "GetDatabase"})
FEDERATED_ID = re.compile(r"(?P<account>\d{12}):(?P<catalog>[a-z0-9_-]+(?:/[a-z0-9_-]+)?)")
DEFAULT_PAGE = 100


def is_federated(params: Mapping[str, Any]) -> bool:
    return ":" in str(params.get("CatalogId") or "")


class GlueCatalogs:
    def __init__(self, readings: Callable[[], Readings]) -> None:
        self._readings = readings
        # (account, catalog) -> database -> table -> Glue Table structure
        self._catalogs: dict[tuple[str, str], dict[str, dict[str, dict[str, Any]]]] = {}
        self._lock = threading.Lock()

    def reset(self) -> None:
        with self._lock:
            self._catalogs.clear()

    def add_table(
        self,
        account: str,
        catalog: str,
        database: str,
        table: str,
        columns: Iterable[tuple[str, str]],
        table_type: str = "ICEBERG",
    ) -> None:
        if not FEDERATED_ID.fullmatch(f"{account}:{catalog}"):
            raise ValueError(
                f"{account}:{catalog} is not <account>:<catalog> (e.g. s3tablescatalog/<bucket>)"
            )
        with self._lock:
            tables = self._catalogs.setdefault((account, catalog), {}).setdefault(database.lower(), {})
            tables[table.lower()] = {
                "Name": table.lower(),
                "DatabaseName": database.lower(),
                "TableType": "EXTERNAL_TABLE",
                "Parameters": {"table_type": table_type},
                "StorageDescriptor": {"Columns": [{"Name": n, "Type": t} for n, t in columns]},
            }

    def remove_table(self, account: str, catalog: str, database: str, table: str) -> None:
        with self._lock:
            self._catalogs.get((account, catalog), {}).get(database.lower(), {}).pop(table.lower(), None)

    def handle(self, operation: str, params: dict[str, Any], caller: str) -> dict[str, Any]:
        found = FEDERATED_ID.fullmatch(str(params["CatalogId"]))
        if found is None:
            raise ServiceError("InvalidInputException", f"Invalid catalog id: {params['CatalogId']}", 400)
        account, catalog = found["account"], found["catalog"]
        with self._lock:
            databases = self._catalogs.get((account, catalog)) if account == caller else None
            if databases is None:
                raise ServiceError(
                    "EntityNotFoundException", f"Catalog not found: {params['CatalogId']}", 400
                )
            answered = (
                params["CatalogId"]
                if self._readings().federated_catalog_id_in_answer == "qualified"
                else account
            )
            if operation == "GetDatabase":
                if params["Name"].lower() not in databases:
                    raise ServiceError(
                        "EntityNotFoundException", f"Database {params['Name']} not found.", 400
                    )
                return {"Database": {"Name": params["Name"].lower(), "CatalogId": answered}}
            tables = databases.get(params["DatabaseName"].lower())
            if tables is None:
                raise ServiceError(
                    "EntityNotFoundException", f"Database {params['DatabaseName']} not found.", 400
                )
            if operation == "GetTable":
                table = tables.get(params["Name"].lower())
                if table is None:
                    raise ServiceError("EntityNotFoundException", f"Table {params['Name']} not found.", 400)
                return {"Table": {**table, "CatalogId": answered}}
            return self._page(tables, params, answered)

    @staticmethod
    def _page(
        tables: Mapping[str, dict[str, Any]], params: Mapping[str, Any], answered: str
    ) -> dict[str, Any]:
        expression = params.get("Expression")
        pattern = re.compile(expression) if expression else None
        names = sorted(name for name in tables if pattern is None or pattern.fullmatch(name))
        size = params.get("MaxResults") or DEFAULT_PAGE
        query = {k: v for k, v in params.items() if k not in ("NextToken", "MaxResults")}
        page, token = paging.page(names, size, params.get("NextToken"), query, _invalid_input)
        answer: dict[str, Any] = {"TableList": [{**tables[name], "CatalogId": answered} for name in page]}
        if token is not None:
            answer["NextToken"] = token
        return answer


def _invalid_input(message: str) -> ServiceError:
    return ServiceError("InvalidInputException", message, 400)
