"""DataZone stand-in: listings (CreateListingChangeSet, GetListing, SearchListings) and Search."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local.standins.errors import ServiceError
from tests.unit.standins.test_datazone_support import (
    ASSET_TYPE,
    DOMAIN,
    OTHER_PROJECT,
    PROJECT,
    World,
    create_topic_asset,
    kafka_forms,
    kafka_world,
    schema_arn,
)

TOPIC = "dbserver1.inventory.orders"


def error_of(w: World, operation: str, **params: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        w.call(operation, **params)
    return caught.value


def publish(w: World, asset_id: str, **params: Any) -> dict[str, Any]:
    return w.call(
        "CreateListingChangeSet", entityIdentifier=asset_id, entityType="ASSET", action="PUBLISH", **params
    )


def unpublish(w: World, asset_id: str, **params: Any) -> dict[str, Any]:
    return w.call(
        "CreateListingChangeSet", entityIdentifier=asset_id, entityType="ASSET", action="UNPUBLISH", **params
    )


def search(w: World, **params: Any) -> dict[str, Any]:
    return w.call("Search", searchScope="ASSET", **params)


def ids(page: dict[str, Any]) -> list[str]:
    return [item["assetItem"]["identifier"] for item in page["items"]]


def type_filter(type_name: str = ASSET_TYPE) -> dict[str, Any]:
    return {"filter": {"attribute": "typeName", "value": type_name}}


class TestListings:
    def test_given_an_asset_when_published_then_an_active_listing_of_its_latest_revision(self):
        # Given
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        # When
        listing = publish(w, asset["id"])
        # Then
        assert listing["status"] == "ACTIVE"
        assert listing["listingRevision"] == "1"
        got = w.call("GetListing", identifier=listing["listingId"])
        assert (got["status"], got["listingRevision"], got["name"]) == ("ACTIVE", "1", TOPIC)
        item = got["item"]["assetListing"]
        assert (item["assetId"], item["assetRevision"], item["assetType"]) == (asset["id"], "1", ASSET_TYPE)
        assert json.loads(item["forms"])["KafkaSchemaFormType"]["kafka_topic"] == TOPIC
        assert w.call("GetAsset", identifier=asset["id"])["listing"] == {
            "listingId": listing["listingId"],
            "listingStatus": "ACTIVE",
        }

    def test_given_the_same_revision_published_again_then_nothing_changes(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        first = publish(w, asset["id"])
        assert publish(w, asset["id"], entityRevision="1") == first

    def test_given_a_newer_revision_published_then_the_listing_refreshes(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        first = publish(w, asset["id"])
        w.call("CreateAssetRevision", identifier=asset["id"], name="v2", formsInput=kafka_forms(TOPIC))
        assert w.backend.listings(DOMAIN)[0].asset_revision == "1"  # a revision alone does not republish
        refreshed = publish(w, asset["id"])
        assert refreshed["listingId"] == first["listingId"]
        assert refreshed["listingRevision"] == "2"
        got = w.call("GetListing", identifier=first["listingId"])
        assert (got["item"]["assetListing"]["assetRevision"], got["name"]) == ("2", "v2")
        old = w.call("GetListing", identifier=first["listingId"], listingRevision="1")
        assert old["item"]["assetListing"]["assetRevision"] == "1"

    def test_given_a_published_asset_when_unpublished_then_inactive_and_republishable(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        publish(w, asset["id"])
        gone = unpublish(w, asset["id"])
        assert (gone["status"], gone["listingRevision"]) == ("INACTIVE", "2")
        assert unpublish(w, asset["id"]) == gone  # already inactive: nothing more to do
        back = publish(w, asset["id"])
        assert (back["status"], back["listingRevision"]) == ("ACTIVE", "3")

    def test_given_a_never_published_asset_when_unpublished_then_not_found(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        assert (
            error_of(
                w,
                "CreateListingChangeSet",
                entityIdentifier=asset["id"],
                entityType="ASSET",
                action="UNPUBLISH",
            ).code
            == "ResourceNotFoundException"
        )

    def test_given_unknown_entities_or_revisions_then_refused(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        assert (
            error_of(
                w, "CreateListingChangeSet", entityIdentifier="nope", entityType="ASSET", action="PUBLISH"
            ).code
            == "ResourceNotFoundException"
        )
        assert (
            error_of(
                w,
                "CreateListingChangeSet",
                entityIdentifier=asset["id"],
                entityType="DATA_PRODUCT",
                action="PUBLISH",
            ).code
            == "ResourceNotFoundException"
        )
        assert (
            error_of(
                w,
                "CreateListingChangeSet",
                entityIdentifier=asset["id"],
                entityType="ASSET",
                entityRevision="7",
                action="PUBLISH",
            ).code
            == "ValidationException"
        )
        assert error_of(w, "GetListing", identifier="nope").code == "ResourceNotFoundException"

    def test_given_a_client_token_reused_then_the_first_answer_or_a_conflict(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        first = publish(w, asset["id"], clientToken="pub-1")
        assert publish(w, asset["id"], clientToken="pub-1") == first
        assert (
            error_of(
                w,
                "CreateListingChangeSet",
                entityIdentifier=asset["id"],
                entityType="ASSET",
                action="UNPUBLISH",
                clientToken="pub-1",
            ).code
            == "ConflictException"
        )

    def test_given_a_long_asset_name_then_the_listing_name_fits_the_64_character_limit(self):
        w = kafka_world()
        asset = create_topic_asset(w, "t" * 200)
        listing = publish(w, asset["id"])
        assert w.call("GetListing", identifier=listing["listingId"])["name"] == "t" * 64

    def test_search_listings_finds_only_active_listings_at_their_listed_revision(self):
        w = kafka_world()
        listed = create_topic_asset(w, TOPIC)
        withdrawn = create_topic_asset(w, "withdrawn")
        create_topic_asset(w, "never-published")
        publish(w, listed["id"])
        publish(w, withdrawn["id"])
        unpublish(w, withdrawn["id"])
        w.call("CreateAssetRevision", identifier=listed["id"], name="renamed", formsInput=kafka_forms(TOPIC))
        found = w.call("SearchListings", filters=type_filter(), additionalAttributes=["FORMS"])
        [item] = [entry["assetListing"] for entry in found["items"]]
        assert (item["entityId"], item["entityRevision"], item["name"]) == (listed["id"], "1", TOPIC)
        assert (
            json.loads(item["additionalAttributes"]["forms"])["KafkaSchemaFormType"]["kafka_topic"] == TOPIC
        )


class TestSearch:
    def test_given_assets_of_two_types_when_filtered_by_type_name_then_only_that_type(self):
        # Given
        w = kafka_world()
        w.call("CreateAssetType", name="OtherType", formsInput={}, owningProjectIdentifier=PROJECT)
        kafka = create_topic_asset(w, TOPIC)
        other = w.call("CreateAsset", name=TOPIC, typeIdentifier="OtherType", owningProjectIdentifier=PROJECT)
        # When / Then
        assert ids(search(w, filters=type_filter())) == [kafka["id"]]
        assert ids(search(w, filters={"filter": {"attribute": "typeIdentifier", "value": "OtherType"}})) == [
            other["id"]
        ]
        item = search(w, filters=type_filter())["items"][0]["assetItem"]
        assert (item["typeIdentifier"], item["typeRevision"], item["owningProjectId"]) == (
            ASSET_TYPE,
            "1",
            PROJECT,
        )
        assert item["externalIdentifier"] == schema_arn("cdc", TOPIC)
        assert "additionalAttributes" not in item

    def test_given_and_or_clauses_then_they_combine(self):
        w = kafka_world()
        a = create_topic_asset(w, "alpha", registry="cdc")
        b = create_topic_asset(w, "beta", registry="billing")
        create_topic_asset(w, "gamma", registry="cdc")
        clause = {
            "and": [
                type_filter(),
                {
                    "or": [
                        {"filter": {"attribute": "KafkaSchemaFormType.kafka_topic", "value": "alpha"}},
                        {"filter": {"attribute": "KafkaSchemaFormType.registry_name", "value": "billing"}},
                    ]
                },
            ]
        }
        assert sorted(ids(search(w, filters=clause))) == sorted([a["id"], b["id"]])

    def test_given_a_member_that_is_not_searchable_then_filtering_on_it_matches_nothing(self):
        w = kafka_world()
        create_topic_asset(w, TOPIC)
        # schema_version is not @amazon.datazone#searchable in the project's model.
        assert search(
            w, filters={"filter": {"attribute": "KafkaSchemaFormType.schema_version", "value": "1"}}
        ) == {"items": [], "totalMatchCount": 0}
        assert (
            search(
                w, filters={"filter": {"attribute": "externalIdentifier", "value": schema_arn("cdc", TOPIC)}}
            )["items"]
            == []
        )

    def test_given_a_filter_without_value_or_a_clause_with_two_keys_then_validation_error(self):
        w = kafka_world()
        assert (
            error_of(w, "Search", searchScope="ASSET", filters={"filter": {"attribute": "typeName"}}).code
            == "ValidationException"
        )
        assert (
            error_of(w, "Search", searchScope="ASSET", filters={**type_filter(), "and": [type_filter()]}).code
            == "ValidationException"
        )

    def test_given_an_owning_project_then_only_its_assets(self):
        w = kafka_world()
        mine = create_topic_asset(w, TOPIC)
        create_topic_asset(w, "theirs", owningProjectIdentifier=OTHER_PROJECT)
        assert ids(search(w, owningProjectIdentifier=PROJECT)) == [mine["id"]]

    def test_given_search_text_then_name_and_searchable_form_fields_match(self):
        w = kafka_world()
        orders = create_topic_asset(w, TOPIC)
        create_topic_asset(w, "dbserver1.inventory.customers")
        assert ids(search(w, searchText="ORDERS")) == [orders["id"]]
        # schema_arn is searchable in KafkaSchemaFormType, so the ARN text finds the asset through the form.
        assert ids(search(w, searchText=schema_arn("cdc", TOPIC))) == [orders["id"]]

    def test_given_search_text_then_any_term_matches_unless_quoted(self):
        w = kafka_world()
        orders = create_topic_asset(w, TOPIC)
        customers = create_topic_asset(w, "dbserver1.inventory.customers")
        assert sorted(ids(search(w, searchText="orders customers"))) == sorted(
            [orders["id"], customers["id"]]
        )
        assert ids(search(w, searchText='"orders customers"')) == []

    def test_given_search_in_then_only_those_attributes_are_searched(self):
        w = kafka_world()
        create_topic_asset(w, TOPIC)
        assert search(w, searchText="cdc", searchIn=[{"attribute": "name"}])["items"] == []
        assert (
            len(
                search(w, searchText="cdc", searchIn=[{"attribute": "KafkaSchemaFormType.registry_name"}])[
                    "items"
                ]
            )
            == 1
        )

    def test_given_an_external_identifier_as_text_then_only_the_lenient_reading_matches_it(self):
        # The asset type below has no searchable form member holding the ARN.
        for lenient, expected in ((False, 0), (True, 1)):
            w = kafka_world(search_text_matches_external_identifier=lenient)
            w.call("CreateAssetType", name="Bare", formsInput={}, owningProjectIdentifier=PROJECT)
            w.call(
                "CreateAsset",
                name="n",
                typeIdentifier="Bare",
                externalIdentifier="arn:aws:x:y:z:thing/1",
                owningProjectIdentifier=PROJECT,
            )
            assert len(search(w, searchText="arn:aws:x:y:z:thing/1")["items"]) == expected

    def test_given_more_assets_than_a_page_then_next_token_walks_them_all_once(self):
        # Given
        w = kafka_world()
        created = [create_topic_asset(w, f"topic-{n:02d}")["id"] for n in range(7)]
        # When
        seen: list[str] = []
        pages = 0
        request: dict[str, Any] = {"filters": type_filter(), "maxResults": 3}
        while True:
            page = search(w, **request)
            pages += 1
            assert page["totalMatchCount"] == 7
            seen += ids(page)
            if "nextToken" not in page:
                break
            request["nextToken"] = page["nextToken"]
        # Then
        assert pages == 3
        assert seen == created

    def test_given_a_token_from_another_query_or_garbage_then_validation_error(self):
        w = kafka_world()
        for n in range(3):
            create_topic_asset(w, f"t{n}")
        token = search(w, maxResults=1)["nextToken"]
        assert error_of(w, "Search", searchScope="ASSET", searchText="t1", nextToken=token).code == (
            "ValidationException"
        )
        assert error_of(w, "Search", searchScope="ASSET", nextToken="garbage").code == "ValidationException"
        assert error_of(w, "Search", searchScope="ASSET", maxResults=51).code == "ValidationException"

    def test_given_forms_asked_for_then_items_carry_forms_output(self):
        w = kafka_world()
        create_topic_asset(w, TOPIC)
        item = search(w, additionalAttributes=["FORMS"])["items"][0]["assetItem"]
        forms = {f["formName"]: f for f in item["additionalAttributes"]["formsOutput"]}
        assert json.loads(forms["KafkaSchemaFormType"]["content"])["kafka_topic"] == TOPIC

    def test_given_a_sort_then_the_order_follows_it(self):
        w = kafka_world()
        b = create_topic_asset(w, "b-topic")
        a = create_topic_asset(w, "a-topic")
        assert ids(search(w, sort={"attribute": "name"})) == [a["id"], b["id"]]
        assert ids(search(w, sort={"attribute": "updatedAt", "order": "DESCENDING"})) == [a["id"], b["id"]]
        assert (
            error_of(w, "Search", searchScope="ASSET", sort={"attribute": "size"}).code
            == "ValidationException"
        )

    def test_given_creation_time_filters_then_they_compare_as_epoch_milliseconds(self):
        w = kafka_world()
        early = create_topic_asset(w, "early")
        w.clock.advance(3600)
        late = create_topic_asset(w, "late")
        cut = int(w.clock.now.timestamp() * 1000) - 1000
        assert ids(
            search(w, filters={"filter": {"attribute": "creationTime", "intValue": cut, "operator": "GE"}})
        ) == [late["id"]]
        assert ids(
            search(w, filters={"filter": {"attribute": "creationTime", "intValue": cut, "operator": "LT"}})
        ) == [early["id"]]

    def test_given_another_scope_then_no_items(self):
        w = kafka_world()
        create_topic_asset(w, TOPIC)
        assert w.call("Search", searchScope="GLOSSARY") == {"items": [], "totalMatchCount": 0}

    def test_given_a_search_lag_then_writes_show_only_after_that_many_searches(self):
        # Given: Search lags two calls behind writes
        w = kafka_world(search_lag_calls=2)
        asset = create_topic_asset(w, TOPIC)
        # When / Then: a new asset is invisible for two searches, then visible
        assert [len(search(w)["items"]) for _ in range(3)] == [0, 0, 1]
        # And a revision shows stale data for two searches
        w.call("CreateAssetRevision", identifier=asset["id"], name="renamed", formsInput=kafka_forms(TOPIC))
        names = [search(w)["items"][0]["assetItem"]["name"] for _ in range(3)]
        assert names == [TOPIC, TOPIC, "renamed"]
        # And a deleted asset lingers for two searches
        w.call("DeleteAsset", identifier=asset["id"])
        assert [len(search(w)["items"]) for _ in range(3)] == [1, 1, 0]

    def test_given_no_lag_then_a_write_is_visible_to_the_next_search(self):
        w = kafka_world()
        create_topic_asset(w, TOPIC)
        assert len(search(w)["items"]) == 1
