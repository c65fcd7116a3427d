"""A subscription to a data product is fulfilled per topic asset: the real subscription-grants handler on the
stand-ins reports each topic asset of the product's grant, and leaves the statuses of its other assets
(another type's, which DataZone or another fulfiller settles) alone. Drift's subscribers include the
projects subscribed to a product that holds the topic."""

from __future__ import annotations

from typing import Any

import boto3

from local import world
from local.access_world import add_consumer
from tests.integration.access.conftest import CONSUMER_PROJECT, CUSTOMERS, ORDERS, AccessWorld, reads

OTHER_TYPE = "LakeTableAssetType"


def datazone() -> Any:
    return boto3.client("datazone", region_name=world.REGION)


def lake_table(name: str) -> str:
    """A published asset of another type, owned by the stack's project (a Glue table, say)."""
    client = datazone()
    client.create_asset_type(
        domainIdentifier=world.DOMAIN_ID,
        name=OTHER_TYPE,
        owningProjectIdentifier=world.PROJECT_ID,
        formsInput={},
    )
    asset = client.create_asset(
        domainIdentifier=world.DOMAIN_ID,
        name=name,
        typeIdentifier=OTHER_TYPE,
        owningProjectIdentifier=world.PROJECT_ID,
    )
    client.create_listing_change_set(
        domainIdentifier=world.DOMAIN_ID, entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH"
    )
    return str(asset["id"])


def published_product(access: AccessWorld, asset_ids: list[str]) -> str:
    """A data product of these assets, published: its listing's id."""
    access.aws.datazone.settle_listings(world.DOMAIN_ID)
    client = datazone()
    created = client.create_data_product(
        domainIdentifier=world.DOMAIN_ID,
        name="Inventory",
        owningProjectIdentifier=world.PROJECT_ID,
        items=[{"itemType": "ASSET", "identifier": asset} for asset in asset_ids],
    )
    listing = client.create_listing_change_set(
        domainIdentifier=world.DOMAIN_ID,
        entityIdentifier=created["id"],
        entityType="DATA_PRODUCT",
        entityRevision=created["revision"],
        action="PUBLISH",
    )
    return str(listing["listingId"])


def topic_asset(access: AccessWorld, topic: str) -> str:
    [asset] = [a for a in access.aws.datazone.assets(world.DOMAIN_ID) if a.name == topic]
    return str(asset.id)


def test_a_product_subscription_is_granted_per_topic_asset_and_another_types_status_is_left_alone(
    access: AccessWorld,
) -> None:
    # Given a product of two topics and a table of another type, and a consumer whose target takes both
    role = access.role("inventory-reader")
    consumer = add_consumer(
        access.aws.datazone, CONSUMER_PROJECT, [role], asset_types=("KafkaTopicAssetType", OTHER_TYPE)
    )
    orders, customers = topic_asset(access, ORDERS), topic_asset(access, CUSTOMERS)
    table = lake_table("lakehouse.orders")
    listing = published_product(access, [orders, customers, table])

    # When the consumer's project subscribes to the product, and the reconciling run fulfils the grant
    subscription = access.aws.datazone.subscribe_listing(world.DOMAIN_ID, listing, consumer.project_id)
    access.run({})

    # Then each topic asset is GRANTED and readable, and the table's status is DataZone's, untouched
    [grant] = [g for g in access.aws.datazone.grants(world.DOMAIN_ID) if g.subscription_id == subscription]
    statuses = dict(grant.assets)
    assert statuses == {orders: "GRANTED", customers: "GRANTED", table: "GRANT_PENDING"}
    assert reads(role, ORDERS)
    assert reads(role, CUSTOMERS)


def test_a_revoked_product_subscription_revokes_each_topic_and_keeps_what_another_grant_covers(
    access: AccessWorld,
) -> None:
    # Given a granted product subscription of two topics, and the same role granted orders on its own
    role = access.role("inventory-reader")
    consumer = access.consumer([role])
    orders, customers = topic_asset(access, ORDERS), topic_asset(access, CUSTOMERS)
    listing = published_product(access, [orders, customers])
    subscription = access.aws.datazone.subscribe_listing(world.DOMAIN_ID, listing, consumer.project_id)
    access.subscribe(consumer, ORDERS)
    access.run({})

    # When the product subscription is revoked and the reconciling run settles it
    datazone().revoke_subscription(domainIdentifier=world.DOMAIN_ID, identifier=subscription)
    access.run({})

    # Then both topic assets of the product's grant are REVOKED; orders stays readable through its own grant
    [grant] = [g for g in access.aws.datazone.grants(world.DOMAIN_ID) if g.subscription_id == subscription]
    assert dict(grant.assets) == {orders: "REVOKED", customers: "REVOKED"}
    assert reads(role, ORDERS)
    assert not reads(role, CUSTOMERS)
