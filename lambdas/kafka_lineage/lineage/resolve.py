"""Which edges each topic has: the Glue tables it feeds (sink edges), the S3 locations a channel or stream
writes it to (location edges) and the source tables feeding it (first hops), each with the `origin` that
decided it.

Precedence, per topic, for the tables it feeds (the first tier that names any table decides them all):

1. `operator`: an operator's explicit mapping (an SSM String parameter under `{MAPPING_PATH}/table-mappings/`
   outside `cdk/`, docs/lineage.md). It replaces every derived edge of the topic: it is the one way to
   override anything else at run time, without a redeploy.
2. derived edges: `connector:<name>`, the Iceberg sink connectors of MSK Connect whose configuration decides
   the topic's table(s) (`kafka_lineage.connectors`), and `channel:<name>` / `firehose:<name>`, the MSK Data
   Delivery channels and Firehose streams that write the topic to tables or S3 locations
   (`kafka_lineage.delivery`). A topic may feed several tables (several sinks or paths): one edge each.
3. `cdk`: the stack's mappings (under `table-mappings/cdk/`, written from cdk.json at deploy time).
4. `rule`: the source's `tableRule`.

Connector edges come before the stack's mappings because a connector's configuration is where the data
really goes, read on every run, while a cdk mapping is a declaration made at deploy time that can only fall
behind it (the naming drift these edges exist to remove); an operator who must override a connector has
tier 1, with no redeploy. A topic the connectors leave `ambiguous` or `undetermined` (dynamic routing) is
reported with the reason and falls through to the next tier.

S3 locations (topic -> `s3://<bucket>` / `<prefix>`) are derived edges of tier 2, from channels and
streams with an S3 general purpose bucket as their destination. An operator's mapping replaces them with
the topic's other derived edges. They decide no table, though: a location is another output than a Glue
table (a stream writing raw records to a bucket, beside a sink or a tableRule naming the Iceberg table the
topic also feeds), so tiers 3 and 4 still name the topic's table when no derived table edge does, and a
topic with a location edge and no table is not `unmapped`: it has lineage. A location whose state key
cannot be stored (`lineage.model.unstorable`) is reported `undetermined`.

First hops (source table -> topic) come only from Debezium source connectors; an explicit mapping names a
table the topic feeds, so it does not replace them. Nor does it replace consumer edges (a consumer group
reads the topic, `kafka_lineage.consumers`): they say who reads the topic, not where it goes, and a topic
with only consumer edges and no table is still `unmapped`. A consumer group whose state key cannot be
stored (a line feed in its name) is reported `undetermined`. When a cluster's consumer groups could not be
listed, its sources' consumer edges are kept as they are (`Resolution.keeps_edge`).

Within a mapping tier a mapping that names the registry beats one that does not. Two mappings of the same
tier and specificity that disagree are both reported invalid and the topic fails: picking one silently
could draw the wrong edge.

When the connectors could not be read (`Derivation.read_ok` False, or a connector `unreadable`), their
edges are not known this run: the plan then keeps the connector edges already emitted as they are, never
retracting them and never replacing them by a lower tier (`Resolution.connectors_unknown`). The same holds
for channels and streams (`Resolution.keeps`); a kept location edge, deciding no table, holds back no
lower tier.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime

from pydantic import ValidationError

from kafka_lineage.config import Settings, Source
from kafka_lineage.lineage.consumer_inputs import Consumer, readers_by_topic
from kafka_lineage.lineage.model import EdgeKey, TopicEdge, unstorable
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.connectors import ConnectorNote, Derivation, SinkEdge, SourceEdge
from kafka_lineage.model.consumers import ConsumerDerivation
from kafka_lineage.model.delivery import DeliveryDerivation, DeliveryEdge, InactivePath
from kafka_lineage.model.errors import describe
from kafka_lineage.model.table_mapping import MappingParameter, TableMapping
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

# "operator" | "cdk" | "connector:<name>" | "channel:<name>" | "firehose:<name>" | "rule" (before edges,
# "cdk" was reported as "stack").
Origin = str
STACK_FOLDER = "cdk"
# The origins that rank below connector edges: kept connector edges are never replaced by them.
BELOW_CONNECTORS = ("cdk", "rule")


@dataclass(frozen=True)
class ExplicitMapping:
    parameter: str
    topic: str
    table: TableRef
    registry_name: str | None
    operator: bool  # False: the stack wrote it under table-mappings/cdk/
    last_modified: datetime | None = None

    @property
    def origin(self) -> Origin:
        return "operator" if self.operator else "cdk"

    def applies_to(self, key: TopicKey) -> bool:
        return self.topic == key.topic and self.registry_name in (None, key.registry_name)


@dataclass(frozen=True)
class InvalidMapping:
    parameter: str
    error: str

    def as_dict(self) -> dict[str, str]:
        return {"parameter": self.parameter, "error": self.error}


@dataclass(frozen=True, slots=True)
class Target(TopicEdge):
    """A sink edge: a mirrored topic and one Glue table it feeds."""

    table: TableRef
    origin: Origin
    mapping: ExplicitMapping | None = None
    connector: SinkEdge | None = None

    @property
    def edge(self) -> EdgeKey:
        return EdgeKey.sink(self.key, self.table)


@dataclass(frozen=True, slots=True)
class FirstHop(TopicEdge):
    """A first-hop edge: the source database table a Debezium connector captures into the topic."""

    upstream: SourceEdge

    @property
    def origin(self) -> Origin:
        return f"connector:{self.upstream.connector}"

    @property
    def edge(self) -> EdgeKey:
        return EdgeKey.source(self.key, self.upstream.dataset_namespace, self.upstream.dataset_name)


@dataclass(frozen=True, slots=True)
class Location(TopicEdge):
    """A location edge: a channel or stream writes the topic to an S3 location (`delivery.dataset`)."""

    delivery: DeliveryEdge

    @property
    def origin(self) -> Origin:
        return self.delivery.origin

    @property
    def dataset(self) -> tuple[str, str]:
        """OpenLineage's S3 naming: namespace `s3://<bucket>`, name the prefix ("/" for the root)."""
        assert self.delivery.dataset is not None
        return self.delivery.dataset

    @property
    def edge(self) -> EdgeKey:
        return EdgeKey.location(self.key, *self.dataset)


