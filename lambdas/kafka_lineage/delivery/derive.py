"""Edges from the managed delivery paths: channels and delivery streams (topic -> table, topic -> S3).
Pure: the paths read and the registry's topics in, a `DeliveryDerivation` out.

Only what a path's configuration decides becomes an edge; the rest is a note (`ambiguous`,
`undetermined`), never a guess. Topics are those the registry mirrors.

Which sources a path serves: those on its cluster (`clusterArn` equal to the channel's cluster, or to the
stream's `MSKSourceDescription.MSKClusterARN`) whose `channels` / `firehose` setting admits its name.

Which topic: the path names the topic (a channel's TopicArn, a stream's TopicName). A channel also names the
Glue Schema Registry schema its records are validated against (`RecordSchema.GsrArn`): when that schema is a
mirrored one, it is the topic's key; a schema of another name than the topic is reported, not guessed.

Where to:
- an Apache Iceberg destination's tables, in the Glue catalog the path names: a channel's CatalogArn, or
  `s3tablescatalog/<bucket>` of its S3 Tables warehouse; a stream's CatalogARN. A catalog in another account
  or Region than the source's is reported (its tables are not the ones lineage reads). Glue stores names in
  lower case, so the tables are too;
- a channel with one topic and several tables: the topic feeds each; several topics and one table: each
  feeds it; several of both: `ambiguous` (the configuration pairs neither). A stream with several tables
  and no routing is `ambiguous` too: nothing says which table a record goes to;
- a stream that routes records per record (a JSONQuery naming each record's table, or a Lambda function) is
  `undetermined`, naming the stream: Firehose takes the routing over the configured list ("If you provide
  these fields along with JQ or Lambda, then Firehose will take input from JQ or Lambda", Firehose guide);
- an S3 general purpose bucket: the dataset `s3://<bucket>` / `<prefix>` (OpenLineage's S3 naming; the
  prefix's static part, "/" for the bucket's root).

Status: a DELETING path has no edges (they are retracted). Any other status but ACTIVE (CREATING,
UPDATING, FAILED, SUSPENDING, SUSPENDED; CREATING_FAILED, DELETING_FAILED for streams) is still the
configured path: it is reported under `inactive` and its edges are kept as derived.

Job: OpenLineage has no naming for these services, so the job is the path: namespace
`msk-channel://<cluster name>` (channel names are unique per cluster) or `firehose://<region>/<account>`
(stream names are unique per account and Region), name the channel's or stream's name.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from kafka_lineage.config import Source
from kafka_lineage.model.connectors import ConnectorNote, NoteKind
from kafka_lineage.model.delivery import (
    DeliveryDerivation,
    DeliveryEdge,
    DeliveryPath,
    DeliveryReads,
    InactivePath,
    PathKind,
)
from kafka_lineage.model.names import GLUE_CATALOG_NAME
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

GONE_STATUSES = frozenset({"DELETING"})
SCHEMA_ARN = re.compile(
    r"arn:[a-z-]+:glue:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):schema/(?P<registry>[^/]+)/(?P<schema>[^/]+)"
)


def job_namespace(path: DeliveryPath) -> str:
    if path.kind == "channel":
        return f"msk-channel://{path.cluster_arn.split('/')[1]}"
    parts = path.arn.split(":")
    return f"firehose://{parts[3]}/{parts[4]}" if len(parts) > 4 else "firehose://"


def derive(reads: DeliveryReads, topics: Iterable[TopicKey], sources: Sequence[Source]) -> DeliveryDerivation:
    """Every edge and note the paths give for the registry's `topics`."""
    by_registry: dict[str, set[str]] = defaultdict(set)
    for key in topics:
        by_registry[key.registry_name].add(key.topic)
    edges: list[DeliveryEdge] = []
    notes: list[ConnectorNote] = []
    inactive: list[InactivePath] = []
    for path in sorted(reads.paths, key=lambda p: (p.kind, p.name, p.arn)):
        readers = [s for s in sources if _serves(s, path)]
        if not readers or path.status in GONE_STATUSES:
            continue
        keys, topic_notes = _keys(path, readers, by_registry)
        notes.extend(topic_notes)
        if not keys:
            continue
        if path.status != "ACTIVE":
            reason = f"{path.kind} {path.name} is {path.status}: its edges are kept as configured"
            inactive.append(InactivePath(path.origin, path.status, reason))
        found_edges, found_notes = _edges(path, keys, readers[0])
        edges.extend(found_edges)
        notes.extend(found_notes)
    kinds: set[PathKind] = {kind for kind in ("channel", "firehose") if not reads.read_ok(kind)}
    return DeliveryDerivation(
        edges=tuple(dict.fromkeys(edges)),
        notes=tuple(notes),
        inactive=tuple(inactive),
        unread=reads.unread,
        unknown_kinds=frozenset(kinds),
        errors=reads.errors,
    )


