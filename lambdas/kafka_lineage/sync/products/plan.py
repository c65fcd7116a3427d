"""The data products' plan, pure: each configured product's items from the asset records, and what to do
about each product (create, revise, publish, delete, or nothing), as a frozen value a dry run returns."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from kafka_lineage.config.products import DataProduct
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.products import NEW, Desired, ProductRecord
from kafka_lineage.sync import plan as asset_plan

Kind = Literal["create", "revise", "publish", "delete", "unhold", "unchanged"]
# What each action reports as the entry's `change` (a dry run reports what it would be).
CHANGES: dict[str, str] = {
    "create": "created",
    "revise": "revised",
    "publish": "unchanged",
    "delete": "deleted",
    "unhold": "unchanged",
    "unchanged": "unchanged",
}


@dataclass(frozen=True)
class ProductAction:
    kind: Kind
    name: str
    desired: Desired | None = None  # None: a deletion
    record: ProductRecord | None = None  # None: a create
    replaces: str = ""  # a create: the id of the product it replaces (gone from DataZone), for a fresh token

    @property
    def writes(self) -> bool:
        return self.kind != "unchanged"

    def describe(self) -> dict[str, object]:
        """The result's `dataProducts` entry this action plans."""
        return {
            "name": self.name,
            "dataProductId": self.record.product_id if self.record else "",
            "items": len(self.desired.items) if self.desired else 0,
            "change": CHANGES[self.kind],
        }


@dataclass(frozen=True)
class ProductPlan:
    actions: tuple[ProductAction, ...] = ()
    unmatched: tuple[str, ...] = ()  # configured products that match no topic and do not exist

    def writes(self) -> tuple[ProductAction, ...]:
        return tuple(action for action in self.actions if action.writes)


def members(
    records: Mapping[str, AssetRecord], plans: Iterable[asset_plan.SyncPlan], dry_run: bool
) -> dict[str, tuple[str, str]]:
    """schema ARN -> (topic, asset id) of every topic asset a product may hold: the records the run left,
    without assets held for a deleted schema or whose deletion the run tried; a dry run adds the assets it
    would create (ids unknown: NEW + the schema ARN)."""
    found = {arn: (record.topic, record.asset_id) for arn, record in records.items() if not record.held}
    for part in plans:
        for action in part.writes():
            if isinstance(action, asset_plan.Delete):
                found.pop(action.schema_arn, None)
            elif dry_run and isinstance(action, asset_plan.Create):
                found.setdefault(action.schema_arn, (action.topic, NEW + action.schema_arn))
    return found


def desired(products: Iterable[DataProduct], assets: Mapping[str, tuple[str, str]]) -> dict[str, Desired]:
    """Each configured product with exactly the topic assets whose topics match it."""
    return {
        product.name: Desired(
            product.name,
            product.description,
            product.glossary_terms,
            tuple(sorted({asset for topic, asset in assets.values() if product.holds(topic)})),
        )
        for product in products
    }


def plan(
    wanted: Mapping[str, Desired],
    records: Mapping[str, ProductRecord],
    gone: Mapping[str, str] | None = None,
) -> ProductPlan:
    """What to do about each product, configured or recorded, in name order. `gone`: by name, the recorded
    products DataZone no longer has (a `verify` run found them deleted by hand): made again."""
    actions: list[ProductAction] = []
    unmatched: list[str] = []
    for name in sorted(set(wanted) | set(records)):
        product, record = wanted.get(name), records.get(name)
        if product is None or not product.items:
            # A data product holds at least one item (CreateDataProduct's `items`, min 1): none, no product.
            if record is not None:
                actions.append(ProductAction("delete", name, None, record))
            elif product is not None:
                unmatched.append(name)
        elif record is None:
            actions.append(ProductAction("create", name, product, replaces=(gone or {}).get(name, "")))
        elif record.digest != product.digest:
            actions.append(ProductAction("revise", name, product, record))
        elif record.unpublished:
            actions.append(ProductAction("publish", name, product, record))
        elif record.held:
            actions.append(ProductAction("unhold", name, product, record))
        else:
            actions.append(ProductAction("unchanged", name, product, record))
    return ProductPlan(tuple(actions), tuple(unmatched))


def _token(prefix: str, *parts: str) -> str:
    # clientToken: 1-128 of [\x21-\x7E]; the same write gets the same token on every retry.
    return prefix + hashlib.sha256("/".join(parts).encode()).hexdigest()[:48]


def create_token(domain_id: str, project_id: str, name: str, replaces: str = "") -> str:
    """One token per product name: a create retried after a crash answers the first product. A product
    made again after the last was deleted by hand takes another (the old token would answer the deleted
    product while DataZone remembers it)."""
    return _token("dp-", domain_id, project_id, name, *((replaces,) if replaces else ()))


def revise_token(product_id: str, revision: str, digest: str) -> str:
    return _token("dpr-", product_id, revision, digest)


def publish_token(product_id: str, revision: str) -> str:
    return _token("dpp-", product_id, revision)
