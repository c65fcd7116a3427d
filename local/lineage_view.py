"""Show the lineage DataZone holds: topic -> table edges with their column mappings, as text and as a page.

Reads DataZone through its public API (ListLineageEvents, GetLineageEvent), so it shows what the service
has, whoever posted it: the demo points it at the local stand-ins, and it works the same against a real
domain. Per job and edge, the newest event is shown (COMPLETE over START at the same time).

    python -m local.lineage_view --domain dzd_... [--out out/lineage.html]

The HTML page is self-contained (inline SVG and CSS, no script, no CDN): open it from disk.
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LIST_PAGE_SIZE = 50  # ListLineageEvents maxResults maximum
SCHEMA_DRIFT_FACET = "schemaDrift"  # kafka_lineage.lineage.facets.SCHEMA_DRIFT_FACET
EVENT_ORDER = {"START": 0, "RUNNING": 1, "OTHER": 2, "COMPLETE": 3, "FAIL": 3, "ABORT": 3}


@dataclass(frozen=True)
class Dataset:
    namespace: str
    name: str

    @property
    def identifier(self) -> str:
        """The lineage node's sourceIdentifier (DataZone: `<namespace>/<name>`)."""
        return f"{self.namespace}/{self.name}"

    @property
    def is_glue_table(self) -> bool:
        return self.namespace.startswith("arn:") and self.namespace.endswith(":table") and "/" in self.name

    @property
    def catalog(self) -> str:
        """A Glue table's federated catalog (`s3tablescatalog/<bucket>`), '' for the root catalog's."""
        parts = self.name.split("/")
        return "/".join(parts[:-2]) if self.is_glue_table and len(parts) > 2 else ""

    @property
    def label(self) -> str:
        """A readable name: `database.table` for a Glue table (its catalog aside), the topic for Kafka,
        `bucket/prefix` for S3, else the name."""
        if self.is_glue_table:
            database, table = self.name.split("/")[-2:]
            return f"{database}.{table}"
        if self.namespace.startswith("s3://"):
            return f"{self.namespace.removeprefix('s3://')}/{self.name.lstrip('/')}"
        return self.name

    @property
    def kind(self) -> str:
        """What the node is, as the picture names it."""
        if self.namespace.startswith("kafka://"):
            return "topic"
        if self.catalog.startswith("s3tablescatalog/"):
            return f"S3 Tables · {self.catalog.removeprefix('s3tablescatalog/')}"
        if self.catalog:
            return f"table · {self.catalog}"
        if self.namespace.startswith("s3://"):
            return "S3 bucket"
        if self.namespace.startswith(CONSUMER_NAMESPACE):
            return "consumer group"
        return "Glue table" if self.is_glue_table else "table"


# A consumer edge's run has the topic as input and no output; its job (kafka_lineage.consumers) names the
# group, `consumer/<group>` in `kafka-consumer://<cluster>`: the picture draws the group as the reader.
CONSUMER_NAMESPACE = "kafka-consumer://"
CONSUMER_JOB_PREFIX = "consumer/"
# A job's kind by its namespace: the managed delivery paths name theirs (kafka_lineage.delivery).
JOB_KINDS = (
    ("kafka-connect://", "MSK Connect"),
    (CONSUMER_NAMESPACE, "consumer"),
    ("msk-channel://", "MSK channel"),
    ("firehose://", "Firehose"),
)


def job_kind(namespace: str) -> str:
    return next((kind for prefix, kind in JOB_KINDS if namespace.startswith(prefix)), "job")


@dataclass(frozen=True)
class Edge:
    upstream: Dataset
    downstream: Dataset
    job_namespace: str
    job_name: str
    run_id: str
    event_time: str
    columns: tuple[tuple[str, str], ...]  # (input field, output column), in the facet's order
    # The run's schemaDrift facet (docs/facets/SchemaDriftRunFacet.json): the topic's schema version changed
    # what feeds this table. None when the newest run carries none.
    drift: dict[str, Any] | None = None

    @property
    def job(self) -> str:
        return f"{self.job_namespace}/{self.job_name}"

    @property
    def drift_title(self) -> str:
        if not self.drift:
            return ""
        return (
            f"schema drift v{self.drift.get('fromVersion')} -> v{self.drift.get('toVersion')}, "
            f"{self.drift.get('severity')}"
        )