Edge = Target | FirstHop | Location | Consumer


@dataclass(frozen=True)
class TopicProblem:
    key: TopicKey
    error: str


@dataclass(frozen=True)
class ConnectorIssue:
    """A topic the connectors' configuration does not decide (`ambiguous`, `undetermined`)."""

    key: TopicKey
    connector: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {**self.key.as_dict(), "connector": self.connector, "reason": self.reason}


@dataclass(frozen=True)
class Resolution:
    edges: dict[EdgeKey, Edge]
    unmapped: tuple[TopicKey, ...]
    failed: tuple[TopicProblem, ...]
    invalid_mappings: tuple[InvalidMapping, ...]
    # Mirrored topics whose registry is no longer a configured source: left alone, state untouched.
    unconfigured: tuple[TopicKey, ...] = ()
    ambiguous: tuple[ConnectorIssue, ...] = ()
    undetermined: tuple[ConnectorIssue, ...] = ()
    # Connectors that could not be read: `None` when the listing itself failed (every connector unknown).
    connectors_unknown: frozenset[str] | None = frozenset()
    connector_errors: tuple[str, ...] = ()
    by_topic: Mapping[TopicKey, tuple[EdgeKey, ...]] = field(default_factory=dict)
    # The managed delivery paths: which of their edges are not known this run, and those not ACTIVE.
    delivery: DeliveryDerivation = field(default_factory=DeliveryDerivation)
    # The consumer groups: which sources' groups are not known this run, and what could not be read.
    consumers: ConsumerDerivation = field(default_factory=ConsumerDerivation)

    @property
    def inactive_paths(self) -> tuple[InactivePath, ...]:
        return self.delivery.inactive

    def __post_init__(self) -> None:
        if not self.by_topic and self.edges:
            index: dict[TopicKey, list[EdgeKey]] = {}
            for edge in sorted(self.edges):
                index.setdefault(edge.topic, []).append(edge)
            object.__setattr__(self, "by_topic", {k: tuple(v) for k, v in index.items()})

    def edges_of(self, key: TopicKey) -> list[Edge]:
        """The topic's edges in key order (by kind: locations, sink edges, first hops)."""
        return [self.edges[edge] for edge in self.by_topic.get(key, ())]

    def tables_of(self, key: TopicKey) -> tuple[TableRef, ...]:
        """Every Glue table the topic feeds (for drift: one version change, all its tables)."""
        return tuple(edge.table for edge in self.edges_of(key) if isinstance(edge, Target))

    @property
    def targets(self) -> dict[EdgeKey, Target]:
        return {key: edge for key, edge in self.edges.items() if isinstance(edge, Target)}

    def keeps_edge(self, edge: EdgeKey, origin: str) -> bool:
        """Whether the stated edge must be kept as it is: what decided it could not be read this run (a
        consumer edge: its cluster's consumer groups could not be listed)."""
        if edge.kind == "consumer":
            return self.consumers.keeps(edge.topic)
        return self.keeps(origin)

    def keeps(self, origin: str) -> bool:
        """Whether an edge of this origin must be kept as it is: its connector, channel or stream (or their
        listing) could not be read."""
        if origin.startswith(("channel:", "firehose:")):
            return self.delivery.keeps(origin)
        if not origin.startswith("connector:"):
            return False
        return self.connectors_unknown is None or origin.removeprefix("connector:") in self.connectors_unknown


