"""schema-sync end to end on the stand-ins: real boto3 clients, strict DataZone, moto-backed Glue and SSM."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import pytest

from local import world
from tests.fixtures import CountdownContext, FakeContext, VirtualClock, load_event
from tests.integration.sync.conftest import AVRO_VALUE, CdcWorld
from tests.integration.sync.test_pacing import mapping_parameters

WRITE_OPERATIONS = {
    "datazone:CreateAsset",
    "datazone:CreateAssetRevision",
    "datazone:DeleteAsset",
    "datazone:CreateListingChangeSet",
    "ssm:PutParameter",
    "ssm:DeleteParameter",
    "events:PutEvents",
}
PER_SCHEMA_READS = {
    "glue:GetSchema",
    "glue:GetSchemaVersion",
    "glue:ListSchemaVersions",
    "datazone:GetAsset",
    "datazone:Search",
}


def v2(definition: str = AVRO_VALUE) -> str:
    schema = json.loads(definition)
    schema["fields"].append({"name": "email", "type": ["null", "string"], "default": None})
    return json.dumps(schema)


def by_external_id(cdc: CdcWorld) -> dict[str, Any]:
    assets = cdc.assets()
    ids = [asset.external_identifier for asset in assets]
    assert len(ids) == len(set(ids)), f"duplicate assets: {ids}"
    return {asset.external_identifier: asset for asset in assets}


def schema_form(asset: Any) -> dict[str, Any]:
    form: dict[str, Any] = asset.forms["KafkaSchemaFormType"]
    return form


def test_first_sync_creates_one_published_asset_per_schema_with_columns_and_source_identifier(
    cdc: CdcWorld,
) -> None:
    # Given the Debezium inventory topics in three formats
    names = cdc.inventory()

    # When the schedule runs the sync
    result = cdc.sync()

    # Then every schema has exactly one asset carrying the contract's forms, and events announce them
    assert result["created"] == len(names)
    assert result["failed"] == []
    assets = by_external_id(cdc)
    assert set(assets) == {world.schema_arn("cdc", name) for name in names}
    customers = assets[world.schema_arn("cdc", "dbserver1.inventory.customers")]
    assert schema_form(customers)["kafka_topic"] == "dbserver1.inventory.customers"
    assert schema_form(customers)["schema_version"] == "1"
    assert customers.forms["MskSourceReferenceFormType"]["cluster_arn"] == world.CLUSTER_ARN
    assert customers.forms["AssetCommonDetailsForm"]["sourceIdentifier"] == (
        f"{world.NAMESPACE}/dbserver1.inventory.customers"
    )
    columns = {c["columnName"] for c in customers.forms["RelationalTableForm"]["columns"]}
    assert {"after.id", "after.email", "op"} <= columns
    listed = {
        listing.asset_id
        for listing in cdc.aws.datazone.listings(world.DOMAIN_ID)
        if listing.status == "ACTIVE"
    }
    assert {asset.id for asset in assets.values()} <= listed
    events = cdc.events.drain()
    assert sorted(e["topic"] for e in events) == sorted(names)
    assert {e["change"] for e in events} == {"created"}


def test_no_change_rerun_writes_nothing_and_reads_nothing_per_schema(cdc: CdcWorld) -> None:
    # Given a synced registry
    cdc.inventory()
    cdc.sync()
    cdc.reset_calls()

    # When the sync runs again with nothing changed
    result = cdc.sync()

    # Then it read only listings, the mapping and the asset type, and wrote nothing
    calls = cdc.calls()
    assert result["created"] == result["updated"] == result["deleted"] == 0
    assert not WRITE_OPERATIONS & set(calls), calls
    assert not PER_SCHEMA_READS & set(calls), calls
    assert set(calls) <= {
        "glue:ListSchemas",
        "ssm:GetParametersByPath",
        "datazone:GetAssetType",
        "kafka:ListTopics",
    }


def test_a_new_version_revises_the_asset_and_refreshes_its_listing(cdc: CdcWorld) -> None:
    cdc.register("orders")
    cdc.sync()
    cdc.events.drain()

    cdc.register("orders", v2())
    result = cdc.sync()

    assert result["updated"] == 1
    asset = by_external_id(cdc)[world.schema_arn("cdc", "orders")]
    assert schema_form(asset)["schema_version"] == "2"
    assert [v["version_number"] for v in schema_form(asset)["schema_versions"]] == [1, 2]
    assert [e["change"] for e in cdc.events.drain()] == ["revised"]


def test_a_deleted_schema_removes_its_asset(cdc: CdcWorld) -> None:
    for name in ("a", "b", "c"):
        cdc.register(name)
    cdc.sync()
    cdc.events.drain()

    world.delete_schema("cdc", "a")
    result = cdc.sync()

    assert result["deleted"] == 1
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", "b"), world.schema_arn("cdc", "c")}
    assert [(e["topic"], e["change"]) for e in cdc.events.drain()] == [("a", "deleted")]


def test_fail_safe_holds_back_mass_deletion_until_overridden(cdc: CdcWorld) -> None:
    # Given three mirrored schemas of which two vanish without any event
    for name in ("a", "b", "c"):
        cdc.register(name)
    cdc.sync()
    world.delete_schema("cdc", "a")
    world.delete_schema("cdc", "b")

    # When the sync runs, then nothing is deleted and the run raises with the held deletions
    with pytest.raises(Exception, match="fail-safe") as raised:
        cdc.sync()
    summary = json.loads(str(raised.value))
    assert len(summary["failed"]) == 2
    assert len(cdc.assets()) == 3

    # When the operator allows it, then the deletions happen
    result = cdc.sync({"allowMassDelete": True})
    assert result["deleted"] == 2
    assert len(cdc.assets()) == 1


def test_event_confirmed_deletion_of_a_registrys_last_schema_is_applied(cdc: CdcWorld) -> None:
    cdc.register("only")
    cdc.sync()
    world.delete_schema("cdc", "only")
    event = load_event("glue_delete_schema")
    event["detail"]["requestParameters"]["schemaId"] = {"schemaArn": world.schema_arn("cdc", "only")}

    result = cdc.sync(event)

    assert result["deleted"] == 1
    assert cdc.assets() == []


def test_verify_catches_a_version_the_listing_did_not_show(cdc: CdcWorld) -> None:
    # Given the pessimistic reading: a new version does not move ListSchemas' UpdatedTime
    cdc.aws.readings.updated_time_moves_on_new_version = False
    cdc.register("orders")
    cdc.sync()
    cdc.register("orders", v2())

    # When the hourly sync runs, then it cannot see the version; when verify runs, it does
    assert cdc.sync()["updated"] == 0
    assert cdc.sync({"verify": True})["updated"] == 1
    assert schema_form(by_external_id(cdc)[world.schema_arn("cdc", "orders")])["schema_version"] == "2"


def test_dry_run_plans_without_writing(cdc: CdcWorld) -> None:
    cdc.inventory()
    cdc.reset_calls()

    result = cdc.sync({"dryRun": True})

    assert result["dryRun"] is True
    assert result["created"] == len(result["planned"]) > 0
    assert {p["action"] for p in result["planned"]} == {"create"}
    assert not WRITE_OPERATIONS & set(cdc.calls())
    assert cdc.assets() == []


def test_the_plan_of_a_run_is_one_frozen_value_that_matches_what_a_dry_run_reports(cdc: CdcWorld) -> None:
    import os

    from kafka_lineage.config import Settings
    from kafka_lineage.sync import plan
    from kafka_lineage.sync.requests import parse_sync_event
    from kafka_lineage.sync.run import SchemaSync
    from schema_sync.wiring import build_adapters

    # Given the inventory mirrored, then one schema with a new version and one deleted
    cdc.inventory()
    cdc.sync()
    cdc.register("orders", AVRO_VALUE)
    world.register("cdc", world.inventory_v2("customers"))
    world.delete_schema("cdc", "dbserver1.inventory.addresses")
    cdc.reset_calls()

    # When the whole plan is computed
    settings = Settings.from_environment(os.environ)
    whole, result = SchemaSync(settings, build_adapters(settings)).whole_plan(parse_sync_event({}))

    # Then it is the value of a dry run: a create, a revision, a deletion, and nothing written
    kinds = {(type(action).__name__, action.topic) for action in whole.writes()}
    assert kinds == {
        ("Create", "orders"),
        ("Revise", "dbserver1.inventory.customers"),
        ("Delete", "dbserver1.inventory.addresses"),
    }
    assert all(isinstance(action, plan.Create | plan.Revise | plan.Delete) for action in whole.writes())
    assert whole.describe() == result.planned.items
    assert not WRITE_OPERATIONS & set(cdc.calls())


def test_cloudtrail_event_syncs_only_the_schema_it_names(cdc: CdcWorld) -> None:
    cdc.register("dbserver1.inventory.customers")
    cdc.register("other")
    event = load_event("glue_register_schema_version")

    result = cdc.sync(event)

    assert result["created"] == 1
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", "dbserver1.inventory.customers")}


@pytest.mark.parametrize(
    "operation",
    ["CreateAsset", "CreateListingChangeSet", "CreateAssetRevision", "PutParameter", "PutEvents"],
)
def test_a_lost_response_beyond_the_sdk_retries_then_a_rerun_converges(cdc: CdcWorld, operation: str) -> None:
    # Given a schema that needs a revision (so CreateAssetRevision is exercised too)
    cdc.register("orders")
    if operation == "CreateAssetRevision":
        cdc.sync()
        cdc.register("orders", v2())
    service = {"PutParameter": "ssm", "PutEvents": "events"}.get(operation, "datazone")
    # (PutParameter: the first one, the lease's, goes through; the mapping save's answers are lost)
    after = 1 if operation == "PutParameter" else 0
    cdc.aws.faults.add(service=service, operation=operation, kind="lost_response", times=20, after=after)

    # When the write happened but every answer was lost, the run fails (or warns) without corrupting anything
    try:
        outcome = json.dumps(cdc.sync())
    except Exception as error:  # the run raises after finishing, with its summary
        outcome = str(error)
    assert '"failed"' in outcome
    cdc.aws.faults.clear()

    # Then a rerun converges to exactly one asset per schema at the latest version
    cdc.sync()
    assets = by_external_id(cdc)
    assert list(assets) == [world.schema_arn("cdc", "orders")]
    expected = "2" if operation == "CreateAssetRevision" else "1"
    assert schema_form(assets[world.schema_arn("cdc", "orders")])["schema_version"] == expected
    assert cdc.sync()["created"] == 0


def test_throttling_is_retried_before_anything_counts_as_failed(cdc: CdcWorld) -> None:
    cdc.register("orders")
    cdc.aws.faults.add(service="datazone", operation="CreateAsset", kind="throttle", times=2)
    cdc.aws.faults.add(service="glue", operation="ListSchemas", kind="throttle", times=2)

    result = cdc.sync()

    assert result["created"] == 1
    assert result["failed"] == []


def test_two_overlapping_runs_leave_exactly_one_asset_per_schema(cdc: CdcWorld) -> None:
    from concurrent.futures import ThreadPoolExecutor

    names = [f"topic-{i}" for i in range(12)]
    for name in names:
        cdc.register(name)

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda _: cdc.sync(), range(2)))

    assert sum(r["created"] + r["adopted"] for r in results) >= len(names)
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", n) for n in names}
    cdc.sync()
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", n) for n in names}


def test_an_asset_the_mapping_does_not_know_is_adopted_not_duplicated(cdc: CdcWorld) -> None:
    import boto3

    # Given an asset for the schema made outside this sync (an earlier install, or a lost mapping)
    cdc.register("orders")
    cdc.sync({"dryRun": True})
    datazone = boto3.client("datazone", region_name=world.REGION)
    asset_type = datazone.get_asset_type(domainIdentifier=world.DOMAIN_ID, identifier="KafkaTopicAssetType")
    forms = {
        "KafkaSchemaFormType": {
            "kafka_topic": "orders",
            "schema_version": "0",
            "schema_arn": world.schema_arn("cdc", "orders"),
            "registry_arn": "x",
            "registry_name": "cdc",
            "data_format": "AVRO",
        },
        "MskSourceReferenceFormType": {"cluster_arn": world.CLUSTER_ARN, "cluster_type": "MSK"},
        "AssetCommonDetailsForm": {"sourceIdentifier": "stale"},
    }
    datazone.create_asset(
        domainIdentifier=world.DOMAIN_ID,
        owningProjectIdentifier=world.PROJECT_ID,
        name="orders (old)",
        typeIdentifier="KafkaTopicAssetType",
        typeRevision=asset_type["revision"],
        externalIdentifier=world.schema_arn("cdc", "orders"),
        formsInput=[{"formName": name, "content": json.dumps(content)} for name, content in forms.items()],
    )

    # When the sync runs, then it adopts that asset and brings it up to date
    result = cdc.sync()

    assert result["adopted"] == 1
    asset = by_external_id(cdc)[world.schema_arn("cdc", "orders")]
    assert schema_form(asset)["schema_version"] == "1"
    assert asset.forms["AssetCommonDetailsForm"]["sourceIdentifier"] == f"{world.NAMESPACE}/orders"
    assert cdc.sync()["adopted"] == 0


def test_verify_removes_an_orphan_left_by_a_crash_before_the_mapping_write(cdc: CdcWorld) -> None:
    # Given a crash between CreateAsset and the mapping write (SSM writes fail), then the schema's deletion
    cdc.register("orders")
    cdc.register("keep")
    cdc.aws.faults.add(service="ssm", operation="PutParameter", kind="server_error", times=100, after=1)
    with pytest.raises(Exception, match="mapping not saved"):
        cdc.sync()
    cdc.aws.faults.clear()
    world.delete_schema("cdc", "orders")
    cdc.sync()  # adopts "keep"; "orders" has no mapping, so a plain run cannot see its asset
    assert world.schema_arn("cdc", "orders") in by_external_id(cdc)

    # When verify runs, then the orphan is removed
    result = cdc.sync({"verify": True})

    assert result["deleted"] == 1
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", "keep")}


@pytest.mark.parametrize(
    ("registry", "name"),
    [
        ("cdc.prod-$1", "__debezium-heartbeat.dbserver1"),
        ("cdc", "orders#v2_legacy"),
        ("cdc", "a" * 255),
        ("r" * 255, "$#.-_"),
    ],
)
def test_weird_names_sync_and_resync_cleanly(cdc: CdcWorld, registry: str, name: str) -> None:
    cdc.configure(world.source_config(registry))
    cdc.register(name, registry=registry)

    first = cdc.sync()
    second = cdc.sync()

    assert first["created"] == 1
    assert second["created"] == second["updated"] == 0
    asset = by_external_id(cdc)[world.schema_arn(registry, name)]
    assert len(asset.name) <= 256


def test_an_unparseable_definition_still_gets_its_asset_with_a_warning(cdc: CdcWorld) -> None:
    # JSON Schema is not validated by Glue as strictly as Avro: a definition our parser cannot read
    cdc.register(
        "weird",
        definition='{"type": "object", "properties": {"a": {"$ref": "#/nowhere"}}}',
        data_format="JSON",
    )

    result = cdc.sync()

    assert result["created"] == 1


def test_one_bad_schema_never_stops_the_others(cdc: CdcWorld) -> None:
    # Given one worker, and a GetSchema that fails for every attempt of the first schema read
    cdc.configure(world.source_config(), tuning={"max_concurrency": 1})
    cdc.register("first")
    cdc.register("second")
    # (retries={"max_attempts": 8} means one call and eight retries: nine attempts)
    cdc.aws.faults.add(service="glue", operation="GetSchema", kind="server_error", times=9)

    # When the sync runs, then the other schema is mirrored and the run raises naming the failure
    with pytest.raises(Exception, match="failed") as raised:
        cdc.sync()

    summary = json.loads(str(raised.value))
    assert summary["created"] == 1
    assert len(summary["failed"]) == 1
    assert cdc.sync()["created"] == 1


def run_to_completion(
    cdc: CdcWorld,
    monkeypatch: pytest.MonkeyPatch,
    event: dict[str, Any],
    seconds: float,
    limit: int = 20,
    context: Callable[[], FakeContext] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> list[tuple[dict[str, Any], float]]:
    """Invoke with `seconds` left each time by `clock` (or with the `context` made for each invocation), then
    as the follow-up would (with the event it was handed), until a run finishes; returns each result with the
    time it took by `clock`."""
    handed: list[dict[str, Any]] = []
    monkeypatch.setattr(
        "kafka_lineage.aws.continuation.continue_asynchronously",
        lambda _client, _arn, follow_up: handed.append(follow_up),
    )
    runs: list[tuple[dict[str, Any], float]] = []
    while len(runs) < limit:
        started = clock()
        result = cdc.sync(event, context=context() if context else CountdownContext(seconds, clock=clock))
        runs.append((result, clock() - started))
        if not result.get("incomplete"):
            return runs
        assert result.get("continued") is True, result
        event = handed[-1]
    raise AssertionError(f"no convergence in {limit} invocations: {[r for r, _ in runs]}")


def test_near_the_deadline_every_invocation_stops_in_time_and_the_follow_ups_redo_nothing(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 60 new schemas, Glue paced at 6 calls/s (3 reads a schema: 30 s of reads), and 12 s left in
    # every invocation with a 2 s margin, on a clock that only the pacing and the waits move (so the
    # machine's load changes nothing)
    clock = VirtualClock.install(monkeypatch)
    for i in range(60):
        cdc.register(f"t{i}")
    cdc.configure(world.source_config(), tuning={"glue_rps": 6, "deadline_margin_seconds": 2})

    # When the sync runs, and its follow-ups run with the event each one hands on
    runs = run_to_completion(cdc, monkeypatch, {}, seconds=12, clock=clock.monotonic)

    # Then every invocation ended at least the margin before its deadline, and each made progress
    walls = [round(wall, 2) for _, wall in runs]
    assert all(wall <= 12 - 2 for wall in walls), walls
    assert len(runs) > 1
    assert all(result["created"] > 0 for result, _ in runs), [r["created"] for r, _ in runs]
    # And all schemas were mirrored once: no schema was read or created twice
    assert sum(result["created"] for result, _ in runs) == 60
    assert len(cdc.assets()) == 60
    calls = cdc.calls()
    assert calls["glue:GetSchema"] == 60
    assert calls["glue:GetSchemaVersion"] == 60
    assert calls["datazone:CreateAsset"] == 60
    # And each mapping parameter was written about once, checkpoints included
    assert sum(result["mappingWrites"] for result, _ in runs) <= 1.2 * mapping_parameters()


class ListedThenCountdown(FakeContext):
    """A Lambda context whose deadline is `after_listing` seconds (plus `margin`) after the registry listing's
    last page: whatever the listing cost on this machine, the rest of the invocation has that much time."""

    def __init__(
        self, after_listing: float, margin: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.left = after_listing + margin
        self.clock = clock
        self.listed_at = clock()

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.listed_at + self.left - self.clock()) * 1000))


def test_a_registry_whose_listing_takes_many_slow_pages_still_progresses_in_every_invocation(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 30 new schemas listed one a page, each ListSchemas page taking 0.1 s more (a big registry on a
    # slow day: 10,000 schemas are 100 pages), and 3 s left after the listing in every invocation (2 s
    # margin): room for a chunk of fast reads and writes, but less than the whole listing's time again; on a
    # clock that only the pages, the pacing and the waits move (so the machine's load changes nothing)
    from kafka_lineage.aws import registry
    from kafka_lineage.aws.calls import instrument as original

    clock = VirtualClock.install(monkeypatch)
    for i in range(30):
        cdc.register(f"t{i}")
    cdc.configure(world.source_config(), tuning={"deadline_margin_seconds": 2})
    monkeypatch.setattr(registry, "LIST_PAGE_SIZE", 1)
    contexts: list[ListedThenCountdown] = []

    def slow_page(**_: Any) -> None:
        clock.sleep(0.1)

    def glue_call(**_: Any) -> None:
        clock.sleep(0.03)  # any Glue call's round trip: the reads of all 30 schemas outlast one invocation

    def listed(**_: Any) -> None:
        contexts[-1].listed_at = clock.monotonic()

    def with_slow_pages(glue: Any, *args: Any, **kwargs: Any) -> Any:
        # Each ListSchemas page the reader's client sends takes 0.1 s more (botocore hooks, as the pacing)
        glue.meta.events.register("before-send.glue.ListSchemas", slow_page, unique_id="test-slow-page")
        glue.meta.events.register("before-send.glue", glue_call, unique_id="test-glue-call")
        glue.meta.events.register("after-call.glue.ListSchemas", listed, unique_id="test-listed")
        return original(glue, *args, **kwargs)

    monkeypatch.setattr(registry, "instrument", with_slow_pages)

    def context() -> FakeContext:
        contexts.append(ListedThenCountdown(after_listing=3, margin=2, clock=clock.monotonic))
        return contexts[-1]

    # When the sync runs, and its follow-ups run with the event each one hands on
    runs = run_to_completion(cdc, monkeypatch, {}, seconds=0, context=context, clock=clock.monotonic)

    # Then every invocation created assets (none spent its time on a chunk estimate built from the whole
    # listing's time), and every schema was created once
    created = [result["created"] for result, _ in runs]
    assert all(count > 0 for count in created), created
    assert sum(created) == 30
    assert len(cdc.assets()) == 30
    assert cdc.calls()["datazone:CreateAsset"] == 30
    assert cdc.calls()["glue:ListSchemas"] >= 30 * len(runs)  # the listing was paged as the test intends


def test_a_verify_run_that_needs_several_invocations_reads_each_schema_once(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given 40 mirrored schemas, and a verify run that cannot read them all in one invocation (80 reads at
    # 10 calls/s: 8 s, against 6 s an invocation), on a clock that only the pacing and the waits move
    for i in range(40):
        cdc.register(f"t{i}")
    cdc.sync()
    clock = VirtualClock.install(monkeypatch)
    cdc.configure(world.source_config(), tuning={"glue_rps": 10, "deadline_margin_seconds": 2})
    cdc.reset_calls()

    # When verify runs to completion through its follow-ups
    runs = run_to_completion(cdc, monkeypatch, {"verify": True}, seconds=8, clock=clock.monotonic)

    # Then it took several invocations, and each schema was read once (a follow-up resumes after the last
    # schema verified), and nothing was written
    assert len(runs) > 1
    calls = cdc.calls()
    assert calls["glue:GetSchema"] == 40
    assert not {op for op in calls if op in WRITE_OPERATIONS}
    assert sum(result["unchanged"] for result, _ in runs) == 40


def test_no_topic_asset_changed_event_goes_out_before_the_mapping_that_describes_it_is_saved(
    cdc: CdcWorld,
) -> None:
    # Given a new schema, and SSM refusing every write after the lease's (the mapping save fails)
    cdc.register("orders")
    cdc.events.drain()
    cdc.aws.faults.add(service="ssm", operation="PutParameter", kind="server_error", times=100, after=1)

    # When the sync runs: the asset is created, but its mapping is not saved
    with pytest.raises(Exception, match="mapping not saved"):
        cdc.sync()

    # Then no event announced it: the asset records do not hold it yet
    assert cdc.events.drain() == []
    assert cdc.calls().get("events:PutEvents", 0) == 0

    # And once SSM takes writes again, the rerun finds it (the same client token: no second asset), saves
    # it and only then announces it
    cdc.aws.faults.clear()
    result = cdc.sync()
    assert (result["created"] + result["adopted"], result["failed"]) == (1, [])
    assert list(by_external_id(cdc)) == [world.schema_arn("cdc", "orders")]
    assert [(e["topic"], e["schemaVersion"]) for e in cdc.events.drain()] == [("orders", 1)]
