"""The lineage emission, end to end: read the world, plan (pure), act, record. One call per invocation.

Reads on every run: the asset mapping and the emission state (SSM, packed), the explicit table mappings
(SSM), the MSK Connect connectors (once, unless every source says `connectors: "off"`), and the mapped Glue
tables (one GetTables per database). A run that finds nothing changed reads nothing else and writes nothing;
an edge that must be (re-)emitted also costs one GetSchemaVersion, two PostLineageEvent calls, and one
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

import threading
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from kafka_lineage.config import Settings
from kafka_lineage.connectors.derive import derive
from kafka_lineage.drift import DownstreamWalker, DriftSummary
from kafka_lineage.lineage.apply import Applier, ParsedFields, TopicOutcome
from kafka_lineage.lineage.content import RunContent, TopicField
from kafka_lineage.lineage.delivery_inputs import read_delivery
from kafka_lineage.lineage.drift_check import DriftCheck, DriftRound, load_summaries, pending, tables_fed
from kafka_lineage.lineage.model import LoadedStates, load_states
from kafka_lineage.lineage.plan import (
    Action,
    Emit,
    EmitScope,
    LineagePlan,
    make_plan,
    select,
    tables_needed,
)
from kafka_lineage.lineage.ports import (
    Announcer,
    AssetRecordReader,
    ConnectorReader,
    DeliveryReader,
    EventStore,
    StateLease,
    StateStore,
    TableMappingReader,
    TableReader,
    VersionReader,
)
from kafka_lineage.lineage.resolve import Resolution, parse_mappings, resolve
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.connectors import Derivation
from kafka_lineage.model.failures import LeaseLost
from kafka_lineage.model.state_layout import TABLE_MAPPINGS, hash_group, state_path
from kafka_lineage.model.table_mapping import MappingParameter
from kafka_lineage.model.tables import GlueTable, TableReads, TableRef
from kafka_lineage.model.topics import TopicKey
from kafka_lineage.observability import logger, metrics, tracer
from kafka_lineage.schemas import parse_definition, row_fields


def parse_topic_fields(data_format: str, definition: str) -> ParsedFields:
    """The topic's fields (flattened paths) and its CDC row fields, from the schema definition."""
    parsed = parse_definition(data_format, definition)
    return ParsedFields(
        fields=tuple(TopicField(c.name, c.data_type, c.description or "") for c in parsed.columns),
        row_fields=row_fields(parsed.columns),
        warning=parsed.warning,
    )


def connectors_wanted(settings: Settings) -> bool:
    """Whether any source reads its connectors (the default); not when every one says "off"."""
    return any(source.connectors != "off" for source in settings.sources)


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
    # Schema drift: the summaries of pairs checked, where drift is announced, what lies downstream of a table.
    drift_store: StateStore | None = None
    announcer: Announcer | None = None
    walker: DownstreamWalker | None = None


# Each per-item list of the result holds at most this many items; `counts` has every list's full length, and
# every item is in the logs. Lambda's response limit is 6 MB, whatever the number of topics.
SAMPLE_SIZE = 50


