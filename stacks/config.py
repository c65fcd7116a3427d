"""Deployment settings: the `kafkaLineage` object in cdk.json context, validated when the app synthesizes.

The runtime part (domain, project, mapping path, sources, tuning...) is the same `Settings` the functions read
from their environment (lambdas/kafka_lineage/config), so a value that would fail at run time fails
`cdk synth` first. The rest (schedules, alarms, trail, table mappings, ...) only shapes the stack. Every error
names the context key at fault, e.g. `kafkaLineage.sources[0].clusterArn`.

The parts: `deployment` (the context model), `schedules` (EventBridge expressions), `function_environment`
(what the functions are given, and Lambda's 4 KB), `ssm_parameters` (the mappings' parameter names); this
module loads the context and checks what spans them (`StackConfig`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from kafka_lineage.config import (
    ASSET_TYPE_NAME_MAX,
    DEPRECATED_KEYS,
    LAMBDA_ENV_LIMIT,
    ConfigError,
    Settings,
    Source,
    TableRule,
)
from kafka_lineage.model.asset_forms import clashes
from kafka_lineage.model.errors import Location, describe

from .deployment import (
    DOMAIN_UNIT_ID,
    IAM_ROLE_NAME_MAX,
    LOG_RETENTION_DAYS,
    MEMBER_ROLES,
    STACK_NAME,
    DeploymentContext,
)
from .function_environment import (
    ACCESS_VARIABLE,
    CONTEXT_KEY,
    GRANTS_VARIABLES,
    check_environment_size,
    environment_size,
    grants_environment,
)
from .schedules import SCHEDULE_OFF, Schedules
from .ssm_parameters import (
    CDK_TABLE_MAPPINGS,
    TableMappingParameter,
    check_ssm_parameter_name,
    table_mapping_parameter_name,
)

__all__ = [
    "ACCESS_VARIABLE",
    "ASSET_TYPE_NAME_MAX",
    "CDK_TABLE_MAPPINGS",
    "CONTEXT_KEY",
    "DOMAIN_UNIT_ID",
    "GRANTS_VARIABLES",
    "IAM_ROLE_NAME_MAX",
    "LAMBDA_ENV_LIMIT",
    "LOG_RETENTION_DAYS",
    "MEMBER_ROLES",
    "PLACEHOLDER_MARK",
    "SCHEDULE_OFF",
    "STACK_NAME",
    "DeploymentContext",
    "Schedules",
    "StackConfig",
    "TableMappingParameter",
    "as_stack_config",
    "check_environment_size",
    "check_ssm_parameter_name",
    "config_from_context",
    "environment_size",
    "grants_environment",
    "load_config",
    "table_mapping_parameter_name",
]

MAX_ASSET_FORMS = 10  # CreateAsset formsInput: an asset carries at most 10 forms
PLACEHOLDER_MARK = "PLACEHOLDER"


@dataclass(frozen=True)
class StackConfig:
    """Everything the stack needs: validated runtime settings plus stack-only settings."""

    settings: Settings
    deployment: DeploymentContext
    table_mapping_parameters: tuple[TableMappingParameter, ...]
    # cdk.json keys written in a spelling accepted for one release more (DEPRECATED_KEYS).
    deprecated_keys: tuple[str, ...] = ()

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
    def own_cluster_arns(self) -> list[str]:
        """The MSK clusters of the sources read in this account (another account's through its role)."""
        return sorted({source.cluster_arn for source in self.own_sources})

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
        found += [
            f"cdk.json context {CONTEXT_KEY}.{key} is deprecated: write {DEPRECATED_KEYS[key]} (the old "
            "spelling is accepted until the next release)"
            for key in self.deprecated_keys
        ]
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
        raise ConfigError(_describe(error)) from error
    config = config_from_context(deployment, extra_environment)
    deprecated = tuple(key for key in values if key in DEPRECATED_KEYS)
    return replace(config, deprecated_keys=deprecated)


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
    """The checks beyond the model's own: the asset forms, cross-references and Lambda's limits."""
    settings = deployment.settings
    _check_asset_forms(settings)
    _check_cross_references(settings, deployment)
    check_environment_size({**settings.to_environment(), **(extra_environment or {})})
    grants = grants_environment(settings, deployment.access)
    if grants is not None:
        check_environment_size({**grants, **(extra_environment or {})})
    parameters = tuple(
        TableMappingParameter(table_mapping_parameter_name(settings.mapping_path, m), m.parameter_value(), m)
        for m in deployment.table_mappings
    )
    return StackConfig(settings=settings, deployment=deployment, table_mapping_parameters=parameters)


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


def _describe(error: ValidationError) -> str:
    """pydantic errors as `cdk.json context kafkaLineage.key[0].sub: message`. The locations already hold
    the keys as cdk.json spells them; the settings' keys sit at the top level, not under `settings`."""

    def key(location: Location, position: int) -> str:
        part = str(location[position])
        return "" if (position, part) == (0, "settings") else part

    return describe(error, root=f"cdk.json context {CONTEXT_KEY}", name=key, model=DeploymentContext)


def _rule_database(rule: TableRule) -> str:
    """A table rule's database as the grants name it: `<catalog>/<database>` in a federated catalog."""
    return f"{rule.catalog}/{rule.database}" if rule.catalog else rule.database
