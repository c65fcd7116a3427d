"""DataZone stand-in: lineage events (post, list, get, delete) and the lineage nodes derived from them."""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from openlineage.client.event_v2 import InputDataset, Job, OutputDataset, Run, RunEvent, RunState
from openlineage.client.serde import Serde

from local.standins.datazone import DataZoneBackend
from local.standins.datazone.lineage import DatasetEdge
from local.standins.errors import ServiceError
from local.standins.readings import Readings
from tests.unit.standins.test_datazone_support import (
    DOMAIN,
    GLUE_NAMESPACE,
    KAFKA_NAMESPACE,
    PROJECT,
    Clock,
    World,
    create_topic_asset,
    kafka_world,
    post,
    run_event,
    world,
)

TOPIC = "dbserver1.inventory.orders"
TABLE = "lakehouse/orders"
TABLE_ARN = f"{GLUE_NAMESPACE}/{TABLE}"  # arn:aws:glue:<region>:<account>:table/<db>/<table>
TOPIC_SID = f"{KAFKA_NAMESPACE}/{TOPIC}"
JOB_SID = "kafka-iceberg-sink.sink/lakehouse.orders"
EVENT_ID = re.compile(r"[a-z0-9]{14}")
NODE_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")


def error_of(w: World, operation: str, **params: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        w.call(operation, **params)
    return caught.value


def post_raw(w: World, body: bytes, **params: Any) -> dict[str, Any]:
    return w.call("PostLineageEvent", event=body, **params)


def node(w: World, identifier: str, **params: Any) -> dict[str, Any]:
    return w.call("GetLineageNode", identifier=identifier, **params)


def neighbour_ids(found: dict[str, Any], side: str) -> set[str]:
    return {ref["id"] for ref in found.get(side, [])}


def one_run(w: World, topic: str = TOPIC, table: str = TABLE, hour: int = 11, **extra: Any) -> str:
    """A START and a COMPLETE event of one run; returns the runId."""
    run_id = str(uuid.uuid4())
    post(w, run_event(topic, table, "START", run_id, f"2026-03-01T{hour:02d}:00:00+00:00"))
    post(w, run_event(topic, table, "COMPLETE", run_id, f"2026-03-01T{hour:02d}:00:05+00:00", **extra))
    return run_id


class TestPostLineageEvent:
    def test_given_a_run_event_from_openlineage_python_then_it_is_accepted_with_an_event_id(self):
        # Given
        w = world()
        event = RunEvent(
            eventType=RunState.COMPLETE,
            eventTime=datetime(2026, 3, 1, 11, tzinfo=UTC).isoformat(),
            run=Run(runId=str(uuid.uuid4())),
            job=Job(namespace="kafka-iceberg-sink", name="sink/lakehouse.orders"),
            producer="https://github.com/example/kafka-lineage",
            inputs=[InputDataset(namespace=KAFKA_NAMESPACE, name=TOPIC)],
            outputs=[OutputDataset(namespace=GLUE_NAMESPACE, name=TABLE)],
        )
        # When
        posted = post_raw(w, Serde.to_json(event).encode("utf-8"))
        # Then
        assert EVENT_ID.fullmatch(posted["id"])
        assert posted["domainId"] == DOMAIN
        assert w.backend.lineage_events(DOMAIN)[0]["job"]["name"] == "sink/lakehouse.orders"

    def test_given_exactly_300000_bytes_then_accepted_and_one_more_byte_refused(self):
        w = world()
        event = run_event(TOPIC, TABLE)
        event["run"]["facets"] = {"padding": {"text": ""}}
        base = len(json.dumps(event).encode("utf-8"))
        event["run"]["facets"]["padding"]["text"] = "é" * ((300_000 - base) // 2) + "x" * (
            (300_000 - base) % 2
        )
        body = json.dumps(event, ensure_ascii=False).encode("utf-8")
        assert len(body) == 300_000
        assert EVENT_ID.fullmatch(post_raw(w, body)["id"])
        error = error_of(w, "PostLineageEvent", event=body + b" ")
        assert (error.code, error.status) == ("ValidationException", 400)
        assert "300001 bytes" in error.message

    @pytest.mark.parametrize(
        ("body", "message"),
        [
            (b"not json", "not valid JSON"),
            (b"\xff\xfe", "not valid JSON"),
            (b"[]", "must be a JSON object"),
            (
                json.dumps(
                    {
                        "eventTime": "2026-03-01T11:00:00Z",
                        "producer": "https://p",
                        "schemaURL": "https://s",
                        "dataset": {"namespace": "n", "name": "d"},
                    }
                ).encode(),
                "this looks like a DatasetEvent",
            ),
            (
                json.dumps(
                    {
                        "eventTime": "2026-03-01T11:00:00Z",
                        "producer": "https://p",
                        "schemaURL": "https://s",
                        "job": {"namespace": "n", "name": "j"},
                    }
                ).encode(),
                "this looks like a JobEvent",
            ),
        ],
    )
    def test_given_what_is_not_a_run_event_then_validation_error(self, body, message):
        error = error_of(world(), "PostLineageEvent", event=body)
        assert error.code == "ValidationException"
        assert message in error.message

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"run": {"runId": "run-1"}}, "run.runId must be a UUID"),
            ({"run": {}}, "run.runId must be a UUID"),
            ({"eventType": "DONE"}, "eventType must be one of"),
            ({"eventType": None}, "eventType is missing"),
            ({"eventTime": "2026-03-01T11:00:00"}, "eventTime is not an ISO-8601 date-time with a time zone"),
            ({"producer": "not a uri"}, "producer is not a URI"),
            ({"schemaURL": None}, "schemaURL is missing"),
            ({"job": {"namespace": "kafka-iceberg-sink"}}, "job.namespace and job.name are required"),
            ({"inputs": [{"name": "t"}]}, "inputs must be a list of datasets"),
        ],
    )
    def test_given_a_run_event_missing_what_openlineage_requires_then_validation_error(self, change, message):
        event = {**run_event(TOPIC, TABLE), **change}
        event = {k: v for k, v in event.items() if v is not None}
        error = error_of(world(), "PostLineageEvent", event=json.dumps(event).encode())
        assert error.code == "ValidationException"
        assert message in error.message

    def test_given_the_same_client_token_and_body_then_the_same_event_id_and_no_duplicate(self):
        w = world()
        event = run_event(TOPIC, TABLE)
        first = post(w, event, clientToken="run-1-complete")
        again = post(w, event, clientToken="run-1-complete")
        assert again["id"] == first["id"]
        assert len(w.backend.lineage_events(DOMAIN)) == 1

    def test_given_the_same_client_token_with_another_body_then_conflict(self):
        w = world()
        post(w, run_event(TOPIC, TABLE), clientToken="tok")
        error = error_of(
            w,
            "PostLineageEvent",
            event=json.dumps(run_event(TOPIC, "lakehouse/other")).encode(),
            clientToken="tok",
        )
        assert error.code == "ConflictException"

    def test_given_no_client_token_then_each_post_is_a_new_event(self):
        w = world()
        event = run_event(TOPIC, TABLE)
        assert post(w, event)["id"] != post(w, event)["id"]
        assert len(w.backend.lineage_events(DOMAIN)) == 2


