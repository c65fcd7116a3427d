"""The pure plan: listings + mapping -> candidates and deletions; inspected schemas -> actions; fail-safe."""

from __future__ import annotations

from dataclasses import replace

from kafka_lineage.aws.catalog import AssetContent
from kafka_lineage.aws.registry import ListedSchema, SchemaDetails, SchemaVersion
from kafka_lineage.config import Source
from kafka_lineage.mapping import AssetRecord
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import Desired
from kafka_lineage.sync.requests import SchemaRef
from tests.fixtures import CLUSTER_ARN

SOURCE = Source(registryName="cdc", clusterArn=CLUSTER_ARN, exclude=("^__debezium-heartbeat",))
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

    assert result.unchanged == [arn("a"), arn("b")]
    assert result.candidates == []
    assert result.deletions == []


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

    assert action is not None
    assert action.kind == "create"
    assert action.new_record is not None
    assert action.new_record.updated_time == "t1"  # the listing's, so the next run finds it unchanged


def test_given_changed_content_when_decided_then_revise_and_same_content_only_refreshes_the_mapping() -> None:
    candidate = plan.Candidate(
        "cdc", "a", arn("a"), "listing changed", record("a"), listed("a", updated="t2")
    )

    revise = plan.decide(candidate, details("a", versions=2), desired("h2", version=2), NAMESPACE)
    touch = plan.decide(candidate, details("a"), desired("h1"), NAMESPACE)

    assert revise is not None
    assert revise.kind == "revise"
    assert touch is not None
    assert touch.kind == "touch"
    assert touch.new_record is not None
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


def test_given_most_of_a_registry_vanishing_when_fail_safe_applies_then_its_inferred_deletions_are_held() -> (
    None
):
    deletions = [plan.deletion(record(n), "no longer listed", False) for n in ("a", "b", "c")]

    allowed, blocked = plan.apply_fail_safe(deletions, {"cdc": 4}, 0.5, allow_mass_delete=False)

    assert allowed == []
    assert blocked[0].registry_name == "cdc"
    assert blocked[0].total == 4


def test_given_a_small_share_or_the_override_when_fail_safe_applies_then_deletions_pass() -> None:
    deletions = [plan.deletion(record("a"), "no longer listed", False)]

    assert plan.apply_fail_safe(deletions, {"cdc": 4}, 0.5, allow_mass_delete=False)[0] == deletions
    assert plan.apply_fail_safe(deletions, {"cdc": 1}, 0.5, allow_mass_delete=True)[0] == deletions


def test_given_a_confirmed_deletion_of_a_registrys_last_schema_when_fail_safe_applies_then_it_passes() -> (
    None
):
    deletions = [plan.deletion(record("a"), "deletion confirmed by event", True)]

    allowed, blocked = plan.apply_fail_safe(deletions, {"cdc": 1}, 0.5, allow_mass_delete=False)

    assert allowed == deletions
    assert blocked == []
