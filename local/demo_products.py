"""The demo's data product step: the inventory topics grouped into one DataZone data product that
schema-sync keeps (the `dataProducts` setting); a consuming project subscribes to the product, and is
granted every topic in it; then a topic is added to the registry, and the next sync adds it to the product.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

from local import access_checks, access_world, debezium, world
from local.deployed import DeployedFunctions
from local.runs import Context

PRODUCT = {
    "name": "Inventory",
    "description": "The inventory database of the Debezium tutorial, one topic per table",
    "include": ["^dbserver1\\.inventory\\."],
}
PROJECT = "prjinventory01"
ADDED = debezium.topic_for("shipments")


def show(result: dict[str, Any]) -> dict[str, Any]:
    [entry] = [e for e in result.get("dataProducts", []) if e["name"] == PRODUCT["name"]]
    name, change, items = entry["name"], entry["change"], entry["items"]
    print(f"data product {name} ({entry['dataProductId']}): {change}, {items} topic(s)")
    return dict(entry)


def run(
    deployed: DeployedFunctions,
    sync: Callable[[DeployedFunctions], dict[str, Any]],
    say: Callable[[str], None],
) -> None:
    """9-10. The product, a subscription to it granted topic by topic, and a topic added to it."""
    aws = deployed.aws
    os.environ["DATA_PRODUCTS"] = json.dumps([PRODUCT])
    say("9. Data product: the inventory topics grouped into one product, kept by schema-sync")
    product = show(sync(deployed))
    listing = aws.datazone.product_listing(world.DOMAIN_ID, product["dataProductId"])
    if listing is None:
        raise RuntimeError("the data product was not published")
    role = access_world.consumer_role("inventory-reader", path="/analytics/")
    consumer = access_world.add_consumer(aws.datazone, PROJECT, [role])
    subscription = aws.datazone.subscribe_listing(world.DOMAIN_ID, listing[0], PROJECT, "inventory analytics")
    # The grant lists every topic of the product; the reconciling run fulfils it asset by asset.
    deployed.handler("subscription-grants")({}, Context())
    [grant] = [g for g in aws.datazone.grants(world.DOMAIN_ID) if g.subscription_id == subscription]
    names = {a.id: a.name for a in aws.datazone.assets(world.DOMAIN_ID)}
    group = f"{PROJECT}-app"
    print(f"project {consumer.project_id} subscribed to the product; its grant, topic by topic:")
    for asset_id, status in grant.assets:
        topic = names.get(asset_id, asset_id)
        decision = "allowed" if access_checks.reads(role, topic, group) else "denied"
        print(f"  {topic}: {status}; IAM: may inventory-reader read it as {group}: {decision}")

    spec = world.SchemaSpec(ADDED, "AVRO", debezium.table_envelope("orders"))
    world.register("cdc", spec)
    configs = {"retention.ms": "604800000", "cleanup.policy": "delete"}  # as the other tables' topics
    aws.kafka.create_topic(world.CLUSTER_ARN, ADDED, 6, 3, configs)
    say(f"10. {ADDED} was added to the registry: the next sync adds it to the product (one revision)")
    show(sync(deployed))
