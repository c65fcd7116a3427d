"""Applying the data products' plan: one action at a time, each idempotent (deterministic tokens, adoption
by name, not-found on delete is success); what each came to is an `Outcome` for the state and the result."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kafka_lineage.model.failures import ListingBusy, PublishRefused
from kafka_lineage.model.products import Desired, ProductGone, ProductRecord, Written
from kafka_lineage.sync.ports import ProductCatalog
from kafka_lineage.sync.products import plan


@dataclass(frozen=True)
class Outcome:
    """What one action did: the record to keep (None: removed), the result's entry, and what to report."""

    action: plan.ProductAction
    record: ProductRecord | None
    change: str
    adopted: bool = False
    refused: PublishRefused | None = None  # a domain rule refused the publish: the product stays
    warning: str = ""

    def entry(self) -> dict[str, object]:
        record = self.record or self.action.record
        entry: dict[str, object] = {
            "name": self.action.name,
            "dataProductId": record.product_id if record else "",
            "items": len(self.action.desired.items) if self.action.desired else 0,
            "change": self.change,
        }
        if self.record is not None and self.record.held:
            entry.update(reason="subscribed", subscriptions=self.record.held)
        return entry


class ProductApplier:
    def __init__(self, catalog: ProductCatalog, domain_id: str, project_id: str) -> None:
        self.catalog = catalog
        self.domain_id = domain_id
        self.project_id = project_id

    def apply(self, action: plan.ProductAction) -> Outcome:
        record, desired = action.record, action.desired
        if action.kind == "delete":
            assert record is not None
            deletion = self.catalog.delete(record.product_id, record.listing_id)
            if deletion.held:
                return Outcome(action, replace(record, held=deletion.subscriptions), "held")
            return Outcome(action, None, "deleted")
        assert desired is not None
        if action.kind == "unhold":
            assert record is not None
            return Outcome(action, replace(record, held=0), "unchanged")
        if action.kind == "publish":
            assert record is not None
            return self._publish(action, record, "unchanged")
        if action.kind == "revise":
            assert record is not None
            try:
                token = plan.revise_token(record.product_id, record.revision, desired.digest)
                written = self.catalog.revise(record.product_id, desired, token)
            except ProductGone:
                return self._create(action, desired, record.product_id)  # deleted by hand: made again
            return self._publish(action, _record(desired, written, record.listing_id), "revised")
        return self._create(action, desired, action.replaces)

    def _create(self, action: plan.ProductAction, desired: Desired, replaces: str) -> Outcome:
        token = plan.create_token(self.domain_id, self.project_id, desired.name, replaces)
        written, adopted = self.catalog.create(desired, token)
        if adopted:
            # Made by a run that crashed before its state was written (or by hand): given these items.
            token = plan.revise_token(written.product_id, written.revision, desired.digest)
            written = self.catalog.revise(written.product_id, desired, token)
        outcome = self._publish(action, _record(desired, written, ""), "created")
        return replace(outcome, adopted=adopted)

    def _publish(self, action: plan.ProductAction, record: ProductRecord, change: str) -> Outcome:
        token = plan.publish_token(record.product_id, record.revision)
        try:
            listing_id = self.catalog.publish(record.product_id, record.revision, token)
        except PublishRefused as refused:
            return Outcome(action, replace(record, unpublished=True), change, refused=refused)
        except ListingBusy as busy:
            return Outcome(action, replace(record, unpublished=True), change, warning=str(busy))
        return Outcome(action, replace(record, listing_id=listing_id, unpublished=False, held=0), change)


def _record(desired: Desired, written: Written, listing_id: str) -> ProductRecord:
    return ProductRecord(
        desired.name, written.product_id, written.revision, desired.digest, len(desired.items), listing_id
    )
