"""schema-sync's composition: the concrete adapters behind the ports of `kafka_lineage.sync` (one place), and
`Wiring`, what the handler is made of (`schema_sync.handler.make_handler`): tests, the demo and IAM mode give
their own instead of patching modules. Each `Wiring` has its own clients (`aws.clients.Clients`): the
builders below take them, and pace each client once, by the pacers the clients keep for the wiring."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.asset_records import AssetRecordStore
from kafka_lineage.aws.bus import TopicEvents
from kafka_lineage.aws.catalog import Catalog
from kafka_lineage.aws.clients import Clients
from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.aws.data_products import DataProducts, ProductStates
from kafka_lineage.aws.kafka import cluster_namespace
from kafka_lineage.aws.lease import StateLease
from kafka_lineage.aws.pacing import Pacing, RateLimiter, StageRates
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.aws.registry import SourceRegistries
from kafka_lineage.aws.sessions import SourceSessions
from kafka_lineage.aws.topics import TOPIC_RPS, ClusterTopics
from kafka_lineage.config import Settings, Source
from kafka_lineage.engine.function import deployed_environment, function_name
from kafka_lineage.engine.handover import Continuation
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS
from kafka_lineage.model.state_layout import DRIFT, state_path
from kafka_lineage.sync.drift import DriftSummaries
from kafka_lineage.sync.ports import ProductAdapters, SyncAdapters
from kafka_lineage.sync.requests import SyncRequest, parse_sync_event, with_resume
from kafka_lineage.sync.result import SyncResult
from kafka_lineage.sync.run import SchemaSync

HOLDER = "schema-sync"


def build_adapters(
    settings: Settings,
    lease: StateLease | None = None,
    function_name: str = HOLDER,
    *,
    clients: Clients | None = None,
) -> SyncAdapters:
    """The ports of one run, over `clients` (the wiring's; None: new ones, a test's one-off)."""
    clients = Clients() if clients is None else clients
    tuning = settings.tuning
    clients.pace_by(tuning)
    # Every call about a source runs in its account: under its role when it has one (aws.sessions).
    sessions = SourceSessions(settings, function_name, clients)
    # Each operation at its own quota (kafka_lineage.model.quotas), adapting to what the account leaves;
    # TUNING's rates are ceilings. The pacers are the wiring's (`Clients.pacer`): a client is paced once.

    def namespace_of(source: Source) -> str:
        return source.namespace or cluster_namespace(sessions.client(source, "kafka"), source.cluster_arn)

    def limiter_of(account: str) -> Pacing:  # Glue's quotas are per account
        return clients.pacer(("glue", account), lambda: Pacing("glue", tuning.glue_rps))

    def topic_limiter_of(account: str) -> RateLimiter:  # MSK's topic reads, per account
        return clients.pacer(("kafka-topics", account), lambda: RateLimiter(TOPIC_RPS))

    datazone = clients.pacer("datazone", lambda: Pacing("datazone", tuning.datazone_rps))
    ssm = clients.client("ssm")
    ssm_pacing = clients.pacer(
        "ssm-writes", lambda: Pacing("ssm", tuning.ssm_write_rps, ceiling_of=("parameter-writes",))
    )
    # The calls one item of each pipeline stage makes (aws.registry, aws.catalog, aws.asset_records): the
    # chunk estimates follow their limiters. Reads are paced by the functions' own account (a source read
    # through a role has its own quotas: the estimates then learn its pace from the first chunk).
    rates = StageRates(
        {
            "read": [
                (lambda: limiter_of(""), op) for op in ("GetSchema", "ListSchemaVersions", "GetSchemaVersion")
            ],
            "write": [(lambda: datazone, op) for op in ("CreateAsset", "CreateListingChangeSet")],
            "save": [(lambda: ssm_pacing, "PutParameter")],
        }
    )

    catalog = Catalog(clients.client("datazone"), settings.domain_id, settings.project_id, datazone)
    asset_records = AssetRecordStore(ssm, settings.mapping_path, ssm_pacing)
    return SyncAdapters(
        registry=SourceRegistries(settings, lambda source: sessions.client(source, "glue"), limiter_of),
        catalog=catalog,
        asset_records=asset_records,
        events=TopicEvents(clients.client("events")),
        namespace_of=namespace_of,
        rates=rates,
        lease=lease,
        drift=DriftSummaries(PackedStore(ssm, state_path(settings.mapping_path, DRIFT))),
        topics=ClusterTopics(lambda source: sessions.client(source, "kafka"), limiter_of=topic_limiter_of),
        products=product_adapters(settings, catalog, asset_records, datazone, ssm_pacing, clients=clients),
    )


def product_adapters(
    settings: Settings,
    catalog: Catalog,
    records: AssetRecordStore,
    datazone: Pacing,
    ssm: Pacing,
    *,
    clients: Clients,
) -> ProductAdapters | None:
    """The data products' ports, when `dataProducts` names any (their state beside the asset records)."""
    if not settings.data_products:
        return None
    products = DataProducts(
        clients.client("datazone"), settings.domain_id, settings.project_id, datazone, catalog.refusing_rules
    )
    states = ProductStates(clients.client("ssm"), settings.mapping_path, ssm)
    return ProductAdapters(products, states, records.current, settings.domain_id, settings.project_id)