class TestListGetDeleteEvents:
    def test_given_events_when_listed_then_summaries_newest_first_by_default(self):
        w = world()
        older = post(w, run_event(TOPIC, TABLE, "START", event_time="2026-03-01T10:00:00+00:00"))
        newer = post(w, run_event(TOPIC, TABLE, "COMPLETE", event_time="2026-03-01T11:00:00+00:00"))
        listed = w.call("ListLineageEvents")
        assert [item["id"] for item in listed["items"]] == [newer["id"], older["id"]]
        ascending = w.call("ListLineageEvents", sortOrder="ASCENDING")
        assert [item["id"] for item in ascending["items"]] == [older["id"], newer["id"]]
        summary = listed["items"][0]
        assert summary["processingStatus"] == "SUCCESS"
        assert summary["eventTime"] == datetime(2026, 3, 1, 11, tzinfo=UTC)
        run = summary["eventSummary"]["openLineageRunEventSummary"]
        assert run["eventType"] == "COMPLETE"
        assert run["job"] == {"namespace": "kafka-iceberg-sink", "name": "sink/lakehouse.orders"}
        assert run["inputs"] == [{"namespace": KAFKA_NAMESPACE, "name": TOPIC}]
        assert run["outputs"] == [{"namespace": GLUE_NAMESPACE, "name": TABLE}]

    def test_given_many_events_then_pages_cover_them_once(self):
        w = world()
        posted = [
            post(w, run_event(TOPIC, TABLE, event_time=f"2026-03-01T{h:02d}:00:00+00:00"))["id"]
            for h in range(5)
        ]
        seen: list[str] = []
        request: dict[str, Any] = {"maxResults": 2, "sortOrder": "ASCENDING"}
        while True:
            page = w.call("ListLineageEvents", **request)
            seen += [item["id"] for item in page["items"]]
            if "nextToken" not in page:
                break
            request["nextToken"] = page["nextToken"]
        assert seen == posted

    def test_given_time_bounds_then_only_events_strictly_between(self):
        w = world()
        for hour in (9, 10, 11, 12):
            post(w, run_event(TOPIC, TABLE, event_time=f"2026-03-01T{hour:02d}:00:00+00:00"))
        listed = w.call(
            "ListLineageEvents",
            timestampAfter=datetime(2026, 3, 1, 9, tzinfo=UTC),
            timestampBefore=datetime(2026, 3, 1, 12, tzinfo=UTC),
            sortOrder="ASCENDING",
        )
        assert [item["eventTime"].hour for item in listed["items"]] == [10, 11]

    def test_given_a_processing_lag_then_events_are_requested_before_they_succeed(self):
        # Given: processing completes one lineage read after the post
        w = world(lineage_processing_lag_calls=1)
        post(w, run_event(TOPIC, TABLE))
        # When / Then
        assert [i["processingStatus"] for i in w.call("ListLineageEvents")["items"]] == ["REQUESTED"]
        assert w.call("ListLineageEvents", processingStatus="REQUESTED")["items"] == []
        assert [
            i["processingStatus"] for i in w.call("ListLineageEvents", processingStatus="SUCCESS")["items"]
        ] == ["SUCCESS"]

    def test_given_an_unprocessed_event_then_it_draws_no_node_yet(self):
        w = world(lineage_processing_lag_calls=1)
        post(w, run_event(TOPIC, TABLE))
        assert error_of(w, "GetLineageNode", identifier=TABLE_ARN).code == "ResourceNotFoundException"
        assert node(w, TABLE_ARN)["sourceIdentifier"] == TABLE_ARN

    def test_given_an_event_when_got_then_the_stored_bytes_and_the_header_members(self):
        w = world()
        body = json.dumps(run_event(TOPIC, TABLE)).encode("utf-8")
        posted = post_raw(w, body)
        got = w.call("GetLineageEvent", identifier=posted["id"])
        assert got["event"] == body
        assert (got["id"], got["domainId"], got["processingStatus"]) == (posted["id"], DOMAIN, "SUCCESS")
        assert got["eventTime"] == datetime(2026, 3, 1, 11, tzinfo=UTC)
        assert got["createdAt"].tzinfo is not None
        assert got["createdBy"]

    def test_given_a_deleted_event_then_it_is_gone_from_get_list_and_delete(self):
        w = world()
        posted = post(w, run_event(TOPIC, TABLE))
        deleted = w.call("DeleteLineageEvent", identifier=posted["id"])
        assert deleted == {"id": posted["id"], "domainId": DOMAIN, "processingStatus": "REQUESTED"}
        assert error_of(w, "GetLineageEvent", identifier=posted["id"]).code == "ResourceNotFoundException"
        assert w.call("ListLineageEvents")["items"] == []
        assert error_of(w, "DeleteLineageEvent", identifier=posted["id"]).code == "ResourceNotFoundException"
        assert w.backend.lineage_events(DOMAIN) == []


