"""Runtime settings: the Lambda environment, validated once, shared by the functions and the stack.

- `settings`: `Settings` (one field per setting: cdk.json key and environment variable both derived from its
  name), `Tuning`, the environment codec and `ConfigError`;
- `sources`: `Source` (a `sources[]` entry), its table rule and the filters of what lineage reads.

The stack builds the same `Settings` from cdk.json at synth time, so a value that would fail at run time
fails `cdk synth` first. Every error names the setting at fault (the variable, or the cdk.json key).
"""

from __future__ import annotations

from kafka_lineage.model import ssm_names

from .settings import (
    ASSET_TYPE_NAME_MAX,
    DEFAULT_ASSET_TYPE_NAME,
    DEFAULT_DRIFT_DOWNSTREAM_DEPTH,
    DEFAULT_MAPPING_PATH,
    DEPRECATED_KEYS,
    DOMAIN_ID,
    MAX_DRIFT_DOWNSTREAM_DEPTH,
    PROJECT_ID,
    SETTINGS_MODEL,
    ConfigError,
    Settings,
    Tuning,
    environment_variables,
    read_settings,
    variable,
)
from .sources import (
    DEFAULT_JOB_NAMESPACE,
    EXTERNAL_ID,
    KAFKA_CLUSTER_ARN,
    ROLE_ARN,
    ConnectorFilter,
    ConsumerFilter,
    DeliveryFilter,
    Source,
    TableRule,
)

# SSM's naming rules live in model/ssm_names.py; the stack and the tests read them from here too.
SSM_PATH = ssm_names.SSM_PATH
SSM_MAX_ARN = ssm_names.SSM_MAX_ARN
SSM_MAX_LEVELS = ssm_names.SSM_MAX_LEVELS
SSM_ARN_PREFIX_BUDGET = ssm_names.SSM_ARN_PREFIX_BUDGET
SSM_OWN_SUFFIX_BUDGET = ssm_names.SSM_OWN_SUFFIX_BUDGET
LAMBDA_ENV_LIMIT = 4096

__all__ = [
    "ASSET_TYPE_NAME_MAX",
    "DEFAULT_ASSET_TYPE_NAME",
    "DEFAULT_DRIFT_DOWNSTREAM_DEPTH",
    "DEFAULT_JOB_NAMESPACE",
    "DEFAULT_MAPPING_PATH",
    "DEPRECATED_KEYS",
    "DOMAIN_ID",
    "EXTERNAL_ID",
    "KAFKA_CLUSTER_ARN",
    "LAMBDA_ENV_LIMIT",
    "MAX_DRIFT_DOWNSTREAM_DEPTH",
    "PROJECT_ID",
    "ROLE_ARN",
    "SETTINGS_MODEL",
    "SSM_ARN_PREFIX_BUDGET",
    "SSM_MAX_ARN",
    "SSM_MAX_LEVELS",
    "SSM_OWN_SUFFIX_BUDGET",
    "SSM_PATH",
    "ConfigError",
    "ConnectorFilter",
    "ConsumerFilter",
    "DeliveryFilter",
    "Settings",
    "Source",
    "TableRule",
    "Tuning",
    "environment_variables",
    "read_settings",
    "variable",
]
