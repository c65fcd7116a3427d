"""The functions' environment as the stack writes it: what subscription-grants is given, and Lambda's 4 KB
limit, checked at synth with the cdk.json key of the largest variable named."""

from __future__ import annotations

from collections.abc import Mapping

from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.config import LAMBDA_ENV_LIMIT, ConfigError, Settings, variable

CONTEXT_KEY = "kafkaLineage"
# subscription-grants reads these settings (kafka_lineage.grants.settings and its wiring's SOURCES roles), and
# its own `ACCESS`: it is given only those.
ACCESS_VARIABLE = "ACCESS"
GRANTS_SETTINGS = ("domain_id", "mapping_path", "asset_type_name", "sources")
GRANTS_VARIABLES = tuple(variable(name) for name in GRANTS_SETTINGS)


def grants_environment(settings: Settings, access: AccessSettings | None) -> dict[str, str] | None:
    """What subscription-grants reads: the domain, the state root, the asset type, the sources (their roles
    reach clusters in other accounts) and `ACCESS` (only what differs from the defaults)."""
    if access is None:
        return None
    environment = settings.to_environment()
    found = {name: environment[name] for name in GRANTS_VARIABLES if name in environment}
    found[ACCESS_VARIABLE] = access.model_dump_json(by_alias=True, exclude_defaults=True)
    return found


def environment_size(environment: Mapping[str, str]) -> int:
    """Bytes Lambda counts towards its 4 KB environment limit (keys and values)."""
    return sum(len(key.encode()) + len(value.encode()) for key, value in environment.items())


def context_key_of_variable() -> dict[str, str]:
    """Each variable the stack writes, by its cdk.json key (derived from the settings' fields)."""
    keys = {variable(name): field.alias or name for name, field in Settings.model_fields.items()}
    return {**keys, ACCESS_VARIABLE: "access"}


def check_environment_size(environment: Mapping[str, str]) -> None:
    size = environment_size(environment)
    if size > LAMBDA_ENV_LIMIT:
        biggest = max(environment, key=lambda name: len(environment[name].encode()))
        key = context_key_of_variable().get(biggest, biggest)
        raise ConfigError(
            f"the functions' environment would be {size} bytes, over Lambda's {LAMBDA_ENV_LIMIT}-byte limit "
            f"(largest: {biggest}, {len(environment[biggest].encode())} bytes, from cdk.json context "
            f"{CONTEXT_KEY}.{key}): "
            + (
                "use fewer or shorter access.consumerRoles patterns (one with `*` can cover many roles)"
                if biggest == ACCESS_VARIABLE
                else "shorten include/exclude patterns or split the sources over two deployments"
            )
        )
