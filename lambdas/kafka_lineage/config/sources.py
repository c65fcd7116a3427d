"""The sources: one mirrored registry each (`sources[]` in cdk.json, the functions' `SOURCES`), with the
naming convention from topic to table and the filters of what lineage reads on the source's cluster.

Keys are camelCase (`registryName`): pydantic's `to_camel` of each field's name, in cdk.json and in `SOURCES`.
"""

from __future__ import annotations

import fnmatch
import re
import string
from typing import Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.alias_generators import to_camel

from kafka_lineage.model.names import FederatedCatalogName, GlueCatalogName, GlueName

KAFKA_CLUSTER_ARN = re.compile(r"arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster/[^/]+/[^/]+")
# STS AssumeRole RoleArn (botocore sts arnType: 20-2048 printable characters), narrowed to an IAM role ARN:
# the functions assume it, and its account is the source's account. Role paths and names per IAM's rules.
ROLE_ARN = re.compile(
    r"arn:aws[a-z-]*:iam::(?P<account>\d{12}):role/(?:[\x21-\x7e]{1,510}/)?[\w+=,.@-]{1,64}"
)
# STS AssumeRole ExternalId (botocore sts externalIdType).
EXTERNAL_ID = re.compile(r"[\w+=,.@:/-]{2,1224}")
DEFAULT_JOB_NAMESPACE = "kafka-iceberg-sink"


def regular_expressions(value: tuple[str, ...]) -> tuple[str, ...]:
    """`value` when each of its patterns compiles (Python's `re`, as the runs search them); else why not."""
    for pattern in value:
        try:
            re.compile(pattern)
        except re.error as error:
            raise ValueError(f"{pattern!r} is not a valid regular expression: {error}") from error
    return value


def fullmatch(pattern: re.Pattern[str], value: str, what: str) -> str:
    if not pattern.fullmatch(value):
        raise ValueError(f"{what} {value!r} does not match {pattern.pattern}")
    return value


def _external_id(value: str) -> str:
    return fullmatch(EXTERNAL_ID, value, "externalId")


# An external id sent with AssumeRole: a source's (`roleArn`), or the consumer accounts' (access settings).
ExternalId = Annotated[str, AfterValidator(_external_id)]


class TableRule(BaseModel):
    """Naming convention: a topic that fully matches `match` feeds Glue table `{database}/{table}`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    database: GlueCatalogName = Field(
        description="The Glue Data Catalog database of the tables the rule maps to."
    )
    match: str = Field(
        description="A Python regular expression a topic must match in full; its named groups "
        "(`(?P<table>...)`) fill the `table` template."
    )
    table: str = Field(
        description="The table name: a template of `match`'s named groups (`{table}`), lower-cased like "
        "Glue's names."
    )
    catalog: FederatedCatalogName | None = Field(
        default=None,
        description=(
            "The Glue catalog below the account's root catalog that holds the tables, e.g. "
            '"s3tablescatalog/<table bucket>" for S3 Tables; unset for the root (default) catalog.'
        ),
    )

    @field_validator("match")
    @classmethod
    def _match(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"tableRule.match is not a valid regular expression: {error}") from error
        return value

    @model_validator(mode="after")
    def _template_uses_named_groups(self) -> TableRule:
        groups = set(re.compile(self.match).groupindex)
        fields = {name for _, name, _, _ in string.Formatter().parse(self.table) if name is not None}
        unknown = fields - groups
        if unknown:
            raise ValueError(f"tableRule.table uses {sorted(unknown)}, not named groups of tableRule.match")
        return self

    def table_for(self, topic: str) -> tuple[str, str] | None:
        """The (database, table) this rule maps `topic` to, or None when it does not match."""
        found = re.fullmatch(self.match, topic)
        if found is None:
            return None
        groups = {key: value or "" for key, value in found.groupdict().items()}
        return self.database.lower(), self.table.format(**groups).lower()


def _globs(value: tuple[str, ...], longest: int, what: str) -> tuple[str, ...]:
    for name in value:
        if not name or len(name) > longest or name != name.strip():
            raise ValueError(f"{name!r} is not {what} or glob (1-{longest:,} characters, trimmed)")
    return value


class _NameFilter(BaseModel):
    """What the filters share: a name passes when `include` is empty or one of its globs matches, and
    none of `exclude`'s does; each name or glob is 1 to `longest` characters, trimmed."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    longest: ClassVar[int]  # the longest name AWS allows of what the filter names
    what: ClassVar[str]  # what the filter names, for the error

    include: tuple[str, ...]
    exclude: tuple[str, ...]

    @field_validator("include", "exclude")
    @classmethod
    def _names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return _globs(value, cls.longest, cls.what)

    def admits(self, name: str) -> bool:
        included = not self.include or any(fnmatch.fnmatchcase(name, glob) for glob in self.include)
        return included and not any(fnmatch.fnmatchcase(name, glob) for glob in self.exclude)


