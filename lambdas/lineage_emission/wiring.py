"""lineage-emission's composition: the concrete adapters behind the ports of `kafka_lineage.lineage`, and
`Wiring`, what the handler is made of (`lineage_emission.handler.make_handler`): tests, the demo and IAM mode
give their own instead of patching modules."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.asset_records import AssetRecordStore, LiveAssetRecords
from kafka_lineage.aws.bus import DriftEvents
from kafka_lineage.aws.catalog import Catalog
from kafka_lineage.aws.clients import client
from kafka_lineage.aws.connectors import MskConnect, SourceConnectors
from kafka_lineage.aws.consumer_groups import ConsumerGroups, SourceConsumerGroups
from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.aws.data_products import DataProducts, ProductStates, WithProductSubscribers
from kafka_lineage.aws.delivery import DeliveryPaths, SourceDeliveryPaths
from kafka_lineage.aws.glue_lineage import GlueLineageGraphs
from kafka_lineage.aws.lease import StateLease
from kafka_lineage.aws.lineage_api import LineageApi
from kafka_lineage.aws.lineage_graph import DataZoneDownstreamWalker
from kafka_lineage.aws.pacing import Pacing, StageRates
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.aws.sessions import SourceSessions
from kafka_lineage.aws.table_mappings import TableMappings
from kafka_lineage.aws.tables import SourceSchemaVersions, SourceTables
from kafka_lineage.config import Settings
from kafka_lineage.engine.function import deployed_environment, function_account, function_name
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS
from kafka_lineage.lineage.plan import EmitScope
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.lineage.run import LineageEmission
from kafka_lineage.lineage.world import LineageWorld
from kafka_lineage.model.delivery import KnownPath
from kafka_lineage.model.events import DRIFT_DETAIL_TYPE
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
) -> LineageWorld:
    """The world of one invocation: every adapter, paced per service (and per account for Glue).
    `known_paths`: the delivery paths described by earlier invocations of this instance (`Wiring` keeps
    them); None: none."""
    known = {} if known_paths is None else known_paths
    ssm = client("ssm")
    tuning, mapping_path = settings.tuning, settings.mapping_path
    # Glue is read in each source's account (a source with a role) under that account's own pacing.
    sessions = SourceSessions(settings, function_name)
    limiters: dict[str, Pacing] = {}

    def glue_of(key: str) -> Any:
        return sessions.client_for_key(key, "glue") if key else client("glue")

    def account_of(key: str) -> str:
        source = settings.source(key) if key else None
        return (source.role_account or "") if source is not None and source.role_arn else account

    def limiter_of(key: str) -> Pacing:
        account = account_of(key)
        if account not in limiters:
            limiters[account] = Pacing("glue", tuning.glue_rps)
        return limiters[account]

    def key_of(schema_account: str, registry_name: str) -> str:
        found = settings.source(settings.source_key(schema_account, registry_name))
        return found.key if found is not None and found.role_arn else ""

    datazone = client("datazone")
    # Each operation at its own quota (kafka_lineage.model.quotas), adapting to what the account leaves;
    # TUNING's rates are ceilings. Posts, deletes and the drift walks share the DataZone client's pacing.
    datazone_limiter = Pacing("datazone", tuning.datazone_rps)
    # SSM's write quota is shared by both stores; its reads are paced at their own (shared) quota.
    ssm_write_limiter = Pacing("ssm", tuning.ssm_write_rps, ceiling_of=("parameter-writes",))
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
                sessions.client_for_key(key, "kafkaconnect") if key else client("kafkaconnect"),
                sessions.client_for_key(key, "kafka") if key else client("kafka"),
            )
        ),
        # One listing of each source cluster's channels and of the account's MSK-sourced streams per run;
        # descriptions kept by this (warm) instance, per account.
        delivery=SourceDeliveryPaths(
            lambda key: DeliveryPaths(
                sessions.client_for_key(key, "kafka") if key else client("kafka"),
                sessions.client_for_key(key, "firehose") if key else client("firehose"),
                known=known.setdefault(key, {}),
            )
        ),
        # One ListMetrics listing (paged, 500 metrics a page) of each source cluster's consumer-lag metrics
        # per run, in each source's own account.
        consumers=SourceConsumerGroups(
            lambda key: ConsumerGroups(
                sessions.client_for_key(key, "cloudwatch") if key else client("cloudwatch")
            )
        ),
        drift_store=PackedStore(ssm, state_path(mapping_path, DRIFT), write_limiter=ssm_write_limiter),
        walker=DataZoneDownstreamWalker(
            datazone, settings.domain_id, depth=settings.drift_downstream_depth, limiter=datazone_limiter
        ),
        announcer=DriftEvents(client("events"), DRIFT_DETAIL_TYPE),
        # Who subscribes to a drifted topic's asset: GetAsset and ListSubscriptions, only for a drift checked.
        subscribers=subscribers(settings, datazone, ssm, datazone_limiter),
        rates=StageRates({"save": [(lambda: ssm_write_limiter, "PutParameter")]}),
        # The Glue Data Catalog's lineage graph of each account edges go to, and the Glue target's state.
        glue_graphs=GlueLineageGraphs(glue_of) if settings.glue_lineage else None,
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


def state_lease(settings: Settings, context: LambdaContext) -> StateLease:
    """The lineage state's lease of this invocation: it may hold it for its whole remaining time."""
    return StateLease.for_invocation(client("ssm"), settings.mapping_path, LEASE_HOLDER, context)


def warm_world() -> Callable[[Settings, str, str], LineageWorld]:
    """`connect` over the delivery paths this instance has described: the handler module builds one
    `Wiring` per instance, so a warm instance keeps them across its invocations and a new instance (a new
    deployment, or a new `DeployedFunctions` in the tests) starts without any. Not a module-level cache:
    two wirings in one process never share what they described."""
    return partial(connect, known_paths={})


@dataclass(frozen=True)
class Wiring:
    """What one invocation is made of (engine/function.py's `FunctionWiring`): the settings (from
    `environ`), the ports (`world(settings, account, function_name)`), the lease (a run that writes takes
    one), how long it waits for another holder (the engine's one wait), and how an event is handed on."""

    world: Callable[[Settings, str, str], LineageWorld] = field(default_factory=warm_world)
    lease: Callable[[Settings, LambdaContext], StateLease] = state_lease
    lease_wait_seconds: float = LEASE_WAIT_SECONDS
    hand_on: Callable[[str, dict[str, Any]], bool] = hand_on
    environ: Callable[[], Mapping[str, str]] = deployed_environment
    name: str = LEASE_HOLDER

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

    def follow_up(self, event: Any, scope: EmitScope, result: EmitResult) -> dict[str, Any] | None:
        """The same event again (with a forced request's nonce): the state records what is done."""
        if not isinstance(event, dict):
            return None
        return {**event, "forceNonce": scope.force_nonce} if scope.force_nonce else event
