"""Deployment settings: the `kafkaLineage` object in cdk.json context, validated when the app synthesizes.

The runtime part (domain, project, mapping path, sources, tuning) becomes the same `Settings` the Lambdas
read from their environment (lambdas/kafka_lineage/config.py), so a value that would fail at run time
fails `cdk synth` first. The rest (schedules, alarms, trail, table mappings, ...) only shapes the stack.
Every error names the context key at fault, e.g. `kafkaLineage.sources[0].clusterArn`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, field_validator

from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.config import (
    DEFAULT_ASSET_TYPE_NAME,
    DEFAULT_DRIFT_DOWNSTREAM_DEPTH,
    LAMBDA_ENV_LIMIT,
    SSM_ARN_PREFIX_BUDGET,
    SSM_MAX_ARN,
    SSM_MAX_LEVELS,
    SSM_PATH,
    ConfigError,
    Settings,
    Source,
    TableRule,
    Tuning,
)
from kafka_lineage.config import environment_variables as runtime_variables
from kafka_lineage.model.asset_forms import clashes
from kafka_lineage.model.errors import Location, describe
from kafka_lineage.model.names import GlueDatabasePath
from kafka_lineage.model.table_mapping import TableMapping

MAX_ASSET_FORMS = 10  # CreateAsset formsInput: an asset carries at most 10 forms

CONTEXT_KEY = "kafkaLineage"
PLACEHOLDER_MARK = "PLACEHOLDER"

# CloudWatch Logs accepts only these retention periods (PutRetentionPolicy).
LOG_RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192)
# EventBridge schedule expressions: rate(value unit) or a six-field cron(...).
_RATE = re.compile(r"rate\(([1-9]\d*) (minute|minutes|hour|hours|day|days)\)")
_CRON = re.compile(r"cron\((\S+ ){5}\S+\)")
# EventBridge cron fields (Scheduler / EventBridge "Cron expressions" reference): name, range, names allowed.
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")
_CRON_FIELDS: tuple[tuple[str, int, int, tuple[str, ...]], ...] = (
    ("minutes", 0, 59, ()),
    ("hours", 0, 23, ()),
    ("day-of-month", 1, 31, ()),
    ("month", 1, 12, _MONTHS),
    ("day-of-week", 1, 7, _DAYS),
    ("year", 1970, 2199, ()),
)
# CloudFormation stack names: a letter, then letters, digits and hyphens, at most 128 characters.
STACK_NAME = r"^[A-Za-z][A-Za-z0-9-]{0,127}$"
# DataZone domain unit ids (AWS::DataZone::PolicyGrant DomainUnitFilterForProject.DomainUnit).
DOMAIN_UNIT_ID = r"^[a-z0-9_\-]{1,256}$"
_KMS_KEY_ARN = re.compile(r"arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key/[A-Za-z0-9-]{1,128}")
# Search's filter values are at most 128 characters (botocore datazone FilterValueString), and the
# functions find their assets by a filter on the asset type's name; CreateAssetType itself takes 256.
ASSET_TYPE_NAME_MAX = 128
# The roles that must be project members, by the suffix of their fixed names under projectMembership
# "manual" (IAM role names are at most 64 characters).
MEMBER_ROLES = ("SchemaSync", "LineageEmission", "AssetTypeHandler")
IAM_ROLE_NAME_MAX = 64
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_SNS_ARN = re.compile(r"arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}")
# Where the stack writes the explicit table mappings of cdk.json (docs/lineage.md).
CDK_TABLE_MAPPINGS = "table-mappings/cdk"
SCHEDULE_OFF = "off"
# Leaf names: a 16-hex-digit hash (unique, and never starts with "aws"/"ssm") plus a readable part.
_READABLE_CHARS = 40
# subscription-grants reads these of the settings' variables (kafka_lineage.grants.settings and its wiring's
# SOURCES roles), and its own `ACCESS`: it is given only those.
ACCESS_VARIABLE = "ACCESS"
GRANTS_VARIABLES = ("DATAZONE_DOMAIN_ID", "MAPPING_PATH", "ASSET_TYPE_NAME", "SOURCES")
_UNSAFE_SSM_CHARS = re.compile(r"[^a-zA-Z0-9_.\-]")


def _cron_value(token: str, low: int, names: tuple[str, ...]) -> int | None:
    """The number a cron token stands for (a name counts from `low`), or None when it is not a value."""
    if token.upper() in names:
        return names.index(token.upper()) + low
    return int(token) if token.isdigit() else None


def _check_cron_field(text: str, name: str, low: int, high: int, names: tuple[str, ...]) -> str | None:
    """Why a cron field is out of range, or None. Checks every number, range bound and step."""
    for part in text.split(","):
        base, _, step = part.partition("/")
        if step and (not step.isdigit() or not 1 <= int(step) <= high):
            return f"{name} step {step!r} is not 1-{high}"
        if base in ("*", "?") or (name.startswith("day-of") and _cron_special(base, name, low, high)):
            continue
        for bound in base.split("-"):
            value = _cron_value(bound, low, names)
            if value is None or not low <= value <= high:
                allowed = f"{low}-{high}" + (f" or {names[0]}-{names[-1]}" if names else "")
                return f"{name} {bound!r} is outside {allowed}"
    return None


def _cron_special(base: str, name: str, low: int, high: int) -> bool:
    """L, W and # in the day fields (`L`, `15W`, `LW`, `5L`, `3#2`), with their numbers in range."""
    token = base.upper()
    if name == "day-of-month":
        number = token.rstrip("LW")
        numbered = token.endswith("W") and number.isdigit() and low <= int(number) <= high
        return token in ("L", "LW") or numbered
    if "#" in token:
        day, _, nth = token.partition("#")
        return day.isdigit() and low <= int(day) <= high and nth.isdigit() and 1 <= int(nth) <= 5
    number = token.rstrip("L")
    return token == "L" or (token.endswith("L") and number.isdigit() and low <= int(number) <= high)


