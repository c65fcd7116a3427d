"""The targets that are on, as the plan step consults them (lineage/targets.py): DataZone's share of the plan,
what drift reads of it, and Glue's state as the plan's reference when DataZone is off."""

from __future__ import annotations

from kafka_lineage.lineage.glue.state import GlueEdgeState, load_glue_states, reference
from kafka_lineage.lineage.model import EdgeKey, LineageState
from kafka_lineage.lineage.plan import Failure, LineagePlan, Retract
from kafka_lineage.lineage.targets import Targets
from kafka_lineage.model.topics import TopicKey

CUSTOMERS = TopicKey("cdc", "dbserver1.inventory.customers")
ORDERS = TopicKey("cdc", "dbserver1.inventory.orders")
SINK = EdgeKey(CUSTOMERS, "sink", "lakehouse/customers")
GONE = EdgeKey(ORDERS, "sink", "lakehouse/orders")
KEPT = EdgeKey(ORDERS, "sink", "archive/orders")


def plan() -> LineagePlan:
    return LineagePlan(
        actions=(Retract(GONE, LineageState(run_id="r"), "edge removed"),),
        unchanged=(SINK,),
        unmapped=(ORDERS,),
        failed=(Failure(ORDERS, "Glue table archive/orders does not exist in the Data Catalog"),),
        kept=(KEPT,),
    )


def test_with_datazone_on_its_share_and_drifts_view_are_the_whole_plan() -> None:
    # Given DataZone among the targets, then DataZone applies the whole plan, and drift reads all of it
    targets = Targets(datazone=True)
    assert targets.datazone_plan(plan()) == plan()
    assert targets.drift_plan(plan()) == plan()
    assert not targets.several


def test_with_datazone_off_its_share_has_nothing_to_do_but_still_says_what_the_topics_are() -> None:
    # Given DataZone not a target
    targets = Targets(datazone=False)
    share = targets.datazone_plan(plan())
    # Then DataZone has no action and counts nothing unchanged
    assert (share.actions, share.unchanged) == ((), ())
    # And the topics' findings stand: unmapped, failed, kept
    assert (share.unmapped, share.failed, share.kept) == (plan().unmapped, plan().failed, plan().kept)
    # And drift sees the topics with edges, but no run about to carry its facet
    drift = targets.drift_plan(plan())
    assert (drift.actions, drift.unchanged, drift.kept) == ((), (SINK,), (KEPT,))
    # And failures name their target
    assert targets.several


def test_glues_state_as_the_reference_keeps_each_edges_run_and_origin() -> None:
    # Given a Glue state entry written with its origin, and one from before origins were kept
    states, unreadable = load_glue_states(
        {
            KEPT.key: GlueEdgeState(
                "f1", "r1", "2026-01-01T00:00:00Z", "n", "j", origin="connector:sink"
            ).to_entry(),
            SINK.key: {"f": "f2", "r": "r2", "t": "2026-01-02T00:00:00Z", "jn": "n", "j": "j"},
        }
    )
    # When it is the plan's reference
    loaded = reference(states)
    # Then each edge is emitted (its run), with its origin when known, and spans its own entry only
    assert unreadable == []
    assert loaded.states[KEPT.key].origin == "connector:sink"
    assert loaded.states[SINK.key].origin == ""
    assert all(state.emitted and state.settled for state in loaded.states.values())
    assert loaded.parts == {KEPT.key: frozenset({KEPT.key}), SINK.key: frozenset({SINK.key})}
    assert loaded.unreadable == ()