class ConnectorFilter(_NameFilter):
    """Which MSK Connect connectors of a source's cluster lineage reads: names or shell globs (`cdc-*`)."""

    include: tuple[str, ...] = Field(
        default=(),
        description="Connector names or shell globs (`cdc-*`) to read, 1-128 characters each; none: every "
        "connector of the cluster.",
    )
    exclude: tuple[str, ...] = Field(
        default=(), description="Connector names or shell globs never read, even when `include` names them."
    )

    # MSK Connect connector names are 1-128 characters (botocore kafkaconnect __stringMin1Max128).
    longest = 128
    what = "a connector name"


class DeliveryFilter(_NameFilter):
    """Which channels or delivery streams of a source's cluster lineage reads: names or shell globs."""

    include: tuple[str, ...] = Field(
        default=(), description="Names or shell globs to read (all, when empty)."
    )
    exclude: tuple[str, ...] = Field(default=(), description="Names or shell globs never read.")

    # Firehose stream names are 1-64 characters, MSK channel names are not bounded in the model.
    longest = 255
    what = "a channel or stream name"


class ConsumerFilter(_NameFilter):
    """Which consumer groups of a source's cluster lineage draws: group names or shell globs."""

    include: tuple[str, ...] = Field(
        default=(), description="Consumer group names or shell globs to draw (all, when empty)."
    )
    exclude: tuple[str, ...] = Field(
        default=(),
        description="Consumer group names or shell globs never drawn, even when `include` names them.",
    )

    # A group reaches lineage as a CloudWatch dimension value: 1-1,024 characters (botocore
    # cloudwatch DimensionValue).
    longest = 1024
    what = "a consumer group name"


def _delivery_setting(value: Any, setting: str) -> Any:
    if value == "off" or isinstance(value, dict | DeliveryFilter):
        return value
    raise ValueError(f'{setting} must be "off" or {{"include": [...], "exclude": [...]}} (names or globs)')