def _check_cron(value: str, key: str) -> None:
    fields = value[len("cron(") : -1].split()
    for text, (name, low, high, names) in zip(fields, _CRON_FIELDS, strict=True):
        problem = _check_cron_field(text, name, low, high, names)
        if problem:
            raise ValueError(f"{key} {value!r}: {problem} (EventBridge would refuse it at deploy time)")
    day_of_month, day_of_week = fields[2], fields[4]
    # EventBridge: one of day-of-month and day-of-week must be "?".
    if (day_of_month == "?") == (day_of_week == "?"):
        raise ValueError(f"{key} {value!r}: exactly one of day-of-month and day-of-week must be '?'")


def _schedule(value: str | None, key: str) -> str | None:
    # "off" rather than only null: jsii drops null members of context objects passed from Python.
    if value is None or value.strip().lower() == SCHEDULE_OFF:
        return None
    value = value.strip()
    if not (_RATE.fullmatch(value) or _CRON.fullmatch(value)):
        raise ValueError(
            f'{key} {value!r} is not an EventBridge schedule: use rate(N unit), a 6-field cron(...) or "off"'
        )
    if (match := _RATE.fullmatch(value)) and (match.group(1) == "1") == match.group(2).endswith("s"):
        raise ValueError(
            f"{key} {value!r}: EventBridge wants rate(1 hour) but rate(2 hours) (singular for 1)"
        )
    if _CRON.fullmatch(value):
        _check_cron(value, key)
    return value


