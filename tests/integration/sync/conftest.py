"""The schema-sync handler against the local stand-ins: a CDC world, a Lambda context, an event catcher."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
import pytest

from kafka_lineage.model.events import TopicAssetChanged
from local import world
from local.deployed import DeployedFunctions
from tests.fixtures import FakeContext

AVRO_VALUE = json.dumps(
    {
        "type": "record",
        "name": "Value",
        "fields": [
            {"name": "id", "type": "int"},
            {"name": "name", "type": ["null", "string"], "default": None},
        ],
    }
)


class EventCatcher:
    """An EventBridge rule on the default bus that sends "Topic Asset Changed" events to an SQS queue."""

    def __init__(self) -> None:
        self.sqs = boto3.client("sqs", region_name=world.REGION)
        events = boto3.client("events", region_name=world.REGION)
        self.queue_url = self.sqs.create_queue(QueueName="topic-asset-changed")["QueueUrl"]
        queue_arn = self.sqs.get_queue_attributes(QueueUrl=self.queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        events.put_rule(
            Name="catch-topic-asset-changed",
            EventPattern=json.dumps(TopicAssetChanged.pattern()),
        )
        events.put_targets(Rule="catch-topic-asset-changed", Targets=[{"Id": "q", "Arn": queue_arn}])

    def drain(self) -> list[dict[str, Any]]:
        details: list[dict[str, Any]] = []
        while True:
            answer = self.sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10)
            messages = answer.get("Messages", [])
            if not messages:
                return details
            for message in messages:
                details.append(json.loads(message["Body"])["detail"])
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])


@dataclass
class CdcWorld:
    aws: Any
    events: EventCatcher
    monkeypatch: pytest.MonkeyPatch
    deployed: DeployedFunctions

    def configure(self, *sources: dict[str, Any], tuning: dict[str, Any] | None = None) -> None:
        # Request rates far above the production defaults: the stand-ins have no quotas to protect.
        tuning = {"datazone_rps": 500, "glue_rps": 500, "ssm_write_rps": 500, **(tuning or {})}
        for key, value in world.environment(sources or [world.source_config()], tuning).items():
            self.monkeypatch.setenv(key, value)

    def sync(self, event: dict[str, Any] | None = None, context: FakeContext | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self.deployed.invoke("schema-sync", event or {}, context or FakeContext())
        return result

    def assets(self) -> list[Any]:
        return list(self.aws.datazone.assets(world.DOMAIN_ID))

    def register(
        self, name: str, definition: str = AVRO_VALUE, data_format: str = "AVRO", registry: str = "cdc"
    ) -> int:
        world.create_registry(registry)
        return world.register(registry, world.SchemaSpec(name, data_format, definition))

    def inventory(self, registry: str = "cdc") -> list[str]:
        world.create_registry(registry)
        names = []
        for spec in world.inventory():
            world.register(registry, spec)
            names.append(spec.name)
        return names

    def calls(self) -> dict[str, int]:
        return dict(self.aws.call_counts())

    def reset_calls(self) -> None:
        self.aws.calls.clear()


@pytest.fixture
def cdc(
    local_aws: Any, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch, fast_retries: None
) -> CdcWorld:
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    created = CdcWorld(local_aws, EventCatcher(), monkeypatch, deployed)
    created.configure()
    return created


SyncRunner = Callable[..., dict[str, Any]]