class Source(BaseModel):
    """One mirrored registry (a `SOURCES` entry)."""

    model_config = ConfigDict(extra="forbid", frozen=True, alias_generator=to_camel, populate_by_name=True)

    registry_name: GlueName = Field(
        description="The Glue Schema Registry registry whose schemas are mirrored. A source with `roleArn` "
        "is named `<account>:<registryName>` in results, events, requests, mappings and state keys.",
    )
    cluster_arn: str = Field(
        description="The ARN of the Amazon MSK cluster the topics live on "
        f"(`{KAFKA_CLUSTER_ARN.pattern}`); with `roleArn`, in the role's account.",
    )
    namespace: str | None = Field(
        default=None,
        description="The topics' OpenLineage namespace, `kafka://host:port`. Default: `kafka://` + the "
        "first broker of the cluster's bootstrap string (SASL/IAM, then SASL/SCRAM, then TLS, then "
        "plaintext), read with GetBootstrapBrokers: what Debezium, Spark and Flink emit.",
    )
    include: tuple[str, ...] = Field(
        default=(),
        description="Regular expressions (searched, not anchored); a schema is mirrored when it matches "
        "one of them (all schemas, if none) and no `exclude`.",
    )
    exclude: tuple[str, ...] = Field(
        default=(),
        description="Regular expressions of schemas never mirrored (e.g. Debezium heartbeat topics).",
    )
    table_rule: TableRule | None = Field(
        default=None,
        description="The naming convention from topic to Glue table, the last tier of lineage "
        "(after operator mappings, connectors and `tableMappings`).",
    )
    job_namespace: str = Field(
        default=DEFAULT_JOB_NAMESPACE,
        description="The OpenLineage job namespace of the runs that draw topic -> table edges from rules and "
        "mappings.",
    )
    cluster_type: str = Field(
        default="MSK",
        description="Shown on each asset's `MskSourceReferenceFormType` (`cluster_type`).",
    )
    # Cross-account: every call about this source runs under this role (STS AssumeRole, with the external id).
    role_arn: str | None = Field(
        default=None,
        description="An IAM role in the source account (the source stack's output `SourceRoleArn`): every "
        "Glue and MSK call about this source runs under it (STS AssumeRole). 20-2,048 characters of "
        f"`{ROLE_ARN.pattern}`; its account must be `clusterArn`'s.",
    )
    external_id: ExternalId | None = Field(
        default=None,
        description=f"The external id sent with AssumeRole (`{EXTERNAL_ID.pattern}`; a shared secret with "
        "the source account); only with `roleArn`.",
    )
    # MSK Connect connectors read for lineage: "off", or include / exclude by name (default: all of them).
    connectors: Literal["off"] | ConnectorFilter = Field(
        default=ConnectorFilter(),
        description="The MSK Connect connectors of the cluster whose configuration lineage reads: all of "
        'them by default, `"off"` for none, or `{"include": [...], "exclude": [...]}` by name or shell glob. '
        "A connector belongs to the cluster when one of its bootstrap servers is a broker of the cluster; "
        "only the configuration keys lineage needs are kept, credentials never.",
    )
    channels: Literal["off"] | DeliveryFilter = Field(
        default=DeliveryFilter(),
        description=(
            "Amazon MSK Data Delivery channels of the source's cluster read for lineage (kafka ListChannels "
            'and DescribeChannel): "off", or include / exclude by channel name. Default: every channel.'
        ),
    )
    firehose: Literal["off"] | DeliveryFilter = Field(
        default=DeliveryFilter(),
        description=(
            "Amazon Data Firehose streams whose MSK source is the source's cluster, read for lineage "
            '(ListDeliveryStreams and DescribeDeliveryStream): "off", or include / exclude by stream name. '
            "Default: every such stream."
        ),
    )

    consumers: Literal["off"] | ConsumerFilter = Field(
        default=ConsumerFilter(),
        description=(
            "The consumer groups drawn as readers of the source's topics, from the consumer-lag metrics MSK "
            'publishes to CloudWatch (one ListMetrics listing per cluster and run): "off", or include / '
            "exclude by group name or shell glob. Default: every group. A group without data for two weeks "
            "is no longer listed, and its edge is retracted."
        ),
    )

    @field_validator("cluster_arn")
    @classmethod
    def _cluster(cls, value: str) -> str:
        return fullmatch(KAFKA_CLUSTER_ARN, value, "clusterArn")

    @field_validator("role_arn")
    @classmethod
    def _role(cls, value: str | None) -> str | None:
        if value is not None and not 20 <= len(value) <= 2048:
            raise ValueError("roleArn must be 20 to 2048 characters long (STS AssumeRole RoleArn)")
        return None if value is None else fullmatch(ROLE_ARN, value, "roleArn")

    @model_validator(mode="after")
    def _same_account(self) -> Source:
        if self.external_id is not None and self.role_arn is None:
            raise ValueError("externalId is given without roleArn: it is only sent when assuming roleArn")
        if self.role_arn is not None and self.role_account != self.account:
            raise ValueError(
                f"roleArn is in account {self.role_account} but clusterArn in {self.account}: "
                "the role reads the source's registry, cluster and tables, so all must be in its account"
            )
        return self

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"kafka://[^/\s]+", value):
            raise ValueError(f"namespace {value!r} must look like kafka://host:port (OpenLineage naming)")
        return value

    @field_validator("connectors", mode="before")
    @classmethod
    def _connectors(cls, value: Any) -> Any:
        if value == "off" or isinstance(value, dict | ConnectorFilter):
            return value
        raise ValueError('connectors must be "off" or {"include": [...], "exclude": [...]} (names or globs)')

    @field_validator("channels", mode="before")
    @classmethod
    def _channels(cls, value: Any) -> Any:
        return _delivery_setting(value, "channels")

    @field_validator("firehose", mode="before")
    @classmethod
    def _firehose(cls, value: Any) -> Any:
        return _delivery_setting(value, "firehose")

    @field_validator("consumers", mode="before")
    @classmethod
    def _consumers(cls, value: Any) -> Any:
        if value == "off" or isinstance(value, dict | ConsumerFilter):
            return value
        raise ValueError(
            'consumers must be "off" or {"include": [...], "exclude": [...]} (group names or globs)'
        )

    @field_validator("include", "exclude")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return regular_expressions(value)

    @property
    def region(self) -> str:
        return self.cluster_arn.split(":")[3]

    @property
    def account(self) -> str:
        return self.cluster_arn.split(":")[4]

    @property
    def role_account(self) -> str | None:
        found = ROLE_ARN.fullmatch(self.role_arn) if self.role_arn else None
        return found["account"] if found else None

    @property
    def key(self) -> str:
        """What names this source wherever a registry name identifies one (asset records, lineage state keys,
        results, events, requests): the registry name, qualified with the account for a source read through
        a role, so two accounts' registries of one name stay apart. Fixed by the source's own entry only, so
        adding a source never renames another's state."""
        return f"{self.role_account}:{self.registry_name}" if self.role_arn else self.registry_name

    @property
    def cluster_name(self) -> str:
        """The name in `arn:...:cluster/<name>/<uuid>`."""
        return self.cluster_arn.split("/")[1]

    def reads_connector(self, name: str) -> bool:
        """True when this source's `connectors` setting lets lineage read the connector `name`."""
        return self.connectors != "off" and self.connectors.admits(name)

    def reads_channel(self, name: str) -> bool:
        """True when this source's `channels` setting lets lineage read the MSK channel `name`."""
        return self.channels != "off" and self.channels.admits(name)

    def reads_stream(self, name: str) -> bool:
        """True when this source's `firehose` setting lets lineage read the delivery stream `name`."""
        return self.firehose != "off" and self.firehose.admits(name)

    def reads_group(self, group: str) -> bool:
        """True when this source's `consumers` setting draws the consumer group `group`."""
        return self.consumers != "off" and self.consumers.admits(group)

    def mirrors(self, schema_name: str) -> bool:
        """True when `schema_name` passes this source's include / exclude filters."""
        included = not self.include or any(re.search(p, schema_name) for p in self.include)
        return included and not any(re.search(p, schema_name) for p in self.exclude)
