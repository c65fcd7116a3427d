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
# What must follow each placeholder: a literal separator, so that one value's groups are never a prefix of
# another's (`{projectId}-*` gives `team-*`, which `team2` cannot reach; `{projectId}*` would cover it).
SEPARATORS = "-._"
WILDCARDS = "*?"
# The principal a cluster policy names for a consumer account: its granted roles, or the account (root).
CLUSTER_PRINCIPALS = ("roles", "account")


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
        "Each must use a placeholder, each placeholder must be followed by a literal separator (`-`, `.` or "
        "`_`), and no wildcard may stand before a placeholder, so one subscriber's groups are never a prefix "
        "of another's. A grant whose project id, environment id or role name contains the separator that "
        "follows its placeholder is refused (its groups could cover another's).",
    )
    cluster_policy_principals: str = Field(
        default="roles",
        alias="clusterPolicyPrincipals",
        description="What an MSK cluster policy names as the principal for a consumer in another account: "
        "`roles` (default), the granted IAM roles themselves; or `account`, the consumer account's root, as "
        "AWS's example does (the consumer account's IAM then decides which of its roles may use the grant).",
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

    @field_validator("cluster_policy_principals")
    @classmethod
    def _principals(cls, value: str) -> str:
        if value not in CLUSTER_PRINCIPALS:
            raise ValueError(f"{value!r} is not one of {', '.join(CLUSTER_PRINCIPALS)}")
        return value

    def admits_role(self, arn: str) -> bool:
        """True when some `consumerRoles` pattern matches the role's full ARN."""
        return any(role_pattern_matches(pattern, arn) for pattern in self.consumer_roles)

    def group_patterns(self, *, project_id: str, environment_id: str, role_name: str) -> tuple[str, ...]:
        """The consumer-group patterns one (project, environment, role) may use, sorted, without repeats."""
        values = {"projectId": project_id, "environmentId": environment_id, "roleName": role_name}
        return tuple(sorted({template.format(**values) for template in self.consumer_groups}))

    def group_overlap(self, *, project_id: str, environment_id: str, role_name: str) -> str | None:
        """Why these values would make groups that could cover another subscriber's, or None: a value that
        holds the separator following its placeholder (`{projectId}-*` and a project `team-x` beside
        `team`: `team-*` covers `team-x-*`)."""
        values = {"projectId": project_id, "environmentId": environment_id, "roleName": role_name}
        for template in self.consumer_groups:
            for name, separator in placeholder_separators(template):
                if separator in values[name]:
                    other = values[name].split(separator)[0]
                    return (
                        f"the {name} {values[name]!r} contains {separator!r}, the separator that follows "
                        f"{{{name}}} in the access.consumerGroups template {template!r}: its consumer groups "
                        f"would fall inside those of another {name} {other!r}, so that subscriber could use "
                        f"them; use a value without {separator!r}, or another separator after {{{name}}} "
                        "in access.consumerGroups"
                    )
        return None

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
    seen = ""  # the literal text before the current placeholder
    for index, (literal, name, spec, conversion) in enumerate(parsed):
        if not _GROUP_LITERAL.fullmatch(literal):
            raise ValueError(
                f"{template!r} holds characters outside [a-zA-Z0-9._-], the wildcards * and ?, "
                "and the placeholders {projectId}, {environmentId}, {roleName}"
            )
        if name is None:
            continue
        if name not in PLACEHOLDERS or spec or conversion:
            raise ValueError(f"{template!r} uses {{{name}}}; the placeholders are {', '.join(PLACEHOLDERS)}")
        seen += literal
        if any(wildcard in seen for wildcard in WILDCARDS):
            raise ValueError(
                f"{template!r} has a wildcard before {{{name}}}: the groups of one {name} could then match "
                "another's"
            )
        after = parsed[index + 1][0] if index + 1 < len(parsed) else ""
        if not after or after[0] not in SEPARATORS:
            raise ValueError(
                f"{template!r}: {{{name}}} must be followed by a literal separator (-, . or _), so that "
                f"the groups of one {name} are never a prefix of another's (e.g. {{{name}}}-*)"
            )
        fields.add(name)
    if not fields:
        raise ValueError(
            f"{template!r} uses no placeholder ({', '.join(PLACEHOLDERS)}): it would give every "
            "subscriber the same groups"
        )


def placeholder_separators(template: str) -> tuple[tuple[str, str], ...]:
    """Each placeholder of a (valid) template with the separator that follows it."""
    parsed = list(string.Formatter().parse(template))
    found: list[tuple[str, str]] = []
    for index, (_, name, _, _) in enumerate(parsed):
        if name is not None and index + 1 < len(parsed) and parsed[index + 1][0]:
            found.append((name, parsed[index + 1][0][0]))
    return tuple(found)
