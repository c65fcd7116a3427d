"""Runtime settings: the Lambda environment, validated once, shared by both functions and the stack.

The stack builds the same `Settings` from `cdk.json` context at synth time, so a value that would
fail at run time fails `cdk synth` first. Every error names the setting (environment variable) at fault.
"""

from __future__ import annotations

import fnmatch
import json
import re
import string
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from kafka_lineage.model import asset_forms as governance
from kafka_lineage.model import ssm_names
from kafka_lineage.model.errors import Location, describe
from kafka_lineage.model.names import FederatedCatalogName, GlueCatalogName, GlueName
from kafka_lineage.model.ssm_names import validate_ssm_path

# DataZone identifiers: botocore datazone DomainId / ProjectId.
DOMAIN_ID = re.compile(r"dzd[-_][a-zA-Z0-9_-]{1,36}")
PROJECT_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")
KAFKA_CLUSTER_ARN = re.compile(r"arn:aws[a-z-]*:kafka:[a-z0-9-]+:\d{12}:cluster/[^/]+/[^/]+")
# STS AssumeRole RoleArn (botocore sts arnType: 20-2048 printable characters), narrowed to an IAM role ARN:
# the functions assume it, and its account is the source's account. Role paths and names per IAM's rules.
ROLE_ARN = re.compile(
    r"arn:aws[a-z-]*:iam::(?P<account>\d{12}):role/(?:[\x21-\x7e]{1,510}/)?[\w+=,.@-]{1,64}"
)
# STS AssumeRole ExternalId (botocore sts externalIdType).
EXTERNAL_ID = re.compile(r"[\w+=,.@:/-]{2,1224}")
# SSM's naming rules live in model/ssm_names.py; the stack and the tests read them from here too.
SSM_PATH = ssm_names.SSM_PATH
SSM_MAX_ARN = ssm_names.SSM_MAX_ARN
SSM_MAX_LEVELS = ssm_names.SSM_MAX_LEVELS
SSM_ARN_PREFIX_BUDGET = ssm_names.SSM_ARN_PREFIX_BUDGET
SSM_OWN_SUFFIX_BUDGET = ssm_names.SSM_OWN_SUFFIX_BUDGET
LAMBDA_ENV_LIMIT = 4096

DEFAULT_ASSET_TYPE_NAME = "KafkaTopicAssetType"
DEFAULT_JOB_NAMESPACE = "kafka-iceberg-sink"
# How many data steps downstream of an impacted table the drift walk reads (0: none); see aws/lineage_graph.
DEFAULT_DRIFT_DOWNSTREAM_DEPTH = 3
MAX_DRIFT_DOWNSTREAM_DEPTH = 10


class ConfigError(ValueError):
    """A setting is missing or malformed. The message names the setting."""


def _fullmatch(pattern: re.Pattern[str], value: str, what: str) -> str:
    if not pattern.fullmatch(value):
        raise ValueError(f"{what} {value!r} does not match {pattern.pattern}")
    return value


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


class ConnectorFilter(BaseModel):
    """Which MSK Connect connectors of a source's cluster lineage reads: names or shell globs (`cdc-*`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    include: tuple[str, ...] = Field(
        default=(),
        description="Connector names or shell globs (`cdc-*`) to read, 1-128 characters each; none: every "
        "connector of the cluster.",
    )
    exclude: tuple[str, ...] = Field(
        default=(), description="Connector names or shell globs never read, even when `include` names them."
    )

    @field_validator("include", "exclude")
    @classmethod
    def _names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            # MSK Connect connector names are 1-128 characters (botocore kafkaconnect __stringMin1Max128).
            if not name or len(name) > 128 or name != name.strip():
                raise ValueError(f"{name!r} is not a connector name or glob (1-128 characters, trimmed)")
        return value

    def admits(self, name: str) -> bool:
        included = not self.include or any(fnmatch.fnmatchcase(name, glob) for glob in self.include)
        return included and not any(fnmatch.fnmatchcase(name, glob) for glob in self.exclude)


class DeliveryFilter(BaseModel):
    """Which channels or delivery streams of a source's cluster lineage reads: names or shell globs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    include: tuple[str, ...] = Field(
        default=(), description="Names or shell globs to read (all, when empty)."
    )
    exclude: tuple[str, ...] = Field(default=(), description="Names or shell globs never read.")

    @field_validator("include", "exclude")
    @classmethod
    def _names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            # Firehose stream names are 1-64 characters, MSK channel names are not bounded in the model.
            if not name or len(name) > 255 or name != name.strip():
                raise ValueError(
                    f"{name!r} is not a channel or stream name or glob (1-255 characters, trimmed)"
                )
        return value

    def admits(self, name: str) -> bool:
        included = not self.include or any(fnmatch.fnmatchcase(name, glob) for glob in self.include)
        return included and not any(fnmatch.fnmatchcase(name, glob) for glob in self.exclude)


