"""lineage-emission's composition: the concrete adapters behind the ports of `kafka_lineage.lineage`."""

from __future__ import annotations

from typing import Any

from kafka_lineage.aws.asset_records import AssetRecordStore
from kafka_lineage.aws.bus import DriftEvents
from kafka_lineage.aws.clients import client
from kafka_lineage.aws.connectors import MskConnect, SourceConnectors
from kafka_lineage.aws.lineage_api import LineageApi
from kafka_lineage.aws.lineage_graph import DataZoneDownstreamWalker
from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.aws.sessions import SourceSessions
from kafka_lineage.aws.table_mappings import TableMappings
from kafka_lineage.aws.tables import SourceSchemaVersions, SourceTables
from kafka_lineage.config import Settings
from kafka_lineage.lineage.run import LineageWorld
from kafka_lineage.model.events import DRIFT_DETAIL_TYPE
from kafka_lineage.model.state_layout import DRIFT, LINEAGE, state_path


def connect(settings: Settings, account: str = "", function_name: str = "lineage-emission") -> LineageWorld:
    """The world of one invocation: every adapter, paced per service (and per account for Glue)."""
    ssm = client("ssm")
    tuning, state_root = settings.tuning, settings.state_root
    # Glue is read in each source's account (a source with a role) under that account's own pacing.
    sessions = SourceSessions(settings, function_name)
    limiters: dict[str, RateLimiter] = {}

    def glue_of(key: str) -> Any:
        return sessions.client_for_key(key, "glue") if key else client("glue")

    def account_of(key: str) -> str:
        source = settings.source(key) if key else None
        return (source.role_account or "") if source is not None and source.role_arn else account

    def limiter_of(key: str) -> RateLimiter:
        return limiters.setdefault(account_of(key), RateLimiter(tuning.glue_rps))

    def key_of(schema_account: str, registry_name: str) -> str:
        found = settings.source(settings.source_key(schema_account, registry_name))
        return found.key if found is not None and found.role_arn else ""

    datazone = client("datazone")
    datazone_limiter = RateLimiter(tuning.datazone_rps)  # posts, deletes and the drift walks share it
    ssm_write_limiter = RateLimiter(tuning.ssm_write_rps)  # SSM's write quota is shared by both stores
    return LineageWorld(
        asset_records=AssetRecordStore(ssm, state_root),
        table_mappings=TableMappings(ssm, state_root),
        tables=SourceTables(glue_of, limiter_of, account_of),
        versions=SourceSchemaVersions(key_of, glue_of, limiter_of),
        events=LineageApi(datazone, settings.domain_id, datazone_limiter),
        state=PackedStore(ssm, state_path(state_root, LINEAGE), write_limiter=ssm_write_limiter),
        # A few calls per run (brokers per cluster, the listing, one DescribeConnector per connector),
        # at the adapter's own pace; each source's connectors in its own account.
        connectors=SourceConnectors(
            lambda key: MskConnect(
                sessions.client_for_key(key, "kafkaconnect") if key else client("kafkaconnect"),
                sessions.client_for_key(key, "kafka") if key else client("kafka"),
            )
        ),
        drift_store=PackedStore(ssm, state_path(state_root, DRIFT), write_limiter=ssm_write_limiter),
        walker=DataZoneDownstreamWalker(
            datazone, settings.domain_id, depth=settings.drift_downstream_depth, limiter=datazone_limiter
        ),
        announcer=DriftEvents(client("events"), DRIFT_DETAIL_TYPE),
    )