def state_lease(settings: Settings, context: LambdaContext, *, clients: Clients | None = None) -> StateLease:
    """The asset records' lease of this invocation: it may hold it for its whole remaining time."""
    ssm = (Clients() if clients is None else clients).client("ssm")
    return StateLease.for_invocation(ssm, settings.mapping_path, HOLDER, context)


@dataclass(frozen=True)
class Wiring:
    """What one invocation is made of (engine/function.py's `FunctionWiring`): the settings (from
    `environ`), the ports, the lease (a run that writes takes one), how long it waits for another holder
    (the engine's one wait), and how an event is handed to a follow-up; `clients` are this wiring's own
    (one per instance), which the default builders build over."""

    adapters: Callable[[Settings, StateLease | None, str], SyncAdapters] = build_adapters
    lease: Callable[[Settings, LambdaContext], StateLease] = state_lease
    lease_wait_seconds: float = LEASE_WAIT_SECONDS
    hand_on: Callable[[str, dict[str, Any]], bool] = hand_on
    environ: Callable[[], Mapping[str, str]] = deployed_environment
    name: str = HOLDER
    clients: Clients = field(default_factory=Clients)

    def __post_init__(self) -> None:
        for built, default in (("adapters", build_adapters), ("lease", state_lease), ("hand_on", hand_on)):
            if getattr(self, built) is default:
                object.__setattr__(self, built, partial(default, clients=self.clients))

    def settings(self) -> Settings:
        return Settings.from_environment(self.environ())

    def request(self, event: Any, context: LambdaContext, settings: Settings) -> SyncRequest:
        # An event or ARN from a source account names that source (Settings.source_key). The registries are
        # read in the functions' Region (Lambda sets AWS_REGION): a schemaArns entry of another Region is
        # reported instead of being read as the same names here.
        environ = self.environ()
        region = environ.get("AWS_REGION") or environ.get("AWS_DEFAULT_REGION")
        return parse_sync_event(event, settings.source_key, region)

    def margin_seconds(self, settings: Settings) -> float:
        return settings.tuning.deadline_margin_seconds

    def run(
        self, settings: Settings, request: SyncRequest, context: LambdaContext, lease: StateLease | None
    ) -> SchemaSync:
        name = function_name(context, HOLDER)
        adapters = replace(self.adapters(settings, lease, name), lease_wait_seconds=self.lease_wait_seconds)
        if request.dry_run:  # the plan alone: every writer port refuses (engine/dry.py)
            adapters = adapters.dry_run()
        return SchemaSync(settings, adapters)

    def continuation(self, event: Any, lease: StateLease | None) -> Continuation:
        return Continuation(event, lease, self.clients)

    def follow_up(self, event: Any, request: SyncRequest, result: SyncResult) -> dict[str, Any] | None:
        """The same request again, resuming after the last chunk saved: the asset records hold every
        finished chunk, so the follow-up redoes none (a busy lease hands the event on as it is)."""
        if not isinstance(event, dict):
            return None
        if result.resume_after is None:
            return event
        return with_resume(event, result.resume_after.group, result.resume_after.key)