def parse_mappings(
    parameters: Iterable[MappingParameter], table_mappings_path: str
) -> tuple[list[ExplicitMapping], list[InvalidMapping]]:
    """Parse every parameter below `table_mappings_path`; the invalid ones are reported, never raised."""
    stack_prefix = f"{table_mappings_path.rstrip('/')}/{STACK_FOLDER}/"
    mappings: list[ExplicitMapping] = []
    invalid: list[InvalidMapping] = []
    for parameter in sorted(parameters, key=lambda p: p.name):
        if parameter.type != "String":
            invalid.append(
                InvalidMapping(parameter.name, f"must be a String parameter, not {parameter.type}")
            )
            continue
        try:
            value = TableMapping.model_validate(json.loads(parameter.value))
        except json.JSONDecodeError as error:
            invalid.append(InvalidMapping(parameter.name, f"value is not JSON: {error.msg}"))
            continue
        except ValidationError as error:
            invalid.append(InvalidMapping(parameter.name, describe(error)))
            continue
        mappings.append(
            ExplicitMapping(
                parameter=parameter.name,
                topic=value.topic,
                table=TableRef(value.database, value.table, glue_catalog=value.catalog or ""),
                registry_name=value.registry_name,
                operator=not parameter.name.startswith(stack_prefix),
                last_modified=parameter.last_modified,
            )
        )
    return mappings, invalid


