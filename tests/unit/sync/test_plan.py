"""The pure plan: listings + mapping -> candidates and deletions; inspected schemas -> actions; fail-safe."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import pytest

from kafka_lineage import failsafe
from kafka_lineage.config import Source
from kafka_lineage.engine.order import Position, cut
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetContent
from kafka_lineage.model.registry import ListedSchema, SchemaDetails, SchemaVersion
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import Desired
from kafka_lineage.sync.requests import SchemaRef
from tests.fixtures import CLUSTER_ARN

SOURCE = Source(registry_name="cdc", cluster_arn=CLUSTER_ARN, exclude=("^__debezium-heartbeat",))
NAMESPACE = "kafka://b-1.cdc.example:9098"


def arn(name: str, registry: str = "cdc") -> str:
    return f"arn:aws:glue:eu-west-1:123456789012:schema/{registry}/{name}"


def listed(name: str, updated: str = "t1", status: str = "AVAILABLE", created: str = "t0") -> ListedSchema:
    return ListedSchema("cdc", name, arn(name), status, created, updated)


def record(name: str, updated: str = "t1", registry: str = "cdc", **fields: object) -> AssetRecord:
    base = AssetRecord(
        registry_name=registry,
        schema_name=name,
        schema_arn=arn(name, registry),
        asset_id=f"asset-{len(name)}",
        latest_version=1,
        data_format="AVRO",
        namespace=NAMESPACE,
        updated_time=updated,
        created_time="t0",
        content_hash="h1",
        source_fingerprint="f1",
    )
    return replace(base, **fields)  # type: ignore[arg-type]


def details(name: str, versions: int = 1) -> SchemaDetails:
    history = tuple(SchemaVersion(n, f"id-{n}", "AVAILABLE", f"v{n}") for n in range(1, versions + 1))
    return SchemaDetails(
        schema_arn=arn(name),
        registry_name="cdc",
        registry_arn="arn:aws:glue:eu-west-1:123456789012:registry/cdc",
        schema_name=name,
        data_format="AVRO",
        compatibility="BACKWARD",
        description="",
        status="AVAILABLE",
        created_time="t0",
        updated_time="t2",
        versions=history,
        latest=history[-1],
    )


def desired(content_hash: str, version: int = 1) -> Desired:
    return Desired(AssetContent("n", "d", ()), content_hash, version, f"id-{version}", "f2", None)


def test_given_nothing_changed_when_triaged_then_every_schema_is_unchanged_and_nothing_is_read() -> None:
    records = {arn(n): record(n) for n in ("a", "b")}

    result = plan.triage_listing(SOURCE, [listed("a"), listed("b")], records, verify=False)

    assert result.unchanged == (arn("a"), arn("b"))
    assert result.candidates == ()
    assert result.deletions == ()


def test_given_new_changed_and_recreated_schemas_when_triaged_then_each_is_a_candidate_with_its_reason() -> (
    None
):
    records = {arn("changed"): record("changed"), arn("again"): record("again")}
    listing = [listed("new"), listed("changed", updated="t2"), listed("again", created="t9")]

    result = plan.triage_listing(SOURCE, listing, records, verify=False)

    reasons = {c.schema_name: c.reason for c in result.candidates}
    assert reasons == {"new": "new", "changed": "listing changed", "again": "re-created under the same name"}


def test_given_verify_when_triaged_then_unchanged_schemas_are_inspected_too() -> None:
    result = plan.triage_listing(SOURCE, [listed("a")], {arn("a"): record("a")}, verify=True)

    assert [c.reason for c in result.candidates] == ["verify"]


def test_given_gone_deleting_and_excluded_schemas_when_triaged_then_they_are_inferred_deletions() -> None:
    names = ("gone", "dying", "__debezium-heartbeat.dbserver1")
    records = {arn(n): record(n) for n in names}
    listing = [listed("dying", status="DELETING"), listed("__debezium-heartbeat.dbserver1")]

    result = plan.triage_listing(SOURCE, listing, records, verify=False)

    reasons = {d.topic: d.reason for d in result.deletions}
    assert reasons == {
        "gone": "no longer listed",
        "dying": "listed as DELETING",
        "__debezium-heartbeat.dbserver1": "excluded by the source's filters",
    }
    assert not any(d.confirmed for d in result.deletions)


def test_given_targets_when_triaged_then_unconfigured_registries_are_skipped_and_others_inspected() -> None:
    targets = [SchemaRef("cdc", "a"), SchemaRef("other", "b")]
    confirmed = frozenset({SchemaRef("cdc", "a")})

    result = plan.triage_targets(targets, {"cdc": SOURCE}, {SchemaRef("cdc", "a"): record("a")}, confirmed)

    assert [(c.schema_name, c.confirmed_deleted) for c in result.candidates] == [("a", True)]
    assert result.skipped[0]["reason"] == "registry not configured"


def test_given_a_new_schema_when_decided_then_create() -> None:
    candidate = plan.Candidate("cdc", "a", arn("a"), "new", None, listed("a"))

    action = plan.decide(candidate, details("a"), desired("h1"), NAMESPACE)

    assert isinstance(action, plan.Create)
    assert action.new_record.updated_time == "t1"  # the listing's, so the next run finds it unchanged


def test_given_changed_content_when_decided_then_revise_and_same_content_only_refreshes_the_mapping() -> None:
    candidate = plan.Candidate(
        "cdc", "a", arn("a"), "listing changed", record("a"), listed("a", updated="t2")
    )

    revise = plan.decide(candidate, details("a", versions=2), desired("h2", version=2), NAMESPACE)
    touch = plan.decide(candidate, details("a"), desired("h1"), NAMESPACE)

    assert isinstance(revise, plan.Revise)
    assert isinstance(touch, plan.Touch)
    assert touch.new_record.updated_time == "t2"


def test_given_a_matching_fingerprint_when_checked_then_the_definition_is_not_read() -> None:
    candidate = plan.Candidate("cdc", "a", arn("a"), "verify", record("a"), listed("a"))

    assert not plan.needs_definition(candidate, "f1")
    assert plan.needs_definition(candidate, "f2")
    assert plan.decide(candidate, details("a"), None, NAMESPACE) is None


def test_given_a_vanished_schema_with_a_record_when_gone_then_a_deletion() -> None:
    confirmed = plan.Candidate("cdc", "a", arn("a"), "requested", record("a"), confirmed_deleted=True)
    unknown = plan.Candidate("cdc", "b", None, "requested", None)

    deletion = plan.gone(confirmed)

    assert deletion is not None
    assert deletion.confirmed
    assert plan.gone(unknown) is None


def test_given_inferred_deletions_when_screened_then_the_shared_fail_safe_holds_a_registrys_majority() -> (
    None
):
    deletions = [plan.deletion(record(n), "no longer listed", False) for n in ("a", "b", "c")]
    confirmed = plan.deletion(record("d"), "deletion confirmed by event", True)

    verdict = failsafe.screen(
        [*deletions, confirmed],
        totals=plan.registry_totals([record(n) for n in "abcd"], []),
        limit=0.5,
        allow=False,
        group=lambda d: d.registry_name,
        confirmed=lambda d: d.confirmed,
    )

    assert verdict.kept == (confirmed,)
    assert verdict.held_items == tuple(deletions)


def work(*names: str) -> tuple[tuple[Position, plan.Work], ...]:
    """Deletions of `names`, each in the group its name's first letter says (a1 and a2 share group a)."""
    items = [plan.deletion(record(name), "no longer listed", False) for name in names]
    return plan.order_work((), items, group_of=lambda key: key.rsplit("/", 1)[-1][0])


