"""The DataZone stand-in's data products: CreateDataProduct and its revisions, GetDataProduct,
DeleteDataProduct, Search in the DATA_PRODUCT scope and publishing (CreateListingChangeSet, DATA_PRODUCT),
each answer valid for botocore's output shape; and both sides of the readings they take."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.standins.test_datazone_access import call, error_of
from tests.unit.standins.test_datazone_support import (
    DOMAIN,
    OTHER_PROJECT,
    PROJECT,
    World,
    create_topic_asset,
    kafka_world,
)


def published(w: World, topic: str) -> str:
    asset = create_topic_asset(w, topic)["id"]
    w.call("CreateListingChangeSet", entityIdentifier=asset, entityType="ASSET", action="PUBLISH")
    w.backend.settle_listings(DOMAIN)
    return str(asset)


def product(w: World, assets: list[str], name: str = "Inventory", **extra: Any) -> dict[str, Any]:
    items = [{"itemType": "ASSET", "identifier": a} for a in assets]
    return call(w, "CreateDataProduct", name=name, owningProjectIdentifier=PROJECT, items=items, **extra)


def test_a_product_is_created_revised_and_read_at_each_revision() -> None:
    # Given two topic assets
    w = kafka_world()
    first, second = published(w, "dbserver1.inventory.orders"), published(w, "dbserver1.inventory.customers")
    # When a product of the first is created, then revised to hold both
    created = product(w, [first], description="the inventory")
    revised = call(
        w,
        "CreateDataProductRevision",
        identifier=created["id"],
        name="Inventory",
        items=[{"itemType": "ASSET", "identifier": a} for a in (first, second)],
    )
    # Then each revision keeps its items, and the latest is the default
    assert (created["revision"], revised["revision"]) == ("1", "2")
    assert [i["identifier"] for i in call(w, "GetDataProduct", identifier=created["id"])["items"]] == [
        first,
        second,
    ]
    old = call(w, "GetDataProduct", identifier=created["id"], revision="1")
    assert [i["identifier"] for i in old["items"]] == [first]
    assert old["description"] == "the inventory"


def test_items_must_be_live_assets_of_the_owning_project_named_once() -> None:
    w = kafka_world()
    asset = published(w, "dbserver1.inventory.orders")
    assert (
        error_of(
            w,
            "CreateDataProduct",
            name="P",
            owningProjectIdentifier=PROJECT,
            items=[{"itemType": "ASSET", "identifier": "nosuchasset"}],
        ).code
        == "ResourceNotFoundException"
    )
    other = error_of(
        w,
        "CreateDataProduct",
        name="P",
        owningProjectIdentifier=OTHER_PROJECT,
        items=[{"itemType": "ASSET", "identifier": asset}],
    )
    assert other.code == "ValidationException"
    twice = error_of(
        w,
        "CreateDataProduct",
        name="P",
        owningProjectIdentifier=PROJECT,
        items=[{"itemType": "ASSET", "identifier": asset}] * 2,
    )
    assert twice.code == "ValidationException"


@pytest.mark.parametrize(
    ("reading", "code"), [("conflict", "ConflictException"), ("validation", "ValidationException")]
)
def test_a_name_is_unique_in_the_domain_and_a_token_answers_the_first(reading: str, code: str) -> None:
    w = kafka_world(data_product_name_taken=reading)
    asset = published(w, "dbserver1.inventory.orders")
    first = product(w, [asset], clientToken="token-1")
    # The same request under the same token: the first product again
    assert product(w, [asset], clientToken="token-1")["id"] == first["id"]
    # Another token, or another project: the name is taken, refused with the reading's error
    refused = error_of(
        w,
        "CreateDataProduct",
        name="Inventory",
        owningProjectIdentifier=PROJECT,
        items=[{"itemType": "ASSET", "identifier": asset}],
        clientToken="token-2",
    )
    assert refused.code == code
    # Once deleted, the name is free again
    w.call("DeleteDataProduct", identifier=first["id"])
    assert product(w, [asset], clientToken="token-3")["id"] != first["id"]


def test_search_finds_the_projects_products_by_text() -> None:
    w = kafka_world()
    asset = published(w, "dbserver1.inventory.orders")
    made = product(w, [asset], name="Inventory $#.-_")
    found = call(
        w, "Search", searchScope="DATA_PRODUCT", owningProjectIdentifier=PROJECT, searchText="inventory"
    )
    assert [i["dataProductItem"]["id"] for i in found["items"]] == [made["id"]]
    other = call(w, "Search", searchScope="DATA_PRODUCT", owningProjectIdentifier=OTHER_PROJECT)
    assert other["items"] == []


def test_publishing_lists_the_items_listings_and_a_revision_moves_the_listing() -> None:
    w = kafka_world()
    first, second = published(w, "dbserver1.inventory.orders"), published(w, "dbserver1.inventory.customers")
    made = product(w, [first])
    listed = call(
        w,
        "CreateListingChangeSet",
        entityIdentifier=made["id"],
        entityType="DATA_PRODUCT",
        entityRevision="1",
        action="PUBLISH",
    )
    assert w.backend.product_listing(DOMAIN, made["id"]) == (listed["listingId"], [first])
    call(
        w,
        "CreateDataProductRevision",
        identifier=made["id"],
        name="Inventory",
        items=[{"itemType": "ASSET", "identifier": a} for a in (first, second)],
    )
    again = call(
        w,
        "CreateListingChangeSet",
        entityIdentifier=made["id"],
        entityType="DATA_PRODUCT",
        entityRevision="2",
        action="PUBLISH",
    )
    assert again["listingId"] == listed["listingId"]
    assert again["listingRevision"] == "2"
    assert w.backend.product_listing(DOMAIN, made["id"]) == (listed["listingId"], [first, second])


def test_a_product_of_an_unpublished_asset_cannot_be_published() -> None:
    w = kafka_world()
    asset = create_topic_asset(w, "dbserver1.inventory.orders")["id"]
    made = product(w, [asset])
    refused = error_of(
        w, "CreateListingChangeSet", entityIdentifier=made["id"], entityType="DATA_PRODUCT", action="PUBLISH"
    )
    assert refused.code == "ValidationException"


@pytest.mark.parametrize("requires_unpublish", [True, False])
def test_delete_is_refused_while_subscribed_and_follows_the_reading_when_published(
    requires_unpublish: bool,
) -> None:
    w = kafka_world(data_product_delete_requires_unpublish=requires_unpublish)
    made = product(w, [published(w, "dbserver1.inventory.orders")])
    listing = call(
        w, "CreateListingChangeSet", entityIdentifier=made["id"], entityType="DATA_PRODUCT", action="PUBLISH"
    )["listingId"]
    subscription = w.backend.subscribe_listing(DOMAIN, listing, OTHER_PROJECT)
    assert error_of(w, "DeleteDataProduct", identifier=made["id"]).code == "ConflictException"
    w.call("RevokeSubscription", identifier=subscription)
    if requires_unpublish:
        assert error_of(w, "DeleteDataProduct", identifier=made["id"]).code == "ConflictException"
        w.call(
            "CreateListingChangeSet",
            entityIdentifier=made["id"],
            entityType="DATA_PRODUCT",
            action="UNPUBLISH",
        )
    w.call("DeleteDataProduct", identifier=made["id"])
    assert error_of(w, "GetDataProduct", identifier=made["id"]).code == "ResourceNotFoundException"
    assert w.backend.product_listing(DOMAIN, made["id"]) is None
