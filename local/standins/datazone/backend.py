"""The DataZone stand-in's entry class: the one table from operation name to handler, injected faults,
and the Python-side helpers tests and the demo use (not API)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from local.standins.datazone import (
    assets,
    environments,
    glossaries,
    governance,
    grants,
    lineage,
    listings,
    products,
    rules,
    search,
    subscriptions,
    types,
)
from local.standins.datazone.assets import AssetView
from local.standins.datazone.grants import GrantView
from local.standins.datazone.graph import NativeLineage
from local.standins.datazone.lineage import DatasetEdge
from local.standins.datazone.listings import ListingView
from local.standins.datazone.records import EmittedEvent
from local.standins.datazone.state import Domain, Store
from local.standins.datazone.wire import Params, Response
from local.standins.errors import ServiceError

DOMAIN_ID = re.compile(r"dzd[-_][a-zA-Z0-9_-]{1,36}")
PROJECT_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")

Handler = Callable[[Store, Domain, Params], Response]

# Every operation the stand-in answers, and the function that answers it.
HANDLERS: dict[str, Handler] = {
    "CreateFormType": types.create_form_type,
    "GetFormType": types.get_form_type,
    "CreateAssetType": types.create_asset_type,
    "GetAssetType": types.get_asset_type,
    "DeleteAssetType": types.delete_asset_type,
    "CreateAsset": assets.create_asset,
    "GetAsset": assets.get_asset,
    "CreateAssetRevision": assets.create_asset_revision,
    "DeleteAsset": assets.delete_asset,
    "CreateListingChangeSet": listings.create_listing_change_set,
    "CreateDataProduct": products.create_data_product,
    "CreateDataProductRevision": products.create_data_product_revision,
    "GetDataProduct": products.get_data_product,
    "DeleteDataProduct": products.delete_data_product,
    "GetListing": listings.get_listing,
    "Search": search.search,
    "SearchListings": search.search_listings,
    "CreateRule": rules.create_rule,
    "GetRule": rules.get_rule,
    "ListRules": rules.list_rules,
    "DeleteRule": rules.delete_rule,
    "CreateGlossary": glossaries.create_glossary,
    "CreateGlossaryTerm": glossaries.create_glossary_term,
    "CreateSubscriptionRequest": subscriptions.create_subscription_request,
    "AcceptSubscriptionRequest": subscriptions.accept_subscription_request,
    "ListSubscriptions": subscriptions.list_subscriptions,
    "GetSubscription": subscriptions.get_subscription,
    "RevokeSubscription": subscriptions.revoke_subscription,
    "CancelSubscription": subscriptions.cancel_subscription,
    "CreateEnvironment": environments.create_environment,
    "GetEnvironment": environments.get_environment,
    "CreateSubscriptionTarget": environments.create_subscription_target,
    "GetSubscriptionTarget": environments.get_subscription_target,
    "ListSubscriptionTargets": environments.list_subscription_targets,
    "GetSubscriptionGrant": grants.get_subscription_grant,
    "ListSubscriptionGrants": grants.list_subscription_grants,
    "UpdateSubscriptionGrantStatus": grants.update_subscription_grant_status,
    "CreateSubscriptionGrant": grants.create_subscription_grant,
    "PostLineageEvent": lineage.post_lineage_event,
    "ListLineageEvents": lineage.list_lineage_events,
    "GetLineageEvent": lineage.get_lineage_event,
    "DeleteLineageEvent": lineage.delete_lineage_event,
    "GetLineageNode": lineage.get_lineage_node,
    "ListLineageNodeHistory": lineage.list_lineage_node_history,
    "GetDomain": governance.get_domain,
    "GetProject": governance.get_project,
    "GetDomainUnit": governance.get_domain_unit,
    "AddPolicyGrant": governance.add_policy_grant,
    "ListPolicyGrants": governance.list_policy_grants,
    "RemovePolicyGrant": governance.remove_policy_grant,
    "CreateProjectMembership": governance.create_project_membership,
    "ListProjectMemberships": governance.list_project_memberships,
    "GetUserProfile": governance.get_user_profile,
}


@dataclass
class _Fault:
    operation: str
    error: ServiceError
    remaining: int
    match: Callable[[Params], bool] | None


class DataZoneBackend:
    """The DataZone stand-in. `handle(operation_name, params)` is the whole API surface.

    `readings`: the server's Readings (undocumented behaviours, see state.READING_DEFAULTS); `seed` makes
    ids reproducible; `clock` supplies "now" (timezone-aware); `principal` is what createdBy reports;
    `account` and `region` are the domain's; `sink` receives the events DataZone puts on the default bus.
    """

    def __init__(
        self,
        readings: object = None,
        *,
        seed: int | None = None,
        clock: Callable[[], datetime] | None = None,
        principal: str = "standin-user",
        account: str = "123456789012",
        region: str = "eu-west-1",
        sink: Callable[[EmittedEvent], None] | None = None,
    ) -> None:
        self._store = Store(
            readings,
            seed=seed,
            clock=clock or (lambda: datetime.now(UTC)),
            principal=principal,
            account=account,
            region=region,
            sink=sink,
        )
        self._faults: list[_Fault] = []

    @property
    def readings(self) -> object:
        return self._store.readings

    @property
    def principal(self) -> str:
        return self._store.principal

    @property
    def operations(self) -> frozenset[str]:
        return frozenset(HANDLERS)

    # ---------------------------------------------------------------------------------- entry point

    def handle(self, operation_name: str, params: Params) -> Response:
        store = self._store
        with store.lock:
            self._raise_injected_fault(operation_name, params)
            handler = HANDLERS.get(operation_name)
            if handler is None:
                raise ServiceError(
                    "UnknownOperationException", f"The DataZone stand-in does not implement {operation_name}"
                )
            # GetDomain names its domain `identifier`; every other operation `domainIdentifier`.
            domain = store.domain(
                params["identifier" if operation_name == "GetDomain" else "domainIdentifier"]
            )
            domain.calls += 1
            return handler(store, domain, params)

    def _raise_injected_fault(self, operation_name: str, params: Params) -> None:
        self._faults = [fault for fault in self._faults if fault.remaining > 0]
        for fault in self._faults:
            if fault.operation == operation_name and (fault.match is None or fault.match(params)):
                fault.remaining -= 1
                raise fault.error

    # ------------------------------------------------------------------------------- Python helpers

    def add_domain(
        self,
        domain_id: str,
        project_ids: Iterable[str] = (),
        *,
        version: str = "V1",
        kms_key_arn: str | None = None,
        governed: bool = False,
    ) -> None:
        """Create a domain (with DataZone's managed form types, a root domain unit) and its projects.

        `version`: V1 (DataZone) or V2 (SageMaker Unified Studio); `kms_key_arn`: its customer managed key;
        `governed`: no default type-creation grants on the root unit (local/standins/datazone/governance.py).
        """
        if not DOMAIN_ID.fullmatch(domain_id):
            raise ValueError(f"{domain_id!r} does not match DataZone's domain id pattern")
        store = self._store
        with store.lock:
            if domain_id in store.domains:
                raise ValueError(f"domain {domain_id} already exists")
            domain = Domain(domain_id, set())
            domain.form_types.update(types.managed_form_types(store))
            governance.set_up(store, domain, version, kms_key_arn, governed)
            store.domains[domain_id] = domain
            for project_id in project_ids:
                self.add_project(domain_id, project_id)

    def add_project(self, domain_id: str, project_id: str, domain_unit: str | None = None) -> None:
        """A project, in `domain_unit` (default: the root unit)."""
        if not PROJECT_ID.fullmatch(project_id):
            raise ValueError(f"{project_id!r} does not match DataZone's project id pattern")
        with self._store.lock:
            domain = self._store.domain(domain_id)
            domain.projects.add(project_id)
            if domain_unit is not None:
                if domain_unit not in domain.governance.units:
                    raise ValueError(f"domain unit {domain_unit} does not exist in {domain_id}")
                domain.governance.project_units[project_id] = domain_unit

    def add_domain_unit(self, domain_id: str, unit_id: str, parent: str | None = None) -> None:
        """A domain unit under `parent` (default: the root unit)."""
        with self._store.lock:
            governance.add_unit(self._store.domain(domain_id), unit_id, parent)

    def root_domain_unit(self, domain_id: str) -> str:
        with self._store.lock:
            return self._store.domain(domain_id).governance.root_unit

    def publish_managed_form_revision(self, domain_id: str, name: str) -> str:
        """A new revision of a managed form type, as AWS updates its own; returns the revision."""
        with self._store.lock:
            return types.publish_managed_revision(self._store, self._store.domain(domain_id), name)

    def add_member(self, domain_id: str, project_id: str, arn: str, designation: str) -> None:
        """Make an IAM principal a project member (as CreateProjectMembership does)."""
        with self._store.lock:
            store = self._store
            governance.add_member(store, store.domain(domain_id), project_id, arn, designation)

    def inject_fault(
        self,
        operation_name: str,
        error: ServiceError,
        times: int = 1,
        match: Callable[[Params], bool] | None = None,
    ) -> None:
        """Answer the next `times` calls of the operation (whose params `match`, if given) with `error`."""
        with self._store.lock:
            self._faults.append(_Fault(operation_name, error, times, match))

    def assets(self, domain_id: str) -> list[AssetView]:
        """Live assets, in creation order, at their latest revision, forms parsed."""
        with self._store.lock:
            domain = self._store.domain(domain_id)
            return [assets.asset_view(domain, asset) for asset in domain.live_assets()]

    def listings(self, domain_id: str) -> list[ListingView]:
        with self._store.lock:
            return listings.listing_views(self._store.domain(domain_id))

    def settle_listings(self, domain_id: str) -> None:
        """Let every listing change in progress take effect now (as time passing would)."""
        with self._store.lock:
            listings.settle(self._store.domain(domain_id))

    def subscribe(self, domain_id: str, asset_id: str, project_id: str, reason: str = "standin") -> str:
        """Subscribe `project_id` to the asset's listing (a request, then its acceptance, as the listing's
        owner would); the subscription's id. The listing must be published."""
        with self._store.lock:
            domain = self._store.domain(domain_id)
            asset = assets.live_asset(domain, asset_id)
            if asset.listing_id is None:
                raise ValueError(f"asset {asset_id} has no listing to subscribe to")
            return self.subscribe_listing(domain_id, asset.listing_id, project_id, reason)

    def subscribe_listing(
        self, domain_id: str, listing_id: str, project_id: str, reason: str = "standin"
    ) -> str:
        """Subscribe `project_id` to a listing (an asset's or a data product's), accepted; the subscription's
        id."""
        with self._store.lock:
            request = self.handle(
                "CreateSubscriptionRequest",
                {
                    "domainIdentifier": domain_id,
                    "subscribedPrincipals": [{"project": {"identifier": project_id}}],
                    "subscribedListings": [{"identifier": listing_id}],
                    "requestReason": reason,
                },
            )
            accepted = self.handle(
                "AcceptSubscriptionRequest", {"domainIdentifier": domain_id, "identifier": request["id"]}
            )
            return str(accepted["existingSubscriptionId"])

    def add_environment(
        self,
        domain_id: str,
        project_id: str,
        name: str = "standin-environment",
        *,
        account: str | None = None,
        region: str | None = None,
        environment_id: str | None = None,
    ) -> str:
        """An ACTIVE environment of the project, in `account` and `region` (default: the domain's); its id."""
        with self._store.lock:
            store = self._store
            environment = environments.new_environment(
                store,
                store.domain(domain_id),
                project_id,
                name,
                account=account,
                region=region,
                environment_id=environment_id,
            )
            return environment.id

    def add_data_product(self, domain_id: str, name: str, project_id: str, asset_ids: list[str]) -> str:
        """Publish a data product of these (published) assets, owned by `project_id`; its listing's id.
        Subscribe to it with `subscribe_listing`."""
        with self._store.lock:
            store = self._store
            return products.add_data_product(store, store.domain(domain_id), name, project_id, asset_ids).id

    def product_listing(self, domain_id: str, product_id: str) -> tuple[str, list[str]] | None:
        """The data product's active listing: its id and the asset ids it lists; None when unpublished."""
        with self._store.lock:
            domain = self._store.domain(domain_id)
            found = domain.data_products.get(product_id)
            listing = domain.product_listings.get(found.listing_id or "") if found is not None else None
            if listing is None or not listing.active:
                return None
            return listing.id, [asset_id for asset_id, _ in listing.members]

    def grants(self, domain_id: str) -> list[GrantView]:
        """Every subscription grant, in creation order, with its assets' statuses."""
        with self._store.lock:
            return grants.grant_views(self._store.domain(domain_id))

    def emitted_events(self, domain_id: str) -> list[EmittedEvent]:
        """The events the domain put on the default bus, in order."""
        with self._store.lock:
            return list(self._store.domain(domain_id).emitted)

    def subscriptions(self, domain_id: str) -> list[tuple[str, str, str]]:
        """(subscription id, listing id, status) of every subscription, in creation order."""
        with self._store.lock:
            return [
                (s.id, s.listing_id, s.status) for s in self._store.domain(domain_id).subscriptions.values()
            ]

    def lineage_events(self, domain_id: str) -> list[dict[str, Any]]:
        """Live (not deleted) lineage events, parsed, in the order they were posted (processed or not)."""
        with self._store.lock:
            return lineage.lineage_events(self._store.domain(domain_id))

    def lineage_edges(self, domain_id: str) -> set[DatasetEdge]:
        """Dataset-to-dataset edges the graph shows (processed or not), one per (upstream, downstream, job),
        columns merged: those of live events, and under the readings of `Domain.drawn_events` those a
        deletion left."""
        with self._store.lock:
            return lineage.lineage_edges(self._store.domain(domain_id), self.readings)

    def native_lineage(self, domain_id: str) -> NativeLineage:
        """The domain's native lineage (Glue, Redshift, EMR capture), for tests and the demo to add to."""
        with self._store.lock:
            return self._store.domain(domain_id).native

    def linked_assets(self, domain_id: str, source_identifier: str) -> list[str]:
        """Ids of live assets whose AssetCommonDetailsForm sourceIdentifier is this one."""
        with self._store.lock:
            return [asset.id for asset in assets.linked(self._store.domain(domain_id), source_identifier)]
