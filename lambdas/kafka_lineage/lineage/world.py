"""What one lineage emission works with: its ports (`LineageWorld`, built by `lineage_emission.wiring`),
which of them write (`LINEAGE_WRITERS`: a dry run's refuse, engine/dry.py), and what every step of one run
shares (`RunContext`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from kafka_lineage.config import Settings
from kafka_lineage.drift import DownstreamWalker
from kafka_lineage.engine.checkpoints import Changes
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.dry import dry_bundle
from kafka_lineage.engine.lease import LEASE_WAIT_SECONDS, Lease
from kafka_lineage.lineage.apply import ParsedFields
from kafka_lineage.lineage.content import TopicField
from kafka_lineage.lineage.glue.target import GlueTarget
from kafka_lineage.lineage.plan import EmitScope
from kafka_lineage.lineage.ports import (
    Announcer,
    AssetRecordReader,
    ConnectorReader,
    ConsumerReader,
    DeliveryReader,
    EventStore,
    GlueGraphs,
    StateStore,
    SubscriberReader,
    TableMappingReader,
    TableReader,
    VersionReader,
)
from kafka_lineage.lineage.targets import Targets
from kafka_lineage.model.quotas import CallRates
from kafka_lineage.schemas import parse_definition, row_fields

# Which methods of each port write (engine/dry.py: a dry run's writers refuse): said once, here.
LINEAGE_WRITERS: dict[str, frozenset[str]] = {
    "events": frozenset({"post", "delete"}),
    "state": frozenset({"save"}),
    "drift_store": frozenset({"save"}),
    "announcer": frozenset({"announce"}),
    "glue_graphs": frozenset({"post"}),
    "glue_state": frozenset({"save"}),
}


def parse_topic_fields(data_format: str, definition: str) -> ParsedFields:
    """The topic's fields (flattened paths) and its CDC row fields, from the schema definition."""
    parsed = parse_definition(data_format, definition)
    return ParsedFields(
        fields=tuple(TopicField(c.name, c.data_type, c.description or "") for c in parsed.columns),
        row_fields=row_fields(parsed.columns),
        warning=parsed.warning,
    )


@dataclass
class LineageWorld:
    """The ports one run uses (`lineage_emission.wiring` builds them in the Lambda; tests on the stand-ins,
    or fakes)."""

    asset_records: AssetRecordReader
    table_mappings: TableMappingReader
    tables: TableReader
    versions: VersionReader
    events: EventStore
    state: StateStore
    connectors: ConnectorReader | None = None
    # MSK Data Delivery channels and Firehose streams (`kafka_lineage.aws.delivery`).
    delivery: DeliveryReader | None = None
    # The consumer groups, from MSK's consumer-lag metrics (`kafka_lineage.aws.consumer_groups`).
    consumers: ConsumerReader | None = None
    # Schema drift: the summaries of pairs checked, where drift is announced, what lies downstream of a table,
    # and who subscribes to a topic's asset (named in the drift, with the topic's consumer groups).
    drift_store: StateStore | None = None
    subscribers: SubscriberReader | None = None
    announcer: Announcer | None = None
    walker: DownstreamWalker | None = None
    # The pace of the state's SSM writes (None: at TUNING's ceiling), for the checkpoints' estimates.
    rates: CallRates | None = None
    # How long a run with work waits for another holder of the state lease (the engine's one wait).
    lease_wait_seconds: float = LEASE_WAIT_SECONDS
    # The Glue Data Catalog's lineage graphs and the Glue target's own state (`lineageTargets` "glue").
    glue_graphs: GlueGraphs | None = None
    glue_state: StateStore | None = None

    def dry_run(self) -> LineageWorld:
        """These ports for a dry run (engine/dry.py): every writer refuses, the reads are as they are."""
        return dry_bundle(self, LINEAGE_WRITERS)

    def targets(self, settings: Settings) -> Targets:
        """The targets this run posts to: DataZone or not, and the others with their ports."""
        others: tuple[GlueTarget, ...] = ()
        if settings.glue_lineage and self.glue_graphs is not None and self.glue_state is not None:
            others = (GlueTarget(self.glue_graphs, self.glue_state),)
        return Targets(settings.datazone_lineage, others)


@dataclass(frozen=True)
class RunContext:
    """What every step of one run shares: the request, the settings, the world, the deadline (the engine's,
    built once by the handler) and the lease (None: a run that writes nothing, or a test that needs none)."""

    scope: EmitScope
    settings: Settings
    world: LineageWorld
    lease: Lease | None = None
    deadline: Deadline = field(default_factory=Deadline.never)
    force_nonce: str = ""
    parse: Callable[[str, str], ParsedFields] = parse_topic_fields

    def ending(self) -> bool:
        """Whether the deadline margin is reached: then nothing more starts (what the readers are told)."""
        return self.deadline.ending()

    def write_seconds(self) -> tuple[float, float]:
        """(cautious, fastest) seconds of one SSM write of the state (model.quotas.CallRates)."""
        if self.world.rates is None:
            ceiling = 1 / self.settings.tuning.ssm_write_rps
            return ceiling, ceiling
        return self.world.rates.seconds_per("save")

    def save(self, store: StateStore, changes: Changes) -> int:
        """Write `changes` to `store` while this invocation holds the lease (else LeaseLost); the writes."""
        if self.lease is not None:
            self.lease.ensure_held()
        return store.save(changes)