class TestLineageNodes:
    def test_given_a_topic_to_table_run_then_dataset_job_and_job_run_nodes_link_up(self):
        # Given
        w = world()
        run_id = one_run(w)
        run_sid = f"{JOB_SID}/{run_id}"
        # When
        table = node(w, TABLE_ARN)
        run = node(w, run_sid)
        topic = node(w, TOPIC_SID)
        job = node(w, JOB_SID)
        # Then: the Glue dataset's sourceIdentifier is the table ARN
        assert (table["typeName"], table["sourceIdentifier"]) == (
            "amazon.datazone.DatasetLineageNodeType",
            TABLE_ARN,
        )
        assert table["name"] == TABLE
        assert NODE_ID.fullmatch(table["id"])
        assert run["typeName"] == "amazon.datazone.JobRunLineageNodeType"
        assert job["typeName"] == "amazon.datazone.JobLineageNodeType"
        assert neighbour_ids(run, "upstreamNodes") == {topic["id"]}
        assert neighbour_ids(run, "downstreamNodes") == {table["id"]}
        assert neighbour_ids(table, "upstreamNodes") == {run["id"]}
        assert neighbour_ids(topic, "downstreamNodes") == {run["id"]}
        assert topic["upstreamNodes"] == []
        assert table["eventTimestamp"] == datetime(2026, 3, 1, 11, 0, 5, tzinfo=UTC)

    def test_given_a_node_id_then_it_resolves_like_the_source_identifier(self):
        w = world()
        one_run(w)
        by_source = node(w, TABLE_ARN)
        assert node(w, by_source["id"]) == by_source

    def test_given_a_source_identifier_over_1800_characters_then_only_the_node_id_finds_it(self):
        w = world()
        long_table = "lakehouse/" + "t" * 1800
        one_run(w, table=long_table)
        sid = f"{GLUE_NAMESPACE}/{long_table}"
        error = error_of(w, "GetLineageNode", identifier=sid)
        assert (error.code, "use the node id" in error.message) == ("ValidationException", True)
        [upstream_run] = node(w, TOPIC_SID)["downstreamNodes"]
        [table_ref] = node(w, upstream_run["id"])["downstreamNodes"]
        assert node(w, table_ref["id"])["sourceIdentifier"] == sid

    def test_given_an_unknown_identifier_then_not_found(self):
        w = world()
        one_run(w)
        assert error_of(w, "GetLineageNode", identifier="arn:aws:glue:x:1:table/a/b").code == (
            "ResourceNotFoundException"
        )

    def test_given_the_events_of_an_old_edge_deleted_then_no_ghost_edge_remains(self):
        # Given: the topic fed table A, then table B
        w = world()
        one_run(w, table="lakehouse/orders_v1", hour=9)
        one_run(w, table="lakehouse/orders_v2", hour=10)
        old = [
            i["id"]
            for i in w.call("ListLineageEvents")["items"]
            if i["eventSummary"]["openLineageRunEventSummary"]["outputs"][0]["name"] == "lakehouse/orders_v1"
        ]
        # When
        for event_id in old:
            w.call("DeleteLineageEvent", identifier=event_id)
        # Then
        topic = node(w, TOPIC_SID)
        assert len(topic["downstreamNodes"]) == 1
        [run_ref] = topic["downstreamNodes"]
        assert neighbour_ids(node(w, run_ref["id"]), "downstreamNodes") == {
            node(w, f"{GLUE_NAMESPACE}/lakehouse/orders_v2")["id"]
        }
        assert error_of(w, "GetLineageNode", identifier=f"{GLUE_NAMESPACE}/lakehouse/orders_v1").code == (
            "ResourceNotFoundException"
        )
        assert {(e.upstream, e.downstream) for e in w.backend.lineage_edges(DOMAIN)} == {
            (TOPIC_SID, f"{GLUE_NAMESPACE}/lakehouse/orders_v2")
        }

    def test_given_half_of_a_run_deleted_then_the_other_half_keeps_the_edge(self):
        w = world()
        one_run(w)
        start = w.call("ListLineageEvents", sortOrder="ASCENDING")["items"][0]["id"]
        w.call("DeleteLineageEvent", identifier=start)
        assert len(node(w, TABLE_ARN)["upstreamNodes"]) == 1

    def test_given_an_event_timestamp_then_the_node_as_it_was_then(self):
        w = world()
        one_run(w, table="lakehouse/a", hour=9)
        one_run(w, table="lakehouse/b", hour=12)
        now = node(w, TOPIC_SID)
        then = node(w, TOPIC_SID, eventTimestamp=datetime(2026, 3, 1, 10, tzinfo=UTC))
        assert (len(now["downstreamNodes"]), len(then["downstreamNodes"])) == (2, 1)
        assert then["eventTimestamp"] == datetime(2026, 3, 1, 9, 0, 5, tzinfo=UTC)

    def test_node_history_lists_each_event_version_with_filters_and_pages(self):
        w = world()
        one_run(w, hour=9)
        one_run(w, hour=10)
        history = w.call("ListLineageNodeHistory", identifier=TOPIC_SID)
        stamps = [n["eventTimestamp"].strftime("%H:%M:%S") for n in history["nodes"]]
        assert stamps == ["10:00:05", "10:00:00", "09:00:05", "09:00:00"]
        assert {n["sourceIdentifier"] for n in history["nodes"]} == {TOPIC_SID}
        assert w.call("ListLineageNodeHistory", identifier=TOPIC_SID, direction="UPSTREAM")["nodes"] == []
        bounded = w.call(
            "ListLineageNodeHistory",
            identifier=TOPIC_SID,
            sortOrder="ASCENDING",
            eventTimestampGTE=datetime(2026, 3, 1, 9, 0, 5, tzinfo=UTC),
            eventTimestampLTE=datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC),
        )
        assert [n["eventTimestamp"].strftime("%H:%M:%S") for n in bounded["nodes"]] == [
            "09:00:05",
            "10:00:00",
        ]
        first = w.call("ListLineageNodeHistory", identifier=TOPIC_SID, maxResults=3)
        rest = w.call(
            "ListLineageNodeHistory", identifier=TOPIC_SID, maxResults=3, nextToken=first["nextToken"]
        )
        assert len(first["nodes"]) + len(rest["nodes"]) == 4
        assert "nextToken" not in rest

    def test_given_an_asset_whose_common_details_name_the_node_then_the_node_lists_it(self):
        # Given: the topic asset's AssetCommonDetailsForm.sourceIdentifier is {namespace}/{topic}
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        one_run(w)
        # When
        topic = node(w, TOPIC_SID)
        table = node(w, TABLE_ARN)
        # Then
        [form] = topic["formsOutput"]
        assert form["formName"] == "StandinLinkedAssetsForm"
        assert [a["assetId"] for a in json.loads(form["content"])["assets"]] == [asset["id"]]
        assert "formsOutput" not in table
        assert w.backend.linked_assets(DOMAIN, TOPIC_SID) == [asset["id"]]
        w.call("DeleteAsset", identifier=asset["id"])
        assert "formsOutput" not in node(w, TOPIC_SID)


