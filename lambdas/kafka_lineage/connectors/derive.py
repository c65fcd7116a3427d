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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import combinations, pairwise

from kafka_lineage.config import Source
from kafka_lineage.connectors.catalog import sink_catalog
from kafka_lineage.connectors.javaregex import UnsupportedRegex, compile_java
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
# Debezium's own topic naming; anything else (a custom class) names topics we cannot predict.
DEFAULT_NAMING_STRATEGIES = frozenset({"io.debezium.schema.DefaultTopicNamingStrategy"})
# SchemaTopicNamingStrategy names a topic by the table id's schema parts: for PostgreSQL and Oracle those
# are (schema, table), the default layout; elsewhere (MySQL's database, SQL Server's) they differ.
SCHEMA_NAMING_STRATEGY = "io.debezium.schema.SchemaTopicNamingStrategy"
# Debezium's unwrapping transforms: the topic's value is the row itself, not an `after` envelope.
FLATTENING_TRANSFORMS = frozenset(
    {
        "io.debezium.transforms.ExtractNewRecordState",
        "io.debezium.connector.mongodb.transforms.ExtractNewDocumentState",
    }
)
# A connector in this state is going away: its edges are retracted, not derived.
GONE_STATES = frozenset({"DELETING"})
INTERNAL_PREFIX = "__"


@dataclass(frozen=True)
class _Kind:
    """How one Debezium connector names its topics and datasets."""

    scheme: str
    default_port: int
    parts: tuple[str, ...]  # the topic's parts after the prefix: "database", "schema", "table"
    # include / exclude lists: (config key stem, which parts form the identifier it matches)
    filters: tuple[tuple[str, tuple[str, ...]], ...]


MYSQL = _Kind(
    "mysql", 3306, ("database", "table"), (("database", ("database",)), ("table", ("database", "table")))
)
POSTGRES = _Kind(
    "postgres", 5432, ("schema", "table"), (("schema", ("schema",)), ("table", ("schema", "table")))
)
SQLSERVER = _Kind(
    "mssql", 1433, ("database", "schema", "table"), (("schema", ("schema",)), ("table", ("schema", "table")))
)
SQLSERVER_1X = _Kind("mssql", 1433, ("schema", "table"), SQLSERVER.filters)
ORACLE = _Kind("oracle", 1521, ("schema", "table"), (("schema", ("schema",)), ("table", ("schema", "table"))))
MONGODB = _Kind(
    "mongodb",
    27017,
    ("database", "table"),
    (("database", ("database",)), ("collection", ("database", "table"))),
)
DEBEZIUM = {
    "io.debezium.connector.mysql.MySqlConnector": MYSQL,
    "io.debezium.connector.postgresql.PostgresConnector": POSTGRES,
    "io.debezium.connector.sqlserver.SqlServerConnector": SQLSERVER,
    "io.debezium.connector.oracle.OracleConnector": ORACLE,
    "io.debezium.connector.mongodb.MongoDbConnector": MONGODB,
}


class _Unreadable(Exception):
    """The configuration cannot be read as lineage; the message says why."""


def job_namespace(cluster_name: str) -> str:
    return f"kafka-connect://{cluster_name}"


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
                found_sources, found_notes = _source(connector, keys)
                firsts.extend(found_sources)
                notes.extend(found_notes)
        except _Unreadable as error:
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
    if _true(config.get("iceberg.tables.dynamic-enabled")):
        field = config.get("iceberg.tables.route-field", "")
        reason = f"iceberg.tables.dynamic-enabled: each record's field {field!r} names its table"
        return [], [note("undetermined", reason, key) for key in consumed]
    tables = [name.strip() for name in config.get("iceberg.tables", "").split(",") if name.strip()]
    if not tables:
        raise _Unreadable("iceberg.tables is empty and dynamic routing is off")
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
        pattern = _java(config["topics.regex"], "topics.regex")
        return [key for key in keys if pattern.fullmatch(key.topic)]
    raise _Unreadable("neither topics nor topics.regex is set")


def _glue_table(name: str) -> TableRef:
    # Iceberg's TableIdentifier.parse: the last dot-separated level is the table, the rest the namespace.
    namespace, dot, table = name.rpartition(".")
    if not dot or not namespace or "." in namespace:
        raise _Unreadable(
            f"iceberg.tables entry {name!r} is not <database>.<table> (Glue has one namespace level)"
        )
    ref = TableRef(namespace.lower(), table.lower())
    for part in (ref.database, ref.table):
        if not GLUE_CATALOG_NAME.fullmatch(part):
            raise _Unreadable(f"iceberg.tables entry {name!r} is not a valid Glue database and table name")
    return ref


def _route_regex(config: Mapping[str, str], table: str) -> re.Pattern[str] | None:
    key = f"iceberg.table.{table}.route-regex"
    return _java(config[key], key) if config.get(key) else None


