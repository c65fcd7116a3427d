"""Options on EventBridge events, through the lineage handler on the stand-ins: a dry run posts and writes
nothing, `force` on a Topic Asset Changed event re-posts, a schedule's `allowMassDelete` lifts the
retraction fail-safe, and an unknown key is refused before anything is read or written."""

from __future__ import annotations

import pytest

from kafka_lineage.model.requests import InvalidRequest
from local import debezium
from tests.fixtures import load_event
from tests.integration.lineage.conftest import Failed, FakeContext, Lakehouse
from tests.integration.lineage.test_lineage_emission import CUSTOMERS, ORDERS, customers

# What a lineage run may write: lineage events, their deletion, the emission state, the drift announcement.
WRITES = (
    "datazone:PostLineageEvent",
    "datazone:DeleteLineageEvent",
    "ssm:PutParameter",
    "ssm:DeleteParameter",
    "events:PutEvents",
)


def writes(lakehouse: Lakehouse) -> dict[str, int]:
    calls = lakehouse.aws.call_counts()
    return {operation: calls[operation] for operation in WRITES if calls[operation]}


def orders(lakehouse: Lakehouse) -> None:
    lakehouse.schema(ORDERS, debezium.table_envelope("orders"))
    lakehouse.table("orders", "order_number")


def test_given_a_scheduled_event_with_dry_run_when_invoked_then_nothing_is_posted_or_written(
    lakehouse: Lakehouse,
) -> None:
    # Given a topic whose edge was never emitted
    customers(lakehouse)
    lakehouse.reset_calls()
    # When the schedule's event arrives with "dryRun": true beside its envelope
    result = lakehouse.emit(load_event("options/scheduled_dry_run"))
    # Then the edge is planned, and nothing is posted, written or announced
    assert result["dryRun"] is True
    assert [action["action"] for action in result["planned"]] == ["emit"]
    assert writes(lakehouse) == {}
    assert lakehouse.events() == []


def test_given_a_topic_asset_changed_event_with_force_when_invoked_then_the_unchanged_edge_is_reposted(
    lakehouse: Lakehouse,
) -> None:
    # Given the topic's edge emitted, so the plain event finds it unchanged
    customers(lakehouse)
    lakehouse.emit()
    (run_id,) = lakehouse.runs()
    lakehouse.reset_calls()
    assert lakehouse.emit(load_event("topic_asset_changed"))["unchanged"] == 1
    assert writes(lakehouse) == {}
    # When the same event arrives with "force": true
    forced = lakehouse.emit(
        load_event("options/topic_asset_changed_force"),
        FakeContext(aws_request_id="7a2b0c3d-0000-4000-8000-000000000002"),
    )
    # Then that topic's run is posted again (START and COMPLETE), and DataZone keeps one copy of it
    assert [(e["topic"], e["reason"]) for e in forced["emissions"]] == [(CUSTOMERS, "forced")]
    assert lakehouse.count("datazone:PostLineageEvent") == 2
    assert lakehouse.runs() == {run_id: ["START", "COMPLETE"]}


def test_given_a_schedule_with_allow_mass_delete_when_invoked_then_the_retraction_fail_safe_is_lifted(
    lakehouse: Lakehouse,
) -> None:
    # Given two emitted edges whose schemas then vanish from the mapping without any event
    customers(lakehouse)
    orders(lakehouse)
    lakehouse.emit()
    lakehouse.drop_schema(CUSTOMERS)
    lakehouse.drop_schema(ORDERS)
    # When the plain schedule runs, then the fail-safe holds both retractions back
    with pytest.raises(Failed) as held:
        lakehouse.emit(load_event("lineage_scheduled"))
    assert len(held.value.summary["failed"]) == 2
    assert len(lakehouse.edges()) == 2
    # When the schedule carries "allowMassDelete": true, then both edges are retracted
    result = lakehouse.emit(load_event("options/scheduled_allow_mass_delete"))
    assert sorted(r["topic"] for r in result["retracted"]) == sorted([CUSTOMERS, ORDERS])
    assert lakehouse.edges() == {}


@pytest.mark.parametrize(
    ("fixture", "key"),
    [
        ("options/scheduled_unknown_key", "dryrun"),
        ("options/topic_asset_changed_allow_mass_delete", "allowMassDelete"),
        ("options/scheduled_verify", "verify"),
        ("options/scheduled_dry_run_as_string", "dryRun"),
    ],
)
def test_given_a_refused_key_on_an_event_when_invoked_then_it_is_named_and_nothing_is_done(
    lakehouse: Lakehouse, fixture: str, key: str
) -> None:
    # Given a topic to emit
    customers(lakehouse)
    lakehouse.reset_calls()
    # When an event carries a key the function refuses for it, then the error names it
    with pytest.raises(InvalidRequest, match=key):
        lakehouse.emit(load_event(fixture))
    # And nothing was read or written
    assert dict(lakehouse.aws.call_counts()) == {}
