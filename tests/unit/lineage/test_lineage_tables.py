"""Glue table reads for lineage: batched by database, exact names, and no read started past the deadline."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from kafka_lineage.aws.tables import GlueTables
from kafka_lineage.model.tables import TableRef


class Glue:
    """GetTables / GetTable over a dict of databases, counting calls."""

    def __init__(self, databases: dict[str, list[str]]) -> None:
        self.databases = databases
        self.calls: list[str] = []
        self.meta = SimpleNamespace(region_name="eu-west-1", partition="aws")

    def get_tables(self, **request: Any) -> dict[str, Any]:
        self.calls.append(f"GetTables {request['DatabaseName']}")
        names = self.databases[request["DatabaseName"]]
        return {"TableList": [self._table(name) for name in names]}

    def get_table(self, **request: Any) -> dict[str, Any]:
        self.calls.append(f"GetTable {request['Name']}")
        return {"Table": self._table(request["Name"])}

    @staticmethod
    def _table(name: str) -> dict[str, Any]:
        columns = [{"Name": "id", "Type": "int"}, {"Name": "gone", "Type": "string", "Parameters": {}}]
        return {"Name": name, "CatalogId": "123456789012", "StorageDescriptor": {"Columns": columns}}


def test_each_database_is_read_once_and_tables_carry_their_arn_parts():
    glue = Glue({"a": ["t1", "t2", "other"], "b": ["t3"]})
    reads = GlueTables(glue).read([TableRef("a", "t1"), TableRef("a", "t2"), TableRef("b", "t3")])
    assert glue.calls == ["GetTables a", "GetTables b"]
    table = reads.tables[TableRef("a", "t1")]
    assert table is not None
    assert table.arn == "arn:aws:glue:eu-west-1:123456789012:table/a/t1"
    assert [c.name for c in table.columns] == ["id", "gone"]
    assert not reads.stopped


def test_no_read_starts_once_the_deadline_says_stop():
    # Given the deadline comes after the first database was read
    glue = Glue({"a": ["t1"], "b": ["t2"]})
    reads = GlueTables(glue).read(
        [TableRef("a", "t1"), TableRef("b", "t2")], stop=lambda: len(glue.calls) >= 1
    )
    # Then the second database is not read, and the answer says it stopped
    assert glue.calls == ["GetTables a"]
    assert reads.stopped
    assert TableRef("b", "t2") not in reads.tables