class Schedules(BaseModel):
    """EventBridge schedules; "off" turns one off."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Hourly full sync, a daily deep verification, and lineage a while after each sync.
    sync: str | None = Field(
        default="cron(0 * * * ? *)", description="The full sync of every source (hourly by default)."
    )
    verify: str | None = Field(
        default="cron(40 3 * * ? *)",
        description='The deep verification, `{"verify": true}` (daily by default): every schema inspected, '
        "unmapped assets adopted or removed.",
    )
    lineage: str | None = Field(
        default="cron(20 * * * ? *)",
        description="The lineage run of every mapped topic (hourly, a while after each sync, by default).",
    )
    grants: str | None = Field(
        default="cron(50 * * * ? *)",
        description="The reconciling run of subscription-grants (hourly by default; only with `access`): it "
        "finishes grants DataZone's best-effort events left pending, and puts back access changed by hand.",
    )

    @field_validator("sync", "verify", "lineage", "grants")
    @classmethod
    def _valid(cls, value: str | None) -> str | None:
        return _schedule(value, "schedule")


class DeploymentContext(BaseModel):
    """The `kafkaLineage` context object as written in cdk.json (camelCase keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    stack_name: str = Field(
        default="KafkaLineage",
        alias="stackName",
        pattern=STACK_NAME,
        description="The CloudFormation stack name: a letter, then letters, digits and hyphens (max. 128).",
    )
    # Runtime settings: validated by kafka_lineage.config.Settings (see build_settings).
    domain_id: str = Field(
        alias="domainId", description="The DataZone domain id, `dzd_...` (`DATAZONE_DOMAIN_ID` below)."
    )
    project_id: str = Field(
        alias="projectId",
        description="The DataZone project that owns the form types, the asset type and the assets "
        "(`DATAZONE_PROJECT_ID` below).",
    )
    state_root: str = Field(
        default="/kafka-lineage",
        alias="mappingPath",
        description="The SSM path prefix for everything the stack and the functions keep; synth rejects a "
        "path too long or too deep for SSM's name limits.",
    )
    sources: list[Any] = Field(
        description="One entry per mirrored registry, validated as the functions' `Source` (below)."
    )
    asset_type_name: str = Field(
        default=DEFAULT_ASSET_TYPE_NAME,
        alias="assetTypeName",
        max_length=ASSET_TYPE_NAME_MAX,
        description="The asset type the functions use; at most 128 characters, the longest value a DataZone "
        "Search filter takes.",
    )
    tuning: dict[str, Any] = Field(
        default_factory=dict,
        description="The functions' `Tuning` (below), with camelCase keys (`datazoneRps`); an unknown key "
        "fails synth.",
    )
    # Checked by Settings (0..10); Any so that its message names the key once, as the other runtime keys.
    drift_downstream_depth: Any = Field(
        default=DEFAULT_DRIFT_DOWNSTREAM_DEPTH,
        alias="driftDownstreamDepth",
        description="How many data steps downstream of a drift-impacted table the lineage function walks "
        "DataZone's lineage graph, 0 to 10 (0: no walk); passed as `DRIFT_DOWNSTREAM_DEPTH` when not the "
        "default.",
    )
    # Checked by Settings (kafka_lineage.model.asset_forms); Any so that their messages name the key once.
    asset_forms: Any = Field(
        default=(),
        alias="assetForms",
        description="Extra metadata forms every topic asset carries, for domains whose rules require forms "
        "before publishing: `[{formName, typeIdentifier, typeRevision?, content}]`; `content` may use "
        "`{topic}`, `{registryName}` and `{schemaArn}`. Passed as `ASSET_FORMS`; a form name of the asset "
        "type's own forms fails synth.",
    )
    glossary_terms: Any = Field(
        default=(),
        alias="glossaryTerms",
        description="Glossary term ids attached to every topic asset (at most 20), for domains whose rules "
        "require terms before publishing. Passed as `GLOSSARY_TERMS`.",
    )
    # Passed to subscription-grants as ACCESS; None: the function is not deployed.
    access: AccessSettings | None = Field(
        default=None,
        description="Fulfil DataZone subscription grants on topic assets with IAM access for the "
        "subscriber's roles: deploys the subscription-grants function, passed this object as `ACCESS`. "
        "Unset: no such function is deployed and grants are left to another fulfiller. `{}` deploys it "
        "admitting no role, so every grant fails with a cause naming `access.consumerRoles`.",
    )
    # Stack-only settings.
    table_mappings: tuple[TableMapping, ...] = Field(
        default=(),
        alias="tableMappings",
        description="Explicit topic -> table mappings, written as SSM parameters under "
        "`{mappingPath}/table-mappings/cdk/` (lineage's `cdk` tier); a topic at most once per registry.",
    )
    extra_databases: tuple[GlueDatabasePath, ...] = Field(
        default=(),
        alias="extraDatabases",
        description="Glue databases the lineage function may also read (besides those of table rules and "
        "mappings), `<catalog>/<database>` for one of a federated catalog such as "
        "`s3tablescatalog/<table bucket>/<database>`; a topic mapped elsewhere fails with AccessDenied "
        "naming this setting.",
    )
    schedules: Schedules = Field(
        default=Schedules(),
        description='EventBridge schedules: `rate(N unit)`, a six-field `cron(...)`, or `"off"`.',
    )
    reserve_concurrency: StrictBool = Field(
        default=True,
        alias="reserveConcurrency",
        description="Reserve one schema-sync, two lineage and two subscription-grants runs at a time; turn "
        "off in accounts at the minimum concurrency quota (correctness never depends on it).",
    )
    alarm_email: str | None = Field(
        default=None,
        alias="alarmEmail",
        description="An e-mail address subscribed to a new, KMS-encrypted alarm topic.",
    )
    alarm_topic_arn: str | None = Field(
        default=None, alias="alarmTopicArn", description="An existing SNS topic for the alarms instead."
    )
    # Breaking "Schema Drift Detected" events to the alarm topic too (needs alarmEmail or alarmTopicArn).
    notify_breaking_drift: StrictBool = Field(
        default=False,
        alias="notifyBreakingDrift",
        description='Also send each breaking "Schema Drift Detected" event (its detail) to the alarm topic; '
        "needs `alarmEmail` or `alarmTopicArn` (an existing topic must let events.amazonaws.com publish, and "
        "use its key).",
    )
    create_cloud_trail: StrictBool = Field(
        default=False,
        alias="createCloudTrail",
        description="Create a single-region trail of write management events, so that Glue Schema Registry "
        "changes reach EventBridge (for an account without such a trail).",
    )
    cloud_trail_retention_days: Annotated[int, Field(ge=1, le=3650)] = Field(
        default=90, alias="cloudTrailRetentionDays", description="How long the trail's buckets keep logs."
    )
    asset_type_removal_policy: Literal["retain", "destroy"] = Field(
        default="retain",
        alias="assetTypeRemovalPolicy",
        description="`retain` keeps the asset type and form types when the stack is deleted; `destroy` "
        "deletes them (fails while assets of the type exist).",
    )
    log_retention_days: int = Field(
        default=30,
        alias="logRetentionDays",
        description="CloudWatch Logs retention of every function, in days: a value CloudWatch accepts "
        "(1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192).",
    )
    schema_sync_memory_mb: Annotated[int, Field(ge=128, le=10240)] = Field(
        default=1024, alias="schemaSyncMemoryMb", description="schema-sync's memory, in MB."
    )
    lineage_memory_mb: Annotated[int, Field(ge=128, le=10240)] = Field(
        default=512, alias="lineageMemoryMb", description="lineage-emission's memory, in MB."
    )
    schema_sync_timeout_seconds: Annotated[int, Field(ge=60, le=900)] = Field(
        default=900,
        alias="schemaSyncTimeoutSeconds",
        description="schema-sync's timeout; at least `tuning.deadlineMarginSeconds` + 30.",
    )
    lineage_timeout_seconds: Annotated[int, Field(ge=60, le=900)] = Field(
        default=600,
        alias="lineageTimeoutSeconds",
        description="lineage-emission's timeout; at least `tuning.deadlineMarginSeconds` + 30.",
    )
    # Governed domains (docs/governed-domains.md).
    domain_unit_id: str | None = Field(
        default=None,
        alias="domainUnitId",
        pattern=DOMAIN_UNIT_ID,
        description=(
            "The domain unit that owns the project. When set, the stack grants the project's owners the "
            "CREATE_FORM_TYPE and CREATE_ASSET_TYPE policies on it (AWS::DataZone::PolicyGrant), before it "
            "creates the form types. When unset, the deploy checks that those grants exist and stops, naming "
            "the missing grant, when they do not."
        ),
    )
    domain_kms_key_arn: str | None = Field(
        default=None,
        alias="domainKmsKeyArn",
        description=(
            "ARN of the domain's customer managed KMS key, if it has one: both functions may then use that "
            "key (kms:Decrypt, kms:GenerateDataKey), and no other. The deploy checks it against GetDomain."
        ),
    )
    project_membership: Literal["stack", "manual"] = Field(
        default="stack",
        alias="projectMembership",
        description=(
            '"stack": the stack makes its three roles project members (AWS::DataZone::ProjectMembership), '
            'which needs the deploying principal to be a project owner. "manual": a project owner adds them '
            "(the roles then have fixed names, <stackName>-SchemaSync, -LineageEmission and "
            "-AssetTypeHandler, and the deploy stops naming each missing membership and its command)."
        ),
    )

    @field_validator("alarm_email")
    @classmethod
    def _email(cls, value: str | None) -> str | None:
        if value is not None and not _EMAIL.fullmatch(value):
            raise ValueError(f"{value!r} is not an e-mail address")
        return value

    @field_validator("alarm_topic_arn")
    @classmethod
    def _topic_arn(cls, value: str | None) -> str | None:
        if value is not None and not _SNS_ARN.fullmatch(value):
            raise ValueError(f"{value!r} is not an SNS topic ARN")
        return value

    @field_validator("domain_kms_key_arn")
    @classmethod
    def _kms_key_arn(cls, value: str | None) -> str | None:
        if value is not None and not _KMS_KEY_ARN.fullmatch(value):
            raise ValueError(
                f"{value!r} is not a KMS key ARN (arn:aws:kms:<region>:<account>:key/<key id>; not an alias)"
            )
        return value

    @field_validator("log_retention_days")
    @classmethod
    def _retention(cls, value: int) -> int:
        if value not in LOG_RETENTION_DAYS:
            raise ValueError(
                f"{value} is not a CloudWatch Logs retention period; use one of {LOG_RETENTION_DAYS}"
            )
        return value


@dataclass(frozen=True)
class TableMappingParameter:
    name: str
    value: str
    mapping: TableMapping


@dataclass(frozen=True)
class StackConfig:
    """Everything the stack needs: validated runtime settings plus stack-only settings."""

    settings: Settings
    deployment: DeploymentContext
    table_mapping_parameters: tuple[TableMappingParameter, ...]

    @property
    def databases(self) -> tuple[str, ...]:
        """Glue databases the lineage function may read: from table rules, mappings and extraDatabases."""
        names = {_rule_database(s.table_rule) for s in self.settings.sources if s.table_rule is not None}
        names.update(m.database_path for m in self.deployment.table_mappings)
        names.update(self.deployment.extra_databases)
        return tuple(sorted(names))

    @property
    def registry_names(self) -> tuple[str, ...]:
        """Every source's registry name (the CloudTrail rule matches forwarded source events too)."""
        return tuple(dict.fromkeys(source.registry_name for source in self.settings.sources))

    @property
    def own_sources(self) -> tuple[Source, ...]:
        """Sources the functions read with their own roles (in this account)."""
        return tuple(source for source in self.settings.sources if not source.role_arn)

    @property
    def own_registry_names(self) -> tuple[str, ...]:
        return tuple(source.registry_name for source in self.own_sources)

    @property
    def own_databases(self) -> tuple[str, ...]:
        """Glue databases in this account the lineage function may read: the own sources' table rules, the
        stack's mappings that name no role source, and extraDatabases. A source with a role reads its
        tables through that role, in its own account."""
        role_keys = {source.key for source in self.settings.sources if source.role_arn}
        names = {_rule_database(s.table_rule) for s in self.own_sources if s.table_rule is not None}
        names.update(
            m.database_path for m in self.deployment.table_mappings if m.registry_name not in role_keys
        )
        names.update(self.deployment.extra_databases)
        return tuple(sorted(names))

    @property
    def source_role_arns(self) -> tuple[str, ...]:
        return tuple(sorted({source.role_arn for source in self.settings.sources if source.role_arn}))

    @property
    def source_accounts(self) -> tuple[str, ...]:
        """Accounts whose Glue Schema Registry events the default bus accepts (the role sources')."""
        return tuple(sorted({s.role_account for s in self.settings.sources if s.role_account}))

    @property
    def cluster_arns(self) -> tuple[str, ...]:
        return tuple(sorted({source.cluster_arn for source in self.settings.sources}))

    def role_name(self, role: str, stack_name: str | None = None) -> str | None:
        """The fixed name of one of the stack's roles under projectMembership "manual" (a project owner adds
        them by ARN, so the ARNs must be known before and stay across deploys); None lets CloudFormation
        name it. `stack_name`: the enclosing stack's, when the construct is embedded in another app's stack
        (two embeddings in one account then keep apart); default `stackName`."""
        if self.deployment.project_membership != "manual":
            return None
        name = f"{stack_name or self.deployment.stack_name}-{role}"
        if len(name) > IAM_ROLE_NAME_MAX:
            raise ConfigError(
                f'cdk.json context {CONTEXT_KEY}.projectMembership: "manual" names the roles '
                f"<stack name>-{role}, and {name!r} passes IAM's {IAM_ROLE_NAME_MAX} characters; use a "
                "shorter stack name"
            )
        return name

    @property
    def grants_environment(self) -> dict[str, str] | None:
        """subscription-grants' environment (without the stack's own additions), or None when `access` is
        unset and the function is not deployed."""
        return grants_environment(self.settings, self.deployment.access)

    @property
    def warnings(self) -> list[str]:
        """Settings that deploy but weaken the stack: each names its context key."""
        found = []
        access = self.deployment.access
        if access is not None and not access.consumer_roles:
            found.append(
                f"cdk.json context {CONTEXT_KEY}.access.consumerRoles is empty: subscription-grants admits "
                "no role, so every grant on a topic asset fails with a cause naming it"
            )
        if access is not None and access.consumer_account_role and not access.external_id:
            found.append(
                f"cdk.json context {CONTEXT_KEY}.access.consumerAccountRole is assumed without an "
                "externalId: set access.externalId (and the consumer stack's externalId), the "
                "confused-deputy guard"
            )
        for index, source in enumerate(self.settings.sources):
            if source.role_arn and not source.external_id:
                found.append(
                    f"cdk.json context {CONTEXT_KEY}.sources[{index}].roleArn is assumed without an "
                    "externalId: set externalId (and the source stack's externalId) so that only this "
                    "stack's roles can use the role (the confused-deputy guard)"
                )
        return found

    @property
    def placeholders(self) -> list[str]:
        """Context keys that still hold the shipped placeholder values (deploying them would fail)."""
        found = [
            f"{CONTEXT_KEY}.{key}"
            for key, value in (("domainId", self.settings.domain_id), ("projectId", self.settings.project_id))
            if PLACEHOLDER_MARK.lower() in value.lower()
        ]
        found += [
            f"{CONTEXT_KEY}.sources[{index}].clusterArn"
            for index, source in enumerate(self.settings.sources)
            if PLACEHOLDER_MARK.lower() in source.cluster_arn.lower()
        ]
        return found


def load_config(raw: Any, extra_environment: Mapping[str, str] | None = None) -> StackConfig:
    """Validate the `kafkaLineage` context value (a dict, or a JSON string from `cdk -c`).

    `extra_environment` is what the stack adds to the functions' environment besides the settings; it
    counts towards Lambda's 4 KB limit.
    """
    if raw is None:
        raise ConfigError(f"cdk.json context {CONTEXT_KEY} is missing: see docs/configuration.md (its keys)")
    if isinstance(raw, str) and not raw.lstrip().startswith(("{", "[")):
        # `-c kafkaLineage=<file>`: the object in a JSON file (anything else than JSON is taken as a path)
        if not Path(raw).is_file():
            raise ConfigError(
                f"cdk.json context {CONTEXT_KEY}: {raw!r} is neither a JSON object nor an existing file "
                f"(pass -c {CONTEXT_KEY}='{{...}}' or -c {CONTEXT_KEY}=<path of a JSON file>)"
            )
        raw = Path(raw).read_text()
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as error:
            raise ConfigError(f"cdk.json context {CONTEXT_KEY} is not valid JSON: {error}") from error
    if not isinstance(raw, Mapping):
        raise ConfigError(f"cdk.json context {CONTEXT_KEY} must be an object, not {type(raw).__name__}")
    # Keys starting with "_" are comments (JSON has none).
    values = {key: value for key, value in raw.items() if not str(key).startswith("_")}
    try:
        deployment = DeploymentContext.model_validate(values)
    except ValidationError as error:
        raise ConfigError(_describe(error, prefix=CONTEXT_KEY)) from error
    return config_from_context(deployment, extra_environment)


def as_stack_config(
    config: Mapping[str, Any] | str | DeploymentContext | StackConfig,
    extra_environment: Mapping[str, str] | None = None,
) -> StackConfig:
    """What the KafkaLineage construct accepts as `config`: the context object (a dict or JSON text, validated
    as cdk.json's is), the typed model, or an already validated StackConfig."""
    if isinstance(config, StackConfig):
        return config
    if isinstance(config, DeploymentContext):
        return config_from_context(config, extra_environment)
    return load_config(config, extra_environment)


def config_from_context(
    deployment: DeploymentContext, extra_environment: Mapping[str, str] | None = None
) -> StackConfig:
    """The checks beyond the model's own: the runtime Settings, cross-references and Lambda's limits."""
    settings = build_settings(deployment)
    _check_cross_references(settings, deployment)
    check_environment_size({**settings.to_environment(), **(extra_environment or {})})
    grants = grants_environment(settings, deployment.access)
    if grants is not None:
        check_environment_size({**grants, **(extra_environment or {})})
    parameters = tuple(
        TableMappingParameter(table_mapping_parameter_name(settings.state_root, m), m.parameter_value(), m)
        for m in deployment.table_mappings
    )
    return StackConfig(settings=settings, deployment=deployment, table_mapping_parameters=parameters)


def build_settings(deployment: DeploymentContext) -> Settings:
    """The Lambdas' runtime Settings from the context, with errors naming context keys."""
    tuning: dict[str, Any] = {}
    for key, value in deployment.tuning.items():
        field = _snake(key)
        if field not in Tuning.model_fields:
            known = ", ".join(_camel(name) for name in Tuning.model_fields)
            raise ConfigError(
                f"cdk.json context {CONTEXT_KEY}.tuning.{key}: unknown setting (known: {known})"
            )
        tuning[field] = value
    raw = {
        "domain_id": deployment.domain_id,
        "project_id": deployment.project_id,
        "state_root": deployment.state_root,
        "sources": deployment.sources,
        "asset_type_name": deployment.asset_type_name,
        "tuning": tuning,
        "drift_downstream_depth": deployment.drift_downstream_depth,
        "asset_forms": deployment.asset_forms,
        "glossary_terms": deployment.glossary_terms,
    }
    try:
        settings = Settings.model_validate(raw)
    except ValidationError as error:
        raise ConfigError(_describe(error, prefix=CONTEXT_KEY)) from error
    _check_asset_forms(settings)
    return settings


def _check_asset_forms(settings: Settings) -> None:
    """assetForms against the asset type the stack deploys: no form name of its own, room for all."""
    if not settings.asset_forms:
        return
    from .datazone_types import ASSET_TYPE_FILE  # the CDK import only when there is something to check

    own = set(json.loads(ASSET_TYPE_FILE.read_text(encoding="utf-8"))["forms"])
    taken = clashes(settings.asset_forms, own)
    if taken:
        raise ConfigError(
            f"cdk.json context {CONTEXT_KEY}.assetForms: formName {taken} is a form of the asset type "
            f"({ASSET_TYPE_FILE.name}) already; choose another name"
        )
    if len(own) + len(settings.asset_forms) > MAX_ASSET_FORMS:
        raise ConfigError(
            f"cdk.json context {CONTEXT_KEY}.assetForms: {len(settings.asset_forms)} forms and the asset "
            f"type's {len(own)} pass DataZone's {MAX_ASSET_FORMS} forms an asset"
        )


def _check_cross_references(settings: Settings, deployment: DeploymentContext) -> None:
    registries = {source.key for source in settings.sources}
    seen: set[tuple[str | None, str]] = set()
    for index, mapping in enumerate(deployment.table_mappings):
        key = f"cdk.json context {CONTEXT_KEY}.tableMappings[{index}]"
        if mapping.registry_name is not None and mapping.registry_name not in registries:
            raise ConfigError(
                f"{key}.registryName: {mapping.registry_name!r} is not the registryName of any source "
                "(a source with a roleArn is named <account>:<registryName>)"
            )
        candidates = [
            source
            for source in settings.sources
            if mapping.registry_name is None or source.key == mapping.registry_name
        ]
        if candidates and not any(source.mirrors(mapping.topic) for source in candidates):
            which = (
                f"source {mapping.registry_name!r}" if mapping.registry_name is not None else "every source"
            )
            raise ConfigError(
                f"{key}.topic: {mapping.topic!r} is dropped by the include/exclude filters of {which}, so no "
                "asset or lineage would ever use this mapping; fix the filters or remove the mapping"
            )
        if (mapping.registry_name, mapping.topic) in seen:
            raise ConfigError(f"{key}: topic {mapping.topic!r} is mapped more than once")
        seen.add((mapping.registry_name, mapping.topic))
    longest = max(len(role) for role in MEMBER_ROLES)
    manual = deployment.project_membership == "manual"
    if manual and len(deployment.stack_name) + 1 + longest > IAM_ROLE_NAME_MAX:
        raise ConfigError(
            f'cdk.json context {CONTEXT_KEY}.stackName: with projectMembership "manual" the roles are '
            f"named <stackName>-{max(MEMBER_ROLES, key=len)}, at most {IAM_ROLE_NAME_MAX} characters; use "
            f"a stack name of at most {IAM_ROLE_NAME_MAX - 1 - longest} characters"
        )
    if deployment.notify_breaking_drift and not (deployment.alarm_email or deployment.alarm_topic_arn):
        raise ConfigError(
            f"cdk.json context {CONTEXT_KEY}.notifyBreakingDrift: needs an alarm topic to send to; "
            "set alarmEmail or alarmTopicArn"
        )
    margin = settings.tuning.deadline_margin_seconds
    for field, timeout in (
        ("schemaSyncTimeoutSeconds", deployment.schema_sync_timeout_seconds),
        ("lineageTimeoutSeconds", deployment.lineage_timeout_seconds),
    ):
        # The handlers stop starting work `deadlineMarginSeconds` before the deadline: leave time to work.
        if timeout < margin + 30:
            raise ConfigError(
                f"cdk.json context {CONTEXT_KEY}.{field}: {timeout}s leaves no working time with "
                f"tuning.deadlineMarginSeconds={margin:g}; raise it to at least {margin + 30:g}"
            )


def grants_environment(settings: Settings, access: AccessSettings | None) -> dict[str, str] | None:
    """What subscription-grants reads: the domain, the state root, the asset type, the sources (their roles
    reach clusters in other accounts) and `ACCESS` (only what differs from the defaults)."""
    if access is None:
        return None
    environment = settings.to_environment()
    found = {name: environment[name] for name in GRANTS_VARIABLES if name in environment}
    found[ACCESS_VARIABLE] = access.model_dump_json(by_alias=True, exclude_defaults=True)
    return found


def environment_size(environment: Mapping[str, str]) -> int:
    """Bytes Lambda counts towards its 4 KB environment limit (keys and values)."""
    return sum(len(key.encode()) + len(value.encode()) for key, value in environment.items())


def check_environment_size(environment: Mapping[str, str]) -> None:
    size = environment_size(environment)
    if size > LAMBDA_ENV_LIMIT:
        biggest = max(environment, key=lambda name: len(environment[name].encode()))
        key = {**_context_of_variable(), ACCESS_VARIABLE: "access"}.get(biggest, biggest)
        raise ConfigError(
            f"the functions' environment would be {size} bytes, over Lambda's {LAMBDA_ENV_LIMIT}-byte limit "
            f"(largest: {biggest}, {len(environment[biggest].encode())} bytes, from cdk.json context "
            f"{CONTEXT_KEY}.{key}): "
            + (
                "use fewer or shorter access.consumerRoles patterns (one with `*` can cover many roles)"
                if biggest == ACCESS_VARIABLE
                else "shorten include/exclude patterns or split the sources over two deployments"
            )
        )


def _context_of_variable() -> dict[str, str]:
    """Each environment variable's cdk.json key, from the two maps that name them (a variable the settings
    gain is named by its key without another list to keep)."""
    return {variable: _SETTINGS_KEYS.get(name, name) for name, variable in runtime_variables().items()}


def table_mapping_parameter_name(state_root: str, mapping: TableMapping) -> str:
    """A valid, unique SSM name for an explicit mapping, for any topic and registry name Glue accepts.

    Topic names may hold `$` and `#` (invalid in SSM names) and run to 255 characters, so the leaf is a
    hash of (registry, topic) followed by a sanitised, truncated copy of the topic for readability.
    """
    identity = f"{mapping.registry_name or ''}\x00{mapping.topic}".encode()
    digest = hashlib.sha256(identity).hexdigest()[:16]
    readable = _UNSAFE_SSM_CHARS.sub("_", mapping.topic)[:_READABLE_CHARS]
    name = f"{state_root.rstrip('/')}/{CDK_TABLE_MAPPINGS}/{digest}-{readable}"
    check_ssm_parameter_name(name)
    return name


def check_ssm_parameter_name(name: str) -> None:
    """SSM's documented rules for a full parameter name (the mapping path itself was checked already)."""
    levels = [level for level in name.split("/") if level]
    problems = []
    if not SSM_PATH.fullmatch(name):
        problems.append("characters outside a-z A-Z 0-9 _ . - /")
    if len(levels) > SSM_MAX_LEVELS:
        problems.append(f"more than {SSM_MAX_LEVELS} levels")
    if any(level.lower().startswith(("aws", "ssm")) for level in levels):
        problems.append("a level starting with aws or ssm")
    if SSM_ARN_PREFIX_BUDGET + len(name) > SSM_MAX_ARN:
        problems.append(f"an ARN over {SSM_MAX_ARN} characters")
    if problems:
        raise ConfigError(f"SSM parameter name {name!r} is invalid: {', '.join(problems)}")


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


_SETTINGS_KEYS = {
    "domain_id": "domainId",
    "project_id": "projectId",
    "state_root": "mappingPath",
    "asset_type_name": "assetTypeName",
    "drift_downstream_depth": "driftDownstreamDepth",
    "asset_forms": "assetForms",
    "glossary_terms": "glossaryTerms",
}


def _describe(error: ValidationError, prefix: str) -> str:
    """pydantic errors as `cdk.json context kafkaLineage.key[0].sub: message`, with cdk.json's key names."""

    def key(location: Location, position: int) -> str:
        part = str(location[position])
        if position == 0:
            return _SETTINGS_KEYS.get(part, part)
        return _camel(part) if location[0] == "tuning" else part

    return describe(error, root=f"cdk.json context {prefix}", name=key)


def _rule_database(rule: TableRule) -> str:
    """A table rule's database as the grants name it: `<catalog>/<database>` in a federated catalog."""
    return f"{rule.catalog}/{rule.database}" if rule.catalog else rule.database
