"""Settings of a consumer-account stack: the `kafkaLineageConsumer` context value (JSON, or a JSON file's
path).

    npx cdk synth -c kafkaLineageConsumer=consumer-account.json   # or -c kafkaLineageConsumer='{"...": ...}'

The stack holds the role subscription-grants assumes to write IAM in this account (the governance stack's
`access.consumerAccountRole`). Keys (camelCase): `trustedRoleArn` (the governance stack's output
`SubscriptionGrantsRoleArn`), `externalId` (its `access.externalId`), `consumerRoles` (this account's roles
that may receive grants), `roleName` and `stackName`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.config import ROLE_ARN, SETTINGS_MODEL, ConfigError

from .source_config import ExternalId, StackName, load_context_object

CONSUMER_CONTEXT_KEY = "kafkaLineageConsumer"
DEFAULT_ROLE_NAME = "KafkaLineageConsumer"


class ConsumerAccountConfig(BaseModel):
    """The consumer-account stack: the role subscription-grants assumes to write IAM in this account."""

    model_config = SETTINGS_MODEL

    stack_name: StackName = Field(
        default="KafkaLineageConsumer", description="The consumer stack's CloudFormation stack name."
    )
    trusted_role_arn: str = Field(
        description="The governance stack's subscription-grants role (its output "
        "`SubscriptionGrantsRoleArn`), the only principal the role trusts.",
    )
    external_id: ExternalId = Field(
        description="The external id subscription-grants sends with AssumeRole (the governance stack's "
        "`access.externalId`).",
    )
    consumer_roles: tuple[str, ...] = Field(
        min_length=1,
        description="This account's roles that may receive grants, as IAM role ARN patterns (`*` matches any "
        "run of characters): the role may write IAM on these roles only, and only our own policies. The "
        "governance stack's `access.consumerRoles` decides which grants are fulfilled; this bounds what its "
        "function can do here.",
    )
    role_name: str = Field(
        default=DEFAULT_ROLE_NAME,
        pattern=r"^[\w+=,.@-]{1,64}$",
        description="The role's name, fixed so that the governance stack's `access.consumerAccountRole` "
        "(`arn:aws:iam::{account}:role/<roleName>`) names it before it is deployed.",
    )

    @field_validator("trusted_role_arn")
    @classmethod
    def _trusted(cls, value: str) -> str:
        if not ROLE_ARN.fullmatch(value):
            raise ValueError(f"{value!r} is not an IAM role ARN")
        return value

    @field_validator("consumer_roles", mode="before")
    @classmethod
    def _roles_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("consumer_roles")
    @classmethod
    def _roles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # The patterns the governance stack's access.consumerRoles takes, read the same way.
        try:
            return AccessSettings.model_validate({"consumerRoles": list(value)}).consumer_roles
        except ValidationError as error:
            raise ValueError(error.errors()[0]["ctx"]["error"]) from None


def as_consumer_config(config: Any) -> ConsumerAccountConfig:
    """What the KafkaLineageConsumer construct accepts: the typed model, or the context object (a dict, its
    JSON text or a JSON file's path) validated as the context is."""
    if isinstance(config, ConsumerAccountConfig):
        return config
    loaded = load_consumer_config(config)
    if loaded is None:
        raise ConfigError(
            f"context {CONSUMER_CONTEXT_KEY} is empty: trustedRoleArn, externalId and consumerRoles are "
            "required"
        )
    return loaded


def load_consumer_config(raw: Any) -> ConsumerAccountConfig | None:
    """The consumer stack's settings, or None when the context does not ask for one. Errors name the key."""
    return load_context_object(raw, CONSUMER_CONTEXT_KEY, ConsumerAccountConfig)
