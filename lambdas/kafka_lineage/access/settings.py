"""The `access` settings (the `ACCESS` environment variable): which roles may receive grants, and which
consumer groups a grant covers. Every error names the setting (`access.consumerRoles`, ...)."""

from __future__ import annotations

import json
import re
import string
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from kafka_lineage.config.sources import ExternalId
from kafka_lineage.model.errors import describe

PLACEHOLDERS = ("projectId", "environmentId", "roleName")
DEFAULT_CONSUMER_GROUPS = ("{projectId}-*",)
# A role ARN pattern: an IAM role ARN in which `*` may stand for any run of characters.
_ROLE_PATTERN = re.compile(r"arn:(?:aws|aws-cn|aws-us-gov|\*):iam::(?:\d{12}|\*):role/[\x21-\x7e]+")
# The consumer-account role template: one `{account}` where a role ARN has its account.
_ROLE_TEMPLATE = re.compile(
    r"arn:(?:aws|aws-cn|aws-us-gov):iam::\{account\}:role/(?:[\x21-\x7e]{1,510}/)?[\w+=,.@-]{1,64}"
)
# Outside its placeholders a group template holds Kafka's name characters and IAM's wildcards.
_GROUP_LITERAL = re.compile(r"[a-zA-Z0-9._*?-]*")


class AccessSettingsError(ValueError):
    """A setting of `access` is malformed; the message names it."""


def role_pattern_matches(pattern: str, arn: str) -> bool:
    """True when `arn` matches `pattern`, in which `*` matches any run of characters (slashes too) and every
    other character only itself (case-sensitive, as ARNs compare)."""
    regex = ".*".join(re.escape(part) for part in pattern.split("*"))
    return re.fullmatch(regex, arn, flags=re.DOTALL) is not None


class AccessSettings(BaseModel):
    """The `access` key of `cdk.json`, passed to the function as `ACCESS` (JSON)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    consumer_roles: tuple[str, ...] = Field(
        default=(),
        alias="consumerRoles",
        description="IAM role ARN patterns (`*` matches any run of characters) of the roles that may receive "
        "grants; a role with a path is named by its full ARN. None by default: no role receives a grant.",
    )
    consumer_groups: tuple[str, ...] = Field(
        default=DEFAULT_CONSUMER_GROUPS,
        alias="consumerGroups",
        description="The consumer-group name pattern(s) a grant covers, with the placeholders `{projectId}` "
        "(the subscribing project), `{environmentId}` and `{roleName}`, and IAM's wildcards `*` and `?`. "
        "Each must use a placeholder, so one subscriber's groups are not another's.",
    )

    consumer_account_role: str | None = Field(
        default=None,
        alias="consumerAccountRole",
        description="The role the function assumes to write IAM in a consumer account other than its own, "
        "as an IAM role ARN template with `{account}` (e.g. "
        "`arn:aws:iam::{account}:role/KafkaLineageConsumer`). Unset: grants to roles in other accounts fail "
        "with a cause naming this setting.",
    )
    external_id: ExternalId | None = Field(
        default=None,
        alias="externalId",
        description="The STS external id the function passes when it assumes `consumerAccountRole`.",
    )

    @field_validator("consumer_account_role")
    @classmethod
    def _account_role(cls, value: str | None) -> str | None:
        if value is not None and not _ROLE_TEMPLATE.fullmatch(value):
            raise ValueError(
                f"{value!r} is not an IAM role ARN template "
                "(arn:<partition>:iam::{account}:role/<path/name>)"
            )
        return value

    def account_role(self, account: str) -> str | None:
        """The role to assume for IAM in `account` (None: no `consumerAccountRole` is set)."""
        return (
            None if self.consumer_account_role is None else self.consumer_account_role.format(account=account)
        )

    @field_validator("consumer_roles", mode="before")
    @classmethod
    def _roles_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("consumer_groups", mode="before")
    @classmethod
    def _groups_list(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("consumer_roles")
    @classmethod
    def _roles(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            if not _ROLE_PATTERN.fullmatch(pattern) or len(pattern) > 2048:
                raise ValueError(
                    f"{pattern!r} is not an IAM role ARN pattern (arn:aws:iam::<account>:role/<path/name>, "
                    "`*` for any run of characters)"
                )
        return value

    @field_validator("consumer_groups")
    @classmethod
    def _groups(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("at least one consumer-group pattern is required")
        for template in value:
            _check_group_template(template)
        return value

    def admits_role(self, arn: str) -> bool:
        """True when some `consumerRoles` pattern matches the role's full ARN."""
        return any(role_pattern_matches(pattern, arn) for pattern in self.consumer_roles)

    def group_patterns(self, *, project_id: str, environment_id: str, role_name: str) -> tuple[str, ...]:
        """The consumer-group patterns one (project, environment, role) may use, sorted, without repeats."""
        values = {"projectId": project_id, "environmentId": environment_id, "roleName": role_name}
        return tuple(sorted({template.format(**values) for template in self.consumer_groups}))

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> AccessSettings:
        """Read `ACCESS`; unset or empty: the defaults (no role admitted)."""
        raw = environ.get("ACCESS", "").strip()
        if not raw:
            return cls()
        try:
            loaded = json.loads(raw)
        except json.JSONDecodeError as error:
            raise AccessSettingsError(f"ACCESS is not valid JSON: {error}") from error
        return cls.parse(loaded)

    @classmethod
    def parse(cls, value: Any) -> AccessSettings:
        """Validate the `access` object; errors name `access.consumerRoles` or `access.consumerGroups`."""
        if not isinstance(value, dict):
            raise AccessSettingsError("access must be an object {consumerRoles, consumerGroups}")
        try:
            return cls.model_validate(value)
        except ValidationError as error:
            raise AccessSettingsError("invalid settings: " + describe(error, root="access")) from error


def _check_group_template(template: str) -> None:
    if not 1 <= len(template) <= 255:
        raise ValueError(f"{template!r} must be 1-255 characters")
    fields: set[str] = set()
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as error:
        raise ValueError(f"{template!r} has an unbalanced brace: {error}") from error
    for literal, name, spec, conversion in parsed:
        if not _GROUP_LITERAL.fullmatch(literal):
            raise ValueError(
                f"{template!r} holds characters outside [a-zA-Z0-9._-], the wildcards * and ?, "
                "and the placeholders {projectId}, {environmentId}, {roleName}"
            )
        if name is None:
            continue
        if name not in PLACEHOLDERS or spec or conversion:
            raise ValueError(f"{template!r} uses {{{name}}}; the placeholders are {', '.join(PLACEHOLDERS)}")
        fields.add(name)
    if not fields:
        raise ValueError(
            f"{template!r} uses no placeholder ({', '.join(PLACEHOLDERS)}): it would give every "
            "subscriber the same groups"
        )
