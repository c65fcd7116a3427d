"""kafka-lineage as CDK constructs: embed the whole stack in your own CDK app.

    from kafka_lineage_cdk import KafkaLineage

    KafkaLineage(my_stack, "KafkaLineage", config={"domainId": ..., "projectId": ..., "sources": [...]})

`config` takes the keys of the `kafkaLineage` cdk.json context (a dict, validated as cdk.json is, with errors
naming the key at fault), or the typed model `KafkaLineageConfig`. `KafkaLineageSource` (config: the keys of
`kafkaLineageSource`, or `KafkaLineageSourceConfig`) is the source-account part, and `KafkaLineageConsumer`
(config: the keys of `kafkaLineageConsumer`, or `KafkaLineageConsumerConfig`) the role that writes
subscription grants' IAM access in a consumer account.

The exports load on first use: importing the package (the command line does) does not start CDK's jsii
runtime. The constructs live in the `stacks` package and the functions' code in theirs (`kafka_lineage`,
`schema_sync`, ...): top-level both in a checkout (stacks/, lambdas/) and in the installed wheel, so each
module has one name (pyproject.toml, the wheel, says why). Nothing here touches sys.path.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# The one version source: the build backend reads it (pyproject.toml [tool.hatch.version]). Semantic
# versioning; CHANGELOG.md says what each version changed.
__version__ = "0.2.0.dev0"

_EXPORTS = {
    "KafkaLineage": ("lineage_stack", "KafkaLineage"),
    "KafkaLineageConfig": ("config", "DeploymentContext"),
    "KafkaLineageSource": ("source_stack", "KafkaLineageSource"),
    "KafkaLineageSourceConfig": ("source_config", "SourceAccountConfig"),
    "KafkaLineageConsumer": ("consumer_stack", "KafkaLineageConsumer"),
    "KafkaLineageConsumerConfig": ("consumer_config", "ConsumerAccountConfig"),
}
__all__ = [
    "ConfigError",
    "KafkaLineage",
    "KafkaLineageConfig",
    "KafkaLineageConsumer",
    "KafkaLineageConsumerConfig",
    "KafkaLineageSource",
    "KafkaLineageSourceConfig",
]

if TYPE_CHECKING:
    from kafka_lineage.config import ConfigError
    from stacks.config import DeploymentContext as KafkaLineageConfig
    from stacks.consumer_config import ConsumerAccountConfig as KafkaLineageConsumerConfig
    from stacks.consumer_stack import KafkaLineageConsumer
    from stacks.lineage_stack import KafkaLineage
    from stacks.source_config import SourceAccountConfig as KafkaLineageSourceConfig
    from stacks.source_stack import KafkaLineageSource


def __getattr__(name: str) -> Any:
    if name == "ConfigError":
        return importlib.import_module("kafka_lineage.config").ConfigError
    if name in _EXPORTS:
        module, attribute = _EXPORTS[name]
        value = getattr(importlib.import_module(f"stacks.{module}"), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
