"""SSM Parameter Store's documented naming rules and value-size limits, where moto does not enforce them.

Rules (AWS Systems Manager User Guide, "Requirements and constraints for parameter names", and
PutParameter's API reference): only a-zA-Z0-9_.- and '/'; a name with a '/' is fully qualified and starts
with '/'; at most 15 hierarchy levels; no name prefixed with "aws" or "ssm" in any case (public parameters
under /aws/service/ may be read); the parameter's ARN at most 1011 characters; values at most 4 KB on the
standard tier, 8 KB on the advanced. Error messages are the ones real SSM returns where known.

moto's PutParameter refuses a reserved prefix on a name's first level, with the answers real SSM is seen
to give (AccessDeniedException "No access to reserved parameter name: ..." for an /aws/ path, as the SSM
console shows; ValidationException for the rest): that check is moto's, so a PutParameter's first level is
left to it. moto checks nothing else here (characters, depth, ARN length, value size), nor reserved
prefixes on deeper levels or in other operations: those stay.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from local.standins.errors import ServiceError
from local.standins.readings import Readings

_SUBPATHS = (
    "If formed as a path, it can consist of sub-paths divided by slash symbol; each sub-path can be formed "
    "as a mix of letters, numbers and the following 3 symbols .-_"
)
NAME_MESSAGE = f'Parameter name: can\'t be prefixed with "ssm" (case-insensitive). {_SUBPATHS}'
RESERVED_MESSAGE = f'Parameter name: can\'t be prefixed with "aws" or "ssm" (case-insensitive). {_SUBPATHS}'
PATH_MESSAGE = (
    "The parameter doesn't meet the parameter name requirements. The parameter name must begin with a "
    'forward slash "/". It can\'t be prefixed with "aws" or "ssm" (case-insensitive). It must use only '
    "letters, numbers, or the following symbols: . (period), - (hyphen), _ (underscore). Special characters "
    'are not allowed. All sub-paths, if specified, must use the forward slash symbol "/". Valid example: '
    "/get/parameters2-/by1./path0_."
)
DEPTH_MESSAGE = (
    "A hierarchy can have a maximum of 15 levels. For more information, see Requirements and constraints for "
    "parameter names in the AWS Systems Manager User Guide."
)
STANDARD_VALUE_MESSAGE = (
    "Standard tier parameters support a maximum parameter value of 4096 characters. To create a larger "
    "parameter value, upgrade the parameter to use the advanced-parameter tier. For more information, see "
    "https://docs.aws.amazon.com/systems-manager/latest/userguide/parameter-store-advanced-parameters.html"
)

MAX_LEVELS = 15
MAX_ARN_LENGTH = 1011
STANDARD_VALUE_BYTES = 4096
ADVANCED_VALUE_BYTES = 8192
_ALLOWED = re.compile(r"[a-zA-Z0-9_.\-/]+")
_RESERVED = ("aws", "ssm")
_PUBLIC_PREFIX = "/aws/service/"
_WRITES = {
    "PutParameter",
    "DeleteParameter",
    "DeleteParameters",
    "LabelParameterVersion",
    "UnlabelParameterVersion",
    "AddTagsToResource",
    "RemoveTagsFromResource",
}


def parameter_arn(name: str, region: str, account: str) -> str:
    partition = (
        "aws-cn" if region.startswith("cn-") else "aws-us-gov" if region.startswith("us-gov-") else "aws"
    )
    return f"arn:{partition}:ssm:{region}:{account}:parameter{'' if name.startswith('/') else '/'}{name}"


def check_request(
    operation: str,
    params: dict[str, Any],
    *,
    region: str,
    account: str,
    readings: Readings,
    current_tier: Callable[[str], str | None],
) -> None:
    """Raise SSM's error for the first naming or size rule `params` break. `current_tier(name)` is the tier of
    the parameter as stored, or None when it doesn't exist yet."""
    write = operation in _WRITES
    names: list[str] = []
    if isinstance(params.get("Name"), str):
        names.append(params["Name"])
    if isinstance(params.get("Names"), list):
        names.extend(n for n in params["Names"] if isinstance(n, str))
    if params.get("ResourceType") == "Parameter" and isinstance(params.get("ResourceId"), str):
        names.append(params["ResourceId"])
    for name in names:
        bare = _bare_name(name)
        skip = 1 if operation == "PutParameter" else 0  # moto refuses a reserved first level itself
        check_name(bare, region=region, account=account, readings=readings, write=write, skip_levels=skip)
    if operation == "GetParametersByPath" and isinstance(params.get("Path"), str):
        check_path(params["Path"], readings=readings)
    if (
        operation == "PutParameter"
        and isinstance(params.get("Value"), str)
        and isinstance(params.get("Name"), str)
    ):
        name = params["Name"].strip()
        tier = params.get("Tier") or current_tier(name) or "Standard"
        check_value(params["Value"], tier)


