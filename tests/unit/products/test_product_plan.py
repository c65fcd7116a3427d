"""The data products' plan, pure: items from the asset records the run left, and what each product needs."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from kafka_lineage.config.products import DataProduct
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.products import NEW, Desired, ProductRecord
from kafka_lineage.sync import plan as asset_plan
from kafka_lineage.sync.products import plan

INVENTORY = DataProduct(name="Inventory", include=("^dbserver1\\.inventory\\.",), exclude=("\\.geom$",))


def record(topic: str, asset_id: str, held: int = 0) -> AssetRecord:
    arn = f"arn:aws:glue:eu-west-1:111122223333:schema/cdc/{topic}"
    return AssetRecord("cdc", topic, arn, asset_id, 1, "AVRO", "kafka://b:9098", "t", "t", "h", held=held)


RECORDS = {
    r.schema_arn: r
    for r in (
        record("dbserver1.inventory.orders", "a-orders"),
        record("dbserver1.inventory.customers", "a-customers"),
        record("dbserver1.inventory.geom", "a-geom"),
        record("__debezium-heartbeat.dbserver1", "a-beat"),
        record("dbserver1.inventory.gone", "a-gone", held=2),
    )
}


def written(wanted: Desired, **changes: Any) -> ProductRecord:
    base = ProductRecord(wanted.name, "dp1", "1", wanted.digest, len(wanted.items), "listing1")
    return replace(base, **changes)


def inventory() -> Desired:
    return plan.desired([INVENTORY], plan.members(RECORDS, (), dry_run=False))["Inventory"]


def test_the_items_are_exactly_the_matching_topics_assets_without_held_ones() -> None:
    # Given records of matching, excluded, unmatched and held topics / When the product is desired
    # Then it holds the matching live assets alone, sorted
    assert inventory().items == ("a-customers", "a-orders")


def test_a_deletion_the_run_tried_leaves_the_items_and_a_dry_runs_creations_join_them() -> None:
    # Given a run's plan that deletes orders and creates shipments
    orders = RECORDS["arn:aws:glue:eu-west-1:111122223333:schema/cdc/dbserver1.inventory.orders"]
    deletion = asset_plan.deletion(orders, "schema deleted", True)
    new = record("dbserver1.inventory.shipments", "")
    create = asset_plan.Create("cdc", new.topic, new.schema_arn, "new", new, None)  # type: ignore[arg-type]
    parts = [asset_plan.SyncPlan(actions=(deletion, create))]
    # When the members are taken / Then orders is out; a dry run counts shipments in (its id unknown)
    assert "a-orders" not in {a for _, a in plan.members(RECORDS, parts, dry_run=False).values()}
    dry = plan.members(RECORDS, parts, dry_run=True)
    assert dry[new.schema_arn] == (new.topic, NEW + new.schema_arn)


def kinds(desired: Desired | None, state: ProductRecord | None) -> list[str]:
    made = plan.plan({"Inventory": desired} if desired else {}, {"Inventory": state} if state else {})
    return [action.kind for action in made.actions]


def test_what_each_product_needs() -> None:
    # Given the product as desired and as last written / Then the plan says what to write
    wanted = inventory()
    empty = replace(wanted, items=())
    assert kinds(wanted, None) == ["create"]
    assert kinds(wanted, written(wanted)) == ["unchanged"]
    assert kinds(replace(wanted, items=(*wanted.items, "a-new")), written(wanted)) == ["revise"]
    assert kinds(replace(wanted, description="new words"), written(wanted)) == ["revise"]
    assert kinds(wanted, written(wanted, unpublished=True)) == ["publish"]
    assert kinds(wanted, written(wanted, held=1)) == ["unhold"]
    assert kinds(empty, written(wanted)) == ["delete"]
    assert kinds(None, written(wanted)) == ["delete"]  # its entry left the setting
    assert kinds(empty, None) == []
    assert plan.plan({"Inventory": empty}, {}).unmatched == ("Inventory",)
    [again] = plan.plan({"Inventory": wanted}, {}, gone={"Inventory": "dp-gone"}).actions
    assert (again.kind, again.replaces) == ("create", "dp-gone")
    assert plan.plan({"Inventory": wanted}, {"Inventory": written(wanted)}).writes() == ()


def test_tokens_are_the_same_for_the_same_write_and_valid_client_tokens() -> None:
    name = "$#.-_ " + "n" * 58
    token = plan.create_token("dzd_1", "prj", name)
    assert token == plan.create_token("dzd_1", "prj", name)
    assert token != plan.create_token("dzd_1", "prj", "other")
    assert token != plan.create_token("dzd_1", "prj", name, replaces="dp-deleted-by-hand")
    for made in (token, plan.revise_token("dp1", "1", "abc"), plan.publish_token("dp1", "2")):
        assert 1 <= len(made) <= 128
        assert all(0x21 <= ord(c) <= 0x7E for c in made)


def test_a_record_survives_its_entry() -> None:
    kept = ProductRecord("$#.-_", "dp1", "3", "d" * 32, 40, "l1", unpublished=True, held=2)
    assert ProductRecord.from_entry(kept.name, kept.to_entry()) == kept
