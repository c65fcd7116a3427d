"""What lies downstream of a Glue table, walked on the DataZone stand-in under the lineage function's role.

The lineage function draws topic -> table (two runs: schema v1, then v2 dropping a column); DataZone's
native lineage (Glue ETL, EMR, Redshift, a dashboard) continues from the table:

    customers table -> etl run -> redshift customers ---------> dashboard -> export
                    |          \\-> redshift history ----------^
                    |-> emr run         \\-> reverse-etl run -> customers table (a cycle)
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from kafka_lineage.aws.clients import RETRY_CONFIG
from kafka_lineage.aws.lineage_graph import DataZoneDownstreamWalker
from kafka_lineage.aws.pacing import RateLimiter
from local import debezium
from local.world import deployed_role
from tests.fixtures import DOMAIN_ID
from tests.integration.lineage.conftest import REGION, TABLE_NAMESPACE, Lakehouse

DATASET = "amazon.datazone.DatasetLineageNodeType"
RUN = "amazon.datazone.JobRunLineageNodeType"
CUSTOMERS = debezium.topic_for("customers")
TABLE_ARN = f"{TABLE_NAMESPACE}/lakehouse/customers"
ETL = "glue-etl.customers_to_redshift/jr_0001"
EMR = "emr.nightly_scoring/step-0042"
REDSHIFT = "redshift://analytics.abc123.eu-west-1:5439/dev/public/customers"
HISTORY = "redshift://analytics.abc123.eu-west-1:5439/dev/public/customers_history"
DASHBOARD = "arn:aws:quicksight:eu-west-1:123456789012:dashboard/customer-churn"
EXPORT = "s3://exports/customer-churn"
REVERSE = "reverse-etl.crm_sync/run-7"


def two_runs(lakehouse: Lakehouse) -> None:
    """Schema v1 emitted, then v2 (without `email`) emitted: two runs of topic -> table."""
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email")
    assert lakehouse.emit()["emitted"] == 1
    kept = tuple(c for c in debezium.TABLES["customers"] if c.name != "email")
    lakehouse.schema(CUSTOMERS, debezium.render(debezium.envelope(CUSTOMERS, kept), "AVRO"))
    assert lakehouse.emit()["emitted"] == 1


def native_downstream(lakehouse: Lakehouse, at: datetime) -> None:
    """What DataZone's own Glue, EMR and Redshift lineage would draw from the table on."""
    native = lakehouse.aws.datazone.native_lineage(DOMAIN_ID)
    for sid, type_name, name in (
        (ETL, RUN, "jr_0001"),
        (EMR, RUN, "step-0042"),
        (REVERSE, RUN, "run-7"),
        (REDSHIFT, DATASET, "dev.public.customers"),
        (HISTORY, DATASET, "dev.public.customers_history"),
        (DASHBOARD, DATASET, "customer-churn"),
        (EXPORT, DATASET, "customer-churn export"),
    ):
        native.add_node(sid, type_name, name, at)
    for upstream, downstream in (
        (TABLE_ARN, ETL),
        (ETL, REDSHIFT),
        (ETL, HISTORY),
        (TABLE_ARN, EMR),
        (REDSHIFT, DASHBOARD),
        (HISTORY, DASHBOARD),
        (REDSHIFT, REVERSE),
        (REVERSE, TABLE_ARN),
        (DASHBOARD, EXPORT),
    ):
        native.add_edge(upstream, downstream, at)


@contextmanager
def as_lineage_function(lakehouse: Lakehouse) -> Iterator[Any]:
    """A DataZone client signed as the deployed lineage function's role."""
    with lakehouse.aws.iam.acting_as(deployed_role(lakehouse.aws, "lineage-emission", {})):
        # A new session reads the role's keys from the environment, as the function's clients do.
        yield boto3.session.Session().client("datazone", region_name=REGION, config=RETRY_CONFIG)


def walk(lakehouse: Lakehouse, depth: int) -> tuple[list[tuple[str | None, int]], DataZoneDownstreamWalker]:
    with as_lineage_function(lakehouse) as datazone:
        walker = DataZoneDownstreamWalker(datazone, DOMAIN_ID, depth=depth, limiter=RateLimiter(100.0))
        found = walker(TABLE_ARN)
    return [(node.source_identifier, node.hops) for node in found], walker


def later() -> datetime:
    return datetime.now(UTC) + timedelta(hours=1)


def sorted_by_hops(found: Sequence[tuple[str | None, int]]) -> list[tuple[str | None, int]]:
    return sorted(found, key=lambda item: (item[1], item[0] or ""))


STEP_1 = [(EMR, 1), (ETL, 1), (REDSHIFT, 1), (HISTORY, 1)]
STEP_2 = [(DASHBOARD, 2), (REVERSE, 2)]
STEP_3 = [(EXPORT, 3)]


@pytest.mark.parametrize(
    ("depth", "expected"),
    [(1, STEP_1), (2, STEP_1 + STEP_2), (3, STEP_1 + STEP_2 + STEP_3)],
)
@pytest.mark.parametrize("lookup_posted", [True, False])
def test_the_walk_reaches_native_lineage_step_by_step(
    lakehouse: Lakehouse, depth: int, expected: list[tuple[str, int]], lookup_posted: bool
) -> None:
    # Given two runs topic -> table, then native lineage on from the table (so the table is known to it,
    # whether or not DataZone resolves nodes only posted events drew)
    lakehouse.aws.set_readings(lineage_node_lookup_posted=lookup_posted)
    two_runs(lakehouse)
    native_downstream(lakehouse, later())
    lakehouse.reset_calls()
    # (the v2 run already walked the table for its drift, before the native lineage existed)
    allowed_before = lakehouse.aws.iam.allowed["lineage-emission datazone:GetLineageNode"]
    # When the lineage function's role walks it
    found, walker = walk(lakehouse, depth)
    # Then each node is listed once, at its data steps from the table; the cycle back to it ends there
    assert sorted_by_hops(found) == sorted_by_hops(expected)
    # And one GetLineageNode a node plus one for the table, nothing else
    report = walker.reports[TABLE_ARN]
    assert (report.found, report.complete, report.nodes) == (True, True, len(expected))
    assert lakehouse.aws.call_counts("datazone") == {"datazone:GetLineageNode": 1 + len(expected)}
    assert lakehouse.aws.iam.denials == []
    allowed = lakehouse.aws.iam.allowed["lineage-emission datazone:GetLineageNode"] - allowed_before
    assert allowed == 1 + len(expected)


