"""Debezium sources: the first-hop edges (database table -> topic) one connector's configuration gives
for the registry's topics (connectors/derive.py describes the rules and the dataset names)."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise

from kafka_lineage.connectors.config_values import Unreadable, aliases, job_namespace, regex_list
from kafka_lineage.model.connectors import ConnectorConfig, ConnectorNote, SourceEdge
from kafka_lineage.model.topics import TopicKey

INTERNAL_PREFIX = "__"
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


@dataclass(frozen=True)
class Kind:
    """How one Debezium connector names its topics and datasets."""

    scheme: str
    default_port: int
    parts: tuple[str, ...]  # the topic's parts after the prefix: "database", "schema", "table"
    # include / exclude lists: (config key stem, which parts form the identifier it matches)
    filters: tuple[tuple[str, tuple[str, ...]], ...]


MYSQL = Kind(
    "mysql", 3306, ("database", "table"), (("database", ("database",)), ("table", ("database", "table")))
)
POSTGRES = Kind(
    "postgres", 5432, ("schema", "table"), (("schema", ("schema",)), ("table", ("schema", "table")))
)
SQLSERVER = Kind(
    "mssql", 1433, ("database", "schema", "table"), (("schema", ("schema",)), ("table", ("schema", "table")))
)
SQLSERVER_1X = Kind("mssql", 1433, ("schema", "table"), SQLSERVER.filters)
ORACLE = Kind("oracle", 1521, ("schema", "table"), (("schema", ("schema",)), ("table", ("schema", "table"))))
MONGODB = Kind(
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


def source_edges(
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
        raise Unreadable("no topic prefix (topic.prefix, database.server.name or mongodb.name)")
    renaming = _topic_renaming(config, kind)
    if renaming:
        return [], [ConnectorNote("undetermined", connector.name, renaming)]
    namespace, fixed = _datasource(kind, config)
    filters = _filters(kind, config)
    delimiter = config.get("topic.delimiter", "") or "."
    own = _own_topics(config, prefix, delimiter)
    flattened = any(
        config.get(f"transforms.{alias}.type", "").strip() in FLATTENING_TRANSFORMS
        for alias in aliases(config)
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


def _topic_renaming(config: Mapping[str, str], kind: Kind) -> str:
    """Why topic names cannot be predicted from the configuration, or '' when they can."""
    strategy = config.get("topic.naming.strategy", "").strip()
    known = DEFAULT_NAMING_STRATEGIES | ({SCHEMA_NAMING_STRATEGY} if kind in (POSTGRES, ORACLE) else set())
    if strategy and strategy not in known:
        return f"topic.naming.strategy {strategy} names the topics"
    for alias in aliases(config):
        transform = config.get(f"transforms.{alias}.type", "").strip()
        # RegexRouter, Debezium's ByLogicalTableRouter, TimestampRouter ... rename the topic.
        if transform.endswith("Router"):
            return f"transform {alias!r} ({transform}) renames the topics"
    return ""


def _datasource(kind: Kind, config: Mapping[str, str]) -> tuple[str, dict[str, str]]:
    """The dataset namespace `<scheme>://host:port`, and the name parts the topic does not carry."""
    fixed: dict[str, str] = {}
    if kind is MONGODB:
        host, port = _mongodb_host(config)
    else:
        host = config.get("database.hostname", "").strip()
        if not host:
            raise Unreadable("database.hostname is not set")
        port = config.get("database.port", "").strip() or str(kind.default_port)
    if not port.isdigit():
        raise Unreadable(f"database port {port!r} is not a number")
    if kind is POSTGRES or kind is SQLSERVER_1X:
        fixed["database"] = config.get("database.dbname", "").strip()
        if not fixed["database"]:
            raise Unreadable("database.dbname is not set")
    if kind is ORACLE:
        fixed["database"] = (config.get("database.pdb.name") or config.get("database.dbname") or "").strip()
        if not fixed["database"]:
            raise Unreadable("neither database.pdb.name nor database.dbname is set")
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
        raise Unreadable("neither mongodb.connection.string nor mongodb.hosts names a host")
    host, colon, port = first.rpartition(":") if not first.endswith("]") else (first, "", "")
    if not colon:
        return first, str(MONGODB.default_port)
    return host, port


def _dataset_name(kind: Kind, named: Mapping[str, str]) -> str:
    order = {
        "mysql": ("database", "table"),
        "mongodb": ("database", "table"),
    }.get(kind.scheme, ("database", "schema", "table"))
    return ".".join(named[part] for part in order)


Filters = dict[str, tuple[list[re.Pattern[str]], list[re.Pattern[str]]]]


def _filters(kind: Kind, config: Mapping[str, str]) -> Filters:
    found: Filters = {}
    for stem, _ in kind.filters:
        include = config.get(f"{stem}.include.list") or config.get(f"{stem}.whitelist") or ""
        exclude = config.get(f"{stem}.exclude.list") or config.get(f"{stem}.blacklist") or ""
        found[stem] = (
            regex_list(include, f"{stem}.include.list"),
            regex_list(exclude, f"{stem}.exclude.list"),
        )
    return found


def _passes(kind: Kind, filters: Filters, parts: tuple[str, ...]) -> bool:
    named = dict(zip(kind.parts, parts, strict=True))
    for stem, identifier_parts in kind.filters:
        identifier = ".".join(named[part] for part in identifier_parts)
        include, exclude = filters[stem]
        if include and not any(pattern.fullmatch(identifier) for pattern in include):
            return False
        if any(pattern.fullmatch(identifier) for pattern in exclude):
            return False
    return True


def _in_databases(kind: Kind, config: Mapping[str, str], parts: tuple[str, ...]) -> bool:
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
