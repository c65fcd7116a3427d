"""The demo's lineage rendering: edges from events, the terminal listing and the self-contained page."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from kafka_lineage.lineage.edge_content import hop_content
from kafka_lineage.lineage.events import build
from kafka_lineage.lineage.resolve import FirstHop
from kafka_lineage.lineage.run_identity import derive_run_id
from kafka_lineage.lineage.world import parse_topic_fields
from kafka_lineage.model.topics import TopicKey
from local import debezium
from local.lineage_view import edges_from_events, render_chains, render_html, render_text
from tests.unit.lineage.lineage_builders import REGISTERED, record, settings, source_edge, table
from tests.unit.lineage.openlineage_rules import assert_valid
from tests.unit.lineage.test_lineage_events import content

KEY = TopicKey("cdc", "dbserver1.inventory.customers")


def customers_events() -> list[dict]:
    parsed = parse_topic_fields("AVRO", debezium.table_envelope("customers"))
    described = content(table("customers", "id", "Email", "loaded_at"))
    run = build(
        described, parsed.fields, parsed.row_fields, derive_run_id(described.fingerprint()), REGISTERED
    )
    return [json.loads(body) for _, body in run.bodies]


def test_one_edge_per_job_from_the_newest_event_with_its_column_pairs():
    edges = edges_from_events(customers_events())
    (edge,) = edges
    assert edge.upstream.label == "dbserver1.inventory.customers"
    assert edge.downstream.label == "lakehouse.customers"
    assert edge.downstream.identifier == "arn:aws:glue:eu-west-1:123456789012:table/lakehouse/customers"
    assert edge.job == "kafka-iceberg-sink/sink/lakehouse.customers"
    assert edge.event_time == "2025-03-14T09:15:02.124Z"  # the COMPLETE event's
    assert edge.columns == (("after.id", "id"), ("after.email", "Email"))  # the table's column order


def test_the_terminal_listing_shows_edges_and_mappings():
    text = render_text(edges_from_events(customers_events()))
    assert "dbserver1.inventory.customers  ->  lakehouse.customers" in text
    assert re.search(r"after\.id\s+->\s+id", text)
    assert "job     kafka-iceberg-sink/sink/lakehouse.customers" in text
    assert render_text([]) == "No lineage in DataZone yet.\n"


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += attrs

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_page_is_self_contained_and_escapes_names():
    events = customers_events()
    source = events[1]["inputs"][0]
    events[1]["outputs"][0]["facets"]["columnLineage"]["fields"]["<b>odd</b>"] = {
        "inputFields": [{"namespace": source["namespace"], "name": source["name"], "field": "after.x&y"}]
    }
    page = render_html(edges_from_events(events))
    parsed = _Collector()
    parsed.feed(page)
    # Then it draws the graph inline, loads nothing from elsewhere and runs no script
    assert {"svg", "path", "rect", "table"} <= set(parsed.tags)
    assert "script" not in parsed.tags
    assert "link" not in parsed.tags
    urls = [value for name, value in parsed.attrs if name in ("src", "href") and value]
    assert urls == []
    assert re.findall(r"https?://[^\"' <]+", page) == ["http://www.w3.org/2000/svg"]
    # And names are text, never markup
    assert "<b>odd</b>" not in page
    assert "<b>odd</b>" in "".join(parsed.text)
    assert "after.x&y" in "".join(parsed.text)


def first_hop_events() -> list[dict]:
    parsed = parse_topic_fields("AVRO", debezium.table_envelope("customers"))
    described = hop_content(
        FirstHop(KEY, record(KEY.topic), settings().sources[0], source_edge(KEY.topic, "inventory.customers"))
    )
    run = build(
        described, parsed.fields, parsed.row_fields, derive_run_id(described.fingerprint()), REGISTERED
    )
    for _, body in run.bodies:
        assert_valid(body)
    return [json.loads(body) for _, body in run.bodies]


def test_the_picture_has_three_columns_database_table_topic_glue_table_with_the_jobs_between():
    # Given a first hop (MySQL table -> topic) and a sink edge (topic -> Glue table)
    edges = edges_from_events(first_hop_events() + customers_events())
    # When drawn as text: one row, the database table, the source job, the topic, the sink job, the table
    text = render_chains(edges)
    row = text.splitlines()[2].split()
    assert row == [
        "inventory.customers",
        "-[inventory-source]->",
        "dbserver1.inventory.customers",
        "-[sink/lakehouse.customers]->",
        "lakehouse.customers",
    ]
    # And the first hop maps each source column to the topic's after.<column>
    hop = next(e for e in edges if e.downstream.label == KEY.topic)
    assert ("id", "after.id") in hop.columns
    # And on the page: database table, source job, topic, sink job, Glue table, left to right
    page = render_html(edges)
    xs = {
        kind: int(x) for kind, x in re.findall(r'<g class="(\w+)"><title>[^<]*</title><rect x="(\d+)"', page)
    }
    assert xs["source"] < xs["topic"] < xs["table"]
    jobs = sorted(int(x) for x in re.findall(r'<g class="job"><title>[^<]*</title><rect x="(\d+)"', page))
    assert xs["source"] < jobs[0] < xs["topic"] < jobs[1] < xs["table"]


def test_the_picture_fits_a_1280_pixel_screen_and_names_each_delivery_path() -> None:
    # Given a first hop and three sink paths side by side: MSK Connect, an MSK channel into S3 Tables and
    # a Firehose stream into an S3 bucket
    from local.lineage_view import MAX_WIDTH, Dataset, Edge

    topic = Dataset("kafka://b-1.cdc.x.kafka.eu-west-1.amazonaws.com:9098", "dbserver1.inventory.orders")
    glue = "arn:aws:glue:eu-west-1:123456789012:table"
    edges = [
        Edge(
            Dataset("mysql://mysql:3306", "inventory.orders"),
            topic,
            "kafka-connect://cdc",
            "inventory-source",
            "r0",
            "t",
            (),
        ),
        Edge(topic, Dataset(glue, "lakehouse/orders"), "kafka-connect://cdc", "lake-sink", "r1", "t", ()),
        Edge(
            topic,
            Dataset(glue, "s3tablescatalog/lake-tables/sales/orders"),
            "msk-channel://cdc",
            "orders-channel",
            "r2",
            "t",
            (),
        ),
        Edge(
            topic,
            Dataset("s3://raw-zone", "orders/"),
            "firehose://eu-west-1/123456789012",
            "orders-raw",
            "r3",
            "t",
            (),
        ),
    ]

    page = render_html(edges)

    found = re.search(r'<svg class="graph"[^>]* width="(\d+)"', page)
    assert found is not None
    assert int(found[1]) <= MAX_WIDTH
    assert "max-width: 100%" in page
    for caption in (
        "MSK Connect",
        "MSK channel",
        "Firehose",
        "S3 Tables · lake-tables",
        "S3 bucket",
        "Glue table",
    ):
        assert f">{caption}</text>" in page, caption
    assert (
        "<title>arn:aws:glue:eu-west-1:123456789012:table/s3tablescatalog/lake-tables/sales/orders</title>"
        in page
    )
    # And the bucket's edge says its lineage is dataset-level, on the page and in the text
    assert "<title>s3://raw-zone/orders/</title>" in page
    assert "Dataset-level lineage" in page
    assert "columns: none (an S3 location: dataset-level lineage)" in render_text(edges)


DRIFT = {
    "schemaArn": "arn:aws:glue:eu-west-1:123456789012:schema/cdc/dbserver1.inventory.customers",
    "fromVersion": 2,
    "toVersion": 3,
    "severity": "breaking",
    "changes": [
        {
            "field": "after.email",
            "change": "removed",
            "before": "string",
            "after": None,
            "severity": "breaking",
        }
    ],
    "impactedTables": ["lakehouse/customers"],
}


def test_a_run_with_schema_drift_shows_it_on_its_edge_in_the_listing_and_the_page():
    # Given the customers run, its events carrying the schemaDrift run facet (as the v3 sink run does)
    events = customers_events()
    for event in events:
        event["run"].setdefault("facets", {})["schemaDrift"] = DRIFT
    # When rendered
    (edge,) = edges_from_events(events)
    text, page = render_text([edge]), render_html([edge])
    # Then the edge carries the drift, the listing names it, and the page shows its changes on the table
    assert edge.drift == DRIFT
    assert "schema drift v2 -> v3, breaking: after.email removed" in text
    assert 'class="table drifted"' in page
    assert (
        "<code>after.email</code></td><td>removed</td><td><code>string</code></td><td><code>—</code>" in page
    )
    assert "Schema drift: dbserver1.inventory.customers → lakehouse.customers" in page
    # And a run without the facet shows none
    (plain,) = edges_from_events(customers_events())
    assert plain.drift is None
    assert "table drifted" not in render_html([plain])
    assert '<div class="drift">' not in render_html([plain])
