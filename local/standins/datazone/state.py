"""The DataZone stand-in's shared state: its domains, the store that holds them (lock, clock, ids,
readings), and what every operation shares: clientToken idempotency and paging.
"""

from __future__ import annotations

import copy
import random
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from local.standins import paging
from local.standins.datazone.events import LineageEvent
from local.standins.datazone.graph import LineageGraph, NativeLineage
from local.standins.datazone.index import SearchIndex
from local.standins.datazone.records import (
    Asset,
    AssetType,
    DataProductListing,
    EmittedEvent,
    Environment,
    FormType,
    Glossary,
    GlossaryTerm,
    Governance,
    Listing,
    Rule,
    Subscription,
    SubscriptionGrant,
    SubscriptionRequest,
    SubscriptionTarget,
)
from local.standins.datazone.wire import Params, Response, canonical
from local.standins.errors import ServiceError, conflict, not_found, validation

MAX_PAGE = 50

# Undocumented behaviours, each read with getattr(readings, name, default) on every call.
READING_DEFAULTS: dict[str, Any] = {
    # Whether form content members the form type's model does not declare are rejected.
    "reject_unknown_form_members": True,
    # Whether DeleteAsset refuses an asset whose listing is ACTIVE (ConflictException) until unpublished
    # (the user guide says deleting an asset deletes its listing: False follows it).
    "delete_requires_unpublish": False,
    # The error DeleteAsset answers while the asset's listing has APPROVED subscriptions: "conflict" or
    # "validation" (the user guide says it can't be deleted; the API reference names no error for it).
    "subscribed_delete_refusal": "conflict",
    # What UNPUBLISH of an asset that was never published answers: "not_found", "conflict", "validation"
    # or "accepted" (a no-op answering the status INACTIVE). Undocumented.
    "unpublish_unlisted": "not_found",
    # Whether the error refusing a publish that a domain rule forbids names the rule (else a generic text).
    "rule_refusal_names_rule": True,
    # A glossary term rule: the asset needs "all" of the rule's terms, or "any" one of them.
    "glossary_rule_requires": "all",
    # Search sees a write (create, revision, delete) only after this many further Search calls.
    "search_lag_calls": 0,
    # A posted lineage event turns SUCCESS (and feeds lineage nodes) only after this many lineage reads.
    "lineage_processing_lag_calls": 0,
    # Whether form content comes back re-serialized (compact, keys sorted) rather than byte-for-byte.
    "normalize_form_content": True,
    # How long a clientToken is remembered (the window is undocumented for DataZone).
    "client_token_ttl_seconds": 86_400,
    # Whether a clientToken reused with a different request replays the first answer (else: Conflict).
    "client_token_replays_changed_request": False,
    # Whether free-text Search matches externalIdentifier (not documented as indexed).
    "search_text_matches_external_identifier": False,
    # Whether CreateAssetRevision without typeRevision keeps the asset's type revision (else: the latest).
    "revision_keeps_type_revision": True,
    # Whether CreateAssetRevision may move an asset to another type revision (else: ValidationException).
    "revision_changes_type_revision": True,
    # Whether CreateAsset's conflict on a duplicate externalIdentifier says "Conflict with asset <id>".
    "conflict_message_names_asset": True,
    # What Search does with a filter on typeName: "honoured", "unindexed" (matches nothing) or "rejected".
    "search_type_filter": "honoured",
    # For how many further calls in the domain a listing change stays in progress (0: applied at once).
    "listing_change_calls": 0,
    # CreateAssetType on an existing name: "revision" (a new revision) or "conflict" (ConflictException).
    "asset_type_create_existing": "revision",
    # Whether DataZone adds AssetCommonDetailsForm to an asset type: "added" (when not declared; a declared
    # one is kept), "refused" (added; declaring it is a ValidationException) or "absent" (never added).
    "asset_type_common_details": "added",
    # Whether a managed form type may be used only at its latest revision (CreateAssetType, asset forms).
    "managed_form_revision_must_be_latest": True,
    # DeleteAssetType while assets use the type: "conflict" (ConflictException) or "validation".
    "delete_asset_type_in_use": "conflict",
    # Managed form type members left out of the models served (comma-separated "FormType.path").
    "managed_form_members_undeclared": "",
    # Lineage readings (documented in local/standins/readings.py).
    # A requested DeleteLineageEvent takes effect only after this many further lineage reads.
    "lineage_delete_lag_calls": 0,
    # Whether a deleted event's edges leave the graph (else they stay until a later run supersedes them).
    "lineage_delete_removes_edges": True,
    # Which time ListLineageEvents' timestampAfter/timestampBefore filter on: "eventTime" or "createdAt".
    "lineage_time_filter": "eventTime",
    # Whether START events draw edges (else only the run's other events do).
    "lineage_start_builds_edges": True,
    # Whether GetLineageNode resolves the sourceIdentifier of a node only posted events drew.
    "lineage_node_lookup_posted": True,
    # Which neighbours GetLineageNode lists: "all" (every version's) or "latest_version".
    "lineage_node_neighbours": "all",
    # Subscription grant readings (documented in local/standins/readings.py; grants.py applies them).
    # Whether UpdateSubscriptionGrantStatus accepts the status an asset already has (a repeated report).
    "grant_status_repeat_accepted": True,
    # Whether an asset whose grant (revoke) failed may be reported in progress or done again (a retry).
    "grant_status_retry_after_failure": True,
    # Whether a pending asset may be reported GRANTED (REVOKED) without passing through *_IN_PROGRESS.
    "grant_status_skips_in_progress": True,
    # The error refusing a status change the stand-in does not accept: "conflict" or "validation".
    "grant_status_refusal": "conflict",
    # The typeName a data product grant's events carry: "product" ("DataProduct") or "asset" (its assets').
    "data_product_event_type_name": "product",
    # The error CreateDataProduct answers for a name the domain's products already have: "conflict" or
    # "validation" (the API reference says names are unique in the domain, not which error says so).
    "data_product_name_taken": "conflict",
    # Whether DeleteDataProduct refuses a published product (ConflictException) until it is unpublished.
    "data_product_delete_requires_unpublish": True,
}


