"""The managed delivery paths besides MSK Connect, as plain values: Amazon MSK Data Delivery channels and
Amazon Data Firehose streams with an MSK source (read by `kafka_lineage.aws.delivery`, derived from by
`kafka_lineage.delivery`).

A `DeliveryPath` is what one channel or stream says about lineage: the cluster and topics it reads, and
where it writes (an Apache Iceberg destination in a Glue catalog, or an S3 general purpose bucket).
`DeliveryReads` is one run's read of them; `read_ok` False for a kind means its listing failed, so the
absence of a path proves nothing and its edges are kept. `unread` names the paths (origins) listed but
not described.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from kafka_lineage.model.connectors import ConnectorNote
from kafka_lineage.model.tables import TableRef
from kafka_lineage.model.topics import TopicKey

PathKind = Literal["channel", "firehose"]
# Why a destination's tables are not in its configuration: "" (they are), or what routes each record.
Routing = str


@dataclass(frozen=True)
class DeliveryTopic:
    """A topic the path reads; `schema_arn` the Glue Schema Registry schema it validates records against."""

    topic: str
    schema_arn: str = ""


@dataclass(frozen=True)
class IcebergDestination:
    """Apache Iceberg tables in a Glue catalog: `catalog` "" for the account's root catalog, else the
    federated catalog's name below it (`s3tablescatalog/<table bucket>`), in `account` and `region`."""

    account: str
    region: str
    catalog: str
    tables: tuple[tuple[str, str], ...]  # (database, table), as configured
    routing: Routing = ""


@dataclass(frozen=True)
class S3Destination:
    bucket: str
    prefix: str = ""  # the static part of the object key prefix ("" for the bucket's root)


@dataclass(frozen=True)
class DeliveryPath:
    kind: PathKind
    name: str
    arn: str
    cluster_arn: str
    status: str
    topics: tuple[DeliveryTopic, ...]
    iceberg: IcebergDestination | None = None
    s3: S3Destination | None = None
    problem: str = ""  # the destination cannot be read as lineage (why), e.g. a catalog ARN of no form known

    @property
    def origin(self) -> str:
        return f"{self.kind}:{self.name}"


@dataclass(frozen=True)
class DeliveryReads:
    paths: tuple[DeliveryPath, ...] = ()
    unread: tuple[str, ...] = ()  # origins listed whose description could not be read: keep their edges
    channels_ok: bool = True  # every ListChannels of the sources' clusters answered
    firehose_ok: bool = True  # ListDeliveryStreams answered to its end
    errors: tuple[str, ...] = ()

    def read_ok(self, kind: PathKind) -> bool:
        return self.channels_ok if kind == "channel" else self.firehose_ok


# What the adapter keeps between runs, so that an unchanged run lists and describes nothing again: each
# path's description with the listing's fingerprint of it when it was described.


@dataclass(frozen=True)
class KnownPath:
    """A path described earlier: `path` None for a delivery stream that reads no configured cluster (kept so
    it is not described again), `fingerprint` what the listing showed of it, `described_at` epoch seconds."""

    fingerprint: str
    described_at: float
    path: DeliveryPath | None = None


# What the paths give lineage (`kafka_lineage.delivery.derive`).


@dataclass(frozen=True)
class DeliveryEdge:
    """Topic -> a Glue table (`table`) or an S3 location (`dataset`: OpenLineage namespace `s3://<bucket>`
    and name), decided by a channel's or stream's configuration."""

    key: TopicKey
    origin: str  # "channel:<name>" | "firehose:<name>"
    arn: str
    job_namespace: str
    job_name: str
    table: TableRef | None = None
    dataset: tuple[str, str] | None = None


@dataclass(frozen=True)
class InactivePath:
    """A path that is not ACTIVE (failed, suspended, being created or updated): reported, its edges kept."""

    origin: str
    status: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"origin": self.origin, "status": self.status, "reason": self.reason}


@dataclass(frozen=True)
class DeliveryDerivation:
    edges: tuple[DeliveryEdge, ...] = ()
    notes: tuple[ConnectorNote, ...] = ()  # `connector` holds the path's origin
    inactive: tuple[InactivePath, ...] = ()
    # Origins whose edges are not known this run (described nowhere, or their kind's listing failed).
    unread: tuple[str, ...] = ()
    unknown_kinds: frozenset[PathKind] = frozenset()
    errors: tuple[str, ...] = ()  # what could not be read (listings, descriptions), for the result and logs

    def keeps(self, origin: str) -> bool:
        """Whether the edges of this origin must be kept as they are: it could not be read this run."""
        kind = origin.partition(":")[0]
        return origin in self.unread or kind in self.unknown_kinds