def _serves(source: Source, path: DeliveryPath) -> bool:
    if source.cluster_arn != path.cluster_arn:
        return False
    return source.reads_channel(path.name) if path.kind == "channel" else source.reads_stream(path.name)


def _keys(
    path: DeliveryPath, readers: Sequence[Source], by_registry: dict[str, set[str]]
) -> tuple[list[TopicKey], list[ConnectorNote]]:
    """The mirrored topics the path reads, and what keeps one from being known."""
    keys: list[TopicKey] = []
    notes: list[ConnectorNote] = []
    for item in path.topics:
        schema = SCHEMA_ARN.fullmatch(item.schema_arn) if item.schema_arn else None
        if schema is not None and schema["schema"] != item.topic:
            reason = (
                f"{path.kind} {path.name} validates topic {item.topic!r} against schema {schema['schema']!r} "
                f"of registry {schema['registry']!r}, not the topic's own schema"
            )
            notes.extend(
                ConnectorNote("undetermined", path.origin, reason, TopicKey(s.key, item.topic))
                for s in readers
                if item.topic in by_registry.get(s.key, ())
            )
            continue
        for source in readers:
            if schema is not None and (schema["registry"], schema["account"]) != (
                source.registry_name,
                source.account,
            ):
                continue  # the schema is another registry's: this source's topic of that name is another one
            if item.topic in by_registry.get(source.key, ()):
                keys.append(TopicKey(source.key, item.topic))
    return list(dict.fromkeys(keys)), notes


def _edges(
    path: DeliveryPath, keys: Sequence[TopicKey], source: Source
) -> tuple[list[DeliveryEdge], list[ConnectorNote]]:
    def note(kind: NoteKind, reason: str) -> list[ConnectorNote]:
        return [ConnectorNote(kind, path.origin, reason, key) for key in keys]

    def edge(
        key: TopicKey, table: TableRef | None = None, dataset: tuple[str, str] | None = None
    ) -> DeliveryEdge:
        return DeliveryEdge(key, path.origin, path.arn, job_namespace(path), path.name, table, dataset)

    what = f"{path.kind} {path.name}"
    if path.problem:
        return [], note("undetermined", f"{what}: {path.problem}")
    if path.s3 is not None:
        name = path.s3.prefix or "/"
        return [edge(key, dataset=(f"s3://{path.s3.bucket}", name)) for key in keys], []
    destination = path.iceberg
    if destination is None:
        return [], note("undetermined", f"{what} has no destination lineage can read")
    if destination.routing:
        return [], note("undetermined", f"{what} routes each record to its table {destination.routing}")
    if (destination.account, destination.region) != (source.account, source.region):
        catalog = destination.catalog or "root catalog"
        reason = (
            f"{what} writes to the Glue catalog {catalog} of account {destination.account} in "
            f"{destination.region}, not {source.account} in {source.region}"
        )
        return [], note("undetermined", reason)
    tables = [(d.lower(), t.lower()) for d, t in destination.tables]
    invalid = [
        f"{d}.{t}"
        for d, t in tables
        if not (GLUE_CATALOG_NAME.fullmatch(d) and GLUE_CATALOG_NAME.fullmatch(t))
    ]
    if invalid:
        return [], note("undetermined", f"{what} names tables that are not Glue names: {', '.join(invalid)}")
    if not tables:
        return [], note("undetermined", f"{what} names no destination table")
    if len(keys) > 1 and len(tables) > 1:
        names = ", ".join(f"{d}/{t}" for d, t in tables)
        return [], note(
            "ambiguous", f"{what} reads several topics into {names}: which feeds which is not configured"
        )
    refs = [TableRef(d, t, glue_catalog=destination.catalog) for d, t in dict.fromkeys(tables)]
    if path.kind == "firehose" and len(refs) > 1:
        names = ", ".join(ref.name for ref in refs)
        return [], note(
            "ambiguous",
            f"{what} lists {names} and routes no record: which table a record goes to is not configured",
        )
    return [edge(key, table=ref) for key in keys for ref in refs], []
