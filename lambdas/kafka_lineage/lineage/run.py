"""The lineage emission, end to end: read the world, plan (pure), act, record. One call per invocation.

The story (`emit_lineage`), step by step:
1. **Read**: the asset mapping (SSM, packed), the explicit table mappings (SSM), the MSK Connect
   connectors (once, unless every source says `connectors: "off"`), the delivery paths (channels and
   Firehose streams, delivery_inputs.py) and the consumer groups (one CloudWatch ListMetrics listing per
   cluster, consumer_inputs.py), resolved into edges (resolve.py).
2. **Plan**: the emission state (SSM, packed), the drift summaries when a mirrored version moved, and the
   Glue tables the selected topics need (one GetTables per database), into a frozen plan (plan.py).
3. **Lease**: only a plan with work takes the state lease, so a run that finds nothing changed reads
   nothing else and writes nothing at all.
4. **Replan**: under the lease, the state is read again and the plan made anew (the Glue tables already
   read are kept), so no decision rests on state another writer has changed.
5. **Drift**: the topics whose schema moved are checked (drift_check.py); a dry run answers here with
   what it would do, and stops: its result is the plan. Otherwise each drift is announced and its
   summary saved.
6. **Apply**: the actions run (apply.py) while the checkpoints save the state group by group
   (checkpoints.py); the result (result.py) reports every step and publishes the metrics.
7. **Other targets**: with `lineageTargets` holding "glue", the Glue Data Catalog's lineage graph gets the
   same edges (glue/): planned in step 2 against its own state, posted after DataZone's, each failure its
   own; a dry run lists its posts beside DataZone's. The targets that are on are one value (targets.py)
   the plan step consults: with DataZone off, the plan is made against Glue's state and DataZone's share
   of it is empty.

An edge that must be (re-)emitted costs one GetSchemaVersion, two PostLineageEvent calls, and one
DeleteLineageEvent and one GetLineageEvent (to confirm it) per replaced event.

A failure to read the connectors is reported (`connectorErrors`, `failed`, the LineageConnectorsUnreadable
metric) and the connector edges already emitted are then kept as they are (see resolve.py).

Pipelined and checkpointed
--------------------------
Actions run in the order of the packed store's hash groups, `max_concurrency` at a time, each call paced
per service (Glue reads, DataZone posts), while a saver thread writes the state of every group whose
actions have all finished: the Glue reads, the posts and the SSM writes overlap, and each state parameter
is written about once per run. Before each save it checks that this invocation still holds the state
lease. Near the deadline (the margin, plus the time the unsaved groups need at the SSM write rate) no action
and no read starts; what finished is saved, and the result says `incomplete` with the number `remaining`
(the handler then hands the same event to a follow-up invocation, which skips everything the state records
as done).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace

from kafka_lineage.config import Settings
from kafka_lineage.connectors.derive import derive
from kafka_lineage.drift import DriftSummary, Readers
from kafka_lineage.drift.summary import load_summaries
from kafka_lineage.engine.checkpoints import Changes, Checkpoints, SaveReport
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.engine.handover import unchanged_since_handover
from kafka_lineage.engine.lease import Lease, hold
from kafka_lineage.engine.stream import stream
from kafka_lineage.lineage.apply import Applier, ParsedFields, TopicOutcome, deferred_outcome
from kafka_lineage.lineage.consumer_inputs import read_consumers
from kafka_lineage.lineage.delivery_inputs import read_delivery
from kafka_lineage.lineage.drift_check import (
    DriftCheck,
    DriftRound,
    announce,
    drift_keys,
    tables_fed,
    with_drift,
)
from kafka_lineage.lineage.glue.plan import GluePlan
from kafka_lineage.lineage.glue.target import GlueReport, GlueRun, GlueTarget, SharedVersions
from kafka_lineage.lineage.model import LoadedStates
from kafka_lineage.lineage.plan import Action, EmitScope, LineagePlan, make_plan, tables_needed
from kafka_lineage.lineage.resolve import Resolution, parse_mappings, resolve
from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.lineage.window import Window, record_apply, share_of
from kafka_lineage.lineage.world import LineageWorld, RunContext, parse_topic_fields
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.connectors import ConnectorConfig, Derivation
from kafka_lineage.model.failures import LeaseLost
from kafka_lineage.model.report import failure_item
from kafka_lineage.model.state_layout import TABLE_MAPPINGS, hash_group, state_path
from kafka_lineage.model.table_mapping import MappingParameter
from kafka_lineage.model.tables import GlueTable, TableReads, TableRef
from kafka_lineage.model.topics import TopicKey
from kafka_lineage.observability import logger, tracer


def connectors_wanted(settings: Settings) -> bool:
    """Whether any source reads its connectors (the default); not when every one says "off"."""
    return any(source.connectors != "off" for source in settings.sources)


class LineageEmission:
    """lineage-emission's run (the run contract, engine/run.py): `execute(scope, deadline)` over `world`.

    `lease` is taken only when the plan has work (the engine's lease policy: a lease another invocation
    keeps makes the run `deferred: busy`), and checked before every save. A dry run's world has only
    refusing writers (`LineageWorld.dry_run`): its result is the plan."""

    def __init__(
        self,
        settings: Settings,
        world: LineageWorld,
        lease: Lease | None = None,
        parse: Callable[[str, str], ParsedFields] = parse_topic_fields,
    ) -> None:
        self.settings, self.world, self.lease, self.parse = settings, world, lease, parse

    @tracer.capture_method
    def execute(self, scope: EmitScope, deadline: Deadline) -> EmitResult:
        """Emit (or plan, in a dry run) the lineage `scope` asks for. Never raises for one topic's failure.
        A forced run's tokens are fresh per request (`scope.force_nonce`)."""
        world, settings = self.world, self.settings
        if world.targets(settings).several:  # every target (and drift) reads each schema version once
            world = replace(world, versions=SharedVersions(world.versions))
        run = RunContext(scope, settings, world, self.lease, deadline, scope.force_nonce, self.parse)
        result = EmitResult(dry_run=scope.dry_run, per_target=world.targets(settings).several)
        if run.ending():  # not even the reads start: they could not finish in time
            result.stop_early(remaining=0)
            return result
        inputs = _read_inputs(run)
        planned = _plan(run, inputs, TableReads())
        # A run with work takes the lease (a dry run has none: it writes nothing), then plans again under it.
        if self.lease is not None and isinstance(planned, _Planned) and planned.has_work(inputs):
            deferred = hold(self.lease, run.deadline, world.lease_wait_seconds)
            if deferred is not None:  # another invocation writes the state now: nothing done, handed on
                result.defer(deferred)
                return result
            if not unchanged_since_handover(self.lease):  # under the lease: the state as the last writer left
                planned = _plan(run, inputs, planned.reads)
        if isinstance(planned, _Stopped):
            result.stop_early(planned.remaining)
            return result
        result.record_plan(
            planned.plan,
            planned.loaded,
            inputs.resolution,
            inputs.connector_errors,
            world.asset_records.unreadable,
        )
        reports = [(target, plan, target.report_plan(plan)) for target, plan in planned.targets]
        drift = _check_drift(run, inputs, planned)
        if scope.dry_run:  # the plan alone
            result.record_drift(drift)
            result.record_planned(planned.plan, drift)
            for target, plan, report in reports:
                result.record_target(target.name, report, planned=plan.describe())
            return result
        drift = announce(drift, world.announcer)
        result.record_drift(drift)
        _save_drift(run, drift, result)
        record_apply(result, scope.through, planned.window, _apply(run, planned, drift, result))
        for target, plan, report in reports:
            result.record_target(target.name, _apply_target(run, target, plan, report))
        return result


