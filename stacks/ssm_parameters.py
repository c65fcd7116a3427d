"""The SSM parameters the stack writes: cdk.json's explicit table mappings, under names valid for any topic
and registry name Glue accepts (SSM's documented naming rules)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from kafka_lineage.config import SSM_ARN_PREFIX_BUDGET, SSM_MAX_ARN, SSM_MAX_LEVELS, SSM_PATH, ConfigError
from kafka_lineage.model.table_mapping import TableMapping

# Where the stack writes the explicit table mappings of cdk.json (docs/lineage.md).
CDK_TABLE_MAPPINGS = "table-mappings/cdk"
# Leaf names: a 16-hex-digit hash (unique, and never starts with "aws"/"ssm") plus a readable part.
_READABLE_CHARS = 40
_UNSAFE_SSM_CHARS = re.compile(r"[^a-zA-Z0-9_.\-]")


@dataclass(frozen=True)
class TableMappingParameter:
    name: str
    value: str
    mapping: TableMapping


def table_mapping_parameter_name(mapping_path: str, mapping: TableMapping) -> str:
    """A valid, unique SSM name for an explicit mapping, for any topic and registry name Glue accepts.

    Topic names may hold `$` and `#` (invalid in SSM names) and run to 255 characters, so the leaf is a
    hash of (registry, topic) followed by a sanitised, truncated copy of the topic for readability.
    """
    identity = f"{mapping.registry_name or ''}\x00{mapping.topic}".encode()
    digest = hashlib.sha256(identity).hexdigest()[:16]
    readable = _UNSAFE_SSM_CHARS.sub("_", mapping.topic)[:_READABLE_CHARS]
    name = f"{mapping_path.rstrip('/')}/{CDK_TABLE_MAPPINGS}/{digest}-{readable}"
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
