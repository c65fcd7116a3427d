"""The lineage handler under pressure: overlapping invocations, deadlines, asynchronous deletion and the
undocumented lineage readings, on the stand-ins (every run ends with every live event checked)."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from typing import Any

import pytest

from kafka_lineage.aws.lease import lease_path
from local import debezium
from tests.fixtures import load_event
from tests.integration.lineage.conftest import (
    MAPPING_PATH,
    NAMESPACE,
    TABLE_NAMESPACE,
    FakeContext,
    Lakehouse,
)

TOPICS = [f"dbserver1.inventory.t{i:02d}" for i in range(40)]


def topic_world(lakehouse: Lakehouse, topics: list[str] = TOPICS) -> None:
    for topic in topics:
        table = topic.rsplit(".", 1)[1]
        lakehouse.schema(topic, debezium.synthetic_table(topic, 5))
        lakehouse.table(table, *(c.name for c in debezium.synthetic_columns(5)))


def edge(topic: str, table: str) -> tuple[str, str]:
    return (f"{NAMESPACE}/{topic}", f"{TABLE_NAMESPACE}/{table}")


@dataclass
class FollowUps:
    """Stands in for Lambda's asynchronous self-invocation: records the events handed on."""

    events: list[dict[str, Any]]

    def __call__(self, lambda_client: Any, function_arn: str, event: dict[str, Any]) -> None:
        assert function_arn.endswith(":function:lineage-emission")
        self.events.append(json.loads(json.dumps(event)))  # sent as JSON, as Lambda would


@pytest.fixture
def follow_ups(monkeypatch: pytest.MonkeyPatch) -> FollowUps:
    recorder = FollowUps([])
    monkeypatch.setattr("kafka_lineage.aws.continuation.continue_asynchronously", recorder)
    return recorder


def one_run_per_topic(lakehouse: Lakehouse) -> None:
    runs = lakehouse.runs()
    assert all(types == ["START", "COMPLETE"] for types in runs.values())
    inputs = sorted(e["inputs"][0]["name"] for e in lakehouse.events() if e["eventType"] == "START")
    assert inputs == sorted(TOPICS)