class Sample:
    """The first SAMPLE_SIZE items of a list, and how many there were."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.count = 0

    def add(self, item: dict[str, Any]) -> None:
        self.count += 1
        if len(self.items) < SAMPLE_SIZE:
            self.items.append(item)


@dataclass
class EmitResult:
    """The invocation's result (README: Lineage, "Invocation"), JSON-ready through `to_dict`: counts, and
    samples of lists."""

    dry_run: bool
    emitted: int = 0
    unchanged: int = 0
    cleaned: int = 0
    unmapped: Sample = field(default_factory=Sample)
    invalid_mappings: Sample = field(default_factory=Sample)
    failed: Sample = field(default_factory=Sample)
    retracted: Sample = field(default_factory=Sample)
    retracting: Sample = field(default_factory=Sample)
    emissions: Sample = field(default_factory=Sample)
    ambiguous: Sample = field(default_factory=Sample)
    undetermined: Sample = field(default_factory=Sample)
    connector_errors: Sample = field(default_factory=Sample)
    inactive_paths: Sample = field(default_factory=Sample)  # channels and streams not ACTIVE (edges kept)
    delivery_errors: Sample = field(default_factory=Sample)
    kept: int = 0  # connector edges kept as they are: their connector could not be read
    drift: Sample = field(default_factory=Sample)
    drift_announced: int = 0
    drift_breaking: int = 0
    degraded: int = 0
    largest_event_bytes: int = 0
    remaining: int = 0  # actions not started: the deadline came first
    progressed: bool = False  # some action finished and its state was saved
    incomplete: bool = False
    lease_lost: bool = False
    state_writes: int = 0
    planned: list[dict[str, object]] | None = None

    def fail(self, item: dict[str, str]) -> None:
        self.failed.add(item)

    def to_dict(self) -> dict[str, Any]:
        lists = {
            "unmapped": self.unmapped,
            "invalidMappings": self.invalid_mappings,
            "failed": self.failed,
            "retracted": self.retracted,
            "retracting": self.retracting,
            "emissions": self.emissions,
            "ambiguous": self.ambiguous,
            "undetermined": self.undetermined,
            "connectorErrors": self.connector_errors,
            "inactivePaths": self.inactive_paths,
            "deliveryErrors": self.delivery_errors,
            "drift": self.drift,
        }
        result: dict[str, Any] = {
            "dryRun": self.dry_run,
            "emitted": self.emitted,
            "unchanged": self.unchanged,
            **{name: sample.items for name, sample in lists.items()},
            "cleaned": self.cleaned,
            "counts": {name: sample.count for name, sample in lists.items()},
            "stateWrites": self.state_writes,
        }
        if self.kept:
            result["keptConnectorEdges"] = self.kept
        if self.incomplete:
            result["incomplete"] = True
            result["remaining"] = self.remaining
        if self.lease_lost:
            result["leaseLost"] = True
        if self.planned is not None:
            result["planned"] = self.planned
        return result


@tracer.capture_method
def emit_lineage(
    scope: EmitScope,
    settings: Settings,
    world: LineageWorld,
    *,
    force_nonce: str = "",
    remaining_seconds: Callable[[], float] | None = None,
    parse: Callable[[str, str], ParsedFields] = parse_topic_fields,
    lease: StateLease | None = None,
    acquire: Callable[[], None] | None = None,
) -> EmitResult:
    """Emit (or plan, in a dry run) the lineage `scope` asks for. Never raises for one topic's failure.

    `acquire` takes the state lease (it raises LeaseBusy when another invocation holds it). It is called only
    when the plan has work, so a run that finds nothing to do writes nothing at all; the state is then read
    again under the lease and the plan made anew, so no decision rests on state another writer has changed."""
    margin = settings.tuning.deadline_margin_seconds

    def ending() -> bool:
        return remaining_seconds is not None and remaining_seconds() < margin

    result = EmitResult(dry_run=scope.dry_run)
    if ending():  # not even the reads start: they could not finish in time
        result.incomplete = True
        return result
    inputs = _read_inputs(settings, world, ending)
    loaded, planned = _prepare(scope, settings, world, inputs, ending, result)
    has_work = planned is not None and (
        planned.actions or _drift_keys(planned, inputs.by_key, inputs.summaries)
    )
    if has_work and acquire is not None and not scope.dry_run:
        acquire()
        # Under the lease: the state as the last writer left it.
        loaded, planned = _prepare(scope, settings, world, inputs, ending, result)
    if planned is None:
        return result
    plan = planned
    _report_plan(plan, loaded, inputs, world, result)
    drift = _check_drift(
        plan,
        inputs.by_key,
        inputs.summaries,
        inputs.resolution,
        inputs.reads.tables,
        world,
        settings,
        scope.dry_run,
        ending,
    )
    _collect_drift(drift, result)
    if scope.dry_run:
        result.planned = plan.describe() + [{"action": "drift", **f.report()} for f in drift.findings]
        result.emitted = sum(1 for a in result.planned if a["action"] == "emit")
        # Planned counts must not feed the alarms: a dry run only counts itself.
        metrics.add_metric(name="LineageDryRuns", unit=MetricUnit.Count, value=1)
        return result
    unreadable_connectors = len(inputs.read_errors) + len(inputs.resolution.connector_errors)
    if unreadable_connectors:
        metrics.add_metric(
            name="LineageConnectorsUnreadable", unit=MetricUnit.Count, value=unreadable_connectors
        )
    _save_drift(drift, world, lease, result)
    applier = Applier(
        world.events,
        world.versions,
        parse,
        concurrency=settings.tuning.max_concurrency,
        force_nonce=force_nonce,
        remaining_seconds=remaining_seconds,
        margin_seconds=margin,
    )
    _apply_checkpointed(plan, drift, loaded, world, settings, applier, lease, remaining_seconds, result)
    _publish_metrics(result)
    return result


@dataclass
class _Inputs:
    """What a run reads before it plans: the asset records, the topics' edges, what the connectors could not
    say, and the Glue tables and drift summaries read so far (a second plan reads only what is missing)."""

    records: dict[str, AssetRecord]
    resolution: Resolution
    read_errors: tuple[str, ...]
    by_key: dict[TopicKey, AssetRecord] = field(init=False)
    reads: TableReads = field(default_factory=TableReads)
    summaries: dict[str, DriftSummary] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.by_key = {TopicKey(r.registry_name, r.schema_name): r for r in self.records.values()}


def _read_inputs(settings: Settings, world: LineageWorld, ending: Callable[[], bool]) -> _Inputs:
    """The asset records, the explicit table mappings and the connectors, resolved into edges."""
    records: dict[str, AssetRecord] = world.asset_records.load()
    parameters: list[MappingParameter] = world.table_mappings.load()
    mappings, invalid = parse_mappings(parameters, state_path(settings.state_root, TABLE_MAPPINGS))
    derivation, read_errors = _derive(settings, world, records.values(), ending)
    delivery = read_delivery(settings, world.delivery, records.values(), ending)
    resolution = resolve(records.values(), settings, mappings, invalid, derivation, delivery)
    return _Inputs(records, resolution, read_errors)


def _prepare(
    scope: EmitScope,
    settings: Settings,
    world: LineageWorld,
    inputs: _Inputs,
    ending: Callable[[], bool],
    result: EmitResult,
) -> tuple[LoadedStates, LineagePlan | None]:
    """Read the emission state (and the drift summaries when a version changed), the Glue tables the
    selected topics need, and plan; no plan (None) when the deadline came during the table reads."""
    loaded = load_states(world.state.load())
    records = inputs.records
    # Only a mirrored version change gives drift to check: until then, no read of the drift store.
    if world.drift_store is not None and any(r.previous_version for r in records.values()):
        inputs.summaries.clear()
        inputs.summaries.update(load_summaries(world.drift_store.load())[0])
    registries = [source.key for source in settings.sources]  # by source key (`<account>:` for a role)
    selection = select(scope, records, loaded.states, registries)
    reads = inputs.reads
    needed = tables_needed(selection, inputs.resolution) - set(reads.tables)
    needed = {ref for ref in needed if ref.database_path not in reads.errors}
    if needed:
        more = world.tables.read(needed, stop=ending)
        reads.tables.update(more.tables)
        reads.errors.update(more.errors)
        if more.stopped:
            # The deadline came during the reads: nothing was done, so nothing is handed on; the next run
            # starts over (reads too slow for the deadline need a longer timeout).
            logger.warning("lineage emission stopped before its deadline, while reading Glue tables")
            result.incomplete, result.remaining = True, len(selection.keys)
            return loaded, None
    plan = make_plan(
        scope,
        selection,
        inputs.resolution,
        reads.tables,
        loaded.states,
        settings.tuning.mass_delete_share,
        table_errors=reads.errors,
        unreadable_states=loaded.unreadable,
        migrated=loaded.migrated,
    )
    return loaded, plan


def _report_plan(
    plan: LineagePlan, loaded: LoadedStates, inputs: _Inputs, world: LineageWorld, result: EmitResult
) -> None:
    """Put what the plan and the reads found (counts, unmapped topics, connector issues, invalid mappings,
    failures) in the result and the logs."""
    resolution = inputs.resolution
    for key in loaded.unreadable:
        logger.error("unreadable lineage state entry left untouched", extra={"key": key})
    result.unchanged = len(plan.unchanged)
    result.kept = len(plan.kept)
    for topic in plan.unmapped:
        result.unmapped.add(topic.as_dict())
    for issue in resolution.ambiguous:
        result.ambiguous.add(issue.as_dict())
    for issue in resolution.undetermined:
        result.undetermined.add(issue.as_dict())
    for error in (*inputs.read_errors, *resolution.connector_errors):
        logger.error(
            "MSK Connect connectors not read: their edges are kept as they are", extra={"error": error}
        )
        result.connector_errors.add({"error": error})
        result.fail({"error": f"reading MSK Connect connectors: {error}"})
    for path in resolution.inactive_paths:
        result.inactive_paths.add(path.as_dict())
    for error in resolution.delivery.errors:
        logger.error("delivery paths not read: their edges are kept as they are", extra={"error": error})
        result.delivery_errors.add({"error": error})
        result.fail({"error": f"reading delivery paths: {error}"})
    for item in resolution.invalid_mappings:
        result.invalid_mappings.add(item.as_dict())
    for failure in plan.failed:
        result.fail(failure.as_dict())
    for arn in world.asset_records.unreadable:
        result.fail({"schemaArn": arn, "error": "its asset mapping entry is unreadable"})
    _report_resolution(plan, resolution)


def _apply_checkpointed(
    plan: LineagePlan,
    drift: DriftRound,
    loaded: LoadedStates,
    world: LineageWorld,
    settings: Settings,
    applier: Applier,
    lease: StateLease | None,
    remaining_seconds: Callable[[], float] | None,
    result: EmitResult,
) -> None:
    """Apply the actions in hash-group order while the checkpoints save each group that finished; near the
    deadline (the margin plus the unsaved groups' write time) the actions not started are left undone."""
    margin = settings.tuning.deadline_margin_seconds
    facets = drift.facets()
    group_bits = world.state.group_bits
    actions = sorted(
        (_with_drift(action, facets) for action in plan.actions),
        key=lambda a: (hash_group(a.key.key, group_bits), a.key),
    )
    checkpoints = _Checkpoints(world.state, loaded, actions, lease, settings.tuning.ssm_write_rps, result)

    def stop() -> bool:
        if checkpoints.halted:
            return True
        return remaining_seconds is not None and remaining_seconds() < margin + checkpoints.backlog_seconds()

    def done(outcome: TopicOutcome) -> None:
        checkpoints.done(outcome)
        with checkpoints.lock:
            _collect(outcome, result)

    checkpoints.start()
    try:
        applier.apply(actions, done=done, stop=stop)
    finally:
        checkpoints.close()
    if result.remaining:
        result.incomplete = True
        logger.warning(
            "lineage emission checkpointed before its deadline", extra={"remaining": result.remaining}
        )


def _drift_keys(
    plan: LineagePlan, records: dict[TopicKey, AssetRecord], summaries: dict[str, DriftSummary]
) -> list[TopicKey]:
    """Topics whose drift to check: a pair of versions not checked yet, and every run about to be posted
    for a version that has a previous one (the run carries the drift facet, so its body is the same
    whichever run posts it)."""
    # Drift is per topic (a pair of versions), over every table the topic feeds: edge keys name their topic.
    mapped = {e.topic for e in plan.unchanged} | {a.key.topic for a in plan.actions if isinstance(a, Emit)}
    keys = set(pending(sorted(mapped), records, summaries))
    for action in plan.actions:
        if (
            isinstance(action, Emit)
            and action.reason not in ("cleanup", "migrate")
            and isinstance(action.content, RunContent)
            and action.content.previous_version
        ):
            keys.add(action.key.topic)
    return sorted(keys)


def _check_drift(
    plan: LineagePlan,
    records: dict[TopicKey, AssetRecord],
    summaries: dict[str, DriftSummary],
    resolution: Resolution,
    tables: dict[TableRef, GlueTable | None],
    world: LineageWorld,
    settings: Settings,
    dry_run: bool,
    ending: Callable[[], bool],
) -> DriftRound:
    keys = _drift_keys(plan, records, summaries)
    if not keys or world.drift_store is None:
        return DriftRound()
    check = DriftCheck(
        world.versions,
        world.announcer,
        world.walker,
        summaries,
        dry_run=dry_run,
        concurrency=settings.tuning.max_concurrency,
    )

    def tables_of(key: TopicKey) -> list[GlueTable]:
        return tables_fed(resolution.tables_of(key), tables)

    return check.run(keys, records, tables_of, stop=ending)


def _collect_drift(drift: DriftRound, result: EmitResult) -> None:
    for finding in drift.findings:
        if finding.detail is not None or finding.changed:
            result.drift.add(finding.report())
        if finding.detail is not None and not result.dry_run:
            result.drift_announced += 1
            result.drift_breaking += finding.summary.severity == "breaking"
    for key, error in drift.failures:
        result.fail({**key.as_dict(), "error": error})


def _save_drift(drift: DriftRound, world: LineageWorld, lease: StateLease | None, result: EmitResult) -> None:
    """Record the pairs checked (after their events went out): each drift is announced once."""
    changes = drift.summaries()
    if not changes or world.drift_store is None:
        return
    try:
        if lease is not None:
            lease.ensure_held()
        result.state_writes += world.drift_store.save(changes)
    except LeaseLost as error:
        logger.error("lineage state lease lost before saving drift summaries", extra={"error": str(error)})
        result.lease_lost = True
    except Exception as error:
        logger.exception("saving the drift summaries failed: the drift is checked (and announced) again")
        result.fail({"error": f"saving the drift summaries failed: {error}"})


def _with_drift(action: Action, facets: dict[TopicKey, dict[str, Any]]) -> Action:
    """Each sink edge's run of the topic's new version carries the topic's drift (first hops do not: the
    drift is about what the topic feeds)."""
    topic = action.key.topic
    if isinstance(action, Emit) and isinstance(action.content, RunContent) and topic in facets:
        return replace(action, content=replace(action.content, drift=facets[topic]))
    return action


class _Checkpoints:
    """Saves the state of each hash group once all of its actions finished, on a thread of its own."""

    def __init__(
        self,
        store: StateStore,
        loaded: LoadedStates,
        actions: list[Action],
        lease: StateLease | None,
        write_rps: float,
        result: EmitResult,
    ) -> None:
        self.store, self.loaded, self.lease, self.write_rps, self.result = (
            store,
            loaded,
            lease,
            write_rps,
            result,
        )
        self.lock = threading.Lock()
        self._wake = threading.Condition(self.lock)
        self._group_of = {a.key.key: hash_group(a.key.key, store.group_bits) for a in actions}
        self._open = Counter(self._group_of.values())  # actions not finished, per group
        self._changes: dict[str, dict[str, dict[str, Any] | None]] = {}
        self._finished: dict[str, bool] = {}  # group -> some action in it did work
        self._ready: list[str] = []
        self._closed = False
        self._saving = 0  # groups in the save under way
        self.halted = False
        self._thread = threading.Thread(target=self._run, name="lineage-state-saver", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def backlog_seconds(self) -> float:
        """What the unsaved groups (ready, being saved, or under way) still need at the SSM write rate; a
        group none of whose actions has finished needs nothing if the run stops now."""
        with self.lock:
            under_way = sum(1 for group in self._finished if self._open[group])
            groups = len(self._ready) + self._saving + under_way
        return groups / self.write_rps

    def done(self, outcome: TopicOutcome) -> None:
        key = outcome.key.key
        with self.lock:
            group = self._group_of[key]
            if outcome.store:
                changes = self._changes.setdefault(group, {})
                # Edges taken over are dropped in the same save as the edge that replaced them.
                for dropped in outcome.dropped:
                    changes.update(self.loaded.changes(dropped.key, None))
                changes.update(self.loaded.changes(key, outcome.state))
            self._finished[group] = self._finished.get(group, False) or outcome.kind != "deferred"
            self._open[group] -= 1
            if not self._open[group]:
                self._ready.append(group)
                self._wake.notify()

    def close(self) -> None:
        with self.lock:
            self._closed = True
            self._wake.notify()
        self._thread.join()

    def _run(self) -> None:
        while True:
            with self.lock:
                while not self._ready and not self._closed:
                    self._wake.wait()
                if not self._ready and self._closed:
                    return
                groups, self._ready = self._ready, []
                self._saving = len(groups)
                changes: dict[str, dict[str, Any] | None] = {}
                for group in groups:
                    changes.update(self._changes.pop(group, {}))
                progressed = any(self._finished.get(group) for group in groups)
            try:
                if changes and not self.halted:
                    self._save(changes)
                if progressed and not self.halted:
                    self.result.progressed = True
            finally:
                with self.lock:
                    self._saving = 0

    def _save(self, changes: dict[str, dict[str, Any] | None]) -> None:
        for attempt in (1, 2):
            try:
                if self.lease is not None:
                    self.lease.ensure_held()
                self.result.state_writes += self.store.save(changes)
                return
            except LeaseLost as error:
                logger.error(
                    "lineage state lease lost: no further state is written", extra={"error": str(error)}
                )
                self.halted = True
                self.result.lease_lost = True
                return
            except Exception as error:
                logger.exception("saving the lineage emission state failed", extra={"attempt": attempt})
                if attempt == 2:
                    self.halted = True
                    with self.lock:
                        self.result.fail({"error": f"saving the lineage emission state failed: {error}"})
                    return
                try:
                    self.store.load()  # the store needs a fresh picture after a failed save
                except Exception:
                    logger.exception("reloading the lineage emission state failed")


def _derive(
    settings: Settings, world: LineageWorld, records: Iterable[AssetRecord], stop: Callable[[], bool]
) -> tuple[Derivation, tuple[str, ...]]:
    """The connectors' edges for the mirrored topics, and what could not be read: read once per run, never
    when every source is "off" (then no connector edge is wanted, and those emitted before are retracted
    like any remap)."""
    if world.connectors is None or not connectors_wanted(settings):
        return Derivation(), ()
    reads = world.connectors.read(settings.sources, stop=stop)
    topics = [TopicKey(r.registry_name, r.schema_name) for r in records]
    return derive(reads, topics, settings.sources), reads.errors


def _collect(outcome: TopicOutcome, result: EmitResult) -> None:
    if outcome.kind == "emitted":
        result.emitted += 1
        result.emissions.add(outcome.report)
        if outcome.report.get("degraded"):
            result.degraded += 1
        size = outcome.report.get("largestEventBytes")
        if isinstance(size, int):
            result.largest_event_bytes = max(result.largest_event_bytes, size)
    elif outcome.kind == "retracted":
        result.retracted.add(outcome.report)
    elif outcome.kind == "retracting":
        result.retracting.add(outcome.report)
    elif outcome.kind == "cleaned":
        result.cleaned += 1
        result.unchanged += 1
    elif outcome.kind == "migrated":
        result.unchanged += 1
    elif outcome.kind == "deferred":
        result.remaining += 1
    if outcome.error and outcome.kind != "deferred":
        failure = {**outcome.key.as_dict(), "error": outcome.error}
        logger.warning("lineage action failed", extra=failure)
        result.fail(failure)


def _report_resolution(plan: LineagePlan, resolution: Resolution) -> None:
    for kind, issues in (("ambiguous", resolution.ambiguous), ("undetermined", resolution.undetermined)):
        for issue in issues:
            logger.warning(
                f"the connectors' configuration does not decide the topic's table ({kind}): not guessed",
                extra=issue.as_dict(),
            )
    if plan.kept:
        logger.warning(
            "connector edges kept as they are: their connectors could not be read",
            extra={"edges": len(plan.kept)},
        )
    for key in plan.unmapped:
        logger.warning(
            "topic maps to no Glue table (no mapping, no sink connector, no matching tableRule): no lineage",
            extra=key.as_dict(),
        )
    for item in resolution.invalid_mappings:
        logger.warning("invalid explicit table mapping skipped", extra=item.as_dict())
    for failure in plan.failed:
        logger.warning("lineage not emitted for a topic", extra=failure.as_dict())


def _publish_metrics(result: EmitResult) -> None:
    counts = {
        "LineageEmitted": result.emitted,
        "LineageUnchanged": result.unchanged,
        "LineageUnmappedTopics": result.unmapped.count,
        "LineageInvalidMappings": result.invalid_mappings.count,
        "LineageFailed": result.failed.count,
        "LineageRetracted": result.retracted.count,
        "LineageDeferred": result.remaining,
        "LineageDegradedRuns": result.degraded,
        "LineageAmbiguousTopics": result.ambiguous.count,
        "LineageUndeterminedTopics": result.undetermined.count,
        "SchemaDriftDetected": result.drift_announced,
        "SchemaDriftBreaking": result.drift_breaking,
    }
    for name, value in counts.items():
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
    if result.largest_event_bytes:
        metrics.add_metric(
            name="LineageLargestEventBytes", unit=MetricUnit.Bytes, value=result.largest_event_bytes
        )