class ConsumerFilter(BaseModel):
    """Which consumer groups of a source's cluster lineage draws: group names or shell globs."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    include: tuple[str, ...] = Field(
        default=(), description="Consumer group names or shell globs to draw (all, when empty)."
    )
    exclude: tuple[str, ...] = Field(
        default=(),
        description="Consumer group names or shell globs never drawn, even when `include` names them.",
    )

    @field_validator("include", "exclude")
    @classmethod
    def _names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            # A group reaches lineage as a CloudWatch dimension value: 1-1,024 characters (botocore
            # cloudwatch DimensionValue).
            if not name or len(name) > 1024 or name != name.strip():
                raise ValueError(
                    f"{name!r} is not a consumer group name or glob (1-1,024 characters, trimmed)"
                )
        return value

    def admits(self, name: str) -> bool:
        included = not self.include or any(fnmatch.fnmatchcase(name, glob) for glob in self.include)
        return included and not any(fnmatch.fnmatchcase(name, glob) for glob in self.exclude)


def _delivery_setting(value: Any, setting: str) -> Any:
    if value == "off" or isinstance(value, dict | DeliveryFilter):
        return value
    raise ValueError(f'{setting} must be "off" or {{"include": [...], "exclude": [...]}} (names or globs)')


class Source(BaseModel):
    """One mirrored registry (a `SOURCES` entry)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    registry_name: GlueName = Field(
        alias="registryName",
        description="The Glue Schema Registry registry whose schemas are mirrored. A source with `roleArn` "
        "is named `<account>:<registryName>` in results, events, requests, mappings and state keys.",
    )
    cluster_arn: str = Field(
        alias="clusterArn",
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
        alias="tableRule",
        description="The naming convention from topic to Glue table, the last tier of lineage "
        "(after operator mappings, connectors and `tableMappings`).",
    )
    job_namespace: str = Field(
        default=DEFAULT_JOB_NAMESPACE,
        alias="jobNamespace",
        description="The OpenLineage job namespace of the runs that draw topic -> table edges from rules and "
        "mappings.",
    )
    cluster_type: str = Field(
        default="MSK",
        alias="clusterType",
        description="Shown on each asset's `MskSourceReferenceFormType` (`cluster_type`).",
    )
    # Cross-account: every call about this source runs under this role (STS AssumeRole, with the external id).
    role_arn: str | None = Field(
        default=None,
        alias="roleArn",
        description="An IAM role in the source account (the source stack's output `SourceRoleArn`): every "
        "Glue and MSK call about this source runs under it (STS AssumeRole). 20-2,048 characters of "
        f"`{ROLE_ARN.pattern}`; its account must be `clusterArn`'s.",
    )
    external_id: str | None = Field(
        default=None,
        alias="externalId",
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
        return _fullmatch(KAFKA_CLUSTER_ARN, value, "clusterArn")

    @field_validator("role_arn")
    @classmethod
    def _role(cls, value: str | None) -> str | None:
        if value is not None and not 20 <= len(value) <= 2048:
            raise ValueError("roleArn must be 20 to 2048 characters long (STS AssumeRole RoleArn)")
        return None if value is None else _fullmatch(ROLE_ARN, value, "roleArn")

    @field_validator("external_id")
    @classmethod
    def _external_id(cls, value: str | None) -> str | None:
        return None if value is None else _fullmatch(EXTERNAL_ID, value, "externalId")

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
        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"{pattern!r} is not a valid regular expression: {error}") from error
        return value

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


