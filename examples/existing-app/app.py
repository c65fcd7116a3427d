#!/usr/bin/env python3
"""A platform team's own CDK app that embeds kafka-lineage in one of its stacks.

    python3 -m venv .venv && source .venv/bin/activate   # cdk.json runs `python3 app.py`: the venv's
    pip install "kafka_datazone_lineage-<version>-py3-none-any.whl[nag]"   # the wheel `make wheel` builds
    npx cdk synth          # cdk.json runs this file

The stack is the team's: its own resources (here an ingest queue and its dead-letter queue) and the
KafkaLineage construct beside them. cdk-nag's AwsSolutions checks run over the whole app; the construct's
resources need no acknowledgment from the team (each of its findings is acknowledged on its own resource).
"""

from __future__ import annotations

from typing import Any

import aws_cdk as cdk
from aws_cdk import aws_sqs as sqs
from cdk_nag import AwsSolutionsChecks
from constructs import Construct

from kafka_lineage_cdk import KafkaLineage, KafkaLineageConfig

# The same keys as the repository's cdk.json `kafkaLineage` context (docs/deploy.md), here as the typed
# model; a plain dict with the camelCase keys works as well. Replace the example ids and ARNs.
LINEAGE = KafkaLineageConfig.model_validate(
    {
        "domainId": "dzd_example_domain",
        "projectId": "example_project_id",
        "mappingPath": "/data-platform/kafka-lineage",
        "sources": [
            {
                "registryName": "cdc",
                "clusterArn": "arn:aws:kafka:eu-west-1:111122223333:cluster/cdc/"
                "0f1e2d3c-4b5a-6978-8877-665544332211-1",
                "include": ["^dbserver1\\."],
                "exclude": ["^__debezium-heartbeat\\."],
                "tableRule": {
                    "database": "lakehouse",
                    "match": "^dbserver1\\.inventory\\.(?P<table>[^.]+)$",
                    "table": "{table}",
                },
            }
        ],
        "alarmEmail": "data-platform@example.com",
    }
)


class DataPlatformStack(cdk.Stack):
    def __init__(self, scope: Construct, construct_id: str, **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        # The team's own resources.
        dead_letters = sqs.Queue(
            self, "IngestDeadLetters", enforce_ssl=True, encryption=sqs.QueueEncryption.SQS_MANAGED
        )
        sqs.Queue(
            self,
            "Ingest",
            enforce_ssl=True,
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=5, queue=dead_letters),
        )
        # kafka-lineage, as one construct of the stack.
        self.lineage = KafkaLineage(self, "KafkaLineage", config=LINEAGE)


app = cdk.App()
DataPlatformStack(app, "DataPlatform", env=cdk.Environment(account="111122223333", region="eu-west-1"))
# cdk-nag as a policy-validation plugin: an unacknowledged finding anywhere in the app fails `cdk synth`.
cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
app.synth()