class TestLineageEdges:
    def test_given_column_lineage_then_edges_carry_the_column_pairs_merged_over_the_run(self):
        w = world()
        one_run(w, columns={"order_id": "id", "total": "amount"})
        one_run(w, topic="dbserver1.inventory.customers", table="lakehouse/customers", hour=12)
        assert w.backend.lineage_edges(DOMAIN) == {
            DatasetEdge(
                TOPIC_SID,
                TABLE_ARN,
                "kafka-iceberg-sink",
                "sink/lakehouse.orders",
                frozenset({("id", "order_id"), ("amount", "total")}),
            ),
            DatasetEdge(
                f"{KAFKA_NAMESPACE}/dbserver1.inventory.customers",
                f"{GLUE_NAMESPACE}/lakehouse/customers",
                "kafka-iceberg-sink",
                "sink/lakehouse.customers",
            ),
        }

    def test_given_unprocessed_events_then_inspection_still_sees_them(self):
        w = world(lineage_processing_lag_calls=5)
        one_run(w)
        assert len(w.backend.lineage_events(DOMAIN)) == 2
        assert {(e.upstream, e.downstream) for e in w.backend.lineage_edges(DOMAIN)} == {
            (TOPIC_SID, TABLE_ARN)
        }


def reading_world(**readings: Any) -> World:
    """A domain (as `world`) under the project's own Readings, lineage switches included."""
    settings = Readings(**readings)
    clock = Clock()
    backend = DataZoneBackend(settings, seed=7, clock=clock)
    backend.add_domain(DOMAIN, project_ids=[PROJECT])
    return World(backend, settings, clock)  # type: ignore[arg-type]


