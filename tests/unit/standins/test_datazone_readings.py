"""DataZone stand-in: the readings of behaviour AWS leaves undocumented (local/standins/readings.py), each
switch under each of its values."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local.standins.errors import ServiceError
from tests.unit.standins.test_datazone_support import (
    ASSET_TYPE,
    PROJECT,
    World,
    create_topic_asset,
    kafka_forms,
    kafka_world,
)

TOPIC = "dbserver1.inventory.orders"
TYPE_FILTER = {"filter": {"attribute": "typeName", "value": ASSET_TYPE}}


def error_of(w: World, operation: str, **params: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        w.call(operation, **params)
    return caught.value


def change(w: World, asset_id: str, action: str, **params: Any) -> dict[str, Any]:
    return w.call(
        "CreateListingChangeSet", entityIdentifier=asset_id, entityType="ASSET", action=action, **params
    )


def search_ids(w: World, **params: Any) -> list[str]:
    page = w.call("Search", searchScope="ASSET", owningProjectIdentifier=PROJECT, **params)
    return [item["assetItem"]["identifier"] for item in page["items"]]


# ------------------------------------------------------------------------------------ search_type_filter


def test_the_type_filter_selects_the_type_when_honoured() -> None:
    w = kafka_world(search_type_filter="honoured")
    asset = create_topic_asset(w, TOPIC)
    assert search_ids(w, filters=TYPE_FILTER) == [asset["id"]]


def test_an_unindexed_type_filter_matches_nothing() -> None:
    w = kafka_world(search_type_filter="unindexed")
    create_topic_asset(w, TOPIC)
    assert search_ids(w, filters=TYPE_FILTER) == []
    # nested in and/or, too; other attributes still filter
    assert search_ids(w, filters={"or": [TYPE_FILTER, {"filter": {"attribute": "name", "value": "x"}}]}) == []
    assert len(search_ids(w, filters={"filter": {"attribute": "name", "value": TOPIC}})) == 1


def test_a_rejected_type_filter_is_a_validation_error() -> None:
    w = kafka_world(search_type_filter="rejected")
    create_topic_asset(w, TOPIC)
    error = error_of(w, "Search", searchScope="ASSET", filters={"and": [TYPE_FILTER]})
    assert error.code == "ValidationException"
    assert "typeName" in error.message


def test_search_text_over_512_characters_is_rejected() -> None:
    w = kafka_world()
    assert search_ids(w, searchText="x" * 512) == []
    error = error_of(w, "Search", searchScope="ASSET", searchText="x" * 513)
    assert error.code == "ValidationException"


# ----------------------------------------------------------------------------------- listing_change_calls


def test_a_publish_stays_creating_for_the_configured_calls_then_is_active() -> None:
    # Given listing changes that take three further calls
    w = kafka_world(listing_change_calls=3)
    asset = create_topic_asset(w, TOPIC)
    # When the asset is published
    answer = change(w, asset["id"], "PUBLISH")
    # Then it answers CREATING, shows CREATING for three calls, then ACTIVE
    assert answer["status"] == "CREATING"
    seen = [w.call("GetListing", identifier=answer["listingId"])["status"] for _ in range(4)]
    assert seen == ["CREATING", "CREATING", "CREATING", "ACTIVE"]
    assert w.call("GetAsset", identifier=asset["id"])["listing"]["listingStatus"] == "ACTIVE"


def test_a_change_while_another_is_in_progress_is_a_conflict() -> None:
    w = kafka_world(listing_change_calls=2)
    asset = create_topic_asset(w, TOPIC)
    change(w, asset["id"], "PUBLISH")
    # A revision published right after, and an unpublish, are refused while the publish is in progress
    revised = w.call(
        "CreateAssetRevision", identifier=asset["id"], name=TOPIC, formsInput=kafka_forms(TOPIC, version=2)
    )
    assert (
        error_of(
            w,
            "CreateListingChangeSet",
            entityIdentifier=asset["id"],
            entityType="ASSET",
            action="PUBLISH",
            entityRevision=revised["revision"],
        ).code
        == "ConflictException"
    )
    # (that refused call was the second: the publish has taken effect now)
    assert change(w, asset["id"], "PUBLISH", entityRevision=revised["revision"])["status"] == "CREATING"


def test_an_unpublish_shows_the_listing_active_until_it_takes_effect_and_delete_waits_for_it() -> None:
    w = kafka_world(listing_change_calls=2, delete_requires_unpublish=True)
    asset = create_topic_asset(w, TOPIC)
    listing = change(w, asset["id"], "PUBLISH")["listingId"]
    w.backend.settle_listings(w.call("GetAsset", identifier=asset["id"])["domainId"])
    # When it is unpublished
    assert change(w, asset["id"], "UNPUBLISH")["status"] == "ACTIVE"
    # Then DeleteAsset is refused while the listing still shows ACTIVE, and succeeds once it is INACTIVE
    assert error_of(w, "DeleteAsset", identifier=asset["id"]).code == "ConflictException"
    assert w.call("GetListing", identifier=listing)["status"] == "ACTIVE"  # the second further call
    assert w.call("GetListing", identifier=listing)["status"] == "INACTIVE"
    w.call("DeleteAsset", identifier=asset["id"])


def test_search_listings_shows_only_listings_whose_publish_took_effect() -> None:
    w = kafka_world(listing_change_calls=1)
    asset = create_topic_asset(w, TOPIC)
    change(w, asset["id"], "PUBLISH")
    assert w.call("SearchListings")["items"] == []
    assert [i["assetListing"]["entityId"] for i in w.call("SearchListings")["items"]] == [asset["id"]]


# ----------------------------------------------------------------------------- asset_type_create_existing


def asset_type_input(w: World) -> dict[str, Any]:
    found = w.call("GetAssetType", identifier=ASSET_TYPE)
    forms = {
        name: {"typeIdentifier": f["typeName"], "typeRevision": f["typeRevision"], "required": f["required"]}
        for name, f in found["formsOutput"].items()
    }
    return {"name": ASSET_TYPE, "formsInput": forms, "owningProjectIdentifier": PROJECT}


def test_create_on_an_existing_name_makes_a_revision_under_the_revision_reading() -> None:
    w = kafka_world(asset_type_create_existing="revision")
    request = asset_type_input(w)
    del request["formsInput"]["RelationalTableForm"]
    assert w.call("CreateAssetType", **request)["revision"] == "2"


def test_create_on_an_existing_name_is_a_conflict_under_the_conflict_reading() -> None:
    w = kafka_world(asset_type_create_existing="conflict")
    error = error_of(w, "CreateAssetType", **asset_type_input(w))
    assert error.code == "ConflictException"
    w.call("DeleteAssetType", identifier=ASSET_TYPE)
    assert w.call("CreateAssetType", **asset_type_input_fresh())["revision"] == "1"


def asset_type_input_fresh() -> dict[str, Any]:
    return {
        "name": ASSET_TYPE,
        "formsInput": {
            "AssetCommonDetailsForm": {
                "typeIdentifier": "amazon.datazone.AssetCommonDetailsFormType",
                "typeRevision": "6",
                "required": True,
            }
        },
        "owningProjectIdentifier": PROJECT,
    }


# ------------------------------------------------------------------------ managed_form_members_undeclared


@pytest.mark.parametrize(
    ("undeclared", "member", "content"),
    [
        ("RelationalTableFormType.tableName", "tableName", {"tableName": TOPIC, "columns": []}),
        (
            "RelationalTableFormType.columns.description",
            "description",
            {"columns": [{"columnName": "id", "dataType": "long", "description": "key"}]},
        ),
        (
            "AssetCommonDetailsFormType.customProperties",
            "customProperties",
            {"sourceIdentifier": "kafka://b:9098/t", "customProperties": {"a": "b"}},
        ),
    ],
)
def test_an_undeclared_managed_member_is_gone_from_the_model_and_rejected(
    undeclared: str, member: str, content: dict[str, Any]
) -> None:
    # Given a managed form type whose model leaves the member out, and unknown members rejected
    w = kafka_world(managed_form_members_undeclared=undeclared, reject_unknown_form_members=True)
    type_name = "amazon.datazone." + undeclared.split(".", maxsplit=1)[0]
    form_name = "RelationalTableForm" if "Relational" in type_name else "AssetCommonDetailsForm"
    # Then GetFormType's model does not declare it
    model = w.call("GetFormType", formTypeIdentifier=type_name)["model"]["smithy"]
    assert f"{member}:" not in model
    # And content carrying it is rejected, content without it accepted
    forms = [f for f in kafka_forms(TOPIC) if f["formName"] != form_name]
    with_member = [*forms, {"formName": form_name, "content": json.dumps(content)}]
    error = error_of(
        w,
        "CreateAsset",
        name=TOPIC,
        typeIdentifier=ASSET_TYPE,
        owningProjectIdentifier=PROJECT,
        formsInput=with_member,
    )
    assert error.code == "ValidationException"
    assert member in error.message


def test_managed_models_declare_every_member_by_default() -> None:
    w = kafka_world()
    model = w.call("GetFormType", formTypeIdentifier="amazon.datazone.RelationalTableFormType")["model"]
    assert all(
        f"{m}:" in model["smithy"] for m in ("tableName", "columns", "columnName", "dataType", "description")
    )


# ---------------------------------------------------------------------------- revision_changes_type_revision


@pytest.mark.parametrize("moves", [True, False])
def test_a_revision_moves_the_asset_to_a_newer_type_revision_only_when_datazone_lets_it(moves: bool) -> None:
    from tests.unit.standins.test_datazone_assets import TestCreateAssetRevision, forms_with, schema_form

    # Given an asset made under asset type revision 1, then revision 2 (a form type with one more member)
    w = kafka_world(revision_changes_type_revision=moves)
    asset = create_topic_asset(w, TOPIC)
    TestCreateAssetRevision().add_type_revision(w)
    newer = forms_with("KafkaSchemaFormType", schema_form(owner="team-a"))
    if moves:
        # Then a revision naming revision 2 moves it there
        revised = w.call(
            "CreateAssetRevision", identifier=asset["id"], name="v2", typeRevision="2", formsInput=newer
        )
        assert revised["typeRevision"] == "2"
    else:
        # Then such a revision is refused, naming both revisions, and one at its own revision still works
        error = error_of(
            w, "CreateAssetRevision", identifier=asset["id"], name="v2", typeRevision="2", formsInput=newer
        )
        assert error.code == "ValidationException"
        assert "revision 1" in error.message
        assert "revision 2" in error.message
        kept = w.call(
            "CreateAssetRevision",
            identifier=asset["id"],
            name="v2",
            typeRevision="1",
            formsInput=kafka_forms(TOPIC),
        )
        assert (kept["typeRevision"], kept["revision"]) == ("1", "2")
