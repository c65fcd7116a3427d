"""Synthesis helpers for the stack tests (each test module synthesizes once, in a module-scoped fixture).

The dependencies layer comes from the pip cache in build/ (the first run on a fresh clone fills it).
CDK's built-in template validation is turned off here because the tests run cfn-lint itself, with all of
its rules, on every synthesized template.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

from stacks import nag
from stacks.app import build_app
from stacks.config import CONTEXT_KEY
from stacks.lineage_stack import KafkaLineageStack

ROOT = Path(__file__).resolve().parents[2]
EVENTS_DIR = ROOT / "tests" / "events"
# subscription-grants with every access setting: roles under a path in this account, one role in another
# account (written through its KafkaLineageConsumer role), consumer groups named by project and role.
CONSUMER_ACCOUNT = "444455556666"
FULL_ACCESS: dict[str, Any] = {
    "consumerRoles": [
        "arn:aws:iam::111122223333:role/analytics/*",
        f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/orders-consumer",
    ],
    "consumerGroups": ["{projectId}-*", "{roleName}.orders"],
    "consumerAccountRole": "arn:aws:iam::{account}:role/KafkaLineageConsumer",
    "externalId": "kafka-lineage-consumers-7f3c",
}
PROD_CLUSTER_ARN = "arn:aws:kafka:eu-west-1:111122223333:cluster/prod/11111111-2222-3333-4444-555555555555-2"


def shipped_context() -> dict[str, Any]:
    """The context of cdk.json as it ships (placeholders included)."""
    context: dict[str, Any] = json.loads((ROOT / "cdk.json").read_text())["context"]
    return context


def full_context() -> dict[str, Any]:
    """Every optional feature on, with the awkward names Glue allows."""
    context = copy.deepcopy(shipped_context())
    settings = context[CONTEXT_KEY]
    settings["sources"].append(
        {
            "registryName": "cdc.prod-$1",
            "clusterArn": PROD_CLUSTER_ARN,
            "namespace": "kafka://b-1.prod.abc123.c2.kafka.eu-west-1.amazonaws.com:9098",
            # Not dbserver1's heartbeats: the explicit mapping below maps that topic, and a mapping that
            # every source's filters drop is refused at synth.
            "exclude": ["^__debezium-heartbeat\\.dbserver2\\."],
            "jobNamespace": "prod-iceberg-sink",
        }
    )
    settings["tableMappings"] = [
        {
            "topic": "orders#v2_legacy",
            "database": "Sales",
            "table": "Orders_V2",
            "registryName": "cdc.prod-$1",
        },
        {"topic": "__debezium-heartbeat.dbserver1", "database": "ops", "table": "heartbeats"},
        {"topic": "aws.events-" + "x" * 240, "database": "ops", "table": "long_topic"},
    ]
    settings["extraDatabases"] = ["archive"]
    settings["schedules"] = {"sync": "rate(30 minutes)", "verify": "off", "lineage": "rate(1 hour)"}
    settings["reserveConcurrency"] = False
    settings["alarmEmail"] = "data-platform@example.com"
    settings["notifyBreakingDrift"] = True
    settings["createCloudTrail"] = True
    settings["assetTypeRemovalPolicy"] = "destroy"
    settings["logRetentionDays"] = 90
    settings["tuning"] = {"maxConcurrency": 4, "datazoneRps": 5}
    settings["assetTypeName"] = "KafkaTopicAssetTypeProd"
    settings["access"] = copy.deepcopy(FULL_ACCESS)
    return context


@dataclass
class Synthesized:
    stack: KafkaLineageStack
    template: Template
    outdir: Path

    @property
    def cfn(self) -> dict[str, Any]:
        return dict(self.template.to_json())

    @property
    def template_path(self) -> Path:
        return self.outdir / f"{self.stack.stack_name}.template.json"

    def resources(self, type_name: str) -> dict[str, dict[str, Any]]:
        return {
            logical_id: resource
            for logical_id, resource in self.cfn["Resources"].items()
            if resource["Type"] == type_name
        }

    def validation_report(self) -> dict[str, Any]:
        report: dict[str, Any] = json.loads((self.outdir / "validation-report.json").read_text())
        return report


def synthesize(context: dict[str, Any], outdir: Path) -> Synthesized:
    """Build and synthesize the app as app.py does. cdk-nag findings make synth raise."""
    app = cdk.App(context=context, outdir=str(outdir), builtin_cloud_formation_validation=False)
    stack = build_app(app)
    app.synth()
    return Synthesized(stack=stack, template=Template.from_stack(stack), outdir=outdir)


def synthesize_recording_acknowledgments(
    context: dict[str, Any], outdir: Path
) -> tuple[Synthesized | None, list[tuple[str, str]], str]:
    """Synthesize with every cdk-nag acknowledgment recorded instead of applied.

    Returns (the synthesis if it passed, the (construct path, finding) acknowledgments, the error text).
    """
    recorded: list[tuple[str, str]] = []

    def record(resource: cdk.CfnResource, finding: str, reason: str) -> None:
        assert reason.strip(), f"acknowledgment {finding} without a reason"
        recorded.append((resource.node.path, finding))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(nag, "acknowledge", record)
        try:
            return synthesize(context, outdir), recorded, ""
        except RuntimeError as error:
            return None, recorded, str(error)


def load_event(name: str) -> dict[str, Any]:
    event: dict[str, Any] = json.loads((EVENTS_DIR / name).read_text())
    return event


def glue_fixtures() -> list[str]:
    return sorted(path.name for path in EVENTS_DIR.glob("glue_*.json"))
