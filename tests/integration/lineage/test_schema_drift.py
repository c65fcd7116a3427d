"""Schema drift through the lineage handler on the stand-ins (each function under its deployed role).

A new schema version that drops a field feeding a table column is announced once on the default bus as
"Schema Drift Detected", counted, summarised in SSM for the topic's asset, and carried by the new run's
`schemaDrift` facet; a version whose changes feed no column is recorded and never announced.
"""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import pytest

from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.drift import DriftSummary
from kafka_lineage.model.state_layout import DRIFT, state_path
from local import debezium
from tests.fixtures import CLUSTER_ARN, DOMAIN_ID, load_event
from tests.integration.lineage.conftest import MAPPING_PATH, REGION, TABLE_NAMESPACE, Failed, Lakehouse

CUSTOMERS = debezium.topic_for("customers")


def _customers_v1(lakehouse: Lakehouse, data_format: str = "AVRO") -> None:
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers", data_format), data_format=data_format)
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email")
    lakehouse.emit(load_event("lineage_scheduled"))


def _summaries() -> dict[str, DriftSummary]:
    store = PackedStore(boto3.client("ssm", region_name=REGION), state_path(MAPPING_PATH, DRIFT))
    return {key: DriftSummary.from_entry(entry) for key, entry in store.load().items()}


def test_a_version_that_drops_a_fed_column_is_announced_once_with_the_impacted_column(
    lakehouse: Lakehouse,
) -> None:
    # Given customers v1 emitted, its table fed column by column
    _customers_v1(lakehouse)
    caught = lakehouse.catch_drift()
    # When v2 drops `email` and lineage runs
    lakehouse.schema(CUSTOMERS, debezium.table_without("customers", "email"))
    result = lakehouse.emit(load_event("lineage_scheduled"))
    # Then one breaking drift is announced, naming the field, the table and the column
    (event,) = caught.drain()
    assert event["source"] == "kafka-lineage.lineage-emission"
    assert event["detail-type"] == "Schema Drift Detected"
    detail = event["detail"]
    assert (detail["registryName"], detail["topic"]) == ("cdc", CUSTOMERS)
    assert (detail["fromVersion"], detail["toVersion"], detail["severity"]) == (1, 2, "breaking")
    assert {"field": "after.email", "change": "removed", "before": "string", "after": None} in detail[
        "changes"
    ]
    (impacted,) = detail["impacted"]
    assert impacted["table"] == "lakehouse/customers"
    assert impacted["tableArn"] == f"{TABLE_NAMESPACE}/lakehouse/customers"
    assert impacted["columns"] == ["email"]
    # And the result reports it, and the run for v2 was posted
    assert result["emitted"] == 1
    assert result["failed"] == []
    (reported,) = result["drift"]
    assert reported["severity"] == "breaking"
    assert reported["announced"] is True
    # And the summary for the asset is kept, for these two versions
    summary = _summaries()[f"cdc/{CUSTOMERS}"]
    assert (summary.from_version, summary.to_version, summary.severity) == (1, 2, "breaking")
    assert summary.impacted_tables == ("lakehouse/customers",)
    # And the v2 run carries the change in its schemaDrift run facet
    facets = [e["run"]["facets"] for e in lakehouse.events()]
    assert facets
    assert all(f["schemaDrift"]["severity"] == "breaking" for f in facets)
    assert facets[0]["schemaDrift"]["changes"][0]["field"] == "after.email"
    # When lineage runs again, scheduled or forced
    again = lakehouse.emit(load_event("lineage_scheduled"))
    forced = lakehouse.emit({"force": True})
    # Then the drift is not announced again
    assert caught.drain() == []
    assert again["drift"] == []
    assert forced["drift"] == []


def test_a_version_whose_changes_feed_no_column_is_recorded_but_not_announced(lakehouse: Lakehouse) -> None:
    # Given customers v1 emitted
    _customers_v1(lakehouse)
    caught = lakehouse.catch_drift()
    # When v2 adds a nullable `phone` the table has no column for
    lakehouse.schema(CUSTOMERS, debezium.table_v2("customers"))
    result = lakehouse.emit(load_event("lineage_scheduled"))
    # Then nothing is announced, and the pair is recorded as checked (severity info)
    assert caught.drain() == []
    assert result["failed"] == []
    summary = _summaries()[f"cdc/{CUSTOMERS}"]
    assert (summary.from_version, summary.to_version, summary.severity) == (1, 2, "info")
    assert summary.impacted_tables == ()