def resolve(
    records: Iterable[AssetRecord],
    settings: Settings,
    mappings: Sequence[ExplicitMapping],
    invalid: Sequence[InvalidMapping] = (),
    derivation: Derivation | None = None,
    delivery: DeliveryDerivation | None = None,
    consumers: ConsumerDerivation | None = None,
) -> Resolution:
    """Every mirrored topic's edges by the precedence above; a topic with no table is reported unmapped (or
    failed, on conflicting mappings)."""
    derivation = derivation or Derivation()
    delivery = delivery or DeliveryDerivation()
    consumers = consumers or ConsumerDerivation()
    readers, unstored = readers_by_topic(consumers)
    by_topic: dict[str, list[ExplicitMapping]] = {}
    for mapping in mappings:
        by_topic.setdefault(mapping.topic, []).append(mapping)
    sinks, hops = _sinks_by_topic(derivation, delivery), _hops_by_topic(derivation)
    locations, unkept = _locations_by_topic(delivery)
    edges: dict[EdgeKey, Edge] = {}
    unmapped: list[TopicKey] = []
    failed: list[TopicProblem] = []
    unconfigured: list[TopicKey] = []
    conflicts: dict[str, InvalidMapping] = {}
    for record in sorted(records, key=lambda r: (r.registry_name, r.schema_name)):
        key = TopicKey(record.registry_name, record.schema_name)
        source = settings.source(record.registry_name)
        if source is None:
            unconfigured.append(key)
            continue
        for hop in hops.get(key, {}).values():
            first = FirstHop(key, record, source, hop)
            edges[first.edge] = first
        for reader in readers.get(key, ()):
            consumer = Consumer(key, record, source, reader)
            edges[consumer.edge] = consumer
        candidates = [m for m in by_topic.get(key.topic, ()) if m.applies_to(key)]
        chosen, clash = _explicit_mapping(candidates, connectors_decide=key in sinks)
        if clash:
            failed.append(_clash_problem(key, clash, conflicts))
            continue
        found: list[Edge] = [*_sink_targets(key, record, source, chosen, sinks.get(key, {}))]
        if chosen is None or not chosen.operator:  # an operator's mapping replaces the derived edges
            found += [Location(key, record, source, edge) for edge in locations.get(key, ())]
        if not found:
            unmapped.append(key)
        for target in found:
            edges[target.edge] = target
    all_invalid = {item.parameter: item for item in invalid}
    for parameter, item in conflicts.items():
        all_invalid.setdefault(parameter, item)
    issues = _issues((*derivation.notes, *delivery.notes, *unkept, *unstored))
    return Resolution(
        edges=edges,
        unmapped=tuple(unmapped),
        failed=tuple(failed),
        invalid_mappings=tuple(all_invalid[name] for name in sorted(all_invalid)),
        unconfigured=tuple(unconfigured),
        ambiguous=issues["ambiguous"],
        undetermined=issues["undetermined"],
        connectors_unknown=_connectors_unknown(derivation),
        connector_errors=tuple(
            f"connector {note.connector}: {note.reason}"
            for note in derivation.notes
            if note.kind == "unreadable"
        ),
        delivery=delivery,
        consumers=consumers,
    )


def _sinks_by_topic(
    derivation: Derivation, delivery: DeliveryDerivation
) -> dict[TopicKey, dict[TableRef, SinkEdge]]:
    """Each topic's sink connectors and delivery paths by the table they write (two of them, one table: one
    edge, the first by origin)."""
    found = [*derivation.sinks, *_delivery_sinks(delivery)]
    sinks: dict[TopicKey, dict[TableRef, SinkEdge]] = {}
    for sink in sorted(found, key=lambda s: (s.origin, s.connector_arn)):
        sinks.setdefault(sink.key, {}).setdefault(sink.table, sink)
    return sinks


def _delivery_sinks(delivery: DeliveryDerivation) -> list[SinkEdge]:
    """The delivery paths' table edges, in the sinks' tier (their S3 locations: `_locations_by_topic`)."""
    return [
        SinkEdge(
            key=edge.key,
            table=edge.table,
            connector=edge.job_name,
            connector_arn=edge.arn,
            job_namespace=edge.job_namespace,
            job_name=edge.job_name,
            via=edge.origin,
        )
        for edge in delivery.edges
        if edge.table is not None
    ]


def _hops_by_topic(derivation: Derivation) -> dict[TopicKey, dict[tuple[str, str], SourceEdge]]:
    """Each topic's source connectors by the dataset they read (one first hop per dataset)."""
    hops: dict[TopicKey, dict[tuple[str, str], SourceEdge]] = {}
    for hop in sorted(derivation.sources, key=lambda s: (s.connector, s.connector_arn)):
        hops.setdefault(hop.key, {}).setdefault((hop.dataset_namespace, hop.dataset_name), hop)
    return hops


def _explicit_mapping(
    candidates: Sequence[ExplicitMapping], *, connectors_decide: bool
) -> tuple[ExplicitMapping | None, list[ExplicitMapping]]:
    """The explicit mapping that decides the topic, or the clashing set: an operator's (tier 1) always, the
    stack's (tier 3) only when no connector decides the topic's tables."""
    chosen, clash = _choose([m for m in candidates if m.operator])
    if not clash and chosen is None and not connectors_decide:
        chosen, clash = _choose([m for m in candidates if not m.operator])
    return chosen, clash