def _bare_name(name: str) -> str:
    """GetParameter(s) also take an ARN and a `:version` or `:label` selector; the rules apply to the name."""
    name = name.strip()
    if name.startswith("arn:"):
        _, _, name = name.partition(":parameter")
    return name.partition(":")[0]


def _levels(name: str) -> list[str]:
    return name.strip("/").split("/")


def _reserved(levels: list[str], readings: Readings, skip_levels: int = 0) -> bool:
    checked = levels if readings.ssm_reserved_prefix_every_level else levels[:1]
    return any(level.lower().startswith(_RESERVED) for level in checked[skip_levels:])


def check_name(
    name: str, *, region: str, account: str, readings: Readings, write: bool = True, skip_levels: int = 0
) -> None:
    """Raise for the first rule `name` breaks; the reserved-prefix rule from level `skip_levels` on."""
    if not _ALLOWED.fullmatch(name):
        raise ServiceError("ValidationException", NAME_MESSAGE)
    hierarchical = "/" in name
    if hierarchical and (not name.startswith("/") or name.endswith("/") or "//" in name):
        raise ServiceError("ValidationException", NAME_MESSAGE)
    levels = _levels(name)
    public_read = not write and name.lower().startswith(_PUBLIC_PREFIX)
    if not public_read and _reserved(levels, readings, skip_levels):
        raise ServiceError("ValidationException", RESERVED_MESSAGE)
    if len(levels) > MAX_LEVELS:
        raise ServiceError("HierarchyLevelLimitExceededException", DEPTH_MESSAGE)
    arn = parameter_arn(name, region, account)
    if len(arn) > MAX_ARN_LENGTH:
        raise ServiceError(
            "ValidationException",
            f"Parameter name is too long: its ARN has {len(arn)} characters and may have at most "
            f"{MAX_ARN_LENGTH} (arn:<partition>:ssm:<region>:<account>:parameter followed by the name).",
        )


def check_path(path: str, *, readings: Readings) -> None:
    if not path.startswith("/") or not _ALLOWED.fullmatch(path) or "//" in path:
        raise ServiceError("ValidationException", PATH_MESSAGE)
    if path == "/":
        return
    levels = _levels(path)
    if not path.lower().startswith(_PUBLIC_PREFIX) and _reserved(levels, readings):
        raise ServiceError("ValidationException", PATH_MESSAGE)
    if len(levels) > MAX_LEVELS:
        raise ServiceError("HierarchyLevelLimitExceededException", DEPTH_MESSAGE)


def check_value(value: str, tier: str) -> None:
    size = len(value.encode("utf-8"))
    if tier == "Standard" and size > STANDARD_VALUE_BYTES:
        raise ServiceError("ValidationException", STANDARD_VALUE_MESSAGE)
    if size > ADVANCED_VALUE_BYTES:
        raise ServiceError(
            "ValidationException",
            f"Advanced tier parameters support a maximum parameter value of {ADVANCED_VALUE_BYTES} "
            f"characters; this value has {size} bytes.",
        )
