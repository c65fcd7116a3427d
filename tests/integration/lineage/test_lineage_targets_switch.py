"""`lineageTargets` with the Glue graph alone, and switching targets either way, on the stand-ins (the
function under its deployed role, IAM mode): a target that is off gets no call and no state write; a target
added later gets every current edge once; a target removed keeps its graph and its state as they were."""

from __future__ import annotations

import boto3
import pytest

from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.model.state_layout import GLUE_LINEAGE, LINEAGE, state_path
from local import debezium, demo_connectors
from local.demo_connectors import LAKEHOUSE_SINK
from tests.fixtures import load_event
from tests.integration.lineage.conftest import BROKERS, MAPPING_PATH, REGION, Failed, Lakehouse
from tests.integration.lineage.test_glue_lineage import (
    BOTH,
    CUSTOMERS,
    NO_RULE,
    ORDERS,
    WITH_RULE,
    Graph,
    inventory,
    posts,
    table_arn,
)

GLUE = '["glue"]'
CUSTOMERS_KEY = f"cdc/{CUSTOMERS}>lakehouse/customers"


def targets(lakehouse: Lakehouse, value: str) -> None:
    lakehouse.monkeypatch.setenv("LINEAGE_TARGETS", value)


def state(part: str) -> dict[str, object]:
    """The emission state of one target as stored (SSM, packed)."""
    return dict(PackedStore(boto3.client("ssm", region_name=REGION), state_path(MAPPING_PATH, part)).load())


def datazone_calls(lakehouse: Lakehouse) -> dict[str, int]:
    """Every DataZone lineage call made since the last reset."""
    return {
        name: count
        for name, count in lakehouse.aws.call_counts().items()
        if name.startswith("datazone:") and "LineageEvent" in name and count
    }


def test_glue_alone_gets_every_edge_and_datazone_nothing(lakehouse: Lakehouse) -> None:
    # Given lineageTargets ["glue"] and two topics, each feeding its table
    lakehouse.configure(WITH_RULE)
    targets(lakehouse, GLUE)
    inventory(lakehouse)
    # When lineage runs under its deployed role
    result = lakehouse.emit()
    # Then Glue got both edges, every call was allowed, and DataZone got no lineage call and no state
    assert lakehouse.aws.iam.denials == []
    assert (result["glue"]["posted"], result["failed"]) == (2, []), result
    assert posts(lakehouse) == 2
    assert datazone_calls(lakehouse) == {}
    assert lakehouse.events() == []
    assert state(LINEAGE) == {}
    assert CUSTOMERS_KEY in state(GLUE_LINEAGE)
    # And the result reports no DataZone work: nothing emitted, nothing unchanged
    assert (result["emitted"], result["unchanged"], result["retracted"]) == (0, 0, [])
    (job,) = Graph(lakehouse).upstream(table_arn("lakehouse", "customers"))
    assert job["TypeName"] == "Job"
    # When it runs again with nothing changed, then nothing is posted, written, or counted for DataZone
    lakehouse.reset_calls()
    again = lakehouse.emit()
    assert (again["glue"]["posted"], again["glue"]["unchanged"], again["stateWrites"]) == (0, 2, 0)
    assert (again["emitted"], again["unchanged"]) == (0, 0)
    assert lakehouse.count("ssm:PutParameter") == posts(lakehouse) == 0


def test_glue_alone_closes_a_remapped_topics_old_job(lakehouse: Lakehouse) -> None:
    # Given the customers edge in Glue's graph alone
    lakehouse.configure(WITH_RULE)
    targets(lakehouse, GLUE)
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.table("customers", ("id", "int"), "email")
    lakehouse.table("customers_v2", ("id", "int"), "email", database="curated")
    lakehouse.emit()
    # When an operator maps the topic to another table
    lakehouse.mapping("customers", topic=CUSTOMERS, database="curated", table="customers_v2")
    result = lakehouse.emit()
    # Then Glue gets the new edge and a closing run of the old job, its state moves, and DataZone has nothing
    assert result["glue"]["posted"] == 1
    (closed,) = result["glue"]["closed"]
    assert (closed["table"], closed["closingRun"]) == ("lakehouse/customers", True)
    assert set(state(GLUE_LINEAGE)) == {f"cdc/{CUSTOMERS}>curated/customers_v2"}
    assert (state(LINEAGE), lakehouse.events()) == ({}, [])
    # And a rerun closes nothing again
    assert lakehouse.emit()["glue"]["closed"] == []


def test_glue_alone_keeps_connector_edges_whose_connectors_cannot_be_read(lakehouse: Lakehouse) -> None:
    # Given a sink connector's two edges posted to Glue alone
    lakehouse.configure(NO_RULE)
    targets(lakehouse, GLUE)
    inventory(lakehouse)
    demo_connectors.create(boto3.client("kafkaconnect"), "lakehouse-sink", LAKEHOUSE_SINK, BROKERS)
    assert lakehouse.emit()["glue"]["posted"] == 2
    # When the role can no longer list MSK Connect connectors
    lakehouse.aws.iam.revoke("lineage-emission", "kafkaconnect:ListConnectors")
    with pytest.raises(Failed) as raised:
        lakehouse.emit()
    # Then the failure is reported, and Glue closes nothing: the edges are kept by their origin, from Glue's
    # own state
    summary = raised.value.summary
    assert "kafkaconnect:ListConnectors" in summary["connectorErrors"][0]["error"]
    assert summary["keptConnectorEdges"] == 2
    assert (summary["glue"]["closed"], summary["glue"]["posted"]) == ([], 0)
    assert len(state(GLUE_LINEAGE)) == 2