@pytest.mark.slow
def test_two_overlapping_invocations_lose_no_state_and_a_later_remap_leaves_no_ghost_edge(
    lakehouse: Lakehouse, follow_ups: FollowUps
) -> None:
    # Given 40 topics, and two invocations each given half of them, overlapping under 20 ms a call
    topic_world(lakehouse)
    lakehouse.aws.latency_ms = 20
    halves = [TOPICS[0::2], TOPICS[1::2]]
    results: list[dict[str, Any]] = [{}, {}]

    def invoke(index: int) -> None:
        event = {"topics": [{"registryName": "cdc", "topic": t} for t in halves[index]]}
        results[index] = lakehouse.emit(event, FakeContext(aws_request_id=f"0000000{index}-overlap"))

    threads = [threading.Thread(target=invoke, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join()
    # Then both emitted their half (the second waited for the first's lease), and each topic has one run
    assert sorted(r["emitted"] for r in results) == [20, 20]
    assert follow_ups.events == []
    one_run_per_topic(lakehouse)
    lakehouse.aws.latency_ms = 0
    # And the state remembers every run: a scheduled run finds nothing to do
    again = lakehouse.emit()
    assert (again["emitted"], again["unchanged"]) == (0, 40)
    # When an operator remaps one topic to another table
    lakehouse.table("t07_v2", "id", database="curated")
    lakehouse.mapping("ops/t07", topic=TOPICS[7], database="curated", table="t07_v2")
    remapped = lakehouse.emit()
    # Then its old edge is gone (its events were tracked in the state), and nothing else moved
    assert remapped["emitted"] == 1
    assert remapped["emissions"][0]["replacedEvents"] == 2
    edges = set(lakehouse.edges())
    assert edge(TOPICS[7], "curated/t07_v2") in edges
    assert edge(TOPICS[7], "lakehouse/t07") not in edges
    assert len(edges) == 40


def test_an_invocation_that_finds_the_state_busy_hands_its_event_on(
    lakehouse: Lakehouse, follow_ups: FollowUps
) -> None:
    # Given another live invocation holds the lineage state's lease
    topic_world(lakehouse, TOPICS[:2])
    holder = {"owner": "other-invocation", "acquired": time.time(), "expires": time.time() + 600}
    lakehouse.ssm.put_parameter(
        Name=f"{lease_path(MAPPING_PATH, 'lineage-emission')}/0000000001",
        Value=json.dumps(holder),
        Type="String",
    )
    event = {"topics": [{"topic": TOPICS[0]}]}
    # When this invocation has work but only a second to wait (61 s left, 60 s margin)
    result = lakehouse.emit(event, FakeContext(remaining_ms=61_000))
    # Then it posts and writes nothing, and hands the same request to a follow-up (with the pace its calls
    # reached, and no lease generation: it held none)
    assert (result["deferred"], result["continued"], result["emitted"]) == ("busy", True, 0)
    assert [
        {key: value for key, value in handed.items() if key != "handover"} for handed in follow_ups.events
    ] == [event]
    assert "lease" not in follow_ups.events[0].get("handover", {})
    assert lakehouse.events() == []
    # And a dry run needs no lease
    assert lakehouse.emit({**event, "dryRun": True})["emitted"] == 1


class PostCountdown(FakeContext):
    """A context whose time runs out once the stand-ins have taken `posts` PostLineageEvent calls."""

    def __init__(self, lakehouse: Lakehouse, posts: int) -> None:
        super().__init__()
        self.lakehouse, self.posts = lakehouse, posts

    def get_remaining_time_in_millis(self) -> int:
        done = self.lakehouse.aws.call_counts()["datazone:PostLineageEvent"]
        return 900_000 if done < self.posts else 30_000


def test_a_run_cut_by_its_deadline_saves_what_it_did_and_the_follow_up_repeats_none_of_it(
    lakehouse: Lakehouse, follow_ups: FollowUps
) -> None:
    # Given 12 topics, one action at a time, and an invocation whose time runs out after 5 topics' posts
    lakehouse.configure(
        {"registryName": "cdc", "clusterArn": "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/x-1",
         "namespace": NAMESPACE, "connectors": "off", "tableRule": {"database": "lakehouse",
         "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}},
        tuning={"max_concurrency": 1},
    )  # fmt: skip
    topic_world(lakehouse, TOPICS[:12])
    lakehouse.reset_calls()
    first = lakehouse.emit({}, PostCountdown(lakehouse, posts=10))
    # Then it stopped starting topics, saved the 5 it emitted, and handed the event on
    assert (first["emitted"], first["incomplete"], first["remaining"], first["continued"]) == (
        5,
        True,
        7,
        True,
    )
    # And the event handed on is the same request, with the lease it held, the last state group through
    # which it finished everything and the pace its calls had reached (its handover)
    (handed_on,) = follow_ups.events
    assert set(handed_on) == {"handover"}
    assert set(handed_on["handover"]) == {"lease", "through", "rates"}
    assert handed_on["handover"]["lease"] == 1
    # When the follow-up runs with that event
    lakehouse.reset_calls()
    second = lakehouse.emit(handed_on)
    # Then it emits only the 7 others: no post repeated, each state parameter written about once; of the 5
    # done, it looks again only at those after the groups the first one finished
    assert second["emitted"] == 7
    assert second["unchanged"] <= 5
    assert "incomplete" not in second
    assert lakehouse.count("datazone:PostLineageEvent") == 14
    assert lakehouse.emit()["unchanged"] == 12


@pytest.mark.parametrize("lag", [0, 3])
def test_a_retraction_counts_only_once_its_deletions_are_processed(lakehouse: Lakehouse, lag: int) -> None:
    # Given a deletion takes effect `lag` lineage reads after it is requested (asynchronous)
    lakehouse.aws.set_readings(lineage_delete_lag_calls=lag)
    topic_world(lakehouse, TOPICS[:2])
    lakehouse.emit()
    lakehouse.drop_schema(TOPICS[0])
    # When its deletion is announced, then the schedule runs until the retraction is confirmed
    event = load_event("lineage_topic_asset_deleted")
    event["detail"] = {**event["detail"], "topic": TOPICS[0], "schemaArn": event["detail"]["schemaArn"] + "x"}
    results = [lakehouse.emit(event)]
    while not results[-1]["retracted"] and len(results) < 6:
        results.append(lakehouse.emit())
    # Then it is reported as retracting (never retracted) while DataZone still has the events
    for pending in results[:-1]:
        assert pending["retracting"][0]["topic"] == TOPICS[0]
        assert pending["retracted"] == []
    assert (len(results) == 1) == (lag == 0)
    assert results[-1]["retracted"][0]["topic"] == TOPICS[0]
    # And once it is, the edge is gone and no state is left to check
    assert set(lakehouse.edges()) == {edge(TOPICS[1], "lakehouse/t01")}
    final = lakehouse.emit()
    assert (final["retracted"], final["retracting"], final["unchanged"]) == ([], [], 1)


@pytest.mark.parametrize("removes_edges", [True, False])
@pytest.mark.parametrize("lag", [0, 2])
def test_a_remap_back_to_an_earlier_edge_leaves_no_ghost_whatever_deletion_does(
    lakehouse: Lakehouse, removes_edges: bool, lag: int
) -> None:
    # Given deletion may lag and may leave the deleted events' edges in the graph
    lakehouse.aws.set_readings(lineage_delete_removes_edges=removes_edges, lineage_delete_lag_calls=lag)
    topic_world(lakehouse, TOPICS[:1])
    lakehouse.table("t00_ops", "id", database="ops")
    # And an operator's mapping (modified now: the run's eventTime) moved the topic to another table
    mapping = lakehouse.mapping("ops/t00", topic=TOPICS[0], database="ops", table="t00_ops")
    lakehouse.emit()
    moved = lakehouse.events()[0]["eventTime"]
    # When the mapping is removed: the rule's table again, described by the schema's (earlier) registration
    lakehouse.ssm.delete_parameter(Name=mapping)
    result = lakehouse.emit()
    for _ in range(4):
        lakehouse.emit()  # later runs confirm the deletions
    # Then the new run is strictly later than the one it replaced, so only the rule's edge is shown
    (emission,) = result["emissions"]
    assert emission["eventTime"] > moved
    assert set(lakehouse.edges()) == {edge(TOPICS[0], "lakehouse/t00")}
    assert list(lakehouse.runs().values()) == [["START", "COMPLETE"]]


@pytest.mark.parametrize("filtered_on", ["eventTime", "createdAt"])
@pytest.mark.usefixtures("fast_retries")
def test_a_lost_response_is_found_again_whichever_time_list_events_filters_on(
    lakehouse: Lakehouse, filtered_on: str
) -> None:
    lakehouse.aws.set_readings(lineage_time_filter=filtered_on, client_token_ttl_seconds=0)
    topic_world(lakehouse, TOPICS[:1])
    lakehouse.aws.faults.add(service="datazone", operation="PostLineageEvent", kind="lost_response", times=50)
    with pytest.raises(Exception, match="posting START"):
        lakehouse.emit()
    lakehouse.aws.faults.clear()
    result = lakehouse.emit()
    assert result["emitted"] == 1
    assert list(lakehouse.runs().values()) == [["START", "COMPLETE"]]


@pytest.mark.parametrize("starts", [True, False])
def test_the_edge_is_drawn_whether_or_not_start_events_draw_edges(lakehouse: Lakehouse, starts: bool) -> None:
    lakehouse.aws.set_readings(lineage_start_builds_edges=starts)
    topic_world(lakehouse, TOPICS[:1])
    lakehouse.emit()
    assert set(lakehouse.edges()) == {edge(TOPICS[0], "lakehouse/t00")}


def test_a_forced_run_cut_by_its_deadline_is_finished_by_its_follow_up_without_reposting(
    lakehouse: Lakehouse, follow_ups: FollowUps
) -> None:
    # Given 6 emitted topics, and a forced run (one topic at a time) whose time runs out after 2 topics
    lakehouse.configure(
        {"registryName": "cdc", "clusterArn": "arn:aws:kafka:eu-west-1:123456789012:cluster/cdc/x-1",
         "namespace": NAMESPACE, "connectors": "off", "tableRule": {"database": "lakehouse",
         "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}},
        tuning={"max_concurrency": 1},
    )  # fmt: skip
    topic_world(lakehouse, TOPICS[:6])
    lakehouse.emit()
    lakehouse.reset_calls()
    first = lakehouse.emit({"force": True}, PostCountdown(lakehouse, posts=4))
    assert (first["emitted"], first["remaining"], first["continued"]) == (2, 4, True)
    # When the follow-up runs with the event handed on (it names the first invocation's nonce)
    (handed_on,) = follow_ups.events
    assert {k: v for k, v in handed_on.items() if k != "handover"} == {
        "force": True,
        "forceNonce": FakeContext().aws_request_id,
    }
    second = lakehouse.emit(handed_on, FakeContext(aws_request_id="7a2b0c3d-0000-4000-8000-000000000002"))
    # Then it re-posts only the 4 topics the first did not: every topic forced exactly once, one run each
    assert second["emitted"] == 4
    assert second["unchanged"] <= 2
    assert lakehouse.count("datazone:PostLineageEvent") == 12
    assert len(lakehouse.runs()) == 6
