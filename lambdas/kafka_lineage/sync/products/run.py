"""The data products' step of a schema-sync run, after its assets: read the product state, plan from the
asset records the run left (a dry run stops at the plan), take the state lease if the asset step took none,
apply, save, report.

A run whose products need nothing writes nothing and makes no DataZone call: it reads the product state
alone (one GetParametersByPath page under `{MAPPING_PATH}/assets/products/` per ten parameters; ten
products fit one). One bad product never stops the others: it fails in the result, the logs and a metric.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kafka_lineage.config.products import DataProduct
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.lease import Lease, hold
from kafka_lineage.model.products import ProductRecord
from kafka_lineage.observability import logger
from kafka_lineage.sync import plan as asset_plan
from kafka_lineage.sync.ports import ProductAdapters
from kafka_lineage.sync.products import plan
from kafka_lineage.sync.products.apply import Outcome, ProductApplier
from kafka_lineage.sync.result import SyncResult


@dataclass(frozen=True)
class RunState:
    """What the asset step leaves the products' step."""

    plans: tuple[asset_plan.SyncPlan, ...]
    dry_run: bool
    leased: bool  # the asset step holds the state lease (it wrote something)
    lease: Lease | None
    lease_wait_seconds: float
    verify: bool = False  # also ask DataZone whether each recorded product is still there


class ProductSync:
    def __init__(
        self, products: Iterable[DataProduct], adapters: ProductAdapters, deadline: Deadline
    ) -> None:
        self.products = tuple(products)
        self.adapters = adapters
        self.deadline = deadline

    def run(self, state: RunState, result: SyncResult) -> plan.ProductPlan | None:
        """Plan and (unless a dry run) apply; the plan, or None when the state could not be read."""
        try:
            the_plan = self._plan(state)
        except Exception as error:
            result.fail(error, doing="data products not planned", dataProduct="*")
            return None
        for name in the_plan.unmatched:
            result.warn("no topic matches the data product: not created", dataProduct=name)
        if state.dry_run:
            result.record_products([action.describe() for action in the_plan.actions])
            return the_plan
        if the_plan.writes() and not state.leased:
            deferred = hold(state.lease, self.deadline, state.lease_wait_seconds)
            if deferred is not None:
                result.defer(deferred)
                return the_plan
            the_plan = self._plan(state)  # on the state as the lease's last holder left it
        self._apply(the_plan, state, result)
        return the_plan

    def _plan(self, state: RunState) -> plan.ProductPlan:
        records = self.adapters.states.load()
        for name in self.adapters.states.unreadable:
            logger.warning("data product state unreadable; made again", extra={"dataProduct": name})
        gone: dict[str, str] = {}
        if state.verify:
            # What the state cannot show: a product deleted by hand is made again (as verify re-creates
            # assets), one GetDataProduct a product.
            gone = {
                n: r.product_id for n, r in records.items() if not self.adapters.catalog.exists(r.product_id)
            }
            records = {n: r for n, r in records.items() if n not in gone}
        assets = plan.members(self.adapters.records(), state.plans, state.dry_run)
        return plan.plan(plan.desired(self.products, assets), records, gone)

    def _apply(self, the_plan: plan.ProductPlan, state: RunState, result: SyncResult) -> None:
        applier = ProductApplier(self.adapters.catalog, self.adapters.domain_id, self.adapters.project_id)
        entries: list[dict[str, object]] = []
        changes: dict[str, ProductRecord | None] = {}
        for action in the_plan.actions:
            if not action.writes:
                entries.append(action.describe())
                continue
            try:
                outcome = applier.apply(action)
            except Exception as error:
                result.fail(error, doing=f"data product {action.kind}", dataProduct=action.name)
                continue
            self._report(outcome, result)
            entries.append(outcome.entry())
            changes[action.name] = outcome.record
        if changes:
            try:
                if state.lease is not None:
                    state.lease.ensure_held()
                result.record_product_writes(self.adapters.states.save(changes))
            except Exception as error:
                # DataZone's side is done and idempotent: the next run adopts what the state missed.
                for name in changes:
                    result.fail(error, doing="data product state not saved", dataProduct=name)
        result.record_products(entries)

    @staticmethod
    def _report(outcome: Outcome, result: SyncResult) -> None:
        name = outcome.action.name
        if outcome.refused is not None:
            result.fail(outcome.refused, doing="data product publish refused", dataProduct=name)
        if outcome.warning:
            result.warn(outcome.warning, dataProduct=name)
        if outcome.adopted:
            result.warn("data product of this name adopted", dataProduct=name)
        logger.info("data product kept", extra={"dataProduct": outcome.entry()})