def edges_from_events(events: Iterable[dict[str, Any]]) -> list[Edge]:
    """One edge per (input, output, job): the newest event's, with its column lineage from that input."""
    newest: dict[tuple[str, str, str, str], tuple[tuple[str, int], Edge]] = {}
    for event in events:
        job = event.get("job") or {}
        run = event.get("run") or {}
        rank = (str(event.get("eventTime", "")), EVENT_ORDER.get(str(event.get("eventType")), 0))
        outputs = event.get("outputs") or []
        namespace, name = str(job.get("namespace", "")), str(job.get("name", ""))
        if not outputs and namespace.startswith(CONSUMER_NAMESPACE) and name.startswith(CONSUMER_JOB_PREFIX):
            # A reader: the group is the node the topic flows to.
            outputs = [{"namespace": namespace, "name": name.removeprefix(CONSUMER_JOB_PREFIX)}]
        for source in event.get("inputs") or []:
            upstream = Dataset(str(source.get("namespace", "")), str(source.get("name", "")))
            for output in outputs:
                downstream = Dataset(str(output.get("namespace", "")), str(output.get("name", "")))
                facet = (output.get("facets") or {}).get("columnLineage") or {}
                # In the table's column order when the event carries its schema (JSON objects have none).
                schema = ((output.get("facets") or {}).get("schema") or {}).get("fields") or []
                order = {str(f.get("name")): index for index, f in enumerate(schema)}
                columns = tuple(
                    sorted(
                        (
                            (str(item.get("field", "")), str(column))
                            for column, spec in (facet.get("fields") or {}).items()
                            for item in (spec or {}).get("inputFields") or []
                            if item.get("namespace") == upstream.namespace
                            and item.get("name") == upstream.name
                        ),
                        key=lambda pair: (order.get(pair[1], len(order)), pair[1]),
                    )
                )
                edge = Edge(
                    upstream,
                    downstream,
                    str(job.get("namespace", "")),
                    str(job.get("name", "")),
                    str(run.get("runId", "")),
                    str(event.get("eventTime", "")),
                    columns,
                    ((run.get("facets") or {}).get(SCHEMA_DRIFT_FACET)),
                )
                key = (upstream.identifier, downstream.identifier, edge.job_namespace, edge.job_name)
                if key not in newest or rank >= newest[key][0]:
                    newest[key] = (rank, edge)
    return sorted(
        (edge for _, edge in newest.values()), key=lambda e: (e.upstream.name, e.downstream.name, e.job)
    )


def read_events(datazone: Any, domain_id: str) -> list[dict[str, Any]]:
    """Every live lineage event of the domain, parsed (ListLineageEvents, then GetLineageEvent per event)."""
    events: list[dict[str, Any]] = []
    request: dict[str, Any] = {"domainIdentifier": domain_id, "maxResults": LIST_PAGE_SIZE}
    while True:
        page = datazone.list_lineage_events(**request)
        for item in page.get("items", []):
            answer = datazone.get_lineage_event(domainIdentifier=domain_id, identifier=item["id"])
            body = answer.get("event")
            raw = body.read() if hasattr(body, "read") else body
            events.append(json.loads(raw))
        token = page.get("nextToken")
        if not token:
            return events
        request["nextToken"] = token


def read_edges(datazone: Any, domain_id: str) -> list[Edge]:
    return edges_from_events(read_events(datazone, domain_id))


# -- terminal --------------------------------------------------------------------------------------------


def render_text(edges: Sequence[Edge], max_columns: int = 12) -> str:
    """The edges as a terminal listing: topic -> table, the job, then the column mappings."""
    if not edges:
        return "No lineage in DataZone yet.\n"
    lines = [f"Lineage in DataZone: {len(edges)} edge{'s' if len(edges) != 1 else ''}", ""]
    for edge in edges:
        lines.append(f"{edge.upstream.label}  ->  {edge.downstream.label}")
        lines.append(f"    job     {edge.job}   (run {edge.run_id}, {edge.event_time})")
        lines.append(f"    from    {edge.upstream.identifier}")
        lines.append(f"    to      {edge.downstream.identifier}")
        if edge.drift:
            changes = ", ".join(
                f"{c.get('field')} {c.get('change')}" for c in edge.drift.get("changes") or []
            )
            lines.append(f"    {edge.drift_title}: {changes}")
        if edge.columns:
            width = max(len(field) for field, _ in edge.columns[:max_columns])
            lines.append(f"    columns ({len(edge.columns)}):")
            for field, column in edge.columns[:max_columns]:
                lines.append(f"      {field.ljust(width)}  ->  {column}")
            if len(edge.columns) > max_columns:
                lines.append(f"      ... and {len(edge.columns) - max_columns} more")
        elif edge.downstream.kind == "S3 bucket":
            lines.append("    columns: none (an S3 location: dataset-level lineage)")
        else:
            lines.append("    columns: none mapped")
        lines.append("")
    return "\n".join(lines)