class Tuning(BaseModel):
    """Optional knobs with safe defaults: concurrency, per-service request rates, the fail-safe."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Share of a source's assets an inferred deletion may remove before the fail-safe stops it.
    mass_delete_share: Annotated[float, Field(gt=0, le=1)] = Field(
        default=0.5,
        description="The share of a registry's assets (or a topic's edges) that deletions inferred from a "
        'listing may remove in one run; above it they are held back and reported (`"allowMassDelete": true` '
        "lifts it for one run).",
    )
    # Parallel workers for per-schema work (reads and DataZone writes).
    max_concurrency: Annotated[int, Field(ge=1, le=64)] = Field(
        default=8, description="Parallel workers for per-item work (reads and DataZone writes)."
    )
    # Ceilings of the adaptive pacing (aws/pacing.py): each operation starts below its quota
    # (kafka_lineage.model.quotas) and adapts to what the account leaves, never above these.
    datazone_rps: Annotated[float, Field(gt=0, le=1000)] = Field(
        default=20.0,
        description="Ceiling, in requests per second (every HTTP attempt, retries too), of each DataZone "
        "operation's pace: CreateAsset, CreateListingChangeSet, Search, PostLineageEvent... are paced apart, "
        "each at its own quota (20 TPS for most, as 'Quotas for Amazon DataZone' documents; an operation "
        "quoted lower keeps its proportion of this). Each pace starts below it and adapts to what the "
        "account's other users leave.",
    )
    glue_rps: Annotated[float, Field(gt=0, le=1000)] = Field(
        default=20.0,
        description="Ceiling, in requests per second, of each Glue operation's pace (Schema Registry and "
        "Data Catalog reads), per source account: AWS publishes no rate for them. Each pace starts below it "
        "and adapts to throttling.",
    )
    ssm_write_rps: Annotated[float, Field(gt=0, le=1000)] = Field(
        default=10.0,
        description="Ceiling, in requests per second, of the state's SSM writes (PutParameter and "
        "DeleteParameter(s), one pace for all). AWS publishes no write rate of their own: PutParameter "
        "counts against the account's Parameter Store throughput (40 TPS by default, shared with the "
        "reads and with everything else in the account), so the writes stay at a quarter of it. The reads "
        "keep their documented 40 TPS.",
    )
    # Stop starting new work this many seconds before the invocation's deadline (checkpointing).
    deadline_margin_seconds: Annotated[float, Field(ge=0, le=600)] = Field(
        default=60.0,
        description="No new work starts this many seconds before the invocation's deadline; the run returns "
        '`"incomplete": true` and a follow-up invocation continues. The function timeouts must be at least '
        "this + 30.",
    )


class Settings(BaseModel):
    """Everything both Lambdas need, from their environment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    domain_id: str = Field(description=f"The DataZone domain id, `dzd_...` (`{DOMAIN_ID.pattern}`).")
    project_id: str = Field(
        description="The DataZone project that owns the form types, the asset type and the assets "
        f"(`{PROJECT_ID.pattern}`)."
    )
    state_root: str = Field(
        description="The SSM path prefix (`/kafka-lineage`) under which every parameter the stack and the "
        "functions read or write lies; rejected when too long or too deep for SSM's name limits, or when a "
        "level starts with `aws` or `ssm`."
    )
    sources: tuple[Source, ...] = Field(
        description="One entry per mirrored registry; at least one, and a registry at most once per account."
    )
    asset_type_name: str = Field(
        default=DEFAULT_ASSET_TYPE_NAME, description="The DataZone asset type the assets are created with."
    )
    tuning: Tuning = Field(
        default=Tuning(),
        description="Concurrency, per-service request rates, the fail-safe and the deadline margin.",
    )
    drift_downstream_depth: Annotated[int, Field(ge=0, le=MAX_DRIFT_DOWNSTREAM_DEPTH, strict=True)] = Field(
        default=DEFAULT_DRIFT_DOWNSTREAM_DEPTH,
        description="How many data steps downstream of a drift-impacted table the lineage function walks "
        "DataZone's lineage graph (GetLineageNode, at most 200 nodes a table; job runs count with the step "
        "they are on); 0: no walk.",
    )
    asset_forms: governance.AssetForms = Field(
        default=(),
        description="Extra metadata forms every topic asset carries, for domains whose rules require them "
        "before publishing: `[{formName, typeIdentifier, typeRevision?, content}]`, `content` with "
        "`{topic}`, `{registryName}`, `{schemaArn}`; DataZone checks it against the form type's model.",
    )
    glossary_terms: governance.GlossaryTerms = Field(
        default=(),
        description="Glossary term ids attached to every topic asset (at most 20), for domains whose rules "
        "require terms before publishing.",
    )

    @field_validator("domain_id")
    @classmethod
    def _domain(cls, value: str) -> str:
        return _fullmatch(DOMAIN_ID, value, "domain id")

    @field_validator("project_id")
    @classmethod
    def _project(cls, value: str) -> str:
        return _fullmatch(PROJECT_ID, value, "project id")

    @field_validator("state_root")
    @classmethod
    def _state_root(cls, value: str) -> str:
        return validate_ssm_path(value.rstrip("/") or value)

    @field_validator("sources")
    @classmethod
    def _unique_registries(cls, value: tuple[Source, ...]) -> tuple[Source, ...]:
        if not value:
            raise ValueError("at least one source is required")
        # Two sources may name one registry when they are in different accounts (their keys differ); the same
        # registry twice in one account would mirror the same schemas twice.
        names = [source.key for source in value]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"registryName listed more than once for the same account: {duplicates}")
        return value

    def source(self, key: str) -> Source | None:
        """The source of this key (`Source.key`: the registry name, or `<account>:<registry name>`)."""
        return next((s for s in self.sources if s.key == key), None)

    def source_key(self, account: str, registry_name: str) -> str:
        """The key of the source that reads `registry_name` in `account` (from a schema ARN or an event's
        `account`): the source with a role in that account, else the registry name (read with the functions'
        own role). A source account's registry that no source names gets a key no source has, so the request
        is reported as not configured instead of reading a registry of that name in another account."""
        role_accounts = set()
        for source in self.sources:
            if source.role_arn:
                if source.role_account == account and source.registry_name == registry_name:
                    return source.key
                role_accounts.add(source.role_account)
        return f"{account}:{registry_name}" if account in role_accounts else registry_name

    def to_environment(self) -> dict[str, str]:
        """The Lambda environment that `from_environment` reads back (used by the stack)."""
        env = {
            "DATAZONE_DOMAIN_ID": self.domain_id,
            "DATAZONE_PROJECT_ID": self.project_id,
            "MAPPING_PATH": self.state_root,
            "SOURCES": json.dumps(
                [s.model_dump(by_alias=True, exclude_defaults=True) for s in self.sources],
                separators=(",", ":"),
            ),
            "ASSET_TYPE_NAME": self.asset_type_name,
        }
        tuning = self.tuning.model_dump(exclude_defaults=True)
        if tuning:
            env["TUNING"] = json.dumps(tuning, separators=(",", ":"))
        if self.drift_downstream_depth != DEFAULT_DRIFT_DOWNSTREAM_DEPTH:
            env["DRIFT_DOWNSTREAM_DEPTH"] = str(self.drift_downstream_depth)
        return env | governance.environment(self.asset_forms, self.glossary_terms)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> Settings:
        """Read and validate the settings; raise ConfigError naming the variable at fault."""
        required = ("DATAZONE_DOMAIN_ID", "DATAZONE_PROJECT_ID", "MAPPING_PATH", "SOURCES")
        missing = [name for name in required if not environ.get(name)]
        if missing:
            raise ConfigError(f"missing required setting(s): {', '.join(missing)}")
        raw: dict[str, Any] = {
            "domain_id": environ["DATAZONE_DOMAIN_ID"],
            "project_id": environ["DATAZONE_PROJECT_ID"],
            "state_root": environ["MAPPING_PATH"],
            "asset_type_name": environ.get("ASSET_TYPE_NAME") or DEFAULT_ASSET_TYPE_NAME,
        }
        for variable, key in (
            ("SOURCES", "sources"),
            ("TUNING", "tuning"),
            ("ASSET_FORMS", "asset_forms"),
            ("GLOSSARY_TERMS", "glossary_terms"),
        ):
            if environ.get(variable):
                try:
                    raw[key] = json.loads(environ[variable])
                except json.JSONDecodeError as error:
                    raise ConfigError(f"{variable} is not valid JSON: {error}") from error
        depth = environ.get("DRIFT_DOWNSTREAM_DEPTH", "").strip()
        if depth:
            if not re.fullmatch(r"[+-]?\d+", depth):
                raise ConfigError(
                    f"invalid settings: DRIFT_DOWNSTREAM_DEPTH: {depth!r} is not a whole number"
                )
            raw["drift_downstream_depth"] = int(depth)
        try:
            return cls.model_validate(raw)
        except ValidationError as error:
            raise ConfigError(_describe(error)) from error


_VARIABLES = {
    "domain_id": "DATAZONE_DOMAIN_ID",
    "project_id": "DATAZONE_PROJECT_ID",
    "state_root": "MAPPING_PATH",
    "sources": "SOURCES",
    "asset_type_name": "ASSET_TYPE_NAME",
    "tuning": "TUNING",
    "drift_downstream_depth": "DRIFT_DOWNSTREAM_DEPTH",
    "asset_forms": "ASSET_FORMS",
    "glossary_terms": "GLOSSARY_TERMS",
}


def environment_variables() -> dict[str, str]:
    """Each Settings field's environment variable (what `to_environment` writes and errors name)."""
    return dict(_VARIABLES)


def _describe(error: ValidationError) -> str:
    """pydantic errors as `VARIABLE[path]: message`, naming the environment variable."""

    def variable(location: Location, position: int) -> str:
        part = str(location[position])
        return _VARIABLES.get(part, part) if position == 0 else part

    return "invalid settings: " + describe(error, where="settings", name=variable)