def reading(readings: object, name: str) -> Any:
    return getattr(readings, name, READING_DEFAULTS[name])


@dataclass(frozen=True)
class TokenRecord:
    fingerprint: str
    response: Response
    at: datetime


@dataclass
class Domain:
    id: str
    projects: set[str]
    form_types: dict[str, list[FormType]] = field(default_factory=dict)
    asset_types: dict[str, list[AssetType]] = field(default_factory=dict)
    assets: dict[str, Asset] = field(default_factory=dict)
    by_external_id: dict[str, str] = field(default_factory=dict)  # live assets only
    listings: dict[str, Listing] = field(default_factory=dict)
    events: dict[str, LineageEvent] = field(default_factory=dict)
    tokens: dict[tuple[str, str], TokenRecord] = field(default_factory=dict)
    search: SearchIndex = field(default_factory=SearchIndex)
    lineage_reads: int = 0
    calls: int = 0  # every API call on the domain: the clock of asynchronous listing changes
    lineage_version: int = 0  # moves whenever the processed, live events change
    graph_cache: tuple[tuple[int, int], LineageGraph] | None = None
    native: NativeLineage = field(default_factory=NativeLineage)
    governance: Governance = field(default_factory=Governance)
    # Governance: domain rules, glossaries, subscriptions (rules.py, glossaries.py, subscriptions.py).
    rules: dict[str, Rule] = field(default_factory=dict)
    glossaries: dict[str, Glossary] = field(default_factory=dict)
    glossary_terms: dict[str, GlossaryTerm] = field(default_factory=dict)
    subscription_requests: dict[str, SubscriptionRequest] = field(default_factory=dict)
    subscriptions: dict[str, Subscription] = field(default_factory=dict)
    # Access: environments, subscription targets, grants and the events put on the bus (environments.py,
    # grants.py).
    environments: dict[str, Environment] = field(default_factory=dict)
    subscription_targets: dict[str, SubscriptionTarget] = field(default_factory=dict)
    subscription_grants: dict[str, SubscriptionGrant] = field(default_factory=dict)
    emitted: list[EmittedEvent] = field(default_factory=list)
    product_listings: dict[str, DataProductListing] = field(default_factory=dict)  # products.py
    data_products: dict[str, Any] = field(default_factory=dict)  # products.py: DataProduct by id

    @property
    def project_units(self) -> dict[str, str]:
        """Project -> its domain unit, for projects outside the root unit (governance.py keeps it)."""
        return self.governance.project_units

    def live_assets(self) -> Iterator[Asset]:
        return (asset for asset in self.assets.values() if not asset.deleted)

    def live_events(self) -> list[LineageEvent]:
        return [event for event in self.events.values() if not event.deleted]

    def drawn_events(self, readings: object) -> list[LineageEvent]:
        """The events whose edges the graph shows: live ones, and deleted ones whose edges a deletion left
        (reading `lineage_delete_removes_edges` False) until a later run of the same input supersedes them
        (DataZone versions nodes by event time); START events only if `lineage_start_builds_edges`."""
        starts = bool(reading(readings, "lineage_start_builds_edges"))
        drawn = [
            e
            for e in self.events.values()
            if (not e.deleted or e.retained) and (starts or e.event.get("eventType") != "START")
        ]
        latest: dict[str, list[tuple[datetime, str]]] = {}
        for event in drawn:
            for upstream in event.inputs():
                latest.setdefault(upstream, []).append((event.event_time, event.run_id))

        def superseded(event: LineageEvent) -> bool:
            return any(
                moment > event.event_time and run != event.run_id
                for upstream in event.inputs()
                for moment, run in latest.get(upstream, ())
            )

        return [e for e in drawn if not e.retained or not superseded(e)]


