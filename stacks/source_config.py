"""Settings of a source-account stack: the `kafkaLineageSource` context value (JSON, or a JSON file's path).

    npx cdk synth -c kafkaLineageSource=source-account.json     # or -c kafkaLineageSource='{"...": ...}'

Keys (camelCase):
- `trustedRoleArns` (required): the governance stack's function roles (its outputs SchemaSyncRoleArn and
  LineageRoleArn, and SubscriptionGrantsRoleArn with `grantAccess`), the only principals the role trusts; all
  in one account, the governance account.
- `externalId` (required): sent by the functions with AssumeRole (the governance source's `externalId`).
- `registries` (required): the Glue Schema Registry registries the functions mirror from this account.
- `databases`: the Glue Data Catalog databases whose tables the topics feed (lineage reads their columns).
- `readBrokers` (default true): kafka:GetBootstrapBrokers, for a source without an explicit `namespace`.
- `readConnectors` (default true): MSK Connect reads (ListConnectors, DescribeConnector), for connector-
  derived lineage, which the governance stack's sources do by default; turn it off together with
  `"connectors": "off"` on the governance side's source, or lineage reports the denied listing every run.
- `readDelivery` (default true): the reads of the managed delivery paths in this account: MSK Data Delivery
  channels (ListChannels, DescribeChannel), Firehose streams (ListDeliveryStreams, DescribeDeliveryStream)
  and the metadata of S3 Tables catalogs (GetTable, GetTables); turn it off together with `"channels": "off"`
  and `"firehose": "off"` on the governance side's source, or lineage reports the denied listings.
- `readConsumers` (default true): cloudwatch ListMetrics, which lists the consumer groups that read this
  account's clusters (MSK's consumer-lag metrics); turn it off together with `"consumers": "off"` on the
  governance side's source, or lineage reports the denied listing every run.
- `glueLineage` (default false): glue:PostLineageEvent (on `*`), for a governance stack whose
  `lineageTargets` holds "glue": the edges whose tables are in this account go into its Glue lineage graph.
- `grantAccess` (default false): let the role describe the clusters listed in `clusters` and read and write
  their cluster policies, so that the governance stack's subscription-grants function (its output
  `SubscriptionGrantsRoleArn`, added to `trustedRoleArns`) can grant their topics to roles in other accounts.
- `clusters`: this account's MSK clusters (full ARNs) whose policies `grantAccess` covers; required with it.
- `roleName` (default `kafka-lineage-source-reader`): the role's name, so its ARN is known before deploying.
- `forwardEvents` (default true): forward this account's Glue Schema Registry CloudTrail events to the
  governance account's default bus (targeted syncs; needs CloudTrail management events in this account).
- `stackName` (default `KafkaLineageSource`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import (
    BaseModel,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from kafka_lineage.access.arns import CLUSTER_ARN
from kafka_lineage.config import ROLE_ARN, SETTINGS_MODEL, ConfigError
from kafka_lineage.config.sources import ExternalId
from kafka_lineage.model.errors import describe
from kafka_lineage.model.names import GlueCatalogName, GlueName

# What the source and the consumer account stacks both take: their own CloudFormation stack name, and the
# external id their role's trust asks of the governance stack's AssumeRole (the functions' one type).
StackName = Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9-]{0,127}$")]  # anchored: pydantic searches

SOURCE_CONTEXT_KEY = "kafkaLineageSource"
DEFAULT_ROLE_NAME = "kafka-lineage-source-reader"


class SourceAccountConfig(BaseModel):
    model_config = SETTINGS_MODEL

    stack_name: StackName = Field(
        default="KafkaLineageSource", description="The source stack's CloudFormation stack name."
    )
    trusted_role_arns: tuple[str, ...] = Field(
        min_length=1,
        description="The governance stack's function roles (its outputs `SchemaSyncRoleArn` and "
        "`LineageRoleArn`, and `SubscriptionGrantsRoleArn` with `grantAccess`), the only principals the "
        "role trusts; all in the governance account.",
    )
    external_id: ExternalId = Field(
        description="The external id the functions send with AssumeRole (the governance source's "
        "`externalId`).",
    )
    registries: tuple[GlueName, ...] = Field(
        min_length=1,
        description="The Glue Schema Registry registries the functions mirror from this account.",
    )
    databases: tuple[GlueCatalogName, ...] = Field(
        default=(),
        description="The Glue Data Catalog databases whose tables the topics feed (lineage reads them).",
    )
    read_brokers: StrictBool = Field(
        default=True,
        description="Allow kafka:GetBootstrapBrokers, for a source without an explicit `namespace`.",
    )
    read_connectors: StrictBool = Field(
        default=True,
        description="Allow the MSK Connect reads (ListConnectors, DescribeConnector) of connector-derived "
        'lineage; turn it off together with `"connectors": "off"` on the governance side\'s source, or '
        "lineage reports the denied listing every run.",
    )
    read_delivery: StrictBool = Field(
        default=True,
        description="Allow the reads of the managed delivery paths: MSK Data Delivery channels (kafka "
        "ListChannels, DescribeChannel), Firehose streams (ListDeliveryStreams, DescribeDeliveryStream) and "
        'the metadata of S3 Tables catalogs; turn it off together with `"channels": "off"` and '
        '`"firehose": "off"` on the governance side\'s source, or lineage reports the denied listings.',
    )
    read_consumers: StrictBool = Field(
        default=True,
        description="Allow cloudwatch:ListMetrics, which lists the consumer groups that read this account's "
        'clusters (MSK\'s consumer-lag metrics); turn it off together with `"consumers": "off"` on the '
        "governance side's source, or lineage reports the denied listing every run.",
    )
    glue_lineage: StrictBool = Field(
        default=False,
        description="Allow glue:PostLineageEvent (on `*`: it has no resource-level permission), for a "
        'governance stack whose `lineageTargets` holds "glue" and whose edges have their tables in this '
        "account (or, without a table, this account's clusters): lineage posts them into this account's "
        "Glue lineage graph.",
    )
    grant_access: StrictBool = Field(
        default=False,
        description="Let the role describe the clusters listed in `clusters` and read and write their "
        "cluster policies (kafka DescribeClusterV2, GetClusterPolicy, PutClusterPolicy, DeleteClusterPolicy "
        "on those clusters only), so that the governance stack's subscription-grants function can grant "
        "their topics to roles in other accounts than this one. Add its output `SubscriptionGrantsRoleArn` "
        "to `trustedRoleArns`. Off: a grant that needs such a cluster's policy fails with AccessDenied.",
    )
    clusters: tuple[str, ...] = Field(
        default=(),
        description="This account's MSK clusters whose policies `grantAccess` lets the role write, as full "
        "cluster ARNs (the governance stack's `sources[].clusterArn`); required with `grantAccess`, and only "
        "with it.",
    )
    role_name: str = Field(
        default=DEFAULT_ROLE_NAME,
        pattern=r"[\w+=,.@-]{1,64}",
        description="The read-only role's name, fixed so that its ARN is known before deploying.",
    )
    forward_events: StrictBool = Field(
        default=True,
        description="Forward this account's Glue Schema Registry CloudTrail events to the governance "
        "account's default bus (targeted syncs; needs CloudTrail management events in this account).",
    )

    @field_validator("trusted_role_arns")
    @classmethod
    def _roles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for arn in value:
            if not ROLE_ARN.fullmatch(arn):
                raise ValueError(f"{arn!r} is not an IAM role ARN")
        return value

    @field_validator("registries", "databases")
    @classmethod
    def _unique(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(set(value)))

    @field_validator("clusters")
    @classmethod
    def _clusters(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for arn in value:
            if not CLUSTER_ARN.fullmatch(arn):
                raise ValueError(
                    f"{arn!r} is not an MSK cluster ARN (arn:<partition>:kafka:<region>:<account>:"
                    "cluster/<name>/<uuid>, no wildcard)"
                )
        accounts = {arn.split(":")[4] for arn in value}
        if len(accounts) > 1:
            raise ValueError(f"the clusters are in several accounts {sorted(accounts)}: give this account's")
        return tuple(sorted(set(value)))

    @model_validator(mode="after")
    def _clusters_with_grant_access(self) -> SourceAccountConfig:
        if self.grant_access and not self.clusters:
            raise ValueError(
                "grantAccess is true but clusters is empty: name the clusters whose policies the role may "
                "write (their ARNs)"
            )
        if self.clusters and not self.grant_access:
            raise ValueError("clusters is given without grantAccess: it is only read with grantAccess true")
        return self

    @property
    def clusters_account(self) -> str | None:
        """The account of `clusters` (one, by validation), or None without them."""
        return self.clusters[0].split(":")[4] if self.clusters else None

    @model_validator(mode="after")
    def _one_governance_account(self) -> SourceAccountConfig:
        if len(self.governance_accounts) != 1:
            raise ValueError(
                f"trustedRoleArns are in several accounts {sorted(self.governance_accounts)}: give the "
                "governance stack's two function roles"
            )
        return self

    @property
    def governance_accounts(self) -> set[str]:
        return {found["account"] for arn in self.trusted_role_arns if (found := ROLE_ARN.fullmatch(arn))}

    @property
    def governance_account(self) -> str:
        return next(iter(self.governance_accounts))


def as_source_config(config: Any) -> SourceAccountConfig:
    """What the KafkaLineageSource construct accepts: the typed model, or the context object (a dict, its JSON
    text or a JSON file's path) validated as the context is."""
    if isinstance(config, SourceAccountConfig):
        return config
    loaded = load_source_config(config)
    if loaded is None:
        raise ConfigError(
            f"context {SOURCE_CONTEXT_KEY} is empty: trustedRoleArns, externalId and registries are required"
        )
    return loaded


def load_source_config(raw: Any) -> SourceAccountConfig | None:
    """The source stack's settings, or None when the context does not ask for one. `raw` is a JSON object,
    its text, or the path of a JSON file. Errors name the context key."""
    return load_context_object(raw, SOURCE_CONTEXT_KEY, SourceAccountConfig)


Model = TypeVar("Model", bound=BaseModel)


def load_context_object(raw: Any, key: str, model: type[Model]) -> Model | None:
    """A `-c <key>=...` context object (a JSON object, its text, or the path of a JSON file) validated by
    `model`, or None when the context does not ask for one; keys starting with `_` are comments. Errors name
    the context key and the member at fault."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):
        text = raw
        if not raw.lstrip().startswith("{"):
            path = Path(raw)
            if not path.is_file():
                raise ConfigError(f"context {key}: {raw!r} is neither JSON nor a file")
            text = path.read_text()
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as error:
            raise ConfigError(f"context {key} is not valid JSON: {error}") from error
    if not isinstance(raw, dict):
        raise ConfigError(f"context {key} must be an object, not {type(raw).__name__}")
    values = {name: value for name, value in raw.items() if not str(name).startswith("_")}
    try:
        return model.model_validate(values)
    except ValidationError as error:
        raise ConfigError(f"invalid context: {describe(error, root=key, model=model)}") from error
