"""schema-sync under each reading of DataZone behaviour that AWS leaves undocumented (readings.py):
the typeName search filter, asynchronous listings, undeclared managed form members."""

from __future__ import annotations

from typing import Any

import boto3
import pytest

from kafka_lineage.aws import catalog
from local import world
from local.standins.errors import ServiceError
from tests.fixtures import VirtualClock
from tests.integration.sync.conftest import CdcWorld
from tests.integration.sync.test_schema_sync import by_external_id, v2


@pytest.fixture(autouse=True)
def short_listing_pauses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in's listing changes take calls, not time: look again at once."""
    monkeypatch.setattr(catalog, "LISTING_FIRST_PAUSE_SECONDS", 0.001)
    monkeypatch.setattr(catalog, "LISTING_MAX_PAUSE_SECONDS", 0.001)


TYPE_FILTER_READINGS = ["honoured", "unindexed", "rejected"]


# ------------------------------------------------------------------------------------ search_type_filter


@pytest.mark.parametrize("reading", TYPE_FILTER_READINGS)
def test_verify_finds_and_removes_an_orphan_whatever_search_does_with_the_type_filter(
    cdc: CdcWorld, reading: str
) -> None:
    # Given an orphan asset (a crash between CreateAsset and the mapping write, then the schema deleted)
    cdc.aws.set_readings(search_type_filter=reading)
    cdc.register("orders")
    cdc.register("keep")
    # (after=1: the state lease's own create goes through, the mapping writes fail)
    cdc.aws.faults.add(service="ssm", operation="PutParameter", kind="server_error", times=100, after=1)
    with pytest.raises(Exception, match="mapping not saved"):
        cdc.sync()
    cdc.aws.faults.clear()
    world.delete_schema("cdc", "orders")
    cdc.sync()
    # When verify runs
    result = cdc.sync({"verify": True})
    # Then the orphan is found and removed, the other asset kept
    assert result["deleted"] == 1, result
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", "keep")}


@pytest.mark.parametrize("reading", TYPE_FILTER_READINGS)
@pytest.mark.parametrize("text_matches_id", [False, True])
@pytest.mark.parametrize(("registry", "name"), [("cdc", "orders"), ("r" * 255, "t" * 255)])
def test_an_existing_asset_is_adopted_without_the_conflict_naming_it(
    cdc: CdcWorld, reading: str, text_matches_id: bool, registry: str, name: str
) -> None:
    # Given an asset the mapping does not know (mapping lost), a ConflictException whose message names no
    # asset, free-text Search that may or may not match external identifiers, and an external identifier
    # that may be longer than searchText's 512 characters (the server rejects more)
    cdc.aws.set_readings(
        search_type_filter=reading,
        conflict_message_names_asset=False,
        search_text_matches_external_identifier=text_matches_id,
    )
    cdc.configure(world.source_config(registry))
    cdc.register(name, registry=registry)
    cdc.sync()
    arn = world.schema_arn(registry, name)
    assert len(arn) > 512 or registry == "cdc"
    forget_the_mapping()
    cdc.aws.set_readings(client_token_ttl_seconds=0)  # DataZone forgot the first CreateAsset's token
    # When the sync runs again
    result = cdc.sync()
    # Then the asset is found by Search and adopted, not duplicated
    assert (result["adopted"], result["failed"]) == (1, []), result
    assert list(by_external_id(cdc)) == [arn]


def test_an_asset_search_does_not_see_yet_fails_its_schema_and_a_later_run_adopts_it(cdc: CdcWorld) -> None:
    # Given assets that Search sees only 200 searches after they were written, and a conflict naming none
    cdc.aws.set_readings(conflict_message_names_asset=False, search_lag_calls=200)
    cdc.register("orders")
    cdc.register("keep")
    cdc.sync()
    forget_the_mapping()
    cdc.aws.set_readings(client_token_ttl_seconds=0)
    # When the sync runs before Search caught up / Then those schemas fail clearly, never duplicated
    with pytest.raises(Exception, match="already exists"):
        cdc.sync()
    assert len(cdc.assets()) == 2
    # And once Search caught up (time passing: other searches), the next run adopts them
    for _ in range(200):
        cdc.aws.datazone.handle("Search", {"domainIdentifier": world.DOMAIN_ID, "searchScope": "ASSET"})
    result = cdc.sync()
    assert (result["adopted"], result["failed"]) == (2, []), result
    assert len(cdc.assets()) == 2


