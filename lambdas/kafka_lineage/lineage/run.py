"""The lineage emission, end to end: read the world, plan (pure), act, record. One call per invocation.

Reads on every run: the asset mapping and the emission state (SSM, packed), the explicit table mappings
(SSM), and the mapped Glue tables (one GetTables per database). A run that finds nothing changed reads
nothing else and writes nothing; a topic that must be (re-)emitted also costs one GetSchemaVersion, two
PostLineageEvent calls and one DeleteLineageEvent per replaced event.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from kafka_lineage.aws.clients import RateLimiter, client
from kafka_lineage.aws.lineage_api import LineageApi
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.aws.table_mappings import TableMappings
from kafka_lineage.aws.tables import GlueTables, SchemaVersions, TableReads
from kafka_lineage.config import Settings
from kafka_lineage.lineage.apply import Applier, EventStore, ParsedFields, TopicOutcome, VersionReader
from kafka_lineage.lineage.events import TopicField
from kafka_lineage.lineage.model import LineageState
from kafka_lineage.lineage.plan import EmitScope, LineagePlan, make_plan, select, tables_needed
from kafka_lineage.lineage.resolve import MappingParameter, parse_mappings, resolve
from kafka_lineage.mapping import LINEAGE, TABLE_MAPPINGS, AssetMapping, AssetRecord, subpath
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


@dataclass
class LineageWorld:
    """The adapters one run uses (tests build it on the stand-ins; `connect` builds it in the Lambda)."""

    assets: AssetMapping
    table_mappings: TableMappings
    tables: GlueTables
    versions: VersionReader
    events: EventStore
    state: PackedStore

    @classmethod
    def connect(cls, settings: Settings, account: str = "") -> LineageWorld:
        ssm = client("ssm")
        glue = client("glue")
        tuning = settings.tuning
        glue_limiter = RateLimiter(tuning.glue_rps)
        return cls(
            assets=AssetMapping(ssm, settings.mapping_path),
            table_mappings=TableMappings(ssm, settings.mapping_path),
            tables=GlueTables(glue, glue_limiter, account=account),
            versions=SchemaVersions(glue, glue_limiter),
            events=LineageApi(client("datazone"), settings.domain_id, RateLimiter(tuning.datazone_rps)),
            state=PackedStore(
                ssm, subpath(settings.mapping_path, LINEAGE), write_limiter=RateLimiter(tuning.ssm_write_rps)
            ),
        )


@dataclass
class EmitResult:
    """The invocation's result (contract §3), JSON-ready through `to_dict`."""

    dry_run: bool
    emitted: int = 0
    unchanged: int = 0
    unmapped: list[dict[str, str]] = field(default_factory=list)
    invalid_mappings: list[dict[str, str]] = field(default_factory=list)
    failed: list[dict[str, str]] = field(default_factory=list)
    retracted: list[dict[str, object]] = field(default_factory=list)
    emissions: list[dict[str, object]] = field(default_factory=list)
    cleaned: int = 0
    deferred: list[dict[str, str]] = field(default_factory=list)
    planned: list[dict[str, object]] | None = None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "dryRun": self.dry_run,
            "emitted": self.emitted,
            "unchanged": self.unchanged,
            "unmapped": self.unmapped,
            "invalidMappings": self.invalid_mappings,
            "failed": self.failed,
            "retracted": self.retracted,
            "emissions": self.emissions,
            "cleaned": self.cleaned,
            "deferred": self.deferred,
        }
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
) -> EmitResult:
    """Emit (or plan, in a dry run) the lineage `scope` asks for. Never raises for one topic's failure."""
    records: dict[str, AssetRecord] = world.assets.load()
    parameters: list[MappingParameter] = world.table_mappings.load()
    mappings, invalid = parse_mappings(parameters, subpath(settings.mapping_path, TABLE_MAPPINGS))
    states: dict[str, LineageState] = {}
    unreadable: list[str] = []
    for key, entry in world.state.load().items():
        try:
            states[key] = LineageState.from_entry(entry)
        except (KeyError, TypeError, ValueError):
            logger.error("unreadable lineage state entry left untouched", extra={"key": key})
            unreadable.append(key)
            states[key] = LineageState()
    resolution = resolve(records.values(), settings, mappings, invalid)
    selection = select(scope, records, states, [source.registry_name for source in settings.sources])
    needed = tables_needed(selection, resolution)
    reads = world.tables.read(needed) if needed else TableReads()
    plan = make_plan(
        scope,
        selection,
        resolution,
        reads.tables,
        states,
        settings.tuning.mass_delete_share,
        table_errors=reads.errors,
        unreadable_states=unreadable,
    )

    result = EmitResult(
        dry_run=scope.dry_run,
        unchanged=len(plan.unchanged),
        unmapped=[key.as_dict() for key in plan.unmapped],
        invalid_mappings=[item.as_dict() for item in resolution.invalid_mappings],
        failed=[failure.as_dict() for failure in plan.failed],
    )
    result.failed += [
        {"schemaArn": arn, "error": "its asset mapping entry is unreadable"}
        for arn in world.assets.unreadable
    ]
    _report_resolution(plan, result)
    if scope.dry_run:
        result.planned = plan.describe()
        result.emitted = sum(1 for a in result.planned if a["action"] == "emit")
        # Planned counts must not feed the alarms: a dry run only counts itself.
        metrics.add_metric(name="LineageDryRuns", unit=MetricUnit.Count, value=1)
        return result

    applier = Applier(
        world.events,
        world.versions,
        parse,
        concurrency=settings.tuning.max_concurrency,
        force_nonce=force_nonce,
        remaining_seconds=remaining_seconds,
        margin_seconds=settings.tuning.deadline_margin_seconds,
    )
    outcomes = applier.apply(plan.actions)
    _collect(outcomes, result)
    changes = {o.key.key: (o.state.to_entry() if o.state else None) for o in outcomes if o.store}
    # Entries for topics that emitted nothing yet and have nothing stale are not worth a write.
    changes = {key: (entry or None) for key, entry in changes.items()}
    if changes:
        try:
            world.state.save(changes)
        except Exception as error:
            logger.exception("saving the lineage emission state failed")
            result.failed.append({"error": f"saving the lineage emission state failed: {error}"})
    _publish_metrics(result)
    return result


