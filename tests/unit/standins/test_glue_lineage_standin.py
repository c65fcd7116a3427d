"""The Glue lineage stand-in, without a server: PostLineageEvent validated as the Glue guide says, accepted
asynchronously, and GetLineageNode over one graph per account, under both readings of a job's edges."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local.standins.errors import ServiceError
from local.standins.glue_lineage import MAX_EVENT_BYTES, GlueLineage, source_identifier
from local.standins.readings import Readings

ACCOUNT, REGION = "123456789012", "eu-west-1"
GLUE = f"arn:aws:glue:{REGION}:{ACCOUNT}"
TOPIC = ("kafka://b-1.cdc:9098", "dbserver1.inventory.customers")
OLD = (GLUE, "table/lakehouse/customers")
NEW = (GLUE, "table/curated/customers_v2")


def run(
    job: str, run_id: str, when: str, inputs: list[tuple[str, str]], outputs: list[tuple[str, str]]
) -> dict[str, Any]:
    return {
        "eventType": "COMPLETE",
        "eventTime": when,
        "producer": "urn:kafka-lineage:lineage-emission",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id},
        "job": {"namespace": "kafka-iceberg-sink", "name": job},
        "inputs": [{"namespace": n, "name": m} for n, m in inputs],
        "outputs": [{"namespace": n, "name": m} for n, m in outputs],
    }


class Graph:
    def __init__(self, **readings: Any) -> None:
        self.readings = Readings(**readings)
        self.glue = GlueLineage(lambda: self.readings)

    def post(self, event: dict[str, Any] | str, account: str = ACCOUNT) -> dict[str, Any]:
        text = event if isinstance(event, str) else json.dumps(event)
        return self.glue.handle("PostLineageEvent", {"Event": text}, account, REGION)

    def node(self, identifier: str, account: str = ACCOUNT) -> dict[str, Any]:
        return self.glue.handle("GetLineageNode", {"Identifier": identifier}, account, REGION)

    def upstream(self, identifier: str) -> set[str]:
        return {self.node(ref["Id"])["SourceIdentifier"] for ref in self.node(identifier)["UpstreamNodes"]}


def first_run() -> dict[str, Any]:
    return run(
        "sink/lakehouse.customers",
        "00000000-0000-4000-8000-000000000001",
        "2026-01-01T00:00:00.000Z",
        [TOPIC],
        [OLD],
    )


def test_a_table_node_is_its_arn_and_an_s3_node_its_bucket_and_path() -> None:
    # Given Glue's identities, then the SourceIdentifiers are the table ARN and the S3 URI
    assert source_identifier(*OLD) == f"{GLUE}:table/lakehouse/customers"
    assert source_identifier("s3://raw-zone", "/sales/orders") == "s3://raw-zone/sales/orders"
    assert source_identifier(*TOPIC) == "kafka://b-1.cdc:9098/dbserver1.inventory.customers"


def test_an_accepted_event_shows_only_after_processing_and_answers_nothing() -> None:
    # Given a graph that processes an event one read after it was accepted
    graph = Graph(glue_lineage_processing_lag_calls=1)
    # When an event is posted, then the answer is empty
    assert graph.post(first_run()) == {}
    # And the first read does not find the table yet; a later one does
    with pytest.raises(ServiceError, match="EntityNotFoundException"):
        graph.node(source_identifier(*OLD))
    assert graph.upstream(source_identifier(*OLD)) == {"kafka-iceberg-sink/sink/lakehouse.customers"}


@pytest.mark.parametrize(
    ("event", "why"),
    [
        ("not json", "valid JSON"),
        (json.dumps({**first_run(), "eventType": "DONE"}), "eventType"),
        (json.dumps({**first_run(), "run": {"runId": "run-1"}}), "UUID"),
        (json.dumps({k: v for k, v in first_run().items() if k != "producer"}), "producer"),
        (json.dumps({k: v for k, v in first_run().items() if k != "job"}), "job"),
        (json.dumps({**first_run(), "eventTime": "yesterday"}), "eventTime"),
        (json.dumps({**first_run(), "outputs": [{"namespace": GLUE}]}), "outputs"),
    ],
)
def test_an_event_glue_would_refuse_is_invalid_input(event: str, why: str) -> None:
    # Given events that are not valid OpenLineage run events, then each is InvalidInputException
    with pytest.raises(ServiceError, match=why) as refused:
        Graph().post(event)
    assert refused.value.code == "InvalidInputException"


def test_the_size_limit_counts_bytes_not_characters() -> None:
    # Given an event of 300,000 characters, some of them two bytes in UTF-8
    event = first_run()
    event["job"]["facets"] = {"documentation": {"description": ""}}
    padding = MAX_EVENT_BYTES - len(json.dumps(event, ensure_ascii=False)) - 10
    event["job"]["facets"]["documentation"]["description"] = "é" * 10 + "x" * padding
    text = json.dumps(event, ensure_ascii=False)
    assert len(text) <= MAX_EVENT_BYTES < len(text.encode("utf-8"))
    # Then it is refused, as larger than 300,000 bytes
    with pytest.raises(ServiceError, match="larger than 300000 bytes"):
        Graph().post(text)


def test_a_dataset_event_is_accepted() -> None:
    # Given a dataset event (no run, no job), then Glue accepts it and the dataset is a node
    graph = Graph()
    graph.post(
        {
            "eventTime": "2026-01-01T00:00:00Z",
            "producer": "urn:x",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
            "dataset": {"namespace": GLUE, "name": "table/lakehouse/customers"},
        }
    )
    assert graph.node(source_identifier(*OLD))["UpstreamNodes"] == []


def test_each_account_has_its_own_graph() -> None:
    graph = Graph()
    graph.post(first_run(), account="444455556666")
    with pytest.raises(ServiceError, match="EntityNotFoundException"):
        graph.node(source_identifier(*OLD))
    assert graph.glue.accepted("444455556666", REGION) == 1


@pytest.mark.parametrize(("reading", "old_upstream"), [("every", 1), ("latest", 0)])
def test_a_closing_run_of_the_old_job_removes_its_edge_only_under_the_latest_run_reading(
    reading: str, old_upstream: int
) -> None:
    # Given a job's run topic -> old table, then a later run of the same job that reads and writes nothing
    graph = Graph(glue_lineage_job_edges=reading)
    graph.post(first_run())
    graph.post(
        run(
            "sink/lakehouse.customers",
            "00000000-0000-4000-8000-000000000002",
            "2026-01-01T00:00:00.002Z",
            [],
            [],
        )
    )
    # Then the old table keeps its upstream job under "every", and has none under "latest"
    assert len(graph.upstream(source_identifier(*OLD))) == old_upstream
    # And the job's latest run is the closing one either way
    job = graph.node("kafka-iceberg-sink/sink/lakehouse.customers")
    assert job["Description"] == "latest run 00000000-0000-4000-8000-000000000002"


@pytest.mark.parametrize(("reading", "tables"), [("every", 2), ("latest", 1)])
def test_a_later_run_writing_another_table(reading: str, tables: int) -> None:
    # Given a job that wrote the old table, then a later run of it that writes the new one
    graph = Graph(glue_lineage_job_edges=reading)
    graph.post(first_run())
    graph.post(
        run(
            "sink/lakehouse.customers",
            "00000000-0000-4000-8000-000000000003",
            "2026-01-02T00:00:00Z",
            [TOPIC],
            [NEW],
        )
    )
    # Then the job writes both tables under "every", only the new one under "latest"
    assert len(graph.node("kafka-iceberg-sink/sink/lakehouse.customers")["DownstreamNodes"]) == tables


def test_a_retried_post_is_the_same_run() -> None:
    # Given the same run posted twice, then the job has one run
    graph = Graph()
    graph.post(first_run())
    graph.post(first_run())
    graph.node(source_identifier(*OLD))  # processes
    assert graph.glue.runs_of(ACCOUNT, REGION, "kafka-iceberg-sink/sink/lakehouse.customers") == [
        "00000000-0000-4000-8000-000000000001"
    ]