def _topic_fields(config: Mapping[str, str]) -> set[str]:
    """Value fields that hold the consumed topic once the transforms ran (unconditionally inserted)."""
    fields: set[str] = set()
    renamed = False  # a router earlier in the chain changed the topic later transforms see
    for alias in _aliases(config):
        prefix = f"transforms.{alias}."
        kind = config.get(prefix + "type", "").strip()
        if kind.endswith("Router"):
            renamed = True
        if renamed or config.get(prefix + "predicate"):
            continue  # a predicate applies the transform to some records only
        if kind in KAFKA_METADATA_TRANSFORMS:
            base = config.get(prefix + "field_name", "").strip() or "_kafka_metadata"
            fields.add(f"{base}.topic" if _true(config.get(prefix + "nested")) else f"{base}_topic")
        elif kind == INSERT_FIELD_VALUE and config.get(prefix + "topic.field"):
            # InsertField: a trailing '!' (required) or '?' (optional) is not part of the name.
            fields.add(config[prefix + "topic.field"].strip().rstrip("!?"))
    return fields


def _aliases(config: Mapping[str, str]) -> list[str]:
    return [alias.strip() for alias in config.get("transforms", "").split(",") if alias.strip()]


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


# ---- Debezium source ----------------------------------------------------------------------------------


def _source(
    connector: ConnectorConfig, keys: Sequence[TopicKey]
) -> tuple[list[SourceEdge], list[ConnectorNote]]:
    config = connector.config
    kind = DEBEZIUM[connector.connector_class]
    modern = bool(config.get("topic.prefix", "").strip())
    if kind is SQLSERVER and not modern:
        kind = SQLSERVER_1X
    prefix = (
        config.get("topic.prefix") or config.get("database.server.name") or config.get("mongodb.name") or ""
    ).strip()
    if not prefix:
        raise _Unreadable("no topic prefix (topic.prefix, database.server.name or mongodb.name)")
    renaming = _topic_renaming(config, kind)
    if renaming:
        return [], [ConnectorNote("undetermined", connector.name, renaming)]
    namespace, fixed = _datasource(kind, config)
    filters = _filters(kind, config)
    delimiter = config.get("topic.delimiter", "") or "."
    own = _own_topics(config, prefix, delimiter)
    flattened = any(
        config.get(f"transforms.{alias}.type", "").strip() in FLATTENING_TRANSFORMS
        for alias in _aliases(config)
    )
    head = prefix + delimiter
    edges: list[SourceEdge] = []
    notes: list[ConnectorNote] = []
    for key in keys:
        topic = key.topic
        if topic.startswith(INTERNAL_PREFIX) or topic in own or not topic.startswith(head):
            continue
        candidates = [
            parts
            for parts in _splits(topic[len(head) :], delimiter, len(kind.parts))
            if _passes(kind, filters, parts)
        ]
        candidates = [parts for parts in candidates if _in_databases(kind, config, parts)]
        if len(candidates) > 1:
            ways = "; ".join(
                ", ".join(f"{name} {part!r}" for name, part in zip(kind.parts, parts, strict=True))
                for parts in candidates
            )
            reason = f"topic splits into more than one captured table ({ways})"
            notes.append(ConnectorNote("ambiguous", connector.name, reason, key))
            continue
        if candidates:
            named = dict(zip(kind.parts, candidates[0], strict=True)) | fixed
            edges.append(
                SourceEdge(
                    key=key,
                    dataset_namespace=namespace,
                    dataset_name=_dataset_name(kind, named),
                    connector=connector.name,
                    connector_arn=connector.arn,
                    job_namespace=job_namespace(connector.cluster_name),
                    job_name=connector.name,
                    flattened=flattened,
                )
            )
    return edges, notes


def _topic_renaming(config: Mapping[str, str], kind: _Kind) -> str:
    """Why topic names cannot be predicted from the configuration, or '' when they can."""
    strategy = config.get("topic.naming.strategy", "").strip()
    known = DEFAULT_NAMING_STRATEGIES | ({SCHEMA_NAMING_STRATEGY} if kind in (POSTGRES, ORACLE) else set())
    if strategy and strategy not in known:
        return f"topic.naming.strategy {strategy} names the topics"
    for alias in _aliases(config):
        transform = config.get(f"transforms.{alias}.type", "").strip()
        # RegexRouter, Debezium's ByLogicalTableRouter, TimestampRouter ... rename the topic.
        if transform.endswith("Router"):
            return f"transform {alias!r} ({transform}) renames the topics"
    return ""


