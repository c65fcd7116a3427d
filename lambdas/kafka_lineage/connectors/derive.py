"""Edges from MSK Connect connector configurations: Iceberg sinks (topic -> table), Debezium sources
(database table -> topic). Pure: configurations and the registry's topics in, a `Derivation` out.

Only what a configuration decides becomes an edge; the rest is a note (`ambiguous`, `undetermined`,
`unreadable`), never a guess. Topics are those the registry mirrors: a connector's topic that has no schema
has no node to join.

Iceberg sink (`io.tabular.iceberg.connect.IcebergSinkConnector` and
`org.apache.iceberg.connect.IcebergSinkConnector`), as its SinkWriter routes a record:
- consumed topics: `topics` (comma-separated) or `topics.regex` (Java regex, full match, as Kafka subscribes);
- `iceberg.tables.dynamic-enabled=true`: the table is named by each record's route field: `undetermined`;
- no `iceberg.tables.route-field`: every record goes to every table of `iceberg.tables`, so each consumed
  topic feeds each of them;
- a route field: a record goes to each table whose `iceberg.table.<table>.route-regex` fully matches the
  field's value. That pairs topics with tables only when the field carries the topic name (an Iceberg
  `KafkaMetadataTransform` or Kafka's `InsertField$Value` `topic.field` before the sink); else one routed
  table is the only place the topic can go, and several are `ambiguous`;
- several routed tables and a route field that does not carry the topic: a configuration naming a single
  topic (`topics`) feeds each routed table from it; more topics are `ambiguous`;
- the catalog must be Glue's, in the connector's own account and Region (`kafka_lineage.connectors.catalog`:
  GlueCatalog, or an Iceberg REST catalog at Glue's or S3 Tables' endpoint; a federated catalog such as
  `s3tablescatalog/<bucket>` is kept on the table), and the table `<database>.<table>` (Glue has one
  namespace level; its names are lower case).

Debezium source (MySQL, PostgreSQL, SQL Server, Oracle, MongoDB): topics are `<prefix><d><parts...>` with the
prefix from `topic.prefix` (2.x) or `database.server.name` / `mongodb.name` (1.x) and `<d>` the
`topic.delimiter` (default `.`). A registry topic under the prefix with the connector's number of parts,
passing its include / exclude lists (Debezium: comma-separated Java regexes, `\\,` a literal comma, each
matched case-insensitively against the whole identifier), is one first-hop edge. Schema-change,
transaction and heartbeat topics never are (too few parts, `__` prefix or named by the configuration).
A topic-routing transform or a custom topic naming strategy makes the topic names unknowable: the
connector is `undetermined` (SchemaTopicNamingStrategy is the default layout for PostgreSQL and Oracle).
An unwrapping transform (ExtractNewRecordState) marks the edge `flattened`: columns are top-level fields.
Datasets follow OpenLineage's naming spec (namespace `<scheme>://host:port`):

    MySQL       mysql://     {database}.{table}             topic <prefix>.<database>.<table>
    PostgreSQL  postgres://  {database}.{schema}.{table}    topic <prefix>.<schema>.<table>, database.dbname
    SQL Server  mssql://     {database}.{schema}.{table}    topic <prefix>.<database>.<schema>.<table> (2.x);
                                                            <prefix>.<schema>.<table> + database.dbname (1.x)
    Oracle      oracle://    {serviceName}.{schema}.{table} topic <prefix>.<schema>.<table>; service =
                                                            database.pdb.name, else database.dbname
    MongoDB     mongodb://   {database}.{collection}        topic <prefix>.<database>.<collection>
                (MongoDB is not in the spec's table; this follows its pattern for the others.)

A DELETING connector has no edges (they are retracted); any other state, FAILED and PAUSED included, is
still the configured pipeline and keeps them.

Job: OpenLineage's naming spec has no convention for a Kafka Connect connector (its Debezium entry,
`{topic.prefix}.{taskId}`, names one task and collides when two connectors share a prefix), so the job is
the connector: namespace `kafka-connect://<cluster name>`, name the connector's name (unique per account
and Region in MSK Connect).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace

from kafka_lineage.config import Source
from kafka_lineage.connectors.catalog import sink_catalog
from kafka_lineage.connectors.config_values import Unreadable, aliases, is_true, java_regex, job_namespace
from kafka_lineage.connectors.debezium import DEBEZIUM, source_edges
from kafka_lineage.model.connectors import (
    ConnectorConfig,
    ConnectorNote,
    ConnectorReads,
    Derivation,
    NoteKind,
    SinkEdge,
    SourceEdge,
)
from kafka_lineage.model.names import GLUE_CATALOG_NAME
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

ICEBERG_SINKS = frozenset(
    {"io.tabular.iceberg.connect.IcebergSinkConnector", "org.apache.iceberg.connect.IcebergSinkConnector"}
)
# Iceberg's KafkaMetadataTransform (both distributions) and Kafka's InsertField put the topic in the value.
KAFKA_METADATA_TRANSFORMS = frozenset(
    {
        "org.apache.iceberg.connect.transforms.KafkaMetadataTransform",
        "io.tabular.iceberg.connect.transforms.KafkaMetadataTransform",
    }
)
INSERT_FIELD_VALUE = "org.apache.kafka.connect.transforms.InsertField$Value"
# A connector in this state is going away: its edges are retracted, not derived.
GONE_STATES = frozenset({"DELETING"})


def derive(
    connectors: Sequence[ConnectorConfig] | ConnectorReads,
    topics: Iterable[TopicKey],
    sources: Sequence[Source],
) -> Derivation:
    """Every edge and note the connectors' configurations give for the registry's `topics`.

    Given the adapter's `ConnectorReads`, its `read_ok`, `unread` and notes carry over.
    """
    reads = connectors if isinstance(connectors, ConnectorReads) else ConnectorReads(tuple(connectors))
    by_registry: dict[str, list[TopicKey]] = defaultdict(list)
    for key in sorted(set(topics)):
        by_registry[key.registry_name].append(key)
    sinks: list[SinkEdge] = []
    firsts: list[SourceEdge] = []
    notes: list[ConnectorNote] = list(reads.notes)
    for connector in sorted(reads.connectors, key=lambda c: (c.name, c.arn)):
        if connector.state in GONE_STATES:
            continue
        readers = [s for s in sources if _on_cluster(s, connector) and s.reads_connector(connector.name)]
        keys = [key for source in readers for key in by_registry.get(source.registry_name, ())]
        if not readers:
            continue
        try:
            if connector.connector_class in ICEBERG_SINKS:
                found_sinks, found_notes = _sink(connector, keys)
                sinks.extend(found_sinks)
                notes.extend(found_notes)
            elif connector.connector_class in DEBEZIUM:
                found_sources, found_notes = source_edges(connector, keys)
                firsts.extend(found_sources)
                notes.extend(found_notes)
        except Unreadable as error:
            notes.append(ConnectorNote("unreadable", connector.name, str(error)))
    return Derivation(
        sinks=tuple(dict.fromkeys(sinks)),
        sources=tuple(dict.fromkeys(firsts)),
        notes=tuple(notes),
        read_ok=reads.read_ok,
        unread=reads.unread,
    )


def _on_cluster(source: Source, connector: ConnectorConfig) -> bool:
    if connector.cluster_arn:
        return source.cluster_arn == connector.cluster_arn
    return source.cluster_name == connector.cluster_name


# ---- Iceberg sink -------------------------------------------------------------------------------------


def _sink(connector: ConnectorConfig, keys: Sequence[TopicKey]) -> tuple[list[SinkEdge], list[ConnectorNote]]:
    config = connector.config
    consumed = _consumed(config, keys)
    if not consumed:
        return [], []
    where = sink_catalog(config, _account_of(connector), _region_of(connector))
    if where.elsewhere:
        return [], [ConnectorNote("undetermined", connector.name, where.elsewhere)]
    note = _note_for(connector)
    if is_true(config.get("iceberg.tables.dynamic-enabled")):
        field = config.get("iceberg.tables.route-field", "")
        reason = f"iceberg.tables.dynamic-enabled: each record's field {field!r} names its table"
        return [], [note("undetermined", reason, key) for key in consumed]
    tables = [name.strip() for name in config.get("iceberg.tables", "").split(",") if name.strip()]
    if not tables:
        raise Unreadable("iceberg.tables is empty and dynamic routing is off")
    refs = {name: replace(_glue_table(name), glue_catalog=where.glue_catalog) for name in tables}
    route_field = config.get("iceberg.tables.route-field", "").strip()
    edge = _sink_edge(connector)
    if not route_field:
        # SinkWriter.routeRecordStatically: no route field, every record to every table.
        return [edge(key, refs[name]) for key in consumed for name in tables], []
    routed = {name: regex for name in tables if (regex := _route_regex(config, name)) is not None}
    if not routed:
        return [], []  # no table has a route-regex: the sink writes nothing
    if route_field in _topic_fields(config):
        return [
            edge(key, refs[name])
            for key in consumed
            for name, regex in routed.items()
            if regex.fullmatch(key.topic)
        ], []
    if len(routed) == 1 or _single_topic(config):
        # One routed table is the only place a record can go; a single consumed topic is the only source
        # of every routed table (Iceberg's "multi-table fan-out, static routing" example).
        return [edge(key, refs[name]) for key in consumed for name in routed], []
    names = ", ".join(sorted(refs[name].name for name in routed))
    reason = (
        f"records are routed by their field {route_field!r} to one of {names}; "
        "the configuration does not say which topic feeds which"
    )
    return [], [note("ambiguous", reason, key) for key in consumed]


def _single_topic(config: Mapping[str, str]) -> bool:
    """The configuration names exactly one topic (`topics`; a `topics.regex` may match any number)."""
    return len({name.strip() for name in config.get("topics", "").split(",") if name.strip()}) == 1


def _region_of(connector: ConnectorConfig) -> str:
    for arn in (connector.arn, connector.cluster_arn):
        parts = arn.split(":")
        if len(parts) > 4 and parts[3]:
            return parts[3]
    return ""


def _account_of(connector: ConnectorConfig) -> str:
    """The account in the connector's (or else its cluster's) ARN: `arn:aws:kafkaconnect:r:<account>:...`."""
    for arn in (connector.arn, connector.cluster_arn):
        parts = arn.split(":")
        if len(parts) > 4 and parts[4].isdigit():
            return parts[4]
    return ""


def _consumed(config: Mapping[str, str], keys: Sequence[TopicKey]) -> list[TopicKey]:
    if "topics" in config and config["topics"].strip():
        names = {name.strip() for name in config["topics"].split(",") if name.strip()}
        return [key for key in keys if key.topic in names]
    if config.get("topics.regex", "").strip():
        pattern = java_regex(config["topics.regex"], "topics.regex")
        return [key for key in keys if pattern.fullmatch(key.topic)]
    raise Unreadable("neither topics nor topics.regex is set")


def _glue_table(name: str) -> TableRef:
    # Iceberg's TableIdentifier.parse: the last dot-separated level is the table, the rest the namespace.
    namespace, dot, table = name.rpartition(".")
    if not dot or not namespace or "." in namespace:
        raise Unreadable(
            f"iceberg.tables entry {name!r} is not <database>.<table> (Glue has one namespace level)"
        )
    ref = TableRef(namespace.lower(), table.lower())
    for part in (ref.database, ref.table):
        if not GLUE_CATALOG_NAME.fullmatch(part):
            raise Unreadable(f"iceberg.tables entry {name!r} is not a valid Glue database and table name")
    return ref


def _route_regex(config: Mapping[str, str], table: str) -> re.Pattern[str] | None:
    key = f"iceberg.table.{table}.route-regex"
    return java_regex(config[key], key) if config.get(key) else None


def _topic_fields(config: Mapping[str, str]) -> set[str]:
    """Value fields that hold the consumed topic once the transforms ran (unconditionally inserted)."""
    fields: set[str] = set()
    renamed = False  # a router earlier in the chain changed the topic later transforms see
    for alias in aliases(config):
        prefix = f"transforms.{alias}."
        kind = config.get(prefix + "type", "").strip()
        if kind.endswith("Router"):
            renamed = True
        if renamed or config.get(prefix + "predicate"):
            continue  # a predicate applies the transform to some records only
        if kind in KAFKA_METADATA_TRANSFORMS:
            base = config.get(prefix + "field_name", "").strip() or "_kafka_metadata"
            fields.add(f"{base}.topic" if is_true(config.get(prefix + "nested")) else f"{base}_topic")
        elif kind == INSERT_FIELD_VALUE and config.get(prefix + "topic.field"):
            # InsertField: a trailing '!' (required) or '?' (optional) is not part of the name.
            fields.add(config[prefix + "topic.field"].strip().rstrip("!?"))
    return fields


def _sink_edge(connector: ConnectorConfig) -> Callable[[TopicKey, TableRef], SinkEdge]:
    def edge(key: TopicKey, table: TableRef) -> SinkEdge:
        return SinkEdge(
            key=key,
            table=table,
            connector=connector.name,
            connector_arn=connector.arn,
            job_namespace=job_namespace(connector.cluster_name),
            job_name=connector.name,
        )

    return edge


def _note_for(connector: ConnectorConfig) -> Callable[[NoteKind, str, TopicKey | None], ConnectorNote]:
    def note(kind: NoteKind, reason: str, key: TopicKey | None = None) -> ConnectorNote:
        return ConnectorNote(kind, connector.name, reason, key)

    return note
