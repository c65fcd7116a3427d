"""cdk-nag really checks: without the stack's acknowledgments, synth fails with exactly those findings."""

from __future__ import annotations

import json

import pytest

from tests.infrastructure.stack_synth import full_context, synthesize_recording_acknowledgments


@pytest.fixture(scope="module")
def unacknowledged(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[set[tuple[str, str]], list[tuple[str, str]], str]:
    outdir = tmp_path_factory.mktemp("cdk.out")
    synthesized, acknowledgments, error = synthesize_recording_acknowledgments(full_context(), outdir)
    assert synthesized is None, "synth passed without acknowledgments: is cdk-nag still registered?"
    report = json.loads((outdir / "validation-report.json").read_text())
    findings = {
        (construct["constructPath"], violation["ruleName"])
        for plugin in report["pluginReports"]
        if plugin["pluginName"] == "AwsSolutions"
        for violation in plugin["violations"]
        for construct in violation["violatingConstructs"]
    }
    return findings, acknowledgments, error


def test_synth_fails_on_any_unacknowledged_finding(unacknowledged):
    # Given the stack with its acknowledgments withheld / When synthesized
    findings, _, error = unacknowledged
    # Then synthesis fails, naming the plugin's findings
    assert error.startswith("ValidationFailed")
    assert "(AwsSolutions)" in error
    assert findings


def test_every_finding_is_acknowledged_and_every_acknowledgment_answers_a_finding(unacknowledged):
    findings, acknowledgments, _ = unacknowledged
    assert len(acknowledgments) == len(set(acknowledgments)), "an acknowledgment is made twice"
    assert set(acknowledgments) == findings


def test_acknowledgments_are_per_resource_and_iam5_names_the_exact_wildcard(unacknowledged):
    _, acknowledgments, _ = unacknowledged
    for path, finding in acknowledgments:
        # One CloudFormation resource each (no stack- or subtree-wide acknowledgment)
        assert path.endswith("/Resource"), path
        if finding.startswith("AwsSolutions-IAM5"):
            assert finding.startswith("AwsSolutions-IAM5[Resource::"), finding
            assert finding.endswith("]"), finding
    wildcards = {finding for _, finding in acknowledgments if finding.startswith("AwsSolutions-IAM5")}
    # Only X-Ray's unavoidable "*", the provider's own handler versions, and run-time-named children of
    # configured registries, databases, MSK Connect connector names, the sources' clusters' topics and
    # channels, this account's delivery streams, S3 Tables catalogs and the MAPPING_PATH subtree; for
    # subscription-grants, the roles access.consumerRoles names, the managed policies it may read (any may be
    # a boundary) and our own, and consumerAccountRole in any account
    for finding in wildcards:
        resource = finding.removeprefix("AwsSolutions-IAM5[Resource::").removesuffix("]")
        assert (
            resource == "*"
            or resource.endswith(".Arn>:*")
            or any(
                f":{kind}/" in resource
                for kind in ("schema", "table", "connector", "topic", "channel", "deliverystream")
            )
            or any(f":{kind}/s3tablescatalog/" in resource for kind in ("catalog", "database"))
            or ":parameter/kafka-lineage/" in resource
            or any(f":{kind}/" in resource for kind in ("role", "policy"))
        ), finding