def _datasource(kind: _Kind, config: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The dataset namespace `<scheme>://host:port`, and the name parts the topic does not carry."""
    fixed: dict[str, str] = {}
    if kind is MONGODB:
        host, port = _mongodb_host(config)
    else:
        host = config.get("database.hostname", "").strip()
        if not host:
            raise _Unreadable("database.hostname is not set")
        port = config.get("database.port", "").strip() or str(kind.default_port)
    if not port.isdigit():
        raise _Unreadable(f"database port {port!r} is not a number")
    if kind is POSTGRES or kind is SQLSERVER_1X:
        fixed["database"] = config.get("database.dbname", "").strip()
        if not fixed["database"]:
            raise _Unreadable("database.dbname is not set")
    if kind is ORACLE:
        fixed["database"] = (config.get("database.pdb.name") or config.get("database.dbname") or "").strip()
        if not fixed["database"]:
            raise _Unreadable("neither database.pdb.name nor database.dbname is set")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 literal
    return f"{kind.scheme}://{host}:{port}", fixed


def _mongodb_host(config: Mapping[str, str]) -> tuple[str, str]:
    connection = config.get("mongodb.connection.string", "").strip()
    if connection:
        hosts = connection.partition("://")[2]
    else:
        # Debezium 1.x: `rs0/host1:27017,host2:27017` (replica set name optional).
        hosts = config.get("mongodb.hosts", "").strip().rpartition("/")[2]
    first = hosts.split(",")[0].strip()
    if not first:
        raise _Unreadable("neither mongodb.connection.string nor mongodb.hosts names a host")
    host, colon, port = first.rpartition(":") if not first.endswith("]") else (first, "", "")
    if not colon:
        return first, str(MONGODB.default_port)
    return host, port


def _dataset_name(kind: _Kind, named: Mapping[str, str]) -> str:
    order = {
        "mysql": ("database", "table"),
        "mongodb": ("database", "table"),
    }.get(kind.scheme, ("database", "schema", "table"))
    return ".".join(named[part] for part in order)


Filters = dict[str, tuple[list[re.Pattern[str]], list[re.Pattern[str]]]]


def _filters(kind: _Kind, config: Mapping[str, str]) -> Filters:
    found: Filters = {}
    for stem, _ in kind.filters:
        include = config.get(f"{stem}.include.list") or config.get(f"{stem}.whitelist") or ""
        exclude = config.get(f"{stem}.exclude.list") or config.get(f"{stem}.blacklist") or ""
        found[stem] = (
            _regex_list(include, f"{stem}.include.list"),
            _regex_list(exclude, f"{stem}.exclude.list"),
        )
    return found


def _passes(kind: _Kind, filters: Filters, parts: tuple[str, ...]) -> bool:
    named = dict(zip(kind.parts, parts, strict=True))
    for stem, identifier_parts in kind.filters:
        identifier = ".".join(named[part] for part in identifier_parts)
        include, exclude = filters[stem]
        if include and not any(pattern.fullmatch(identifier) for pattern in include):
            return False
        if any(pattern.fullmatch(identifier) for pattern in exclude):
            return False
    return True


def _in_databases(kind: _Kind, config: Mapping[str, str], parts: tuple[str, ...]) -> bool:
    """SQL Server 2.x captures the databases of database.names (or database.dbname) only."""
    if kind is not SQLSERVER:
        return True
    listed = config.get("database.names") or config.get("database.dbname") or ""
    names = {name.strip() for name in listed.split(",") if name.strip()}
    return not names or parts[0] in names


def _splits(rest: str, delimiter: str, count: int) -> Iterator[tuple[str, ...]]:
    """Every way to read `rest` as `count` non-empty names joined by `delimiter` (names may contain it)."""
    pieces = rest.split(delimiter)
    if len(pieces) < count or any(not piece for piece in pieces):
        return
    for cuts in combinations(range(1, len(pieces)), count - 1):
        bounds = (0, *cuts, len(pieces))
        yield tuple(delimiter.join(pieces[a:b]) for a, b in pairwise(bounds))


def _own_topics(config: Mapping[str, str], prefix: str, delimiter: str) -> set[str]:
    """The connector's bookkeeping topics that can look like table topics."""
    heartbeat = config.get("topic.heartbeat.prefix", "") or "__debezium-heartbeat"
    transaction = config.get("topic.transaction", "") or "transaction"
    own = {prefix, f"{heartbeat}{delimiter}{prefix}", f"{prefix}{delimiter}{transaction}"}
    for key in ("schema.history.internal.kafka.topic", "database.history.kafka.topic"):
        if config.get(key):
            own.add(config[key].strip())
    return own


# ---- shared -------------------------------------------------------------------------------------------


def _java(pattern: str, setting: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    try:
        return compile_java(pattern, ignore_case=ignore_case)
    except UnsupportedRegex as error:
        raise _Unreadable(f"{setting}: {error}") from error


def _regex_list(value: str, setting: str) -> list[re.Pattern[str]]:
    """Debezium's RegExSplitter, then CASE_INSENSITIVE patterns (Debezium's Predicates.includes)."""
    return [_java(item, setting, ignore_case=True) for item in split_regex_list(value)]


def split_regex_list(value: str) -> list[str]:
    """Split on commas, an escape (`\\x`) kept whole; trim each; `\\,` then reads as a comma."""
    items: list[str] = []
    start = index = 0
    while index < len(value):
        if value[index] == "\\":
            index += 2
            continue
        if value[index] == ",":
            items.append(value[start:index])
            start = index + 1
        index += 1
    items.append(value[start:])
    return [item.strip().replace("\\,", ",") for item in items if item.strip()]


def _true(value: str | None) -> bool:
    return (value or "").strip().lower() == "true"