# -- HTML ------------------------------------------------------------------------------------------------

# The page fits a 1,280-pixel screen: the picture is at most MAX_WIDTH wide (the body's margins aside) and
# scales down further with the window (viewBox, max-width 100%); each node's full name is its tooltip.
MAX_WIDTH = 1280 - 2 * 24
_NODE_W, _NODE_H, _ROW, _GAP_X, _PAD = 196, 44, 60, 50, 12
_STYLE = """
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px; color: #1d2330; }
h1 { font-size: 20px; margin: 0 0 4px; } p.meta { color: #5b6475; margin: 0 0 16px; }
svg text { font: 12px system-ui, sans-serif; } .topic rect { fill: #e8f1ff; stroke: #2f6fdb; }
.job rect { fill: #f3f0ff; stroke: #7a5cd6; } .table rect { fill: #e9f8ef; stroke: #2a9d5b; }
.source rect { fill: #fff4e5; stroke: #d98a1f; } .s3tables rect { fill: #e6f7f7; stroke: #138a8a; }
.bucket rect { fill: #f6f1e7; stroke: #9a7b3c; } svg.graph { max-width: 100%; height: auto; display: block; }
rect { stroke-width: 1.5; rx: 8; } path.edge { fill: none; stroke: #8a93a6; stroke-width: 1.5; }
.kind { fill: #5b6475; font-size: 10px; text-transform: uppercase; letter-spacing: .05em; }
section { margin-top: 28px; } h2 { font-size: 15px; margin: 0 0 6px; }
table { border-collapse: collapse; margin-top: 6px; } td, th { border: 1px solid #d5d9e2; padding: 3px 8px; }
th { background: #f4f6fa; text-align: left; } code { font-size: 12px; } .muted { color: #5b6475; }
.drift { margin: 8px 0; padding: 6px 10px; border-left: 4px solid #c2410c; background: #fff1e6; }
.drifted rect { stroke: #c2410c; stroke-width: 3; }
"""


