"""lineage-emission's composition: the concrete adapters behind the ports of `kafka_lineage.lineage`, and
`Wiring`, what the handler is made of (`lineage_emission.handler.make_handler`): tests, the demo and IAM mode
give their own instead of patching modules. Each `Wiring` has its own clients (`aws.clients.Clients`): the
builders below take them, and pace each client once, by the pacers the clients keep for the wiring."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws import connectors as msk_connect
from kafka_lineage.aws import consumer_groups, delivery
from kafka_lineage.aws.asset_records import AssetRecordStore, LiveAssetRecords
from kafka_lineage.aws.bus import DriftEvents
from kafka_lineage.aws.catalog import Catalog
from kafka_lineage.aws.clients import Clients
from kafka_lineage.aws.connectors import MskConnect, SourceConnectors
from kafka_lineage.aws.consumer_groups import ConsumerGroups, SourceConsumerGroups
from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.aws.data_products import DataProducts, ProductStates, WithProductSubscribers
from kafka_lineage.aws.delivery import DeliveryPaths, SourceDeliveryPaths
from kafka_lineage.aws.glue_lineage import GlueLineageGraphs
from kafka_lineage.aws.lease import StateLease
from kafka_lineage.aws.lineage_api import LineageApi
from kafka_lineage.aws.lineage_graph import DataZoneDownstreamWalker
from kafka_lineage.aws.pacing import Pacing, RateLimiter, StageRates
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.aws.sessions import SourceSessions
from kafka_lineage.aws.table_mappings import TableMappings
from kafka_lineage.aws.tables import SourceSchemaVersions, SourceTables
from kafka_lineage.config import Settings
from kafka_lineage.engine.function import deployed_environment, function_account, function_name
from kafka_lineage.engine.handover import Continuation
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS
from kafka_lineage.lineage.plan import EmitScope
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.lineage.run import LineageEmission
from kafka_lineage.lineage.world import LineageWorld
from kafka_lineage.model.delivery import KnownPath
from kafka_lineage.model.events import DRIFT_DETAIL_TYPE
from kafka_lineage.model.handover import with_handover
from kafka_lineage.model.state_layout import DRIFT, GLUE_LINEAGE, LINEAGE, state_path

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient
    from mypy_boto3_ssm import SSMClient

LEASE_HOLDER = "lineage-emission"

# The delivery paths' descriptions, per source key (aws.delivery: described again when listed changed).
KnownPaths = dict[str, dict[str, KnownPath]]


def connect(
    settings: Settings,
    account: str = "",
    function_name: str = "lineage-emission",
    known_paths: KnownPaths | None = None,
    *,
    clients: Clients | None = None,
) -> LineageWorld:
    """The world of one invocation: every adapter, paced per service (and per account for Glue), over
    `clients` (the wiring's; None: new ones, a test's one-off). `known_paths`: the delivery paths described
    by earlier invocations of this instance (`Wiring` keeps them); None: none."""
    known = {} if known_paths is None else known_paths
    clients = Clients() if clients is None else clients
    tuning, mapping_path = settings.tuning, settings.mapping_path
    clients.pace_by(tuning)
    ssm = clients.client("ssm")
    # Glue is read in each source's account (a source with a role) under that account's own pacing. The
    # pacers are the wiring's (`Clients.pacer`): a client is paced once.
    sessions = SourceSessions(settings, function_name, clients)

    def client_of(key: str, service: str) -> Any:
        return sessions.client_for_key(key, service) if key else clients.client(service)

    def glue_of(key: str) -> Any:
        return client_of(key, "glue")

    def reads_limiter(name: str, key: str, per_second: float) -> RateLimiter:
        # One per account (a source with a role: its own), as the account's clients are paced once.
        return clients.pacer((name, account_of(key)), lambda: RateLimiter(per_second))

    def account_of(key: str) -> str:
        source = settings.source(key) if key else None
        return (source.role_account or "") if source is not None and source.role_arn else account

    def limiter_of(key: str) -> Pacing:
        return clients.pacer(("glue", account_of(key)), lambda: Pacing("glue", tuning.glue_rps))

    def posts_pacing_of(key: str) -> Pacing:  # the Glue lineage graph's posts, per account
        return clients.pacer(("glue-lineage", account_of(key)), lambda: Pacing("glue"))

    def key_of(schema_account: str, registry_name: str) -> str:
        found = settings.source(settings.source_key(schema_account, registry_name))
        return found.key if found is not None and found.role_arn else ""

    datazone = clients.client("datazone")
    # Each operation at its own quota (kafka_lineage.model.quotas), adapting to what the account leaves;
    # TUNING's rates are ceilings. Posts, deletes and the drift walks share the DataZone client's pacing.
    datazone_limiter = clients.pacer("datazone", lambda: Pacing("datazone", tuning.datazone_rps))
    # SSM's write quota is shared by both stores; its reads are paced at their own (shared) quota.
    ssm_write_limiter = clients.pacer(
        "ssm-writes", lambda: Pacing("ssm", tuning.ssm_write_rps, ceiling_of=("parameter-writes",))
    )
    return LineageWorld(
        # Assets held for subscriptions after their schema was deleted are no topics of lineage.
        asset_records=LiveAssetRecords(AssetRecordStore(ssm, mapping_path)),
        table_mappings=TableMappings(ssm, mapping_path),
        tables=SourceTables(glue_of, limiter_of, account_of),
        versions=SourceSchemaVersions(key_of, glue_of, limiter_of),
        events=LineageApi(datazone, settings.domain_id, datazone_limiter),
        state=PackedStore(ssm, state_path(mapping_path, LINEAGE), write_limiter=ssm_write_limiter),
        # A few calls per run (brokers per cluster, the listing, one DescribeConnector per connector),
        # at the adapter's own pace; each source's connectors in its own account.
        connectors=SourceConnectors(
            lambda key: MskConnect(
                client_of(key, "kafkaconnect"),
                client_of(key, "kafka"),
                reads_limiter("msk-connect", key, msk_connect.DEFAULT_RPS),
            )
        ),
        # One listing of each source cluster's channels and of the account's MSK-sourced streams per run;
        # descriptions kept by this (warm) instance, per account.
        delivery=SourceDeliveryPaths(
            lambda key: DeliveryPaths(
                client_of(key, "kafka"),
                client_of(key, "firehose"),
                reads_limiter("delivery", key, delivery.DEFAULT_RPS),
                known=known.setdefault(key, {}),
            )
        ),
        # One ListMetrics listing (paged, 500 metrics a page) of each source cluster's consumer-lag metrics
        # per run, in each source's own account.
        consumers=SourceConsumerGroups(
            lambda key: ConsumerGroups(
                client_of(key, "cloudwatch"),
                reads_limiter("consumer-groups", key, consumer_groups.DEFAULT_RPS),
            )
        ),
        drift_store=PackedStore(ssm, state_path(mapping_path, DRIFT), write_limiter=ssm_write_limiter),
        walker=DataZoneDownstreamWalker(
            datazone, settings.domain_id, depth=settings.drift_downstream_depth, limiter=datazone_limiter
        ),
        announcer=DriftEvents(clients.client("events"), DRIFT_DETAIL_TYPE),
        # Who subscribes to a drifted topic's asset: GetAsset and ListSubscriptions, only for a drift checked.
        subscribers=subscribers(settings, datazone, ssm, datazone_limiter),
        rates=StageRates({"save": [(lambda: ssm_write_limiter, "PutParameter")]}),
        # The Glue Data Catalog's lineage graph of each account edges go to, and the Glue target's state.
        glue_graphs=GlueLineageGraphs(glue_of, posts_pacing_of) if settings.glue_lineage else None,
        glue_state=PackedStore(ssm, state_path(mapping_path, GLUE_LINEAGE), write_limiter=ssm_write_limiter)
        if settings.glue_lineage
        else None,
    )


def subscribers(
    settings: Settings, datazone: DataZoneClient, ssm: SSMClient, limiter: Pacing
) -> Catalog | WithProductSubscribers:
    """Who subscribes to a topic: its asset's subscribers, and with `dataProducts`, the products'."""
    catalog = Catalog(datazone, settings.domain_id, settings.project_id, limiter)
    if not settings.data_products:
        return catalog
    products = DataProducts(datazone, settings.domain_id, settings.project_id, limiter)
    return WithProductSubscribers(catalog, products, ProductStates(ssm, settings.mapping_path))


def state_lease(settings: Settings, context: LambdaContext, *, clients: Clients | None = None) -> StateLease:
    """The lineage state's lease of this invocation: it may hold it for its whole remaining time."""
    ssm = (Clients() if clients is None else clients).client("ssm")
    return StateLease.for_invocation(ssm, settings.mapping_path, LEASE_HOLDER, context)