def test_the_topic_feeding_the_table_is_upstream_and_never_listed(lakehouse: Lakehouse) -> None:
    two_runs(lakehouse)
    native_downstream(lakehouse, later())
    found, _ = walk(lakehouse, 10)
    listed = {sid for sid, _ in found}
    assert not any(sid and sid.startswith("kafka") for sid in listed)
    assert TABLE_ARN not in listed


def post_spark_report(lakehouse: Lakehouse) -> str:
    """A Spark job posting OpenLineage itself: table -> report table (posted, not native); its run id."""
    run_id = str(uuid.uuid4())
    event = {
        "eventType": "COMPLETE",
        "eventTime": later().isoformat(),
        "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.22.0/integration/spark",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id},
        "job": {"namespace": "spark", "name": "churn_report"},
        "inputs": [{"namespace": TABLE_NAMESPACE, "name": "lakehouse/customers"}],
        "outputs": [{"namespace": TABLE_NAMESPACE, "name": "reports/churn"}],
    }
    boto3.client("datazone", region_name=REGION).post_lineage_event(
        domainIdentifier=DOMAIN_ID, event=json.dumps(event).encode("utf-8")
    )
    return run_id


@pytest.mark.parametrize("lookup_posted", [True, False])
def test_a_table_only_posted_events_drew_is_found_only_if_its_source_identifier_resolves(
    lakehouse: Lakehouse, lookup_posted: bool
) -> None:
    # Given the table and its downstream known only from posted events (our runs, a Spark job's run)
    lakehouse.aws.set_readings(lineage_node_lookup_posted=lookup_posted)
    two_runs(lakehouse)
    run_id = post_spark_report(lakehouse)
    # When walked
    found, walker = walk(lakehouse, 3)
    report = walker.reports[TABLE_ARN]
    # Then, when DataZone resolves such a node by sourceIdentifier, the Spark run and its table are there
    if lookup_posted:
        assert found == [(f"spark.churn_report/{run_id}", 1), (f"{TABLE_NAMESPACE}/reports/churn", 1)]
        assert report.found
    # Otherwise the table reads as having no lineage node: nothing downstream, said so, no error
    else:
        assert found == []
        assert (report.found, report.calls) == (False, 1)


def test_the_walk_sees_the_present_graph_whatever_the_versions_of_the_table(lakehouse: Lakehouse) -> None:
    # Given native lineage from the table drawn a day before the lineage function's runs
    lakehouse.aws.set_readings(lineage_node_neighbours="all")
    native_downstream(lakehouse, datetime.now(UTC) - timedelta(days=1))
    two_runs(lakehouse)
    # When walked
    found, _ = walk(lakehouse, 3)
    # Then (every version's neighbours listed) the native lineage is all there
    assert sorted_by_hops(found) == sorted_by_hops(STEP_1 + STEP_2 + STEP_3)


def test_under_latest_version_neighbours_a_table_last_loaded_by_our_run_shows_nothing_downstream(
    lakehouse: Lakehouse,
) -> None:
    # Given the same, where GetLineageNode lists only the neighbours of a node's latest version: the table's
    # latest version is the v2 run writing it, which links nothing downstream
    lakehouse.aws.set_readings(lineage_node_neighbours="latest_version")
    native_downstream(lakehouse, datetime.now(UTC) - timedelta(days=1))
    two_runs(lakehouse)
    # When walked
    found, walker = walk(lakehouse, 3)
    # Then the walk finds the table and nothing after it (the documented limit of this reading), no error
    assert found == []
    assert walker.reports[TABLE_ARN].found


def test_under_latest_version_neighbours_a_later_native_read_is_seen(lakehouse: Lakehouse) -> None:
    # Given native lineage drawn after the runs: the table's latest version is a native read of it
    lakehouse.aws.set_readings(lineage_node_neighbours="latest_version")
    two_runs(lakehouse)
    native_downstream(lakehouse, later())
    # When walked
    found, _ = walk(lakehouse, 3)
    # Then what the latest versions link is walked (one neighbour each, at most), each node once
    assert found
    assert len({sid for sid, _ in found}) == len(found)
    assert all(sid in {ETL, EMR, REDSHIFT, HISTORY, DASHBOARD, REVERSE, EXPORT} for sid, _ in found)


def test_without_the_grant_the_walk_is_denied_and_raises(lakehouse: Lakehouse) -> None:
    # Given the lineage role without datazone:GetLineageNode
    two_runs(lakehouse)
    native_downstream(lakehouse, later())
    lakehouse.aws.iam.revoke("lineage-emission", "datazone:GetLineageNode")
    # When walked, then AccessDenied raises (the drift core turns it into a warning)
    with pytest.raises(ClientError) as caught:
        walk(lakehouse, 3)
    assert caught.value.response["Error"]["Code"] == "AccessDeniedException"
