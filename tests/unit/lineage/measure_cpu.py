"""CPU per emitted topic of the lineage emission's own work, by format (a measurement, not a test).

    PYTHONPATH=lambdas:. .venv/bin/python -m tests.unit.lineage.measure_cpu [N]

For N topics of the benchmark's shapes (bench/seed.py) it times, in this process, with `time.process_time`:
parsing the definition (kafka_lineage.schemas), building the run's two bodies (events.build), and the
whole per-topic path of the Applier (read a version, parse, build, post twice, report) against in-memory
adapters that do no I/O. Boto3's own cost per call is not included (the benchmark measures that).
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from datetime import UTC, datetime

from bench import seed
from kafka_lineage.lineage.apply import Applier
from kafka_lineage.lineage.edge_content import content_for
from kafka_lineage.lineage.events import build
from kafka_lineage.lineage.plan import Emit
from kafka_lineage.lineage.resolve import Target
from kafka_lineage.lineage.run_identity import derive_run_id
from kafka_lineage.lineage.world import parse_topic_fields
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.tables import GlueTable, TableColumn, TableRef
from kafka_lineage.model.topics import TopicKey
from tests.unit.lineage.lineage_builders import NAMESPACE, settings
from tests.unit.lineage.memory_world import Events

MOMENT = datetime(2025, 3, 14, 9, 15, 2, tzinfo=UTC)


class Versions:
    def __init__(self, definitions: dict[str, tuple[str, str]]) -> None:
        self.definitions = definitions

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition:
        definition, data_format = self.definitions[schema_arn]
        return VersionDefinition(definition, data_format, "2025-03-14 09:15:02.123456", "v1")


def main(n: int) -> None:
    config = settings()
    source = config.sources[0]
    topics = [t for t in seed.topics(n) if t.glue_table]
    actions, definitions, formats = [], {}, {}
    for topic in topics:
        arn = f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{topic.name}"
        record = AssetRecord(
            registry_name="cdc", schema_name=topic.name, schema_arn=arn, asset_id="a" * 14,
            latest_version=1, data_format=topic.data_format, namespace=NAMESPACE,
            updated_time="2025-03-14T09:15:02+00:00", created_time="2025-03-01T08:00:00+00:00",
            content_hash="c" * 16, schema_version_id="00000000-0000-4000-8000-000000000001",
        )  # fmt: skip
        ref = TableRef("lakehouse", topic.glue_table or "")
        columns = tuple(TableColumn(c["Name"], c["Type"]) for c in seed.table_columns(topic))
        table = GlueTable(ref, columns, "123456789012", "eu-west-1")
        key = TopicKey("cdc", topic.name)
        target = Target(key=key, record=record, source=source, table=ref, origin="rule", mapping=None)
        content = content_for(target, table)
        actions.append(Emit(target.edge, target, content, content.fingerprint(), None, "new"))
        definitions[arn] = (topic.definition(), topic.data_format)
        formats[topic.name] = topic.data_format

    parse_cpu: dict[str, float] = defaultdict(float)
    build_cpu: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for action in actions:
        definition, data_format = definitions[action.target.record.schema_arn]
        started = time.process_time()
        parsed = parse_topic_fields(data_format, definition)
        parsed_at = time.process_time()
        build(action.content, parsed.fields, parsed.row_fields, derive_run_id(action.fingerprint), MOMENT)
        built_at = time.process_time()
        parse_cpu[data_format] += parsed_at - started
        build_cpu[data_format] += built_at - parsed_at
        count[data_format] += 1

    applier = Applier(Events(), Versions(definitions), parse_topic_fields, concurrency=1)
    started = time.process_time()
    outcomes = applier.apply(actions)
    whole = time.process_time() - started
    assert all(o.kind == "emitted" for o in outcomes), {o.kind for o in outcomes}

    print(f"{len(actions)} emitted topics (of {n}); CPU ms per topic")
    print(f"{'format':<10}{'topics':>8}{'parse':>10}{'build':>10}")
    for data_format in sorted(count):
        k = count[data_format]
        print(
            f"{data_format:<10}{k:>8}{1000 * parse_cpu[data_format] / k:>10.2f}"
            f"{1000 * build_cpu[data_format] / k:>10.2f}"
        )
    total = sum(count.values())
    print(
        f"{'all':<10}{total:>8}{1000 * sum(parse_cpu.values()) / total:>10.2f}"
        f"{1000 * sum(build_cpu.values()) / total:>10.2f}"
    )
    print(f"whole per-topic path (Applier, no I/O): {1000 * whole / len(actions):.2f} ms per topic")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300)