class Store:
    """Every domain of one stand-in, and what its operations share. Operations run under `lock`.

    `readings`: the server's Readings (undocumented behaviours, see READING_DEFAULTS); `seed` makes ids
    reproducible; `clock` supplies "now" (timezone-aware); `principal` is what createdBy reports;
    `account` and `region` are the domain's (an environment's defaults); `sink` receives each event DataZone
    puts on the default bus (the server hands it to EventBridge).
    """

    def __init__(
        self,
        readings: object,
        *,
        seed: int | None,
        clock: Callable[[], datetime],
        principal: str,
        account: str = "123456789012",
        region: str = "eu-west-1",
        sink: Callable[[EmittedEvent], None] | None = None,
    ) -> None:
        self.readings = readings
        self.principal = principal
        self.account, self.region = account, region
        self.lock = threading.RLock()
        self.domains: dict[str, Domain] = {}
        self._rng = random.Random(seed)
        self._clock = clock
        self._sink = sink

    def emit(self, domain: Domain, event: EmittedEvent) -> None:
        """Put an event on the bus (best effort, as DataZone's are: a sink that fails loses the event)."""
        domain.emitted.append(event)
        if self._sink is not None:
            self._sink(event)

    def reading(self, name: str) -> Any:
        return reading(self.readings, name)

    def now(self) -> datetime:
        return self._clock()

    def new_id(self) -> str:
        alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
        return "".join(self._rng.choice(alphabet) for _ in range(14))

    def domain(self, domain_id: str) -> Domain:
        domain = self.domains.get(domain_id)
        if domain is None:
            raise not_found(f"Domain {domain_id} not found")
        return domain

    @staticmethod
    def project(domain: Domain, project_id: str, missing: Callable[[str], ServiceError]) -> str:
        if project_id not in domain.projects:
            raise missing(f"Project {project_id} not found in domain {domain.id}")
        return project_id

    def idempotent(
        self, domain: Domain, operation: str, params: Params, produce: Callable[[], Response]
    ) -> Response:
        """clientToken: the same token with the same request answers the first response again and changes
        nothing; the same token with a different request is a ConflictException (AWS's usual rule), or,
        under the reading `client_token_replays_changed_request`, the first response again too."""
        token = params.get("clientToken")
        if not token:
            return produce()
        fingerprint = canonical({k: v for k, v in params.items() if k != "clientToken"})
        now = self.now()
        record = domain.tokens.get((operation, token))
        ttl = float(self.reading("client_token_ttl_seconds"))
        if record is not None and (now - record.at).total_seconds() <= ttl:
            if record.fingerprint != fingerprint and not self.reading("client_token_replays_changed_request"):
                raise conflict(f"Client token {token} was already used with a different {operation} request")
            return copy.deepcopy(record.response)
        response = produce()
        domain.tokens[(operation, token)] = TokenRecord(fingerprint, copy.deepcopy(response), now)
        return response


def paginate(items: list[Any], params: Params) -> tuple[list[Any], str | None]:
    """A page by `maxResults` (1-50) and `nextToken`, bound to the query it came from (paging.py)."""
    query = {k: v for k, v in params.items() if k not in ("nextToken", "maxResults")}
    size = int(params.get("maxResults") or MAX_PAGE)
    if not 1 <= size <= MAX_PAGE:
        raise validation(f"maxResults must be between 1 and {MAX_PAGE}")
    return paging.page(items, size, params.get("nextToken"), query, validation)
