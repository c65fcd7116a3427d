"""SSM parameter names: the documented naming rules, and the room a state root must leave below it."""

from __future__ import annotations

import re

# SSM: letters, digits, `_ . -` and `/`; at most 15 levels; no level may start with aws/ssm; the full ARN
# `arn:aws:ssm:<region>:<account>:parameter<name>` at most 1,011 characters.
SSM_PATH = re.compile(r"(/[a-zA-Z0-9_.\-]+)+")
SSM_MAX_ARN = 1011
SSM_MAX_LEVELS = 15
# The longest ARN prefix we plan for: a 25-character partition-qualified region, a 12-digit account.
SSM_ARN_PREFIX_BUDGET = len("arn:aws-iso-b:ssm:") + 25 + len(":123456789012:parameter")
# The deepest name the project itself writes under MAPPING_PATH (see mapping_store): `/lineage/ff-9999`.
SSM_OWN_SUFFIX_BUDGET = len("/table-mappings/cdk/") + 64


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
