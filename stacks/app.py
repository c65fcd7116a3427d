"""Build the app: read and validate the context, create the stack, apply cdk-nag."""

from __future__ import annotations

import aws_cdk as cdk
from cdk_nag import AwsSolutionsChecks

from .config import CONTEXT_KEY, load_config
from .consumer_config import CONSUMER_CONTEXT_KEY, load_consumer_config
from .consumer_stack import ConsumerAccountStack
from .lineage_stack import EXTRA_ENVIRONMENT, KafkaLineageStack
from .source_config import SOURCE_CONTEXT_KEY, load_source_config
from .source_stack import SourceAccountStack


def build_app(app: cdk.App) -> KafkaLineageStack:
    """Add the stack to `app`, and the source-account and consumer-account stacks when the context asks for
    them (`-c kafkaLineageSource=<JSON or file>`, `-c kafkaLineageConsumer=<JSON or file>`). Raises
    ConfigError, naming the context key, when invalid."""
    config = load_config(app.node.try_get_context(CONTEXT_KEY), extra_environment=EXTRA_ENVIRONMENT)
    stack = KafkaLineageStack(app, config.deployment.stack_name, config=config)
    source = load_source_config(app.node.try_get_context(SOURCE_CONTEXT_KEY))
    if source is not None:
        SourceAccountStack(app, source.stack_name, config=source)
    consumer = load_consumer_config(app.node.try_get_context(CONSUMER_CONTEXT_KEY))
    if consumer is not None:
        ConsumerAccountStack(app, consumer.stack_name, config=consumer)
    # cdk-nag runs as a policy-validation plugin: any unacknowledged finding fails `cdk synth`.
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    return stack
