"""The DataZone stand-in's GetLineageNode over native lineage, and its two graph readings."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from local.standins.datazone import DataZoneBackend
from local.standins.datazone.graph import node_id
from local.standins.errors import ServiceError
from local.standins.iam_requests import Where, requests_for
from local.standins.readings import Readings
from tests.unit.standins.test_datazone_support import DOMAIN, GLUE_NAMESPACE, PROJECT, Clock, run_event

TOPIC = "dbserver1.inventory.orders"
TABLE_ARN = f"{GLUE_NAMESPACE}/lakehouse/orders"
REDSHIFT = "redshift://analytics:5439/dev/public/orders"
DASHBOARD = "arn:aws:quicksight:eu-west-1:123456789012:dashboard/orders"
DATASET = "amazon.datazone.DatasetLineageNodeType"
T0 = datetime(2026, 3, 1, 10, tzinfo=UTC)  # before the run (11:00)
T2 = datetime(2026, 3, 1, 13, tzinfo=UTC)  # after it


class Stand:
    def __init__(self, **readings: Any) -> None:
        self.backend = DataZoneBackend(Readings(**readings), seed=3, clock=Clock())
        self.backend.add_domain(DOMAIN, project_ids=[PROJECT])
        self.native = self.backend.native_lineage(DOMAIN)

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        return self.backend.handle(operation, {"domainIdentifier": DOMAIN, **params})

    def node(self, identifier: str, **params: Any) -> dict[str, Any]:
        return self.call("GetLineageNode", identifier=identifier, **params)

    def downstream(self, identifier: str, **params: Any) -> set[str]:
        answer = self.node(identifier, **params)
        return {self.node(ref["id"])["sourceIdentifier"] for ref in answer.get("downstreamNodes", [])}

    def run(self) -> None:
        run_id = str(uuid.uuid4())
        for kind, second in (("START", "00"), ("COMPLETE", "05")):
            event = run_event(TOPIC, "lakehouse/orders", kind, run_id, f"2026-03-01T11:00:{second}+00:00")
            self.call("PostLineageEvent", event=json.dumps(event).encode("utf-8"))


def test_given_native_edges_then_posted_and_native_lineage_meet_on_the_table_node():
    # Given our run topic -> table, and native lineage table -> redshift -> dashboard
    stand = Stand()
    stand.run()
    stand.native.add_node(REDSHIFT, DATASET, "dev.public.orders", T2)
    stand.native.add_edge(TABLE_ARN, REDSHIFT, T2)
    stand.native.add_edge(REDSHIFT, DASHBOARD, T2)
    # When / Then
    assert stand.downstream(TABLE_ARN) == {REDSHIFT}
    assert stand.downstream(REDSHIFT) == {DASHBOARD}
    table = stand.node(TABLE_ARN)
    assert len(table["upstreamNodes"]) == 1  # our sink's run
    dashboard = stand.node(DASHBOARD)
    # An edge's endpoint no node describes is a dataset named by its sourceIdentifier
    assert (dashboard["typeName"], dashboard["name"]) == (DATASET, DASHBOARD)
    assert stand.node(REDSHIFT)["name"] == "dev.public.orders"


def test_given_an_event_timestamp_then_native_edges_after_it_are_not_there_yet():
    stand = Stand()
    stand.run()
    stand.native.add_edge(TABLE_ARN, REDSHIFT, T2)
    assert stand.downstream(TABLE_ARN, eventTimestamp=T2 - timedelta(minutes=1)) == set()
    assert stand.downstream(TABLE_ARN, eventTimestamp=T2) == {REDSHIFT}


def test_given_a_change_to_native_lineage_then_the_next_read_sees_it():
    stand = Stand()
    stand.run()
    assert stand.downstream(TABLE_ARN) == set()
    stand.native.add_edge(TABLE_ARN, REDSHIFT, T2)
    assert stand.downstream(TABLE_ARN) == {REDSHIFT}


@pytest.mark.parametrize("lookup_posted", [True, False])
def test_a_node_only_posted_events_drew_resolves_by_source_identifier_only_under_the_reading(
    lookup_posted: bool,
):
    # Given a table only our run drew, and a Redshift table native lineage drew
    stand = Stand(lineage_node_lookup_posted=lookup_posted)
    stand.run()
    stand.native.add_node(REDSHIFT, DATASET, "dev.public.orders", T2)
    # When / Then: native nodes resolve by sourceIdentifier either way
    assert stand.node(REDSHIFT)["sourceIdentifier"] == REDSHIFT
    if lookup_posted:
        assert stand.node(TABLE_ARN)["sourceIdentifier"] == TABLE_ARN
    else:
        with pytest.raises(ServiceError) as caught:
            stand.node(TABLE_ARN)
        assert caught.value.code == "ResourceNotFoundException"
    # And the node id always resolves (the stand-in derives ids from sourceIdentifiers)
    assert stand.node(node_id(TABLE_ARN))["sourceIdentifier"] == TABLE_ARN


@pytest.mark.parametrize(
    ("reading", "listed"), [("all", {REDSHIFT, DASHBOARD}), ("latest_version", {DASHBOARD})]
)
def test_which_neighbours_a_node_lists_follows_the_reading(reading: str, listed: set[str]):
    # Given two native reads of the table, at T0 and at T2
    stand = Stand(lineage_node_neighbours=reading)
    stand.native.add_edge(TABLE_ARN, REDSHIFT, T0)
    stand.native.add_edge(TABLE_ARN, DASHBOARD, T2)
    # When / Then
    assert stand.downstream(TABLE_ARN) == listed


def test_under_latest_version_our_later_run_hides_an_earlier_native_read():
    stand = Stand(lineage_node_neighbours="latest_version")
    stand.native.add_edge(TABLE_ARN, REDSHIFT, T0)
    stand.run()
    assert stand.downstream(TABLE_ARN) == set()
    assert stand.downstream(TABLE_ARN, eventTimestamp=T0) == {REDSHIFT}


def test_an_unknown_neighbour_reading_is_refused():
    stand = Stand(lineage_node_neighbours="some")
    stand.native.add_edge(TABLE_ARN, REDSHIFT, T0)
    with pytest.raises(ValueError, match="lineage_node_neighbours"):
        stand.node(TABLE_ARN)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda n: n.add_edge(TABLE_ARN, TABLE_ARN, T0), "two nodes"),
        (lambda n: n.add_edge(TABLE_ARN, REDSHIFT, T0.replace(tzinfo=None)), "timezone"),
        (lambda n: n.add_node(REDSHIFT, DATASET, "x", T0.replace(tzinfo=None)), "timezone"),
    ],
)
def test_the_test_hook_refuses_what_lineage_cannot_be(call: Any, message: str):
    with pytest.raises(ValueError, match=message):
        call(Stand().native)


def test_iam_mode_asks_for_get_lineage_node_on_any_resource_as_the_sar_says():
    # Given the SAR: datazone:GetLineageNode takes no resource type
    where = Where("eu-west-1", "123456789012")
    # When a walk's request is authorised
    (request,) = requests_for(
        "datazone", "GetLineageNode", {"domainIdentifier": DOMAIN, "identifier": TABLE_ARN}, where
    )
    # Then IAM is asked for the action on "*"
    assert (request.action, request.resources) == ("datazone:GetLineageNode", ("*",))
