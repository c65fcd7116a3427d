"""Which connector-configuration keys lineage reads: an allow-list, so a credential is never kept.

MSK Connect returns a connector's whole configuration, passwords included (`database.password`,
`sasl.jaas.config`, `iceberg.catalog.*secret*` ...). `kept_config` keeps only the keys below and strips
user information from any URI-shaped value (a MongoDB connection string may carry `user:password@`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType

EXACT_KEYS = frozenset(
    {
        "connector.class",
        "tasks.max",
        # sink side: what is consumed, where it goes
        "topics",
        "topics.regex",
        "iceberg.tables",
        # the consumer group a sink reads as, when not `connect-<name>` (folds its lag metrics' group)
        "consumer.override.group.id",
        "iceberg.tables.dynamic-enabled",
        "iceberg.tables.route-field",
        "iceberg.catalog.catalog-impl",
        "iceberg.catalog.type",
        "iceberg.catalog.glue.id",
        # where the catalog is: its Region, and an Iceberg REST catalog's endpoint and warehouse
        "iceberg.catalog.client.region",
        "iceberg.catalog.uri",
        "iceberg.catalog.warehouse",
        # source side (Debezium): topic naming
        "topic.prefix",
        "database.server.name",
        "mongodb.name",
        "topic.delimiter",
        "topic.naming.strategy",
        "topic.heartbeat.prefix",
        "topic.transaction",
        "schema.history.internal.kafka.topic",
        "database.history.kafka.topic",
        # source side: where the database is (never user or password)
        "database.hostname",
        "database.port",
        "database.dbname",
        "database.names",
        "database.pdb.name",
        "mongodb.connection.string",
        "mongodb.hosts",
        # source side: what is captured (current names, then Debezium 1.x names)
        *(
            f"{kind}.{verb}"
            for kind in ("database", "schema", "table", "collection")
            for verb in ("include.list", "exclude.list", "whitelist", "blacklist")
        ),
        # single message transforms and their predicates
        "transforms",
        "predicates",
    }
)
PATTERN_KEYS = (
    re.compile(r"iceberg\.table\..+\.route-regex"),
    re.compile(
        r"transforms\.[^.]+\.(type|regex|replacement|field_name|nested|topic\.field|predicate|negate)"
    ),
    re.compile(r"predicates\.[^.]+\.(type|pattern)"),
)
# Belt and braces: a key that reads like a secret is dropped even if a pattern above would keep it.
SECRET_KEY = re.compile(r"(?i)(password|passwd|secret|jaas|credential|token|private|keystore|truststore)")
URI_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/?#@\s,]*@")


def wanted(key: str) -> bool:
    if key in EXACT_KEYS:
        return True
    if key.startswith("iceberg.table.") and key.endswith(".route-regex"):
        return True  # the middle is a table name, which may read like anything
    return not SECRET_KEY.search(key) and any(pattern.fullmatch(key) for pattern in PATTERN_KEYS)


def strip_userinfo(value: str) -> str:
    """`mongodb://user:pw@h:27017,h2/db` -> `mongodb://h:27017,h2/db`: no credential survives."""
    return URI_USERINFO.sub(r"\1", value)


def hosts_only(connection_string: str) -> str:
    """A MongoDB connection string cut to `scheme://hosts`: options may carry tokens too."""
    scheme, sep, rest = strip_userinfo(connection_string).partition("://")
    return f"{scheme}{sep}{re.split(r'[/?]', rest, maxsplit=1)[0]}" if sep else ""


def kept_config(config: Mapping[str, str]) -> Mapping[str, str]:
    """The allow-listed keys of a connector configuration, values cleaned of embedded credentials."""
    kept = {key: strip_userinfo(str(value)) for key, value in config.items() if wanted(key)}
    for key in ("mongodb.connection.string", "iceberg.catalog.uri"):
        if key in kept:
            # A connection string's options and a REST catalog URI's query may carry tokens: keep the path
            # only for the REST URI (an endpoint names its API by path), never a query.
            kept[key] = hosts_only(kept[key]) if key.startswith("mongodb") else kept[key].split("?")[0]
    return MappingProxyType(dict(sorted(kept.items())))