def emit_lineage(
    scope: EmitScope,
    settings: Settings,
    world: LineageWorld,
    *,
    deadline: Deadline | None = None,
    lease: Lease | None = None,
) -> EmitResult:
    """One run with no deadline (tests and tools): `LineageEmission(...).execute`."""
    return LineageEmission(settings, world, lease).execute(scope, deadline or Deadline.never())


# -- read ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Inputs:
    """What a run reads before it plans: the asset records, the topics' edges, and what the connectors
    could not say."""

    records: dict[str, AssetRecord]
    resolution: Resolution
    read_errors: tuple[str, ...]
    by_key: dict[TopicKey, AssetRecord] = field(init=False)

    def __post_init__(self) -> None:
        by_key = {TopicKey(r.registry_name, r.schema_name): r for r in self.records.values()}
        object.__setattr__(self, "by_key", by_key)

    @property
    def connector_errors(self) -> tuple[str, ...]:
        """Every connector read or resolution that failed: their edges are kept as they are."""
        return (*self.read_errors, *self.resolution.connector_errors)


def _read_inputs(run: RunContext) -> _Inputs:
    """The asset records, the explicit table mappings and the connectors, resolved into edges."""
    world, settings = run.world, run.settings
    records: dict[str, AssetRecord] = world.asset_records.load()
    parameters: list[MappingParameter] = world.table_mappings.load()
    mappings, invalid = parse_mappings(parameters, state_path(settings.mapping_path, TABLE_MAPPINGS))
    derivation, read_errors, connectors = _derive(run, records.values())
    delivery = read_delivery(settings, world.delivery, records.values(), run.ending, run.scope.force)
    consumers = read_consumers(
        settings, world.consumers, records.values(), run.ending, connectors, derivation
    )
    resolution = resolve(records.values(), settings, mappings, invalid, derivation, delivery, consumers)
    return _Inputs(records, resolution, read_errors)


