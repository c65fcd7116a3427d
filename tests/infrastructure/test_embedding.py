"""The constructs users embed (kafka_lineage_cdk): inside someone else's stack, cdk-nag clean, validated as
cdk.json is.

The examples (examples/) are the users' apps: each is run as `cdk synth` runs it (its own process state,
CDK_OUTDIR), with cdk-nag's AwsSolutions checks as a policy-validation plugin, so an unacknowledged finding
anywhere in the user's stack fails the synthesis.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk import aws_sqs as sqs
from cdk_nag import AwsSolutionsChecks

from kafka_lineage_cdk import (
    ConfigError,
    KafkaLineage,
    KafkaLineageConfig,
    KafkaLineageSource,
    KafkaLineageSourceConfig,
)
from tests.infrastructure.stack_synth import ROOT, full_context

EXAMPLES = ROOT / "examples"


def _run_example(name: str, outdir: Path) -> dict[str, Any]:
    """`cdk synth` of an example: its app in a process of its own, the checkout's two import roots (lambdas/
    and the repository, the wheel's top-level packages) as its only path, the layer not bundled (IAM and nag
    need the template)."""
    environment = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}",
        "CDK_OUTDIR": str(outdir),
        "CDK_CONTEXT_JSON": json.dumps({"aws:cdk:bundling-stacks": []}),
    }
    app = EXAMPLES / name / "app.py"
    done = subprocess.run(
        [sys.executable, str(app)],
        check=False,
        cwd=app.parent,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    report: dict[str, Any] = json.loads((outdir / "validation-report.json").read_text())
    return report


def _template(outdir: Path, stack: str) -> dict[str, Any]:
    template: dict[str, Any] = json.loads((outdir / f"{stack}.template.json").read_text())
    return template


def _types(template: dict[str, Any]) -> list[str]:
    return [resource["Type"] for resource in template["Resources"].values()]


def test_a_users_stack_with_its_own_resources_and_kafka_lineage_is_nag_clean(tmp_path: Path):
    # Given the existing-app example: the user's stack with its own queues, plus KafkaLineage, and nag
    # When synthesized (an unacknowledged finding would raise here)
    report = _run_example("existing-app", tmp_path)
    # Then nag concludes success, in a stack with an explicit account and region
    assert [r["conclusion"] for r in report["pluginReports"]] == ["success"]
    template = _template(tmp_path, "DataPlatform")
    types = _types(template)
    # And the user's resources sit beside the construct's
    assert types.count("AWS::SQS::Queue") == 3  # the user's two and the construct's failure queue
    assert types.count("AWS::Lambda::Function") >= 2
    # And the outputs the command line reads are there, under the construct's prefix
    assert {"SchemaSyncFunctionName", "LineageFunctionName"} <= {
        key.removeprefix("KafkaLineage")[:-8] for key in template["Outputs"]
    }


def test_the_two_account_example_synthesizes_both_accounts_nag_clean(tmp_path: Path):
    # Given the two-accounts example (governance and source stacks in their own accounts)
    report = _run_example("two-accounts", tmp_path)
    # Then nag concludes success for both
    assert [r["conclusion"] for r in report["pluginReports"]] == ["success"]
    # And the source stack trusts the roles its settings name, and the governance bus takes its events
    source = _template(tmp_path, "Source")
    assert "AWS::IAM::Role" in _types(source)
    governance = _template(tmp_path, "Governance")
    policies = [r for r in governance["Resources"].values() if r["Type"] == "AWS::Events::EventBusPolicy"]
    assert [p["Properties"]["StatementId"] for p in policies] == ["kafka-lineage-source-444455556666"]


@pytest.mark.parametrize("name", ["governance.json", "source.json"])
def test_the_two_account_examples_settings_are_the_documented_ones(name: str):
    # The documented example files and the runnable example's are the same settings
    assert json.loads((EXAMPLES / "two-accounts" / name).read_text()) == json.loads(
        (ROOT / "docs" / "two-accounts" / name).read_text()
    )


SETTINGS: dict[str, Any] = {
    "domainId": "dzd_example",
    "projectId": "example_project",
    "sources": [
        {
            "registryName": "cdc",
            "clusterArn": "arn:aws:kafka:eu-west-1:111122223333:cluster/cdc/"
            "0f1e2d3c-4b5a-6978-8877-665544332211-1",
        }
    ],
}


def test_a_bad_setting_fails_naming_its_key_as_in_cdk_json():
    # Given a dict config with a key misspelt, and one with an invalid cluster ARN
    stack = cdk.Stack(cdk.App(), "User")
    # Then the construct refuses each, naming the key, as cdk.json's validation does
    with pytest.raises(ConfigError, match=r"kafkaLineage\.alarmEmial"):
        KafkaLineage(stack, "Misspelt", config={**SETTINGS, "alarmEmial": "a@example.com"})
    bad_source = {**SETTINGS, "sources": [{"registryName": "cdc", "clusterArn": "not-an-arn"}]}
    with pytest.raises(ConfigError, match=r"kafkaLineage\.sources\[0\]\.clusterArn"):
        KafkaLineage(stack, "BadArn", config=bad_source)
    # And the source construct's settings too
    with pytest.raises(ConfigError, match=r"kafkaLineageSource\.externalId"):
        KafkaLineageSource(stack, "Source", config={"trustedRoleArns": ["x"], "registries": ["cdc"]})


def test_the_typed_models_are_accepted_and_validated_as_the_dicts_are():
    # Given the settings as the typed model, with snake_case or camelCase names
    model = KafkaLineageConfig.model_validate({**SETTINGS, "logRetentionDays": 90})
    assert model.log_retention_days == 90
    # Then the model refuses what cdk.json refuses
    with pytest.raises(ValueError, match="retention"):
        KafkaLineageConfig.model_validate({**SETTINGS, "logRetentionDays": 31})
    with pytest.raises(ValueError, match=r"externalId|external_id"):
        KafkaLineageSourceConfig.model_validate({"trustedRoleArns": ["x"], "registries": ["cdc"]})
    # And the construct takes the model, with the settings the functions get from it
    stack = cdk.Stack(cdk.App(context={"aws:cdk:bundling-stacks": []}), "User")
    lineage = KafkaLineage(stack, "KafkaLineage", config=model)
    assert lineage.config.settings.domain_id == "dzd_example"
    assert lineage.config.deployment.log_retention_days == 90


def test_the_stacks_synthesize_without_the_functions_runtime_dependencies():
    # Given a process where the functions' own dependencies (the layer's) cannot be imported, as in an app
    # that installed only the wheel
    blocked = ["aws_lambda_powertools", "fastavro", "openlineage", "proto_schema_parser", "grpc_tools"]
    script = (
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        "import importlib\n"
        "for module in ('app', 'lineage_stack', 'source_stack'):\n"
        "    importlib.import_module(f'stacks.{module}')\n"
    )
    # When the stacks' modules are imported by their one name
    done = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'lambdas'}{os.pathsep}{ROOT}"},
        capture_output=True,
        text=True,
    )
    # Then they import: synthesis needs only what the wheel declares (pydantic, aws-cdk-lib, constructs)
    assert done.returncode == 0, done.stderr[-3000:]


def test_every_optional_feature_is_nag_clean_in_a_users_stack_with_an_explicit_environment(tmp_path: Path):
    # Given a user's stack in a named account and region, with its own queue and KafkaLineage with every
    # optional feature on (the awkward names included), and cdk-nag over the app
    settings = {
        **full_context()["kafkaLineage"],
        "domainUnitId": "unit_streaming-01",
        "domainKmsKeyArn": "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
        "projectMembership": "manual",
    }
    app = cdk.App(context={"aws:cdk:bundling-stacks": []}, outdir=str(tmp_path))
    stack = cdk.Stack(app, "Platform", env=cdk.Environment(account="111122223333", region="eu-west-1"))
    dead_letters = sqs.Queue(stack, "Own", enforce_ssl=True, encryption=sqs.QueueEncryption.SQS_MANAGED)
    sqs.Queue(
        stack,
        "OwnWithDeadLetters",
        enforce_ssl=True,
        encryption=sqs.QueueEncryption.SQS_MANAGED,
        dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=3, queue=dead_letters),
    )
    KafkaLineage(stack, "Lineage", config=settings)
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    # When synthesized / Then no finding is left unacknowledged (synth raises on one)
    app.synth()
    report = json.loads((tmp_path / "validation-report.json").read_text())
    assert [r["conclusion"] for r in report["pluginReports"]] == ["success"]