def test_given_work_when_ordered_then_by_group_then_key_and_a_resume_point_skips_what_was_done() -> None:
    ordered = work("b1", "a2", "a1", "c1")

    assert [position.key.rsplit("/", 1)[-1] for position, _ in ordered] == ["a1", "a2", "b1", "c1"]
    resumed = plan.order_work(
        (), [item for _, item in ordered if isinstance(item, plan.Delete)], lambda k: k[-2], ordered[1][0]
    )
    assert [position.key.rsplit("/", 1)[-1] for position, _ in resumed] == ["b1", "c1"]


def test_given_groups_when_cut_then_chunks_end_on_group_boundaries() -> None:
    ordered = work("a1", "a2", "a3", "b1", "b2", "c1")

    assert cut(ordered, 0, 4, lambda chunk: True) == 3  # a* (3) fits, a*+b* (5) is over 4
    assert cut(ordered, 0, 5, lambda chunk: True) == 5
    assert cut(ordered, 3, 10, lambda chunk: True) == 6
    # a group larger than the chunk size is never split for size alone
    assert cut(ordered, 0, 2, lambda chunk: True) == 3


def test_given_little_time_when_cut_then_whole_groups_shrink_first_and_a_group_splits_only_alone() -> None:
    ordered = work("a1", "a2", "a3", "b1", "b2", "c1")

    assert cut(ordered, 0, 6, lambda chunk: len(chunk) <= 4) == 3
    assert cut(ordered, 0, 6, lambda chunk: len(chunk) <= 2) == 2
    assert cut(ordered, 0, 6, lambda chunk: False) == 0


def test_given_actions_when_planned_then_the_plan_is_a_frozen_value_a_dry_run_describes() -> None:
    candidate = plan.Candidate("cdc", "a", arn("a"), "new", None, listed("a"))
    create = plan.decide(candidate, details("a"), desired("h1"), NAMESPACE)
    assert isinstance(create, plan.Create)
    orphan = plan.orphan("cdc", arn("z"), "asset-z")

    whole = plan.SyncPlan(actions=(create,), unchanged=2) + plan.SyncPlan(orphans=(orphan,))

    assert whole.writes() == (create, orphan)
    assert [entry["action"] for entry in whole.describe()] == ["create", "delete"]
    assert whole.unchanged == 2
    with pytest.raises(dataclasses.FrozenInstanceError):
        whole.unchanged = 3  # type: ignore[misc]