def _clip(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _node(x: int, y: int, kind: str, label: str, identifier: str, caption: str = "") -> str:
    return (
        f'<g class="{kind}"><title>{html.escape(identifier)}</title>'
        f'<rect x="{x}" y="{y}" width="{_NODE_W}" height="{_NODE_H}"/>'
        f'<text class="kind" x="{x + 10}" y="{y + 15}">{html.escape(_clip(caption or kind, 34))}</text>'
        f'<text x="{x + 10}" y="{y + 33}">{html.escape(_clip(label))}</text></g>'
    )


def _link(x1: int, y1: int, x2: int, y2: int) -> str:
    middle = (x1 + x2) // 2
    return (
        f'<path class="edge" d="M{x1},{y1} C{middle},{y1} {middle},{y2} {x2},{y2}" marker-end="url(#arrow)"/>'
    )


def _depths(edges: Sequence[Edge]) -> dict[Dataset, int]:
    """Each dataset's column: the Kafka topics in the middle (column 1 when some source table feeds a topic,
    else 0), what feeds a topic before them, what a topic feeds after them."""
    datasets = {d for e in edges for d in (e.upstream, e.downstream)}
    middle = 1 if any(_is_topic(e.downstream) and not _is_topic(e.upstream) for e in edges) else 0
    fed_by_topic = {e.downstream for e in edges if _is_topic(e.upstream)}
    return {d: middle if _is_topic(d) else (middle + 1 if d in fed_by_topic else 0) for d in datasets}


def _is_topic(dataset: Dataset) -> bool:
    return dataset.namespace.startswith("kafka://")  # OpenLineage's Kafka dataset naming


def render_chains(edges: Sequence[Edge]) -> str:
    """The lineage in three columns, with the jobs between: database table -> source job -> topic -> sink
    job -> Glue table, one row per path (a topic feeding two tables has two rows)."""
    into: dict[Dataset, list[Edge]] = {}
    out_of: dict[Dataset, list[Edge]] = {}
    for edge in edges:
        into.setdefault(edge.downstream, []).append(edge)
        out_of.setdefault(edge.upstream, []).append(edge)
    topics = sorted(
        {d for e in edges for d in (e.upstream, e.downstream) if _is_topic(d)}, key=lambda d: d.label
    )
    rows: list[tuple[str, ...]] = []
    for topic in topics:
        ups: list[Edge | None] = [*into.get(topic, [])] or [None]
        downs: list[Edge | None] = [*out_of.get(topic, [])] or [None]
        for up in ups:
            for down in downs:
                rows.append(
                    (
                        up.upstream.label if up else "",
                        f"-[{up.job_name}]->" if up else "",
                        topic.label,
                        f"-[{down.job_name}]->" if down else "",
                        down.downstream.label if down else "",
                    )
                )
    if not rows:
        return "No lineage in DataZone yet.\n"
    cells = [("database table", "", "Kafka topic", "", "table or S3 location"), *rows]
    widths = [max(len(row[i]) for row in cells) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    lines.insert(1, "-" * max(len(line) for line in lines))
    return "\n".join(lines) + "\n"


def render_html(edges: Sequence[Edge], title: str = "Lineage: database table → Kafka topic → table") -> str:
    """A self-contained page: the graph in columns (database tables, source jobs, topics, sink jobs, Glue
    tables: each dataset placed by how many hops feed it, each job between its datasets) and each edge's
    column mappings."""
    depth = _depths(edges)
    levels = max(depth.values(), default=0)
    # column -> (css class, label, identifier, key, caption)
    columns: dict[int, list[tuple[str, str, str, str, str]]] = {}
    for dataset in sorted(depth, key=lambda d: (d.kind, d.label)):
        kind = (
            "topic" if _is_topic(dataset) else ("source" if depth[dataset] == 0 and levels > 1 else "table")
        )
        if kind == "table" and dataset.kind.startswith("S3 Tables"):
            kind = "s3tables"
        elif kind == "table" and dataset.kind == "S3 bucket":
            kind = "bucket"
        caption = dataset.kind if kind not in ("topic", "source") else kind
        columns.setdefault(2 * depth[dataset], []).append(
            (kind, dataset.label, dataset.identifier, dataset.identifier, caption)
        )
    jobs: dict[tuple[str, str], int] = {}
    for edge in edges:
        job = (edge.job_namespace, edge.job_name)
        jobs[job] = max(jobs.get(job, 0), 2 * depth[edge.upstream] + 1)
    for job, column in sorted(jobs.items(), key=lambda item: (job_kind(item[0][0]), item[0][1])):
        columns.setdefault(column, []).append(
            ("job", job[1], f"{job[0]}/{job[1]}", f"job:{job[0]}/{job[1]}", job_kind(job[0]))
        )
    rows = max((len(nodes) for nodes in columns.values()), default=1)
    count = max(columns, default=0) + 1
    xs = [_PAD + i * (_NODE_W + _GAP_X) for i in range(count)]
    width, height = xs[-1] + _NODE_W + _PAD, _PAD * 2 + rows * _ROW
    place: dict[str, tuple[int, int]] = {}
    for column, nodes in columns.items():
        offset = (rows - len(nodes)) * _ROW // 2  # centre shorter columns
        for index, (_, _, _, key, _) in enumerate(nodes):
            place[key] = (xs[column], _PAD + offset + index * _ROW)
    parts = [
        f'<svg class="graph" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="lineage graph">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#8a93a6" '
        'stroke="none"/></marker></defs>',
    ]
    half = _NODE_H // 2
    drawn: set[tuple[str, str]] = set()
    for edge in edges:
        node = f"job:{edge.job_namespace}/{edge.job_name}"
        for a, b in ((edge.upstream.identifier, node), (node, edge.downstream.identifier)):
            if (a, b) in drawn:
                continue
            drawn.add((a, b))
            (x1, y1), (x2, y2) = place[a], place[b]
            parts.append(_link(x1 + _NODE_W, y1 + half, x2, y2 + half))
    drifted_tables = {edge.downstream.identifier for edge in edges if edge.drift}
    for nodes in columns.values():
        for kind, label, identifier, key, caption in nodes:
            x, y = place[key]
            css = f"{kind} drifted" if key in drifted_tables else kind  # a table the drift reaches
            parts.append(_node(x, y, css, label, identifier, caption))
    parts.append("</svg>")

    sections = []
    for edge in edges:
        if edge.columns:
            body = "".join(
                f"<tr><td><code>{html.escape(field)}</code></td><td><code>{html.escape(column)}</code></td></tr>"
                for field, column in edge.columns
            )
            mapping = f"<table><tr><th>topic field</th><th>table column</th></tr>{body}</table>"
        elif edge.downstream.kind == "S3 bucket":
            mapping = '<p class="muted">Dataset-level lineage: no table describes the objects\' columns.</p>'
        else:
            mapping = '<p class="muted">No column of the table matches a field of the topic.</p>'
        e = html.escape
        sections.append(
            f"<section><h2>{e(edge.upstream.label)} → {e(edge.downstream.label)}</h2>"
            f'<div class="muted">job <code>{e(edge.job)}</code>, run <code>{e(edge.run_id)}</code>, '
            f"{e(edge.event_time)}<br>from <code>{e(edge.upstream.identifier)}</code><br>"
            f"to <code>{e(edge.downstream.identifier)}</code></div>{_drift_html(edge)}{mapping}</section>"
        )
    summary = f"{len(edges)} edge{'s' if len(edges) != 1 else ''} read from DataZone's lineage events."
    drifted = [edge for edge in edges if edge.drift]
    if drifted:
        summary += " Schema drift: " + "; ".join(
            f"{html.escape(edge.upstream.label)} → {html.escape(edge.downstream.label)} ({edge.drift_title})"
            for edge in drifted
        )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f'<h1>{html.escape(title)}</h1><p class="meta">{summary}</p>'
        + ("".join(parts) if edges else "<p>No lineage in DataZone yet.</p>")
        + "".join(sections)
        + "</body></html>\n"
    )


def _drift_html(edge: Edge) -> str:
    """The run's schema drift: what changed in the topic's schema and which columns of this table it feeds."""
    if not edge.drift:
        return ""
    e = html.escape

    def shown(value: Any) -> str:
        return "—" if value is None else e(str(value))

    rows = "".join(
        f"<tr><td><code>{e(str(c.get('field')))}</code></td><td>{e(str(c.get('change')))}</td>"
        f"<td><code>{shown(c.get('before'))}</code></td><td><code>{shown(c.get('after'))}</code></td>"
        f"<td>{e(str(c.get('severity')))}</td></tr>"
        for c in edge.drift.get("changes") or []
    )
    impacted = ", ".join(str(t) for t in edge.drift.get("impactedTables") or [])
    return (
        f'<div class="drift"><strong>{e(edge.drift_title)}</strong> (impacted: {e(impacted or "none")})'
        "<table><tr><th>field</th><th>change</th><th>before</th><th>after</th><th>severity</th></tr>"
        f"{rows}</table></div>"
    )


def write_html(edges: Sequence[Edge], path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_html(edges), encoding="utf-8")
    return path


def show(datazone: Any, domain_id: str, out_dir: Path) -> tuple[str, Path]:
    """The demo's step: read the domain's lineage, return the terminal text and write `lineage.html`."""
    edges = read_edges(datazone, domain_id)
    return render_text(edges), write_html(edges, out_dir / "lineage.html")


# -- the demo's lineage step ----------------------------------------------------------------------------

# The Iceberg side of the demo: what a Kafka -> Iceberg sink would have created in the Glue Data Catalog.
DEMO_DATABASE = "lakehouse"
# An operator's explicit mapping (SSM, no redeploy): products land in an analytics table, not the rule's.
DEMO_OPERATOR_MAPPING = {
    "topic": "dbserver1.inventory.products",
    "database": "analytics",
    "table": "products_enriched",
}


def demo_tables() -> list[tuple[str, str, list[tuple[str, str]]]]:
    """(database, table, columns) per inventory table: the row's columns in Iceberg types, as a sink
    makes them. customers gained `phone` in the demo's schema evolution; products_enriched adds a column of
    its own (no topic field feeds it, so its lineage leaves it out); the archive sink's copy of orders.
    """
    from local import debezium

    iceberg = {
        "int32": "int",
        "int64": "bigint",
        "float32": "float",
        "float64": "double",
        "boolean": "boolean",
    }
    tables = []
    for name, columns in debezium.TABLES.items():
        fields = [*columns, debezium.V2_COLUMNS[name]] if name == "customers" else list(columns)
        typed = [(f.name.lower(), iceberg.get(f.type, "string")) for f in fields]
        if name == "products":
            tables.append(("analytics", "products_enriched", [*typed, ("customer_segment", "string")]))
        if name == "orders":
            tables.append(("archive", "orders", [*typed, ("archived_at", "timestamp")]))
        tables.append((DEMO_DATABASE, name, typed))
    return tables


def demo(
    aws: Any,
    domain_id: str,
    mapping_path: str,
    out_dir: Path,
    context: Any,
    emit: Callable[[dict[str, Any], Any], Any],
    brokers: str = "",
) -> Path:
    """Create the lakehouse tables and the MSK Connect connectors, emit lineage twice (the second run has
    nothing to do), show the result: database table -> topic -> Glue table.

    `aws` is the running `local.standins.LocalAws`; the environment already points the Lambdas at it.
    `emit` is lineage-emission's handler (the demo's runs it under its deployed role).
    """
    import boto3
    from botocore.exceptions import ClientError

    from local import demo_connectors, demo_consumers, demo_delivery

    glue, ssm = boto3.client("glue"), boto3.client("ssm")
    for database, name, columns in demo_tables():
        try:
            glue.create_database(DatabaseInput={"Name": database})
        except ClientError as error:
            if error.response["Error"]["Code"] != "AlreadyExistsException":
                raise
        glue.create_table(
            DatabaseName=database,
            TableInput={
                "Name": name,
                "TableType": "EXTERNAL_TABLE",
                "Parameters": {"table_type": "ICEBERG"},
                "StorageDescriptor": {"Columns": [{"Name": c, "Type": t} for c, t in columns]},
            },
        )
    mapping = f"{mapping_path}/table-mappings/team-analytics/products"
    ssm.put_parameter(Name=mapping, Value=json.dumps(DEMO_OPERATOR_MAPPING), Type="String")
    print(f"Glue Data Catalog: {len(demo_tables())} Iceberg tables; operator mapping {mapping}")
    kafkaconnect = boto3.client("kafkaconnect")
    for name, config in demo_connectors.CONNECTORS.items():
        demo_connectors.create(kafkaconnect, name, config, brokers)
        routing = config.get("topics.regex") and f"topics.regex {config['topics.regex']}"
        what = routing or config.get("topics") or config.get("table.include.list", "")
        print(f"MSK Connect connector {name} ({config['connector.class'].rsplit('.', 1)[1]}): {what}")
    lakehouse = {name: columns for database, name, columns in demo_tables() if database == DEMO_DATABASE}
    for line in demo_delivery.create(aws, lakehouse):
        print(line)
    for group, read_topic in demo_consumers.create(boto3.client("cloudwatch")):
        print(f"Consumer group {group} reads {read_topic} (its lag metrics in CloudWatch, AWS/Kafka)")

    for title in ("Lineage emission", "Lineage emission again, nothing changed"):
        aws.calls.clear()
        result = emit({}, context)
        counts = aws.call_counts()
        print(
            f"{title}: emitted {result['emitted']} edges, unchanged {result['unchanged']}, "
            f"unmapped {len(result['unmapped'])}, failed {len(result['failed'])}; "
            f"PostLineageEvent {counts['datazone:PostLineageEvent']}, AWS calls {sum(counts.values())}"
        )
        for item in result["unmapped"]:
            print(f"  unmapped (no connector, mapping or rule): {item['registryName']}/{item['topic']}")
        for kind in ("ambiguous", "undetermined"):
            for item in result[kind]:
                print(f"  {kind}: {item['topic']} ({item['connector']}: {item['reason']})")
        for emission in result["emissions"]:
            end = (
                emission.get("table")
                or emission.get("sourceDataset")
                or emission.get("location")
                or f"read by consumer group {emission.get('consumerGroup')}"
            )
            print(f"  {emission['topic']} ~ {end}: origin {emission['origin']}")
    edges = read_edges(boto3.client("datazone"), domain_id)
    text, page = show(boto3.client("datazone"), domain_id, out_dir)
    print()
    print(render_chains(edges))
    print(text)
    # The topic's lineage node and its catalog asset are one when the asset's sourceIdentifier is the node's.
    for topic in sorted({e.upstream for e in edges if _is_topic(e.upstream)}, key=lambda d: d.label):
        joined = aws.datazone.linked_assets(domain_id, topic.identifier)
        status = f"joins catalog asset {', '.join(joined)}" if joined else "has no catalog asset"
        print(f"lineage node {topic.label} {status}")
    return page


def main(argv: Sequence[str] | None = None) -> int:
    import boto3

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domain", required=True, help="DataZone domain id (dzd_...)")
    parser.add_argument(
        "--out", type=Path, default=Path("out") / "lineage.html", help="where to write the page"
    )
    args = parser.parse_args(argv)
    edges = read_edges(boto3.client("datazone"), args.domain)
    sys.stdout.write(render_text(edges))
    sys.stdout.write(f"\nLineage page: {write_html(edges, args.out).resolve()}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
