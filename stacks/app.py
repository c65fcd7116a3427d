"""Build the app: read and validate the context, create the stack, apply cdk-nag."""

from __future__ import annotations

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from stacks.config import CONTEXT_KEY, load_config
from stacks.lineage_stack import EXTRA_ENVIRONMENT, KafkaLineageStack


def build_app(app: cdk.App) -> KafkaLineageStack:
    """Add the stack to `app`. Raises ConfigError, naming the context key, when the context is invalid."""
    config = load_config(app.node.try_get_context(CONTEXT_KEY), extra_environment=EXTRA_ENVIRONMENT)
    stack = KafkaLineageStack(app, config.deployment.stack_name, config=config)
    # cdk-nag runs as a policy-validation plugin: any unacknowledged finding fails `cdk synth`.
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    return stack
