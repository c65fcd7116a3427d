"""Data products of topics, kept by schema-sync end to end through the handler (its deployed role): a
product created and published with exactly the matching topics, a no-change run that writes nothing, a
topic added (one revision) and deleted (it leaves the items), a crash after CreateDataProduct, a deletion
held while the product is subscribed, a dry run, and a governed domain's publishing rule."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import world
from tests.integration.sync.conftest import AVRO_VALUE, CdcWorld

SUBSCRIBER = "subscriberprj1"
INVENTORY = "Inventory"
HEARTBEAT = "__debezium-heartbeat.dbserver1"
PRODUCT = {
    "name": INVENTORY,
    "description": "Every table of the inventory database",
    "include": ["^dbserver1\\.inventory\\."],
    "exclude": ["\\.geom$"],
}
PRODUCT_CALLS = {
    "datazone:CreateDataProduct",
    "datazone:CreateDataProductRevision",
    "datazone:GetDataProduct",
    "datazone:DeleteDataProduct",
    "datazone:CreateListingChangeSet",
    "datazone:Search",
    "datazone:ListSubscriptions",
}
WRITES = {
    "datazone:CreateDataProduct",
    "datazone:CreateDataProductRevision",
    "datazone:DeleteDataProduct",
    "datazone:CreateListingChangeSet",
    "ssm:PutParameter",
    "ssm:DeleteParameter",
}


def datazone() -> Any:
    return boto3.client("datazone", region_name=world.REGION)


def with_products(cdc: CdcWorld, *products: dict[str, Any]) -> None:
    cdc.configure()
    cdc.monkeypatch.setenv("DATA_PRODUCTS", json.dumps(list(products)))


def asset_ids(cdc: CdcWorld, topics: list[str]) -> list[str]:
    by_name = {asset.external_identifier.rsplit("/", 1)[-1]: asset.id for asset in cdc.assets()}
    return sorted(by_name[topic] for topic in topics)


def product(product_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = datazone().get_data_product(
        domainIdentifier=world.DOMAIN_ID, identifier=product_id
    )
    return answer


def items(product_id: str) -> list[str]:
    return sorted(item["identifier"] for item in product(product_id)["items"])


def products_named(name: str) -> list[str]:
    answer = datazone().search(
        domainIdentifier=world.DOMAIN_ID,
        searchScope="DATA_PRODUCT",
        owningProjectIdentifier=world.PROJECT_ID,
        searchText=name,
    )
    return [i["dataProductItem"]["id"] for i in answer["items"] if i["dataProductItem"]["name"] == name]


def inventory_topics(names: list[str]) -> list[str]:
    return [name for name in names if name.startswith("dbserver1.inventory.") and not name.endswith(".geom")]


def entry(result: dict[str, Any], name: str = INVENTORY) -> dict[str, Any]:
    [found] = [e for e in result["dataProducts"] if e["name"] == name]
    return found


def test_a_product_is_created_and_published_with_exactly_the_matching_topics(cdc: CdcWorld) -> None:
    # Given the inventory topics, the heartbeat and geom, and a product of the inventory topics but geom
    names = cdc.inventory()
    with_products(cdc, PRODUCT)

    # When the sync runs
    result = cdc.sync()

    # Then the product holds exactly the matching topics' assets, and is published
    created = entry(result)
    assert created["change"] == "created"
    wanted = asset_ids(cdc, inventory_topics(names))
    assert created["items"] == len(wanted) == 5
    assert items(created["dataProductId"]) == wanted
    assert product(created["dataProductId"])["description"] == PRODUCT["description"]
    listing = cdc.aws.datazone.product_listing(world.DOMAIN_ID, created["dataProductId"])
    assert listing is not None
    assert sorted(listing[1]) == wanted


def test_a_no_change_run_makes_no_data_product_call_and_writes_nothing(cdc: CdcWorld) -> None:
    # Given a synced product
    cdc.inventory()
    with_products(cdc, PRODUCT)
    cdc.sync()
    cdc.reset_calls()

    # When the sync runs again with nothing changed
    result = cdc.sync()

    # Then the product is unchanged; the run read its state (one GetParametersByPath) and wrote nothing
    assert entry(result)["change"] == "unchanged"
    calls = cdc.calls()
    assert not PRODUCT_CALLS & set(calls), calls
    assert not WRITES & set(calls), calls
    assert set(calls) <= {
        "glue:ListSchemas",
        "ssm:GetParametersByPath",
        "datazone:GetAssetType",
        "kafka:ListTopics",
    }


def test_a_topic_added_is_one_revision_and_a_topic_deleted_leaves_the_items(cdc: CdcWorld) -> None:
    # Given a synced product
    names = cdc.inventory()
    with_products(cdc, PRODUCT)
    product_id = entry(cdc.sync())["dataProductId"]
    cdc.reset_calls()

    # When a topic of the inventory is added to the registry and the sync runs
    cdc.register("dbserver1.inventory.shipments", AVRO_VALUE)
    added = entry(cdc.sync())

    # Then the product is revised once, and holds the new topic too
    assert added["change"] == "revised"
    assert added["dataProductId"] == product_id
    assert cdc.calls()["datazone:CreateDataProductRevision"] == 1
    assert "datazone:CreateDataProduct" not in cdc.calls()
    topics = [*inventory_topics(names), "dbserver1.inventory.shipments"]
    assert items(product_id) == asset_ids(cdc, topics)

    # When a topic is deleted from the registry and the sync runs
    world.delete_schema("cdc", "dbserver1.inventory.orders")
    deleted = entry(cdc.sync())

    # Then the product no longer holds it
    assert deleted["change"] == "revised"
    remaining = [t for t in topics if t != "dbserver1.inventory.orders"]
    assert items(product_id) == asset_ids(cdc, remaining)
    assert product(product_id)["revision"] == "3"


@pytest.mark.parametrize("name_taken", ["conflict", "validation"])
@pytest.mark.parametrize("topics_changed", [False, True])
def test_a_crash_after_create_data_product_leaves_one_product(
    cdc: CdcWorld, name_taken: str, topics_changed: bool
) -> None:
    # Given a product created, and a crash before its state was written (the state lost)
    cdc.aws.set_readings(data_product_name_taken=name_taken)
    cdc.inventory()
    with_products(cdc, PRODUCT)
    first = entry(cdc.sync())["dataProductId"]
    ssm = boto3.client("ssm", region_name=world.REGION)
    state = ssm.get_parameters_by_path(Path="/kafka-lineage/assets/products", Recursive=True)["Parameters"]
    assert state
    ssm.delete_parameters(Names=[p["Name"] for p in state])
    if topics_changed:  # the retried create is another request under the same token
        cdc.register("dbserver1.inventory.shipments", AVRO_VALUE)

    # When the sync runs again
    result = cdc.sync()

    # Then there is still one product of that name, the first, with the topics that match now
    assert products_named(INVENTORY) == [first]
    assert entry(result)["dataProductId"] == first
    assert entry(result)["items"] == len(items(first))


def test_a_product_no_topic_matches_is_held_while_subscribed_then_deleted(cdc: CdcWorld) -> None:
    # Given a product subscribed by another project
    cdc.inventory()
    with_products(cdc, PRODUCT)
    product_id = entry(cdc.sync())["dataProductId"]
    listing = cdc.aws.datazone.product_listing(world.DOMAIN_ID, product_id)
    assert listing is not None
    listing_id = listing[0]
    cdc.aws.datazone.add_project(world.DOMAIN_ID, SUBSCRIBER)
    subscription = cdc.aws.datazone.subscribe_listing(world.DOMAIN_ID, listing_id, SUBSCRIBER)

    # When no topic matches it any longer
    with_products(cdc, {**PRODUCT, "include": ["^nothing-matches$"]})
    held = entry(cdc.sync())

    # Then it is held and reported, not deleted, and the run does not raise
    assert held == {
        "name": INVENTORY,
        "dataProductId": product_id,
        "items": 0,
        "change": "held",
        "reason": "subscribed",
        "subscriptions": 1,
    }
    assert product(product_id)["id"] == product_id

    # When the subscription is revoked, the next run deletes it
    datazone().revoke_subscription(domainIdentifier=world.DOMAIN_ID, identifier=subscription)
    assert entry(cdc.sync())["change"] == "deleted"
    with pytest.raises(datazone().exceptions.ResourceNotFoundException):
        product(product_id)
    # ... and a later run has nothing to keep: it says the entry matches no topic
    later = cdc.sync()
    assert later["dataProducts"] == []
    assert {"dataProduct": INVENTORY, "warning": "no topic matches the data product: not created"} in later[
        "warnings"
    ]


def test_a_dry_run_lists_the_product_changes_and_writes_nothing(cdc: CdcWorld) -> None:
    # Given topics not synced yet, and a product of them
    names = cdc.inventory()
    with_products(cdc, PRODUCT)
    cdc.reset_calls()

    # When a dry run runs
    result = cdc.sync({"dryRun": True})

    # Then it lists the product it would create, and writes nothing
    assert result["dataProducts"] == [
        {"name": INVENTORY, "dataProductId": "", "items": len(inventory_topics(names)), "change": "created"}
    ]
    assert not WRITES & set(cdc.calls())
    assert products_named(INVENTORY) == []


def test_a_targeted_sync_revises_only_the_products_whose_items_changed(cdc: CdcWorld) -> None:
    # Given two products, one of the inventory and one of the heartbeat
    cdc.inventory()
    beat = {"name": "Heartbeat", "include": ["^__debezium-heartbeat\\."]}
    with_products(cdc, PRODUCT, beat)
    cdc.sync()
    cdc.reset_calls()

    # When one inventory topic is added and a sync targets that schema alone
    cdc.register("dbserver1.inventory.shipments", AVRO_VALUE)
    result = cdc.sync({"schemaArns": [world.schema_arn("cdc", "dbserver1.inventory.shipments")]})

    # Then only the inventory product is revised
    assert entry(result)["change"] == "revised"
    assert entry(result, "Heartbeat")["change"] == "unchanged"
    assert cdc.calls()["datazone:CreateDataProductRevision"] == 1


@pytest.mark.parametrize("names_rule", [True, False])
def test_a_governed_domain_refuses_the_publish_and_the_product_stays_created(
    cdc: CdcWorld, names_rule: bool
) -> None:
    # Given a publishing rule taking data products that requires a glossary term
    cdc.aws.set_readings(rule_refusal_names_rule=names_rule)
    glossary = datazone().create_glossary(
        domainIdentifier=world.DOMAIN_ID, name="Business", owningProjectIdentifier=world.PROJECT_ID
    )["id"]
    term = datazone().create_glossary_term(
        domainIdentifier=world.DOMAIN_ID, glossaryIdentifier=glossary, name="Inventory"
    )["id"]
    datazone().create_rule(
        domainIdentifier=world.DOMAIN_ID,
        name="products need a term",
        target={"domainUnitTarget": {"domainUnitId": cdc.aws.datazone.root_domain_unit(world.DOMAIN_ID)}},
        action="CREATE_LISTING_CHANGE_SET",
        scope={"dataProduct": True},
        detail={"glossaryTermEnforcementDetail": {"requiredGlossaryTermIds": [term]}},
    )
    cdc.inventory()
    with_products(cdc, PRODUCT)

    # When the sync runs, then the product is created, unpublished, and the failure names the rule
    with pytest.raises(Exception, match="publish refused") as raised:
        cdc.sync()
    text = str(raised.value)
    summary = json.loads(text[text.index("{") :])
    [failure] = [f for f in summary["failed"] if f.get("dataProduct") == INVENTORY]
    assert "products need a term" in failure["error"]
    [created] = products_named(INVENTORY)

    # When the product carries the term, the next run publishes it without creating another
    with_products(cdc, {**PRODUCT, "glossaryTerms": [term]})
    result = cdc.sync()
    assert entry(result)["change"] == "revised"
    assert products_named(INVENTORY) == [created]


def test_one_product_that_fails_never_stops_the_others_and_the_next_run_makes_it(cdc: CdcWorld) -> None:
    # Given two products, and DataZone refusing the heartbeat product's create once
    from local.standins.errors import ServiceError

    cdc.inventory()
    beat = {"name": "Heartbeat", "include": ["^__debezium-heartbeat\\."]}
    with_products(cdc, PRODUCT, beat)
    refusal = ServiceError("AccessDeniedException", "not allowed here", 403)
    cdc.aws.datazone.inject_fault(
        "CreateDataProduct", refusal, 1, lambda params: params["name"] == "Heartbeat"
    )

    # When the sync runs, then the inventory product is made, the heartbeat's failure is reported
    with pytest.raises(Exception, match="not allowed here") as raised:
        cdc.sync()
    text = str(raised.value)
    summary = json.loads(text[text.index("{") :])
    assert [f["dataProduct"] for f in summary["failed"]] == ["Heartbeat"]
    assert [(e["name"], e["change"]) for e in summary["dataProducts"]] == [(INVENTORY, "created")]

    # When the next run runs, then it makes the heartbeat product and leaves the inventory one
    result = cdc.sync()
    assert entry(result, "Heartbeat")["change"] == "created"
    assert entry(result)["change"] == "unchanged"


def test_a_verify_run_makes_again_a_product_deleted_by_hand(cdc: CdcWorld) -> None:
    # Given a synced product that someone deleted in DataZone
    cdc.inventory()
    with_products(cdc, PRODUCT)
    first = entry(cdc.sync())["dataProductId"]
    datazone().create_listing_change_set(
        domainIdentifier=world.DOMAIN_ID,
        entityIdentifier=first,
        entityType="DATA_PRODUCT",
        action="UNPUBLISH",
    )
    datazone().delete_data_product(domainIdentifier=world.DOMAIN_ID, identifier=first)

    # When the hourly run runs, nothing tells it; when a verify run runs, it makes the product again
    assert entry(cdc.sync())["change"] == "unchanged"
    made = entry(cdc.sync({"verify": True}))

    # Then one product of the name stands again, published, with the topics
    assert made["change"] == "created"
    assert made["dataProductId"] != first  # not the deleted one, which the first create's token answers
    assert products_named(INVENTORY) == [made["dataProductId"]]
    assert cdc.aws.datazone.product_listing(world.DOMAIN_ID, made["dataProductId"]) is not None


def test_a_name_another_projects_product_holds_is_a_failure_not_an_adoption(cdc: CdcWorld) -> None:
    # Given another project's product named as ours (names are unique in the domain)
    cdc.aws.datazone.add_project(world.DOMAIN_ID, SUBSCRIBER)
    theirs = datazone().create_data_product(
        domainIdentifier=world.DOMAIN_ID, name=INVENTORY, owningProjectIdentifier=SUBSCRIBER
    )["id"]
    cdc.inventory()
    with_products(cdc, PRODUCT)

    # When the sync runs, then our product fails, naming the refusal, and theirs is left as it is
    with pytest.raises(Exception, match="already exists") as raised:
        cdc.sync()
    text = str(raised.value)
    summary = json.loads(text[text.index("{") :])
    assert [f["dataProduct"] for f in summary["failed"]] == [INVENTORY]
    assert product(theirs)["owningProjectId"] == SUBSCRIBER
    assert "items" not in product(theirs)