def test_a_dry_run_shows_the_drift_it_would_announce_and_announces_nothing(lakehouse: Lakehouse) -> None:
    # Given customers v1 emitted and a v2 without `email`
    _customers_v1(lakehouse)
    caught = lakehouse.catch_drift()
    lakehouse.schema(CUSTOMERS, debezium.table_without("customers", "email"))
    # When lineage runs as a dry run
    result = lakehouse.emit({"dryRun": True})
    # Then the plan lists the drift with its severity and impacted table
    (drift,) = [item for item in result["planned"] if item["action"] == "drift"]
    assert (drift["fromVersion"], drift["toVersion"], drift["severity"]) == (1, 2, "breaking")
    assert drift["impactedTables"] == ["lakehouse/customers"]
    # And nothing was announced or saved
    assert caught.drain() == []
    assert _summaries() == {}
    # When the real run follows, it announces the drift
    lakehouse.emit(load_event("lineage_scheduled"))
    assert len(caught.drain()) == 1


def test_a_refused_announcement_fails_the_topic_and_is_retried_next_run(lakehouse: Lakehouse) -> None:
    # Given customers v1 emitted, a v2 without `email`, and a lineage role without events:PutEvents
    _customers_v1(lakehouse)
    caught = lakehouse.catch_drift()
    lakehouse.schema(CUSTOMERS, debezium.table_without("customers", "email"))
    lakehouse.aws.iam.revoke("lineage-emission", "events:PutEvents")
    # When lineage runs, then it raises after finishing, with the topic's announcement in `failed`
    with pytest.raises(Failed) as raised:
        lakehouse.emit(load_event("lineage_scheduled"))
    summary = raised.value.summary
    (failure,) = summary["failed"]
    assert failure["topic"] == CUSTOMERS
    assert failure["error"].startswith("schema drift not announced:")
    assert "events:PutEvents" in failure["error"]
    # And the v2 run is still posted, and nothing is recorded as checked
    assert summary["emitted"] == 1
    assert _summaries() == {}
    assert caught.drain() == []
    # When the grant is back and lineage runs again
    lakehouse.aws.iam.revoked.clear()
    lakehouse.emit(load_event("lineage_scheduled"))
    # Then the drift is announced, once
    (event,) = caught.drain()
    assert event["detail"]["severity"] == "breaking"


def test_impact_follows_an_explicit_mapping_to_a_table_the_rule_would_not_name(lakehouse: Lakehouse) -> None:
    # Given customers mapped by an operator to analytics.customer_dim, which takes `email` as it is
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.table("customer_dim", ("id", "int"), "email", "segment", database="analytics")
    lakehouse.mapping("team/customers", topic=CUSTOMERS, database="analytics", table="customer_dim")
    lakehouse.configure({"registryName": "cdc", "clusterArn": CLUSTER_ARN})  # no table rule
    lakehouse.emit(load_event("lineage_scheduled"))
    caught = lakehouse.catch_drift()
    # When v2 drops `email`
    lakehouse.schema(CUSTOMERS, debezium.table_without("customers", "email"))
    lakehouse.emit(load_event("lineage_scheduled"))
    # Then the drift names the mapped table and its column
    (event,) = caught.drain()
    (impacted,) = event["detail"]["impacted"]
    assert (impacted["table"], impacted["columns"]) == ("analytics/customer_dim", ["email"])


def test_the_announcement_names_what_lies_downstream_of_the_impacted_table(lakehouse: Lakehouse) -> None:
    # Given customers v1 emitted, and DataZone's native lineage on from its table: a Glue ETL run writing a
    # Redshift table that feeds a dashboard
    _customers_v1(lakehouse)
    table_arn = f"{TABLE_NAMESPACE}/lakehouse/customers"
    etl, redshift = "glue-etl.customers_to_redshift/jr_1", "redshift://dwh:5439/dev/public/customers"
    dashboard = "arn:aws:quicksight:eu-west-1:123456789012:dashboard/churn"
    native = lakehouse.aws.datazone.native_lineage(DOMAIN_ID)
    at = datetime.now(UTC)
    native.add_node(etl, "amazon.datazone.JobRunLineageNodeType", "jr_1", at)
    native.add_node(redshift, "amazon.datazone.DatasetLineageNodeType", "dev.public.customers", at)
    native.add_node(dashboard, "amazon.datazone.DatasetLineageNodeType", "churn", at)
    for upstream, downstream in ((table_arn, etl), (etl, redshift), (redshift, dashboard)):
        native.add_edge(upstream, downstream, at)
    caught = lakehouse.catch_drift()
    # When v2 drops `email`
    lakehouse.schema(CUSTOMERS, debezium.table_without("customers", "email"))
    lakehouse.emit(load_event("lineage_scheduled"))
    # Then the impacted table's downstream nodes are in the event, each with its distance in data steps
    (event,) = caught.drain()
    (impacted,) = event["detail"]["impacted"]
    reached = {(node["sourceIdentifier"], node["hops"]) for node in impacted["downstream"]}
    assert reached == {(etl, 1), (redshift, 1), (dashboard, 2)}
