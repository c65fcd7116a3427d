"""An in-memory lineage world (adapters with no I/O) for unit tests and measurements of `emit_lineage`."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from typing import Any

from bench import seed
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.lineage.world import LineageWorld
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.tables import GlueTable, TableColumn, TableReads
from tests.unit.fake_clients import FakeClient
from tests.unit.lineage.lineage_builders import NAMESPACE


class MemorySsm(FakeClient):
    """The three SSM calls the packed store makes, over a dict."""

    SERVICE = "ssm"

    def __init__(self) -> None:
        self.values: dict[str, str] = {}
        self.puts = 0

    def get_parameters_by_path(self, **request: Any) -> dict[str, Any]:
        names = sorted(n for n in self.values if n.startswith(request["Path"] + "/"))
        start = int(request.get("NextToken") or 0)
        page = names[start : start + 10]
        answer: dict[str, Any] = {
            "Parameters": [
                {"Name": n, "Value": self.values[n], "Type": "String", "Version": 1,
                 "LastModifiedDate": datetime.now(UTC)}
                for n in page
            ]
        }  # fmt: skip
        if start + 10 < len(names):
            answer["NextToken"] = str(start + 10)
        return answer

    def put_parameter(self, **request: Any) -> dict[str, Any]:
        self.puts += 1
        self.values[request["Name"]] = request["Value"]
        return {"Version": 1}

    def delete_parameter(self, **request: Any) -> dict[str, Any]:
        self.values.pop(request["Name"], None)
        return {}


class Records:
    def __init__(self, records: dict[str, AssetRecord]) -> None:
        self.records = records
        self.unreadable: list[str] = []

    def load(self) -> dict[str, AssetRecord]:
        return self.records


class NoMappings:
    def load(self) -> list[Any]:
        return []


class Tables:
    def __init__(self, topics: dict[str, seed.Topic]) -> None:
        self.topics = topics

    def read(self, wanted: Any, stop: Any = None) -> TableReads:
        reads = TableReads()
        for ref in wanted:
            topic = self.topics[ref.table]
            columns = tuple(
                TableColumn(sys.intern(c["Name"]), sys.intern(c["Type"])) for c in seed.table_columns(topic)
            )
            reads.tables[ref] = GlueTable(ref, columns, "123456789012", "eu-west-1")
        return reads


class Versions:
    def __init__(self, topics: dict[str, seed.Topic]) -> None:
        self.topics = topics

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition:
        topic = self.topics[schema_arn.rsplit("/", 1)[1]]
        return VersionDefinition(topic.definition(), topic.data_format, "2025-03-14 09:15:02.123456", "v1")


class Events:
    def __init__(self) -> None:
        self.count = 0

    def post(self, body: bytes, token: str) -> str:
        self.count += 1
        return f"evt{self.count:011d}"

    def delete(self, event_id: str) -> bool:
        return True

    def status(self, event_id: str) -> str | None:
        return None

    def list_events(self, after: datetime, before: datetime) -> list[Any]:
        return []


def asset_record(index: int, topic: seed.Topic) -> AssetRecord:
    arn = f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{topic.name}"
    return AssetRecord(
        registry_name="cdc", schema_name=topic.name, schema_arn=arn, asset_id=f"a{index:013d}",
        latest_version=1, data_format=topic.data_format, namespace=NAMESPACE,
        updated_time="2025-03-14T09:15:02+00:00", created_time="2025-03-01T08:00:00+00:00",
        content_hash="c" * 16, schema_version_id=f"00000000-0000-4000-8000-{index:012d}",
    )  # fmt: skip


def memory_world(n: int) -> tuple[LineageWorld, MemorySsm, Events]:
    """N topics of the benchmark's shapes, mapped by seed.TABLE_RULE, with their tables and versions."""
    all_topics = seed.topics(n)
    records = {r.schema_arn: r for r in (asset_record(i, t) for i, t in enumerate(all_topics))}
    ssm, events = MemorySsm(), Events()
    world = LineageWorld(
        asset_records=Records(records),
        table_mappings=NoMappings(),
        tables=Tables({t.glue_table: t for t in all_topics if t.glue_table}),
        versions=Versions({t.name: t for t in all_topics}),
        events=events,
        state=PackedStore(ssm, "/kafka-lineage/lineage"),
    )
    return world, ssm, events