def _collect(outcomes: list[TopicOutcome], result: EmitResult) -> None:
    for outcome in outcomes:
        if outcome.kind == "emitted":
            result.emitted += 1
            result.emissions.append(outcome.report)
        elif outcome.kind == "retracted":
            result.retracted.append(outcome.report)
        elif outcome.kind == "cleaned":
            result.cleaned += 1
            result.unchanged += 1
        elif outcome.kind == "deferred":
            result.deferred.append(outcome.key.as_dict())
        if outcome.error and outcome.kind != "deferred":
            result.failed.append({**outcome.key.as_dict(), "error": outcome.error})


def _report_resolution(plan: LineagePlan, result: EmitResult) -> None:
    for key in plan.unmapped:
        logger.warning(
            "topic maps to no Glue table (no explicit mapping, no matching tableRule): no lineage",
            extra=key.as_dict(),
        )
    for item in result.invalid_mappings:
        logger.warning("invalid explicit table mapping skipped", extra=item)
    for failure in plan.failed:
        logger.warning("lineage not emitted for a topic", extra=failure.as_dict())


def _publish_metrics(result: EmitResult) -> None:
    counts = {
        "LineageEmitted": result.emitted,
        "LineageUnchanged": result.unchanged,
        "LineageUnmappedTopics": len(result.unmapped),
        "LineageInvalidMappings": len(result.invalid_mappings),
        "LineageFailed": len(result.failed),
        "LineageRetracted": len(result.retracted),
        "LineageDeferred": len(result.deferred),
        "LineageDegradedRuns": sum(1 for e in result.emissions if e.get("degraded")),
    }
    for name, value in counts.items():
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
    sizes = [size for e in result.emissions if isinstance(size := e.get("largestEventBytes"), int)]
    if sizes:
        metrics.add_metric(name="LineageLargestEventBytes", unit=MetricUnit.Bytes, value=max(sizes))
