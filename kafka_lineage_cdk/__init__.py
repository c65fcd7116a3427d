"""kafka-lineage as CDK constructs: embed the whole stack in your own CDK app.

    from kafka_lineage_cdk import KafkaLineage

    KafkaLineage(my_stack, "KafkaLineage", config={"domainId": ..., "projectId": ..., "sources": [...]})

`config` takes the keys of the `kafkaLineage` cdk.json context (a dict, validated as cdk.json is, with errors
naming the key at fault), or the typed model `KafkaLineageConfig`. `KafkaLineageSource` (config: the keys of
`kafkaLineageSource`, or `KafkaLineageSourceConfig`) is the source-account part, and `KafkaLineageConsumer`
(config: the keys of `kafkaLineageConsumer`, or `KafkaLineageConsumerConfig`) the role that writes
subscription grants' IAM access in a consumer account.

The exports load on first use: importing the package (the command line does) does not start CDK's jsii
runtime. Installed from the wheel, the package carries the stacks' code (kafka_lineage_cdk.stacks), the
functions' code (lambdas/) and the Smithy models (smithy/); in a checkout they sit beside it (stacks/,
lambdas/, smithy/), and the same names resolve there.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

# The one version source: the build backend reads it (pyproject.toml [tool.hatch.version]). Semantic
# versioning; CHANGELOG.md says what each version changed.
__version__ = "0.2.0.dev0"

_HERE = Path(__file__).resolve().parent
# The wheel ships stacks/ as kafka_lineage_cdk/stacks; a checkout has it at the top level.
INSTALLED = (_HERE / "stacks" / "__init__.py").is_file()
# The functions' code: the stacks validate their settings with its model (kafka_lineage.config) at synth.
FUNCTIONS_DIR = (_HERE if INSTALLED else _HERE.parent) / "lambdas"
if importlib.util.find_spec("kafka_lineage") is None and FUNCTIONS_DIR.is_dir():
    sys.path.append(str(FUNCTIONS_DIR))

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


def stacks_module(name: str) -> ModuleType:
    """One module of the stacks' code, wherever it is (the wheel's kafka_lineage_cdk.stacks, or stacks/)."""
    return importlib.import_module(f"{__name__}.stacks.{name}" if INSTALLED else f"stacks.{name}")


def __getattr__(name: str) -> Any:
    if name == "ConfigError":
        return importlib.import_module("kafka_lineage.config").ConfigError
    if name in _EXPORTS:
        module, attribute = _EXPORTS[name]
        value = getattr(stacks_module(module), attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