def forget_the_mapping() -> None:
    ssm = boto3.client("ssm", region_name=world.REGION)
    pages = ssm.get_paginator("get_parameters_by_path").paginate(
        Path=f"{world.MAPPING_PATH}/assets", Recursive=True
    )
    for page in pages:
        for parameter in page["Parameters"]:
            ssm.delete_parameter(Name=parameter["Name"])


# ----------------------------------------------------------------------------------- listing_change_calls


@pytest.mark.parametrize("must_unpublish", [True, False])
def test_create_revise_and_delete_cope_with_listing_changes_in_progress(
    cdc: CdcWorld, must_unpublish: bool
) -> None:
    # Given listing changes that stay in progress for 20 DataZone calls (more than the calls between a
    # publish and the next change of its listing, whichever of the two schemas the first run publishes first)
    cdc.aws.set_readings(listing_change_calls=20, delete_requires_unpublish=must_unpublish)
    cdc.register("orders")
    cdc.register("keep")
    assert cdc.sync()["created"] == 2
    # When a new version lands right after (its publish meets the first one still in progress)
    cdc.register("orders", v2())
    revised = cdc.sync()
    # Then the revision is published once the first change took effect
    assert (revised["updated"], revised["failed"]) == (1, []), revised
    assert cdc.aws.call_counts("datazone", ok=False)["datazone:CreateListingChangeSet"] >= 1
    cdc.reset_calls()
    # When the schema is deleted right after (its unpublish meets the republish in progress)
    world.delete_schema("cdc", "orders")
    deleted = cdc.sync()
    # Then the listing is withdrawn and the asset deleted
    assert (deleted["deleted"], deleted["failed"]) == (1, []), deleted
    if must_unpublish:
        # (DeleteAsset refused the published asset; the unpublish was refused while the republish was in
        # progress, then waited for with GetListing, and the delete followed)
        assert cdc.aws.call_counts("datazone", ok=False)["datazone:DeleteAsset"] >= 1
        assert cdc.aws.call_counts("datazone", ok=False)["datazone:CreateListingChangeSet"] >= 1
        assert cdc.aws.call_counts("datazone")["datazone:GetListing"] >= 1
    else:
        # (DataZone deletes the listing with the asset: one DeleteAsset, no unpublish, no wait)
        calls = cdc.aws.call_counts("datazone")
        assert calls["datazone:DeleteAsset"] == 1
        assert "datazone:CreateListingChangeSet" not in calls
        assert "datazone:GetListing" not in calls
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", "keep")}
    cdc.aws.datazone.settle_listings(world.DOMAIN_ID)
    (listing,) = cdc.aws.datazone.listings(world.DOMAIN_ID)
    keep = by_external_id(cdc)[world.schema_arn("cdc", "keep")]
    assert (listing.asset_id, listing.status, listing.asset_revision) == (keep.id, "ACTIVE", keep.revision)