def test_glue_alone_keeps_checking_and_announcing_drift(lakehouse: Lakehouse) -> None:
    # Given customers v1 posted to Glue alone, its table fed column by column
    lakehouse.configure(WITH_RULE)
    targets(lakehouse, GLUE)
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email")
    lakehouse.emit(load_event("lineage_scheduled"))
    caught = lakehouse.catch_drift()
    # When v2 drops `email` and lineage runs
    lakehouse.schema(CUSTOMERS, debezium.table_without("customers", "email"))
    result = lakehouse.emit(load_event("lineage_scheduled"))
    # Then the breaking drift is announced once, naming the impacted column, and Glue got the new version
    (event,) = caught.drain()
    assert (event["detail"]["severity"], event["detail"]["impacted"][0]["columns"]) == ("breaking", ["email"])
    (reported,) = result["drift"]
    assert reported["announced"] is True
    assert (result["glue"]["posted"], result["failed"]) == (1, [])
    assert (state(LINEAGE), lakehouse.events()) == ({}, [])
    # When lineage runs again, then the drift is not announced again
    assert lakehouse.emit(load_event("lineage_scheduled"))["drift"] == []
    assert caught.drain() == []


def test_a_dry_run_with_glue_alone_lists_glue_posts_only(lakehouse: Lakehouse) -> None:
    # Given two new edges and the Glue graph alone
    lakehouse.configure(WITH_RULE)
    targets(lakehouse, GLUE)
    inventory(lakehouse)
    # When a dry run plans them
    result = lakehouse.emit({"dryRun": True})
    # Then it lists the two Glue posts and nothing for DataZone, and posts nothing
    planned = sorted((p.get("target"), p["action"], p["topic"]) for p in result["planned"])
    assert planned == [("glue", "post", CUSTOMERS), ("glue", "post", ORDERS)]
    assert result["emitted"] == 0
    assert posts(lakehouse) == 0


def test_datazone_added_to_glue_gets_every_current_edge_once(lakehouse: Lakehouse) -> None:
    # Given two edges posted to Glue alone
    lakehouse.configure(WITH_RULE)
    targets(lakehouse, GLUE)
    inventory(lakehouse)
    assert lakehouse.emit()["glue"]["posted"] == 2
    # When DataZone is added
    targets(lakehouse, '["glue", "datazone"]')
    lakehouse.reset_calls()
    added = lakehouse.emit()
    # Then DataZone gets both edges, once, and Glue posts nothing again
    assert (added["emitted"], added["glue"]["posted"], added["glue"]["unchanged"]) == (2, 0, 2)
    assert posts(lakehouse) == 0
    assert len(lakehouse.runs()) == 2
    assert CUSTOMERS_KEY in state(LINEAGE)
    # And the next run posts nothing to either
    lakehouse.reset_calls()
    again = lakehouse.emit()
    assert (again["emitted"], again["unchanged"], again["glue"]["posted"]) == (0, 2, 0)
    assert lakehouse.count("datazone:PostLineageEvent") == posts(lakehouse) == 0


def test_datazone_removed_leaves_its_graph_and_state_as_they_were(lakehouse: Lakehouse) -> None:
    # Given both edges in both graphs
    lakehouse.configure(WITH_RULE)
    targets(lakehouse, BOTH)
    inventory(lakehouse)
    lakehouse.emit()
    runs, datazone_state = lakehouse.runs(), state(LINEAGE)
    # When DataZone is removed, and the orders schema is then deleted
    targets(lakehouse, GLUE)
    lakehouse.reset_calls()
    unchanged = lakehouse.emit()
    lakehouse.drop_schema(ORDERS)
    lakehouse.reset_calls()
    dropped = lakehouse.emit()
    # Then no DataZone lineage call is made: its runs and its state stay as they were (nothing is deleted)
    assert (unchanged["glue"]["posted"], unchanged["glue"]["unchanged"], unchanged["emitted"]) == (0, 2, 0)
    assert datazone_calls(lakehouse) == {}
    assert (lakehouse.runs(), state(LINEAGE)) == (runs, datazone_state)
    # And Glue closes the orders edge (its job's closing run) and forgets it
    (closed,) = dropped["glue"]["closed"]
    assert closed["topic"] == ORDERS
    assert set(state(GLUE_LINEAGE)) == {CUSTOMERS_KEY}
    # When DataZone is added back, then it catches up from its own state: the orders edge is retracted
    targets(lakehouse, BOTH)
    back = lakehouse.emit()
    assert [r["topic"] for r in back["retracted"]] == [ORDERS]
    assert (back["emitted"], back["unchanged"], back["glue"]["posted"]) == (0, 1, 0)