def edges_of(w: World) -> set[tuple[str, str]]:
    return {(e.upstream, e.downstream) for e in w.backend.lineage_edges(DOMAIN)}


class TestLineageReadings:
    """The undocumented lineage behaviours, one switch each (local/standins/readings.py)."""

    def test_given_a_deletion_lag_then_the_event_stays_readable_until_the_deletion_is_processed(self):
        # Given: a deletion takes effect two lineage reads after DeleteLineageEvent
        w = reading_world(lineage_delete_lag_calls=2)
        posted = post(w, run_event(TOPIC, TABLE))
        # When
        answer = w.call("DeleteLineageEvent", identifier=posted["id"])
        # Then the answer does not say it is done, and the event is still there for two reads
        assert answer["processingStatus"] == "REQUESTED"
        assert w.call("GetLineageEvent", identifier=posted["id"])["id"] == posted["id"]
        assert [i["id"] for i in w.call("ListLineageEvents")["items"]] == [posted["id"]]
        assert error_of(w, "GetLineageEvent", identifier=posted["id"]).code == "ResourceNotFoundException"
        assert w.call("ListLineageEvents")["items"] == []

    def test_given_deletion_keeps_edges_then_only_a_later_run_of_the_same_input_supersedes_them(self):
        # Given: deleting an event leaves its edges in the graph
        w = reading_world(lineage_delete_removes_edges=False)
        one_run(w, table="lakehouse/orders_v1", hour=9)
        for item in w.call("ListLineageEvents")["items"]:
            w.call("DeleteLineageEvent", identifier=item["id"])
        # Then the deleted run's edge is still drawn
        assert edges_of(w) == {(TOPIC_SID, f"{GLUE_NAMESPACE}/lakehouse/orders_v1")}
        # When a run of the same topic with a later eventTime feeds another table
        one_run(w, table="lakehouse/orders_v2", hour=10)
        # Then that run supersedes the deleted one: only the new edge is drawn, in the graph too
        assert edges_of(w) == {(TOPIC_SID, f"{GLUE_NAMESPACE}/lakehouse/orders_v2")}
        assert len(node(w, TOPIC_SID)["downstreamNodes"]) == 1

    def test_given_deletion_keeps_edges_then_an_earlier_run_does_not_supersede_them(self):
        w = reading_world(lineage_delete_removes_edges=False)
        one_run(w, table="lakehouse/orders_v1", hour=10)
        for item in w.call("ListLineageEvents")["items"]:
            w.call("DeleteLineageEvent", identifier=item["id"])
        one_run(w, table="lakehouse/orders_v2", hour=9)
        assert edges_of(w) == {
            (TOPIC_SID, f"{GLUE_NAMESPACE}/lakehouse/orders_v1"),
            (TOPIC_SID, f"{GLUE_NAMESPACE}/lakehouse/orders_v2"),
        }

    @pytest.mark.parametrize("on", ["eventTime", "createdAt"])
    def test_the_time_filters_apply_to_the_time_the_reading_names(self, on):
        # Given: an event that describes 09:00 but was posted at 12:00 (the stand-in's clock)
        w = reading_world(lineage_time_filter=on)
        posted = post(w, run_event(TOPIC, TABLE, event_time="2026-03-01T09:00:00+00:00"))

        def listed(after: datetime, before: datetime) -> list[str]:
            items = w.call("ListLineageEvents", timestampAfter=after, timestampBefore=before)["items"]
            return [i["id"] for i in items]

        around_event = listed(datetime(2026, 3, 1, 8, tzinfo=UTC), datetime(2026, 3, 1, 10, tzinfo=UTC))
        around_post = listed(datetime(2026, 3, 1, 11, tzinfo=UTC), datetime(2026, 3, 1, 13, tzinfo=UTC))
        assert (around_event, around_post) == (
            ([posted["id"]], []) if on == "eventTime" else ([], [posted["id"]])
        )

    @pytest.mark.parametrize("starts", [True, False])
    def test_start_events_draw_edges_only_if_the_reading_says_so(self, starts):
        w = reading_world(lineage_start_builds_edges=starts)
        run_id = str(uuid.uuid4())
        post(w, run_event(TOPIC, TABLE, "START", run_id))
        assert edges_of(w) == ({(TOPIC_SID, TABLE_ARN)} if starts else set())
        post(w, run_event(TOPIC, TABLE, "COMPLETE", run_id, "2026-03-01T11:00:05+00:00"))
        assert edges_of(w) == {(TOPIC_SID, TABLE_ARN)}
        assert len(node(w, TABLE_ARN)["upstreamNodes"]) == 1