def warm_world(clients: Clients | None = None) -> Callable[[Settings, str, str], LineageWorld]:
    """`connect` over `clients` and the delivery paths this instance has described: the handler module
    builds one `Wiring` per instance, so a warm instance keeps them across its invocations and a new
    instance (a new deployment, or a new `DeployedFunctions` in the tests) starts without any. Not a
    module-level cache: two wirings in one process never share what they described."""
    return partial(connect, known_paths={}, clients=clients)


@dataclass(frozen=True)
class Wiring:
    """What one invocation is made of (engine/function.py's `FunctionWiring`): the settings (from
    `environ`), the ports (`world(settings, account, function_name)`), the lease (a run that writes takes
    one), how long it waits for another holder (the engine's one wait), and how an event is handed on;
    `clients` are this wiring's own (one per instance), which the default builders build over."""

    world: Callable[[Settings, str, str], LineageWorld] = connect
    lease: Callable[[Settings, LambdaContext], StateLease] = state_lease
    lease_wait_seconds: float = LEASE_WAIT_SECONDS
    hand_on: Callable[[str, dict[str, Any]], bool] = hand_on
    environ: Callable[[], Mapping[str, str]] = deployed_environment
    name: str = LEASE_HOLDER
    clients: Clients = field(default_factory=Clients)

    def __post_init__(self) -> None:
        if self.world is connect:
            object.__setattr__(self, "world", warm_world(self.clients))
        for built, default in (("lease", state_lease), ("hand_on", hand_on)):
            if getattr(self, built) is default:
                object.__setattr__(self, built, partial(default, clients=self.clients))

    def settings(self) -> Settings:
        return Settings.from_environment(self.environ())

    def request(self, event: Any, context: LambdaContext, settings: Settings) -> EmitScope:
        """The scope; a forced request gets fresh tokens (Lambda's retries reuse the request id, and a
        follow-up carries the first invocation's nonce, hence the same tokens and what is done already)."""
        scope = parse_emit_event(event)
        if scope.force and not scope.force_nonce:
            scope = replace(scope, force_nonce=str(context.aws_request_id))
        return scope

    def margin_seconds(self, settings: Settings) -> float:
        return settings.tuning.deadline_margin_seconds

    def run(
        self, settings: Settings, scope: EmitScope, context: LambdaContext, lease: StateLease | None
    ) -> LineageEmission:
        name = function_name(context, LEASE_HOLDER)
        world = self.world(settings, function_account(context), name)
        world = replace(world, lease_wait_seconds=self.lease_wait_seconds)
        if scope.dry_run:  # the plan alone: every writer port refuses (engine/dry.py)
            world = world.dry_run()
        return LineageEmission(settings, world, lease)

    def continuation(self, event: Any, lease: StateLease | None) -> Continuation:
        return Continuation(event, lease, self.clients)

    def follow_up(self, event: Any, scope: EmitScope, result: EmitResult) -> dict[str, Any] | None:
        """The same event again (with a forced request's nonce): the state records what is done, and the
        handover says through which hash group the chain did everything (lineage/window.py)."""
        if not isinstance(event, dict):
            return None
        again = {**event, "forceNonce": scope.force_nonce} if scope.force_nonce else event
        return with_handover(again, None, result.done_through or scope.through)
