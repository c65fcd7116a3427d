"""The benchmark's world: N Debezium topics of realistic shapes, registered in the Glue Schema Registry, with
the Glue Data Catalog tables their sink writes, all through boto3 against the stand-ins.

The topic set is a pure function of (N, seed), so the baseline and the project see the same registry:
  - formats mixed as CDC shops run them: mostly Avro, then JSON Schema, some Protobuf;
  - table widths skewed like operational databases: most tables 5-40 columns, a tail up to 400;
  - about 2% awkward names the registry accepts: `$` and `#`, Debezium heartbeat topics (`__...`), and
    names of the full 255 characters; they fall outside the naming convention, so lineage leaves them
    unmapped.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from botocore.exceptions import ClientError

from local.debezium import Field, synthetic_columns, synthetic_table

SERVER = "dbserver1"
GLUE_DATABASE = "lakehouse"
# The naming convention (a SOURCES tableRule): dbserver1.<db>.<table> feeds lakehouse/<db>_<table>.
TABLE_RULE = {
    "database": GLUE_DATABASE,
    "match": rf"^{SERVER}\.(?P<db>[a-z0-9_]+)\.(?P<table>[a-z0-9_]+)$",
    "table": "{db}_{table}",
}
FORMAT_WEIGHTS = (("AVRO", 0.60), ("JSON", 0.25), ("PROTOBUF", 0.15))
# (share of tables, columns from, columns to)
WIDTH_BUCKETS = ((0.40, 5, 15), (0.40, 16, 40), (0.17, 41, 120), (0.03, 121, 400))
STEMS = ("orders", "customers", "payments", "shipments", "invoices", "items", "events", "accounts", "stock")
AWKWARD_EVERY = 50  # one topic in 50 has an awkward name
NAME_MAX = 255  # Glue schema names: [a-zA-Z0-9-_$#.]{1,255}
SEED_WORKERS = 8


@dataclass(frozen=True)
class Topic:
    name: str
    data_format: str
    n_fields: int
    database: str  # the source database (the topic's middle part), "" for awkward names

    def definition(self, extra_fields: int = 0) -> str:
        return synthetic_table(self.name, self.n_fields + extra_fields, self.data_format)

    @property
    def glue_table(self) -> str | None:
        """The Glue table the naming convention maps this topic to, or None when it matches no table."""
        parts = self.name.split(".")
        if self.database and len(parts) == 3:
            return f"{parts[1]}_{parts[2]}".lower()
        return None


def _awkward_name(index: int, rng: random.Random) -> str:
    kind = (index // AWKWARD_EVERY) % 4
    if kind == 0:
        return f"__debezium-heartbeat.{SERVER}-{index:05d}"
    if kind == 1:
        return f"legacy$billing#{index:05d}.v1"
    if kind == 2:
        head = f"{SERVER}.archive.{index:05d}."
        return head + "x" * (NAME_MAX - len(head))
    return f"-_{rng.choice(STEMS)}.#{index:05d}$"


def topics(n: int, seed: int = 7) -> list[Topic]:
    """N topics, deterministic for (n, seed)."""
    rng = random.Random(seed)
    formats = [name for name, _ in FORMAT_WEIGHTS]
    format_weights = [weight for _, weight in FORMAT_WEIGHTS]
    width_weights = [share for share, _, _ in WIDTH_BUCKETS]
    made: list[Topic] = []
    for index in range(n):
        data_format = rng.choices(formats, format_weights)[0]
        _, low, high = rng.choices(WIDTH_BUCKETS, width_weights)[0]
        n_fields = rng.randint(low, high)
        if index % AWKWARD_EVERY == AWKWARD_EVERY - 1:
            made.append(Topic(_awkward_name(index, rng), data_format, n_fields, ""))
            continue
        database = f"shop{index % 17:02d}"
        made.append(
            Topic(f"{SERVER}.{database}.{rng.choice(STEMS)}_{index:05d}", data_format, n_fields, database)
        )
    return made


def new_version_share(all_topics: Sequence[Topic], share: float = 0.01) -> list[Topic]:
    """The topics that get a new version in the "1% new version" scenario: evenly spread, at least one."""
    if not all_topics:
        return []
    count = max(1, round(len(all_topics) * share))
    step = len(all_topics) / count
    return [all_topics[int(i * step)] for i in range(count)]


# -- Glue Data Catalog columns of the sink's tables ----------------------------------------------------------

_GLUE_TYPES = {
    "int8": "tinyint",
    "int16": "smallint",
    "int32": "int",
    "int64": "bigint",
    "float32": "float",
    "float64": "double",
    "boolean": "boolean",
    "string": "string",
    "bytes": "binary",
}
_SEMANTIC_TYPES = {
    "io.debezium.time.Date": "date",
    "io.debezium.time.Timestamp": "timestamp",
    "io.debezium.time.MicroTimestamp": "timestamp",
    "io.debezium.time.ZonedTimestamp": "timestamp",
}


def glue_type(column: Field) -> str:
    """The Iceberg/Glue type an Iceberg sink gives a Debezium column."""
    if column.semantic == "org.apache.kafka.connect.data.Decimal":
        precision = column.parameters.get("connect.decimal.precision", "38")
        return f"decimal({precision},{column.parameters.get('scale', '0')})"
    return _SEMANTIC_TYPES.get(column.semantic or "", _GLUE_TYPES.get(column.type, "string"))


def table_columns(topic: Topic, extra_fields: int = 0) -> list[dict[str, str]]:
    return [
        {"Name": column.name, "Type": glue_type(column)}
        for column in synthetic_columns(topic.n_fields + extra_fields)
    ]


# -- seeding through boto3 -----------------------------------------------------------------------------------


def _parallel(work: Callable[[Topic], Any], items: Iterable[Topic], workers: int = SEED_WORKERS) -> None:
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for _ in pool.map(work, items):
            pass


def register_all(glue: Any, registry: str, all_topics: Sequence[Topic]) -> None:
    """Create the registry and one schema (version 1) per topic."""
    try:
        glue.create_registry(RegistryName=registry)
    except ClientError as error:
        if error.response["Error"]["Code"] != "AlreadyExistsException":
            raise

    def create(topic: Topic) -> None:
        glue.create_schema(
            RegistryId={"RegistryName": registry},
            SchemaName=topic.name,
            DataFormat=topic.data_format,
            Compatibility="BACKWARD",
            SchemaDefinition=topic.definition(),
        )

    _parallel(create, all_topics)


def register_new_versions(glue: Any, registry: str, evolved: Sequence[Topic]) -> None:
    """Version 2 of each topic: one nullable-or-not column more, as an ALTER TABLE ADD COLUMN makes it."""

    def bump(topic: Topic) -> None:
        glue.register_schema_version(
            SchemaId={"RegistryName": registry, "SchemaName": topic.name},
            SchemaDefinition=topic.definition(extra_fields=1),
        )

    _parallel(bump, evolved)


def create_tables(glue: Any, all_topics: Sequence[Topic]) -> int:
    """The sink's Iceberg tables in the Glue Data Catalog, one per topic the naming convention maps."""
    try:
        glue.create_database(DatabaseInput={"Name": GLUE_DATABASE})
    except ClientError as error:
        if error.response["Error"]["Code"] != "AlreadyExistsException":
            raise
    mapped = [topic for topic in all_topics if topic.glue_table]

    def create(topic: Topic) -> None:
        glue.create_table(
            DatabaseName=GLUE_DATABASE,
            TableInput={
                "Name": topic.glue_table,
                "TableType": "EXTERNAL_TABLE",
                "Parameters": {"table_type": "ICEBERG"},
                "StorageDescriptor": {"Columns": table_columns(topic)},
            },
        )

    _parallel(create, mapped)
    return len(mapped)
