"""lineage-emission under its deployed role: a grant the stack did not give is a failure in the result."""

from __future__ import annotations

import pytest

from local import debezium
from tests.fixtures import load_event
from tests.integration.lineage.conftest import Failed, Lakehouse

CUSTOMERS = debezium.topic_for("customers")
ORDERS = debezium.topic_for("orders")


def two_topics(lakehouse: Lakehouse) -> None:
    lakehouse.schema(CUSTOMERS, debezium.table_envelope("customers"))
    lakehouse.table("customers", ("id", "int"), "first_name", "last_name", "email")
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("orders", "order_number", "purchaser")


def test_under_its_role_the_emission_draws_every_edge(lakehouse: Lakehouse) -> None:
    # Given two mapped topics and their tables, and the function running as its synthesized role
    two_topics(lakehouse)

    # When lineage is emitted
    result = lakehouse.emit(load_event("lineage_scheduled"))

    # Then every call was allowed and both edges exist
    assert (result["emitted"], result["failed"]) == (2, [])
    assert lakehouse.aws.iam.denials == []
    assert len(lakehouse.edges()) == 2


def test_a_role_without_post_lineage_event_fails_every_topic_with_access_denied(lakehouse: Lakehouse) -> None:
    # Given the role lacks datazone:PostLineageEvent
    two_topics(lakehouse)
    lakehouse.aws.iam.revoke("lineage-emission", "datazone:PostLineageEvent")

    # When lineage is emitted, then the run finishes every topic and raises with both in `failed`
    with pytest.raises(Failed) as raised:
        lakehouse.emit()

    failed = raised.value.summary["failed"]
    assert sorted(f["topic"] for f in failed) == [CUSTOMERS, ORDERS]
    for failure in failed:
        assert "AccessDeniedException" in failure["error"]
        assert "datazone:PostLineageEvent" in failure["error"]
    assert raised.value.summary["emitted"] == 0
    assert lakehouse.events() == []
    assert {d.action for d in lakehouse.aws.iam.denials} == {"datazone:PostLineageEvent"}


def test_a_role_without_get_tables_fails_each_topic_of_the_database_with_access_denied(
    lakehouse: Lakehouse,
) -> None:
    # Given the role lacks glue:GetTables, how the function reads a database's table columns in one batch
    two_topics(lakehouse)
    lakehouse.aws.iam.revoke("lineage-emission", "glue:GetTables")

    with pytest.raises(Failed) as raised:
        lakehouse.emit()

    # Then each topic whose table lies in that database fails, naming the action and the database
    failed = raised.value.summary["failed"]
    assert sorted(f["topic"] for f in failed) == [CUSTOMERS, ORDERS]
    for failure in failed:
        assert failure["error"].startswith("reading Glue database lakehouse failed: GetTables: AccessDenied")
        assert (
            "glue:GetTables on resource: arn:aws:glue:eu-west-1:123456789012:database/lakehouse"
            in (failure["error"])
        )
