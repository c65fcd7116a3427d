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

from kafka_lineage.model.errors import Location, describe
from kafka_lineage.model.names import GlueCatalogName, GlueName

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
# SSM: letters, digits, `_ . -` and `/`; at most 15 levels; no level may start with aws/ssm; the full ARN
# `arn:aws:ssm:<region>:<account>:parameter<name>` at most 1,011 characters.
SSM_PATH = re.compile(r"(/[a-zA-Z0-9_.\-]+)+")
SSM_MAX_ARN = 1011
SSM_MAX_LEVELS = 15
# The longest ARN prefix we plan for: a 25-character partition-qualified region, a 12-digit account.
SSM_ARN_PREFIX_BUDGET = len("arn:aws-iso-b:ssm:") + 25 + len(":123456789012:parameter")
# The deepest name the project itself writes under MAPPING_PATH (see mapping_store): `/lineage/ff-9999`.
SSM_OWN_SUFFIX_BUDGET = len("/table-mappings/cdk/") + 64
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


def validate_ssm_path(path: str) -> str:
    """Check `path` against SSM's documented naming rules, leaving room for the names we put below it."""
    if not SSM_PATH.fullmatch(path):
        raise ValueError(
            f"{path!r} is not a valid SSM path: it must start with '/' and use only a-z A-Z 0-9 _ . - and '/'"
        )
    levels = [level for level in path.split("/") if level]
    for level in levels:
        if level.lower().startswith(("aws", "ssm")):
            raise ValueError(f"{path!r}: SSM rejects a name level starting with 'aws' or 'ssm' ({level!r})")
    if len(levels) + 3 > SSM_MAX_LEVELS:
        raise ValueError(f"{path!r} is too deep: SSM allows {SSM_MAX_LEVELS} levels and we need 3 below it")
    if SSM_ARN_PREFIX_BUDGET + len(path) + SSM_OWN_SUFFIX_BUDGET > SSM_MAX_ARN:
        raise ValueError(
            f"{path!r} is too long: parameter ARNs below it would pass SSM's {SSM_MAX_ARN}-character limit"
        )
    return path


class TableRule(BaseModel):
    """Naming convention: a topic that fully matches `match` feeds Glue table `{database}/{table}`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    database: GlueCatalogName
    match: str
    table: str

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

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()

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


class Source(BaseModel):
    """One mirrored registry (a `SOURCES` entry)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    registry_name: GlueName = Field(alias="registryName")
    cluster_arn: str = Field(alias="clusterArn")
    namespace: str | None = None
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    table_rule: TableRule | None = Field(default=None, alias="tableRule")
    job_namespace: str = Field(default=DEFAULT_JOB_NAMESPACE, alias="jobNamespace")
    cluster_type: str = Field(default="MSK", alias="clusterType")
    # Cross-account: every call about this source runs under this role (STS AssumeRole, with the external id).
    role_arn: str | None = Field(default=None, alias="roleArn")
    external_id: str | None = Field(default=None, alias="externalId")
    # MSK Connect connectors read for lineage: "off", or include / exclude by name (default: all of them).
    connectors: Literal["off"] | ConnectorFilter = ConnectorFilter()

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

    def mirrors(self, schema_name: str) -> bool:
        """True when `schema_name` passes this source's include / exclude filters."""
        included = not self.include or any(re.search(p, schema_name) for p in self.include)
        return included and not any(re.search(p, schema_name) for p in self.exclude)


class Tuning(BaseModel):
    """Optional knobs with safe defaults: concurrency, per-service request rates, the fail-safe."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Share of a source's assets an inferred deletion may remove before the fail-safe stops it.
    mass_delete_share: Annotated[float, Field(gt=0, le=1)] = 0.5
    # Parallel workers for per-schema work (reads and DataZone writes).
    max_concurrency: Annotated[int, Field(ge=1, le=64)] = 8
    # Ceilings of the adaptive pacing (aws/pacing.py): each operation starts below its quota
    # (kafka_lineage.model.quotas) and adapts to what the account leaves, never above these.
    datazone_rps: Annotated[
        float,
        Field(
            gt=0,
            le=1000,
            description="Ceiling, in requests per second, of each DataZone operation's pace (CreateAsset, "
            "CreateListingChangeSet, Search, PostLineageEvent... each paced apart, at most at its own "
            "quota: 20 TPS for most, as 'Quotas for Amazon DataZone' documents). The pace starts below "
            "it and adapts to what the account's other users leave.",
        ),
    ] = 20.0
    glue_rps: Annotated[
        float,
        Field(
            gt=0,
            le=1000,
            description="Ceiling, in requests per second, of each AWS Glue operation's pace, per source "
            "account (GetSchema, ListSchemaVersions, GetSchemaVersion, GetTables... each paced apart; "
            "AWS publishes no rate for them). The pace starts below it and adapts to throttling.",
        ),
    ] = 20.0
    ssm_write_rps: Annotated[
        float,
        Field(
            gt=0,
            le=1000,
            description="Ceiling, in requests per second, of the state's SSM Parameter Store writes "
            "(PutParameter and the deletes, one pace for all; AWS publishes no write rate, and the "
            "account's Parameter Store throughput is shared). Reads are paced at the documented 40 TPS.",
        ),
    ] = 2.0
    # Stop starting new work this many seconds before the invocation's deadline (checkpointing).
    deadline_margin_seconds: Annotated[float, Field(ge=0, le=600)] = 60.0


class Settings(BaseModel):
    """Everything both Lambdas need, from their environment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    domain_id: str
    project_id: str
    state_root: str
    sources: tuple[Source, ...]
    asset_type_name: str = DEFAULT_ASSET_TYPE_NAME
    tuning: Tuning = Tuning()
    drift_downstream_depth: Annotated[int, Field(ge=0, le=MAX_DRIFT_DOWNSTREAM_DEPTH, strict=True)] = (
        DEFAULT_DRIFT_DOWNSTREAM_DEPTH
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
        return env

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
        for variable, key in (("SOURCES", "sources"), ("TUNING", "tuning")):
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
}


def _describe(error: ValidationError) -> str:
    """pydantic errors as `VARIABLE[path]: message`, naming the environment variable."""

    def variable(location: Location, position: int) -> str:
        part = str(location[position])
        return _VARIABLES.get(part, part) if position == 0 else part

    return "invalid settings: " + describe(error, where="settings", name=variable)