def _derive(
    run: RunContext, records: Iterable[AssetRecord]
) -> tuple[Derivation, tuple[str, ...], tuple[ConnectorConfig, ...]]:
    """The connectors' edges for the mirrored topics, what could not be read, and the connectors read (their
    consumer groups are their own): read once per run, never when every source is "off" (then no connector
    edge is wanted, and those emitted before are retracted like any remap)."""
    connectors, sources = run.world.connectors, run.settings.sources
    if connectors is None or not connectors_wanted(run.settings):
        return Derivation(), (), ()
    reads = connectors.read(sources, stop=run.ending)
    topics = [TopicKey(r.registry_name, r.schema_name) for r in records]
    return derive(reads, topics, sources), reads.errors, reads.connectors


# -- plan ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Planned:
    """One planning pass: the state as read, the drift summaries, the Glue tables read so far, the plan."""

    loaded: LoadedStates
    summaries: Mapping[str, DriftSummary]
    reads: TableReads
    plan: LineagePlan  # DataZone's share (targets.py)
    targets: tuple[tuple[GlueTarget, GluePlan], ...] = ()
    drift: LineagePlan = field(default_factory=LineagePlan)  # what drift reads of the plan (targets.py)
    window: Window | None = None  # a follow-up's share of the chain (lineage/window.py)

    def has_work(self, inputs: _Inputs) -> bool:
        """Actions to take (for any target), or drift to check: what needs the lease."""
        return bool(
            self.plan.actions
            or any(plan.actions for _, plan in self.targets)
            or drift_keys(self.drift, inputs.by_key, self.summaries)
        )


@dataclass(frozen=True)
class _Stopped:
    """The deadline came during the table reads: nothing was done, `remaining` topics wait."""

    remaining: int


def _plan(run: RunContext, inputs: _Inputs, earlier: TableReads) -> _Planned | _Stopped:
    """Read the emission state (and the drift summaries when a version changed), the Glue tables the
    selected topics need beyond those read `earlier`, and plan."""
    targets = run.world.targets(run.settings)
    loaded, states = targets.load(run.world.state)
    summaries = _summaries(run.world, inputs.records)
    share = share_of(run, inputs.records, inputs.resolution, loaded.states)
    selection = share.selection
    reads = _read_tables(run, tables_needed(selection, inputs.resolution), earlier)
    if reads.stopped:
        # Nothing was done, so nothing is handed on; the next run starts over (reads too slow for the
        # deadline need a longer timeout).
        logger.warning("lineage emission stopped before its deadline, while reading Glue tables")
        return _Stopped(remaining=len(selection.keys))
    plan = make_plan(
        run.scope, selection, inputs.resolution, reads, loaded, run.settings.tuning.mass_delete_share
    )
    others = tuple(
        (target, target.plan(run.scope, selection, inputs.resolution, reads, plan, state))
        for target, state in zip(targets.others, states, strict=True)
    )
    plans = (targets.datazone_plan(plan), others, targets.drift_plan(plan))
    return _Planned(loaded, summaries, reads, *plans, window=share)


def _summaries(world: LineageWorld, records: Mapping[str, AssetRecord]) -> Mapping[str, DriftSummary]:
    """The drift summaries: read only when a mirrored version moved (until then there is no drift)."""
    if world.drift_store is None or not any(r.previous_version for r in records.values()):
        return {}
    return load_summaries(world.drift_store.load())[0]


def _read_tables(run: RunContext, needed: set[TableRef], earlier: TableReads) -> TableReads:
    """The tables read `earlier` and those `needed` beyond them (not in a database that failed to read)."""
    missing = {ref for ref in needed - set(earlier.tables) if ref.database_path not in earlier.errors}
    if not missing:
        return earlier
    more = run.world.tables.read(missing, stop=run.ending)
    return TableReads(
        tables={**earlier.tables, **more.tables},
        errors={**earlier.errors, **more.errors},
        stopped=more.stopped,
    )


# -- drift -----------------------------------------------------------------------------------------------


