"""The `kafkaLineage` context object: the functions' `Settings` plus what only shapes the stack.

cdk.json writes the settings' keys (`domainId`, `mappingPath`, `sources`, `tuning`...) beside the stack's own
(`stackName`, `schedules`, `alarmEmail`...); `DeploymentContext` gathers the former into its `settings`, so a
setting is declared once, in kafka_lineage.config.Settings, and errors name the key as cdk.json spells it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, StrictBool, field_validator, model_validator

from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.config import SETTINGS_MODEL, Settings
from kafka_lineage.model.names import GlueDatabasePath
from kafka_lineage.model.table_mapping import TableMapping

from .schedules import Schedules

# CloudWatch Logs accepts only these retention periods (PutRetentionPolicy).
LOG_RETENTION_DAYS = (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192)
# CloudFormation stack names: a letter, then letters, digits and hyphens, at most 128 characters.
STACK_NAME = r"^[A-Za-z][A-Za-z0-9-]{0,127}$"
# DataZone domain unit ids (AWS::DataZone::PolicyGrant DomainUnitFilterForProject.DomainUnit).
DOMAIN_UNIT_ID = r"^[a-z0-9_\-]{1,256}$"
_KMS_KEY_ARN = re.compile(r"arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key/[A-Za-z0-9-]{1,128}")
# The roles that must be project members, by the suffix of their fixed names under projectMembership
# "manual" (IAM role names are at most 64 characters).
MEMBER_ROLES = ("SchemaSync", "LineageEmission", "AssetTypeHandler")
IAM_ROLE_NAME_MAX = 64
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_SNS_ARN = re.compile(r"arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}")


def accepted_keys(model: type[BaseModel]) -> frozenset[str]:
    """Every key `model` takes for its fields: names, aliases and the choices of validation aliases."""
    keys: set[str] = set()
    for name, field in model.model_fields.items():
        keys.update({name, field.alias or name})
        choices = getattr(field.validation_alias, "choices", ())
        keys.update(choice for choice in choices if isinstance(choice, str))
    return frozenset(keys)


class DeploymentContext(BaseModel):
    """The `kafkaLineage` context object as written in cdk.json (camelCase keys): the functions' settings,
    then the stack's own."""

    model_config = SETTINGS_MODEL

    settings: Settings = Field(
        description="The functions' settings (kafka_lineage.config.Settings); in cdk.json their keys sit at "
        "the top level of `kafkaLineage`, beside the stack's own."
    )
    stack_name: str = Field(
        default="KafkaLineage",
        pattern=STACK_NAME,
        description="The CloudFormation stack name: a letter, then letters, digits and hyphens (max. 128).",
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
        description="Explicit topic -> table mappings, written as SSM parameters under "
        "`{mappingPath}/table-mappings/cdk/` (lineage's `cdk` tier); a topic at most once per registry.",
    )
    extra_databases: tuple[GlueDatabasePath, ...] = Field(
        default=(),
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
        description="Reserve one schema-sync, two lineage and two subscription-grants runs at a time; turn "
        "off in accounts at the minimum concurrency quota (correctness never depends on it).",
    )
    alarm_email: str | None = Field(
        default=None,
        description="An e-mail address subscribed to a new, KMS-encrypted alarm topic.",
    )
    alarm_topic_arn: str | None = Field(
        default=None, description="An existing SNS topic for the alarms instead."
    )
    # Breaking "Schema Drift Detected" events to the alarm topic too (needs alarmEmail or alarmTopicArn).
    notify_breaking_drift: StrictBool = Field(
        default=False,
        description='Also send each breaking "Schema Drift Detected" event (its detail) to the alarm topic; '
        "needs `alarmEmail` or `alarmTopicArn` (an existing topic must let events.amazonaws.com publish, and "
        "use its key).",
    )
    create_cloud_trail: StrictBool = Field(
        default=False,
        description="Create a single-region trail of write management events, so that Glue Schema Registry "
        "changes reach EventBridge (for an account without such a trail).",
    )
    cloud_trail_retention_days: Annotated[int, Field(ge=1, le=3650)] = Field(
        default=90, description="How long the trail's buckets keep logs."
    )
    asset_type_removal_policy: Literal["retain", "destroy"] = Field(
        default="retain",
        description="`retain` keeps the asset type and form types when the stack is deleted; `destroy` "
        "deletes them (fails while assets of the type exist).",
    )
    log_retention_days: int = Field(
        default=30,
        description="CloudWatch Logs retention of every function, in days: a value CloudWatch accepts "
        "(1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192).",
    )
    schema_sync_memory_mb: Annotated[int, Field(ge=128, le=10240)] = Field(
        default=1024, description="schema-sync's memory, in MB."
    )
    lineage_memory_mb: Annotated[int, Field(ge=128, le=10240)] = Field(
        default=512, description="lineage-emission's memory, in MB."
    )
    schema_sync_timeout_seconds: Annotated[int, Field(ge=60, le=900)] = Field(
        default=900,
        description="schema-sync's timeout; at least `tuning.deadlineMarginSeconds` + 30.",
    )
    lineage_timeout_seconds: Annotated[int, Field(ge=60, le=900)] = Field(
        default=600,
        description="lineage-emission's timeout; at least `tuning.deadlineMarginSeconds` + 30.",
    )
    # Governed domains (docs/governed-domains.md).
    domain_unit_id: str | None = Field(
        default=None,
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
        description=(
            "ARN of the domain's customer managed KMS key, if it has one: both functions may then use that "
            "key (kms:Decrypt, kms:GenerateDataKey), and no other. The deploy checks it against GetDomain."
        ),
    )
    project_membership: Literal["stack", "manual"] = Field(
        default="stack",
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

    @model_validator(mode="before")
    @classmethod
    def _settings_beside(cls, data: Any) -> Any:
        """Gather the settings' keys, written beside the stack's own, into `settings`."""
        if not isinstance(data, Mapping) or "settings" in data:
            return data
        keys = accepted_keys(Settings)
        return {
            "settings": {key: value for key, value in data.items() if key in keys},
            **{key: value for key, value in data.items() if key not in keys},
        }