def test_a_listing_change_that_outlasts_the_wait_fails_the_schema_and_the_next_run_finishes(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given listing changes far slower than the catalog waits (on a clock that only the waits move: however
    # slow a call, the wait looks at the listing as often as its pauses allow)
    VirtualClock.install(monkeypatch)
    monkeypatch.setattr(catalog, "LISTING_WAIT_SECONDS", 0.05)
    monkeypatch.setattr(catalog, "LISTING_FIRST_PAUSE_SECONDS", 0.01)
    monkeypatch.setattr(catalog, "LISTING_MAX_PAUSE_SECONDS", 0.01)
    # (and a DeleteAsset that wants the listing withdrawn first: the only case that unpublishes)
    cdc.aws.set_readings(listing_change_calls=100_000, delete_requires_unpublish=True)
    cdc.register("orders")
    cdc.register("keep")
    cdc.sync()
    cdc.aws.datazone.settle_listings(world.DOMAIN_ID)
    # When a deletion's unpublish cannot take effect in time
    world.delete_schema("cdc", "orders")
    with pytest.raises(Exception, match="still ACTIVE"):
        cdc.sync()
    assert world.schema_arn("cdc", "orders") in by_external_id(cdc)
    # Then, once the listing changes took effect, the next run finishes the deletion
    cdc.aws.datazone.settle_listings(world.DOMAIN_ID)
    result = cdc.sync()
    assert (result["deleted"], result["failed"]) == (1, []), result
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", "keep")}


# ------------------------------------------------------------------------ managed_form_members_undeclared


@pytest.mark.parametrize(
    ("undeclared", "expected_members"),
    [
        ("", {"tableName", "columns"}),
        ("RelationalTableFormType.tableName", {"columns"}),
        ("RelationalTableFormType.columns.description", {"tableName", "columns"}),
        ("RelationalTableFormType.columns.dataType", None),
        ("RelationalTableFormType.tableName,RelationalTableFormType.columns.columnName", None),
    ],
)
def test_only_declared_managed_members_are_written_while_unknown_members_are_rejected(
    cdc: CdcWorld, undeclared: str, expected_members: set[str] | None
) -> None:
    # Given DataZone's managed models without some members, and unknown members rejected
    cdc.aws.set_readings(managed_form_members_undeclared=undeclared, reject_unknown_form_members=True)
    cdc.register("orders")
    # When the sync runs
    result = cdc.sync()
    # Then the asset is created, its table form holding only declared members (or left out)
    assert (result["created"], result["failed"]) == (1, []), result
    forms: dict[str, Any] = by_external_id(cdc)[world.schema_arn("cdc", "orders")].forms
    if expected_members is None:
        assert "RelationalTableForm" not in forms
    else:
        assert set(forms["RelationalTableForm"]) == expected_members
        columns = forms["RelationalTableForm"]["columns"]
        assert {key for column in columns for key in column} <= {"columnName", "dataType", "description"}
        if "description" in undeclared:
            assert all("description" not in column for column in columns)
    assert forms["AssetCommonDetailsForm"] == {"sourceIdentifier": f"{world.NAMESPACE}/orders"}


# ------------------------------------------------------ normalize_form_content, revision_keeps_type_revision


@pytest.mark.parametrize("normalized", [True, False])
@pytest.mark.parametrize("keeps_type_revision", [True, False])
def test_an_unchanged_rerun_writes_nothing_whatever_datazone_does_with_content_and_type_revisions(
    cdc: CdcWorld, normalized: bool, keeps_type_revision: bool
) -> None:
    # The sync compares what it wrote (a hash in the mapping), never DataZone's rendering of it, and names
    # the type revision on every write
    cdc.aws.set_readings(normalize_form_content=normalized, revision_keeps_type_revision=keeps_type_revision)
    cdc.register("orders")
    cdc.sync()
    cdc.register("orders", v2())
    assert cdc.sync()["updated"] == 1
    cdc.reset_calls()
    again = cdc.sync({"verify": True})
    assert (again["created"], again["updated"], again["unchanged"]) == (0, 0, 1), again
    assert "datazone:CreateAssetRevision" not in cdc.calls()


def test_the_managed_model_is_read_once_per_run_and_a_denied_read_leaves_the_table_form_out(
    cdc: CdcWorld,
) -> None:
    # Given several schemas synced in parallel
    for name in ("a", "b", "c", "d"):
        cdc.register(name)
    cdc.reset_calls()
    cdc.sync()
    # Then RelationalTableFormType's model was read once
    assert cdc.calls()["datazone:GetFormType"] == 1
    # When the role may not read form types
    cdc.register("e")
    cdc.aws.datazone.inject_fault(
        "GetFormType", ServiceError("AccessDeniedException", "not authorized to perform datazone:GetFormType")
    )
    result = cdc.sync()
    # Then the asset is still made, without the optional table form (its members unknown)
    assert (result["created"], result["failed"]) == (1, []), result
    forms = by_external_id(cdc)[world.schema_arn("cdc", "e")].forms
    assert "RelationalTableForm" not in forms
    assert forms["AssetCommonDetailsForm"] == {"sourceIdentifier": f"{world.NAMESPACE}/e"}


# ---------------------------------------------------------------------------------- deleted_versions_linger


@pytest.mark.parametrize("linger", [0, 2])
def test_a_deleted_latest_version_moves_the_asset_back_whether_or_not_it_lingers(
    cdc: CdcWorld, linger: int
) -> None:
    # Given an asset at version 2, then version 2 deleted (listed as DELETING for `linger` listings)
    cdc.aws.set_readings(deleted_versions_linger=linger)
    cdc.register("orders")
    cdc.register("orders", v2())
    cdc.sync()
    glue = boto3.client("glue", region_name=world.REGION)
    glue.delete_schema_versions(SchemaId={"RegistryName": "cdc", "SchemaName": "orders"}, Versions="2")
    # When the daily verification runs
    result = cdc.sync({"verify": True})
    # Then the asset describes version 1, the only AVAILABLE one
    assert (result["updated"], result["failed"]) == (1, []), result
    form = by_external_id(cdc)[world.schema_arn("cdc", "orders")].forms["KafkaSchemaFormType"]
    assert form["schema_version"] == "1"