def _clash_problem(
    key: TopicKey, clash: Sequence[ExplicitMapping], conflicts: dict[str, InvalidMapping]
) -> TopicProblem:
    """The topic's failure for mappings that disagree; each of them is also recorded invalid in
    `conflicts` (the first topic to find a parameter in conflict names it)."""
    for mapping in clash:
        others = ", ".join(m.parameter for m in clash if m is not mapping)
        conflicts.setdefault(
            mapping.parameter,
            InvalidMapping(mapping.parameter, f"conflicts with {others} for topic {key.key}"),
        )
    described = ", ".join(f"{m.parameter} -> {m.table.name}" for m in clash)
    return TopicProblem(key, f"conflicting explicit table mappings: {described}")


def _sink_targets(
    key: TopicKey,
    record: AssetRecord,
    source: Source,
    chosen: ExplicitMapping | None,
    sinks: Mapping[TableRef, SinkEdge],
) -> list[Target]:
    """The tables the topic feeds, from the first tier that names any (none: the topic is unmapped)."""
    # A source read through a role has its tables in its own account's catalog.
    catalog = source.key if source.role_arn else ""
    if chosen is not None and chosen.operator:
        return [Target(key, record, source, replace(chosen.table, catalog=catalog), chosen.origin, chosen)]
    if sinks:
        return [
            Target(key, record, source, replace(table, catalog=catalog), sink.origin, connector=sink)
            for table, sink in sorted(sinks.items())
        ]
    if chosen is not None:
        return [Target(key, record, source, replace(chosen.table, catalog=catalog), chosen.origin, chosen)]
    by_rule = source.table_rule.table_for(key.topic) if source.table_rule else None
    if by_rule is None:
        return []
    glue_catalog = source.table_rule.catalog or "" if source.table_rule else ""
    return [Target(key, record, source, TableRef(*by_rule, catalog, glue_catalog), "rule")]


def _locations_by_topic(
    delivery: DeliveryDerivation,
) -> tuple[dict[TopicKey, list[DeliveryEdge]], list[ConnectorNote]]:
    """Each topic's S3 locations (two paths, one location: one edge, the first by origin), and the
    locations whose state key cannot be stored, reported."""
    locations: dict[TopicKey, dict[tuple[str, str], DeliveryEdge]] = {}
    notes: list[ConnectorNote] = []
    for edge in sorted(delivery.edges, key=lambda e: (e.origin, e.arn)):
        if edge.dataset is None:
            continue
        problem = unstorable(EdgeKey.location(edge.key, *edge.dataset).key)
        if problem:
            reason = f"{edge.origin} writes the topic to {edge.dataset[0]}/{edge.dataset[1]}, but {problem}"
            notes.append(ConnectorNote("undetermined", edge.origin, reason, edge.key))
            continue
        locations.setdefault(edge.key, {}).setdefault(edge.dataset, edge)
    return {key: list(found.values()) for key, found in locations.items()}, notes


def _connectors_unknown(derivation: Derivation) -> frozenset[str] | None:
    """The connectors whose edges are not known this run; None when the listing itself failed (all)."""
    if not derivation.read_ok:
        return None
    unreadable = {note.connector for note in derivation.notes if note.kind == "unreadable"}
    return frozenset(unreadable | set(derivation.unread))


def _issues(notes: Iterable[ConnectorNote]) -> dict[str, tuple[ConnectorIssue, ...]]:
    found: dict[str, list[ConnectorIssue]] = {"ambiguous": [], "undetermined": []}
    for note in notes:
        if note.kind in found:
            key = note.key or TopicKey("", "")
            found[note.kind].append(ConnectorIssue(key, note.connector, note.reason))
    return {kind: tuple(sorted(items, key=lambda i: (i.key, i.connector))) for kind, items in found.items()}


def _choose(candidates: Sequence[ExplicitMapping]) -> tuple[ExplicitMapping | None, list[ExplicitMapping]]:
    """The winning mapping, or the clashing set when the best tier disagrees about the table."""
    if not candidates:
        return None, []

    def rank(mapping: ExplicitMapping) -> tuple[int, int]:
        return (0 if mapping.operator else 1, 0 if mapping.registry_name is not None else 1)

    best = min(rank(m) for m in candidates)
    tier = sorted((m for m in candidates if rank(m) == best), key=lambda m: m.parameter)
    if len({m.table for m in tier}) > 1:
        return None, tier
    return tier[0], []