def _check_drift(run: RunContext, inputs: _Inputs, planned: _Planned) -> DriftRound:
    world = run.world
    keys = drift_keys(planned.drift, inputs.by_key, planned.summaries)
    if not keys or world.drift_store is None:
        return DriftRound()
    check = DriftCheck(
        world.versions, world.walker, planned.summaries, concurrency=run.settings.tuning.max_concurrency
    )

    def tables_of(key: TopicKey) -> list[GlueTable]:
        return tables_fed(inputs.resolution.tables_of(key), planned.reads.tables)

    kept = {edge for edge in planned.drift.kept if edge.kind == "consumer"}

    def readers_of(key: TopicKey, record: AssetRecord) -> Readers:
        consumers = set(inputs.resolution.consumers.readers_of(key))
        source = run.settings.source(key.registry_name)
        if source is not None:  # a cluster not listed this run: the groups drawn before still read it
            consumers |= {(edge.other, source.cluster_arn) for edge in kept if edge.topic == key}
        subscribers = world.subscribers.approved_subscribers(record.asset_id) if world.subscribers else []
        return Readers(tuple(sorted(consumers)), tuple(sorted(subscribers)))

    return check.run(keys, inputs.by_key, tables_of, stop=run.ending, readers_of=readers_of)


def _save_drift(run: RunContext, drift: DriftRound, result: EmitResult) -> None:
    """Record the pairs checked (after their events went out): each drift is announced once."""
    changes, store = drift.summaries(), run.world.drift_store
    if not changes or store is None:
        return
    try:
        result.state_writes += run.save(store, changes)
    except LeaseLost as error:
        logger.error("lineage state lease lost before saving drift summaries", extra={"error": str(error)})
        result.lease_lost = True
    except Exception as error:
        logger.exception("saving the drift summaries failed: the drift is checked (and announced) again")
        result.fail(failure_item(error, doing="saving the drift summaries failed"))


# -- apply -----------------------------------------------------------------------------------------------


def _apply(run: RunContext, planned: _Planned, drift: DriftRound, result: EmitResult) -> SaveReport:
    """Apply the actions in hash-group order while the checkpoints save each group that finished (the
    engine's streamed apply); near the deadline (the margin plus the unsaved groups' write time) the actions
    not started are deferred."""
    store, facets = run.world.state, drift.facets()
    group = {a.key.key: hash_group(a.key.key, store.group_bits) for a in planned.plan.actions}
    actions = sorted(
        (with_drift(a, facets) for a in planned.plan.actions), key=lambda a: (group[a.key.key], a.key)
    )
    applier = Applier(
        run.world.events,
        run.world.versions,
        run.parse,
        concurrency=run.settings.tuning.max_concurrency,
        force_nonce=run.force_nonce,
        deadline=run.deadline,
    )
    checkpoints = Checkpoints(
        group,
        save=lambda changes: run.save(store, changes),
        reload=store.load,
        write_seconds=run.write_seconds,
    )
    steps = _Steps(applier, planned.loaded, result)
    return stream(steps, actions, run.settings.tuning.max_concurrency, checkpoints, run.deadline)


def _apply_target(run: RunContext, target: GlueTarget, plan: GluePlan, report: GlueReport) -> GlueReport:
    """Another target's actions, after DataZone's: neither's failures stop the other's."""
    tuning = run.settings.tuning
    work = GlueRun(run.world.versions, run.parse, run.deadline, tuning.max_concurrency, run.save)
    return target.apply(plan, work, report)


@dataclass(frozen=True)
class _Steps:
    """The engine's `StreamedRun` for one emission: one action -> one outcome (apply.py), what it saves,
    and the result that records it."""

    applier: Applier
    loaded: LoadedStates
    result: EmitResult

    def key(self, action: Action) -> str:
        return action.key.key

    def apply(self, action: Action) -> TopicOutcome:
        return self.applier.one(action)

    def deferred(self, action: Action) -> TopicOutcome:
        return deferred_outcome(action)

    def changes(self, outcome: TopicOutcome) -> tuple[str, Changes, bool]:
        return outcome.key.key, changes_of(self.loaded, outcome), outcome.kind != "deferred"

    def report(self, outcome: TopicOutcome) -> None:
        self.result.record(outcome)


def changes_of(loaded: LoadedStates, outcome: TopicOutcome) -> Changes:
    """The store changes an outcome makes: its edge's state, and the removal of the edges it took over (in
    the same save as the edge that replaced them)."""
    if not outcome.store:
        return {}
    changes: Changes = {}
    for dropped in outcome.dropped:
        changes.update(loaded.changes(dropped.key, None))
    changes.update(loaded.changes(outcome.key.key, outcome.state))
    return changes
