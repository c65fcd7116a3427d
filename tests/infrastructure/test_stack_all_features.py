"""The stack with every option on and awkward names: two registries, table mappings, trail, alarm e-mail."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint

from kafka_lineage.config import SSM_ARN_PREFIX_BUDGET, SSM_MAX_ARN, SSM_MAX_LEVELS
from stacks.triggers import glue_registry_change_pattern
from tests.infrastructure.sar import check_template, template_statements
from tests.infrastructure.stack_synth import PROD_CLUSTER_ARN, Synthesized, full_context


@pytest.fixture(scope="module")
def synth(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    return synth_factory(full_context())


def _policy_statements(synth: Synthesized, role_prefix: str) -> list[dict[str, Any]]:
    (policy,) = [p for lid, p in synth.resources("AWS::IAM::Policy").items() if lid.startswith(role_prefix)]
    statements: list[dict[str, Any]] = policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def _by_sid(statements: list[dict[str, Any]], sid: str) -> dict[str, Any]:
    (statement,) = [s for s in statements if s.get("Sid") == sid]
    return statement


def _tail(resource: Any) -> str:
    """The literal end of a Fn::Join ARN (the part after the account)."""
    return str(resource["Fn::Join"][1][-1]) if isinstance(resource, dict) else str(resource)


def test_explicit_table_mappings_become_valid_ssm_parameters_under_the_cdk_prefix(synth: Synthesized):
    parameters = [p["Properties"] for p in synth.resources("AWS::SSM::Parameter").values()]
    assert len(parameters) == 3
    values = {json.loads(p["Value"])["topic"]: (p["Name"], json.loads(p["Value"])) for p in parameters}
    # Glue names are stored lower-cased; registryName only where it was given
    assert values["orders#v2_legacy"][1] == {
        "topic": "orders#v2_legacy",
        "database": "sales",
        "table": "orders_v2",
        "registryName": "cdc.prod-$1",
    }
    assert values["__debezium-heartbeat.dbserver1"][1] == {
        "topic": "__debezium-heartbeat.dbserver1",
        "database": "ops",
        "table": "heartbeats",
    }
    for parameter in parameters:
        name = parameter["Name"]
        assert name.startswith("/kafka-lineage/table-mappings/cdk/")
        leaf = name.rsplit("/", 1)[1]
        # SSM's rules: characters, depth, no level starting with aws/ssm, ARN length
        assert all(c.isalnum() or c in "_.-" for c in leaf), name
        assert not leaf.lower().startswith(("aws", "ssm")), name
        assert name.count("/") <= SSM_MAX_LEVELS
        assert SSM_ARN_PREFIX_BUDGET + len(name) <= SSM_MAX_ARN
        assert parameter["Type"] == "String"
        assert parameter["Tier"] == "Standard"
    # The 250-character topic that starts with "aws" still gets a short, valid, readable leaf
    long_name = next(name for topic, (name, _) in values.items() if topic.startswith("aws.events-"))
    assert "-aws.events-xxx" in long_name


def test_lineage_reads_the_databases_of_rules_mappings_and_extra_databases(synth: Synthesized):
    statements = _policy_statements(synth, "LineageEmissionRole")
    resources = {_tail(r) for r in _by_sid(statements, "GlueCatalogRead")["Resource"]}
    assert set(_by_sid(statements, "GlueCatalogRead")["Action"]) == {"glue:GetTable", "glue:GetTables"}
    assert resources == {
        ":catalog",
        *(f":database/{db}" for db in ("archive", "lakehouse", "ops", "sales")),
        *(f":table/{db}/*" for db in ("archive", "lakehouse", "ops", "sales")),
    }


def test_both_registries_are_in_scope(synth: Synthesized):
    statements = _policy_statements(synth, "SchemaSyncRole")
    registry = {_tail(r) for r in _by_sid(statements, "GlueSchemaRegistryRead")["Resource"]}
    assert registry == {":registry/cdc", ":schema/cdc/*", ":registry/cdc.prod-$1", ":schema/cdc.prod-$1/*"}
    # GetBootstrapBrokers takes no resource type; the cdc source (no namespace) needs it
    assert _by_sid(statements, "MskBootstrapBrokers")["Resource"] == "*"
    # The clusters appear only in the topic reads: ListTopics on each cluster, DescribeTopic on its topics
    naming = {statement.get("Sid") for statement in statements if PROD_CLUSTER_ARN in json.dumps(statement)}
    assert naming == {"MskTopicList"}
    topics = PROD_CLUSTER_ARN.replace(":cluster/", ":topic/") + "/*"
    assert topics in _by_sid(statements, "MskTopicDescribe")["Resource"]
    rules = [r["Properties"] for r in synth.resources("AWS::Events::Rule").values()]
    glue = [r for r in rules if r.get("EventPattern", {}).get("source") == ["aws.glue"]]
    assert glue[0]["EventPattern"] == glue_registry_change_pattern(["cdc", "cdc.prod-$1"])


def test_destroy_policy_allows_and_requests_deleting_the_asset_type(synth: Synthesized):
    (resource,) = synth.resources("Custom::DataZoneAssetType").values()
    assert resource["Properties"]["RemovalPolicy"] == "destroy"
    handler_actions = {
        action
        for statement in _policy_statements(synth, "DataZoneTypesHandlerRole")
        for action in (
            statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        )
    }
    assert "datazone:DeleteAssetType" in handler_actions
    # The form types go too, after the asset type that depends on them (via their Revision attribute)
    for form_type in synth.resources("AWS::DataZone::FormType").values():
        assert form_type["DeletionPolicy"] == "Delete"


def test_the_asset_type_is_created_under_the_name_the_functions_look_for(synth: Synthesized):
    (resource,) = synth.resources("Custom::DataZoneAssetType").values()
    spec = json.loads(resource["Properties"]["Spec"])
    assert spec["name"] == "KafkaTopicAssetTypeProd"
    for function in synth.resources("AWS::Lambda::Function").values():
        variables = function["Properties"].get("Environment", {}).get("Variables", {})
        if "SOURCES" in variables:
            assert variables["ASSET_TYPE_NAME"] == spec["name"]
    outputs = synth.cfn["Outputs"]
    assert outputs["AssetTypeName"]["Value"] == "KafkaTopicAssetTypeProd"


def test_concurrency_is_not_reserved_when_turned_off(synth: Synthesized):
    for function in synth.resources("AWS::Lambda::Function").values():
        assert "ReservedConcurrentExecutions" not in function["Properties"]


def test_schedules_follow_the_context_and_off_disables_one(synth: Synthesized):
    expressions = sorted(
        r["Properties"]["ScheduleExpression"]
        for r in synth.resources("AWS::Events::Rule").values()
        if "ScheduleExpression" in r["Properties"]
    )
    # the grants schedule is not set, so subscription-grants' reconciling run keeps its hourly default
    assert expressions == ["cron(50 * * * ? *)", "rate(1 hour)", "rate(30 minutes)"]
    inputs = [
        t.get("Input")
        for r in synth.resources("AWS::Events::Rule").values()
        for t in r["Properties"]["Targets"]
    ]
    assert '{"verify":true}' not in inputs


def test_tuning_reaches_the_functions(synth: Synthesized):
    for function in synth.resources("AWS::Lambda::Function").values():
        variables = function["Properties"].get("Environment", {}).get("Variables", {})
        if "SOURCES" in variables and "ACCESS" not in variables:  # subscription-grants paces by quota only
            assert json.loads(variables["TUNING"]) == {"maxConcurrency": 4, "datazoneRps": 5.0}


def test_alarms_notify_an_encrypted_topic_with_the_email_subscription(synth: Synthesized):
    (topic_id, topic), *_ = synth.resources("AWS::SNS::Topic").items()
    (key_id,) = synth.resources("AWS::KMS::Key")
    assert topic["Properties"]["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    (subscription,) = synth.resources("AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == "data-platform@example.com"
    alarms = synth.resources("AWS::CloudWatch::Alarm").values()
    # three functions' error alarms, failed items, failure queue, breaking drift, grants failed and stuck
    assert len(alarms) == 8
    assert all(a["Properties"]["AlarmActions"] == [{"Ref": topic_id}] for a in alarms)
    # CloudWatch may use the key (it could not use the AWS-managed SNS key)
    key_policy = synth.resources("AWS::KMS::Key")[key_id]["Properties"]["KeyPolicy"]["Statement"]
    assert any(s.get("Principal") == {"Service": "cloudwatch.amazonaws.com"} for s in key_policy)


def test_breaking_schema_drift_goes_to_the_alarm_topic_as_the_events_detail(synth: Synthesized):
    # Given the stack with notifyBreakingDrift and an alarm e-mail
    (topic_id,) = synth.resources("AWS::SNS::Topic")
    (key_id,) = synth.resources("AWS::KMS::Key")
    # Then one rule matches the lineage function's breaking drift events and sends their detail to the topic
    (rule,) = [
        r["Properties"]
        for r in synth.resources("AWS::Events::Rule").values()
        if r["Properties"].get("EventPattern", {}).get("detail-type") == ["Schema Drift Detected"]
        # (every drift event also goes to schema-sync: tests/infrastructure/test_drift_trigger.py)
        and "detail" in r["Properties"]["EventPattern"]
    ]
    assert rule["EventPattern"] == {
        "source": ["kafka-lineage.lineage-emission"],
        "detail-type": ["Schema Drift Detected"],
        "detail": {"severity": ["breaking"]},
    }
    (target,) = rule["Targets"]
    assert target["Arn"] == {"Ref": topic_id}
    assert target["InputPath"] == "$.detail"
    assert "RoleArn" not in target
    # And EventBridge may publish to the topic and use its key
    (policy,) = synth.resources("AWS::SNS::TopicPolicy").values()
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    assert any(s.get("Principal") == {"Service": "events.amazonaws.com"} for s in statements)
    key_policy = synth.resources("AWS::KMS::Key")[key_id]["Properties"]["KeyPolicy"]["Statement"]
    assert any(s.get("Principal") == {"Service": "events.amazonaws.com"} for s in key_policy)


def test_the_optional_trail_records_write_management_events_into_a_private_bucket(synth: Synthesized):
    (trail,) = synth.resources("AWS::CloudTrail::Trail").values()
    props = trail["Properties"]
    assert props["IsLogging"] is True
    assert props["IsMultiRegionTrail"] is False
    assert props["EnableLogFileValidation"] is True
    assert props["EventSelectors"] == [{"IncludeManagementEvents": True, "ReadWriteType": "WriteOnly"}]
    buckets = synth.resources("AWS::S3::Bucket").values()
    assert len(buckets) == 2
    for bucket in buckets:
        block = bucket["Properties"]["PublicAccessBlockConfiguration"]
        assert all(block.values())
        assert bucket["Properties"]["LifecycleConfiguration"]["Rules"][0]["ExpirationInDays"] == 90


def test_log_retention_follows_the_context(synth: Synthesized):
    groups = synth.resources("AWS::Logs::LogGroup").values()
    assert {g["Properties"]["RetentionInDays"] for g in groups} == {90}


def test_without_domain_unit_id_no_grant_is_made_but_the_check_runs_before_the_form_types(synth: Synthesized):
    # Given no domainUnitId / Then no AWS::DataZone::PolicyGrant, and the governance check (which names a
    # missing grant) runs after the stack's memberships and before every form type
    assert synth.resources("AWS::DataZone::PolicyGrant") == {}
    (check_id,) = synth.resources("Custom::DataZoneGovernanceCheck")
    check = synth.cfn["Resources"][check_id]
    assert check["Properties"]["GrantsByStack"] == "false"
    memberships = set(synth.resources("AWS::DataZone::ProjectMembership"))
    assert len(memberships) == 3
    assert memberships <= set(check["DependsOn"])
    for form_type in synth.resources("AWS::DataZone::FormType").values():
        assert check_id in form_type["DependsOn"]
    # and, without domainKmsKeyArn, no function may use a KMS key
    assert not [s for _, s in template_statements(synth.cfn) if s.get("Sid") == "DomainKey"]


def test_cdk_nag_aws_solutions_reports_no_unacknowledged_finding(synth: Synthesized):
    report = synth.validation_report()
    assert [r for r in report["pluginReports"] if r.get("conclusion") != "success"] == []


def test_cfn_lint_finds_no_error(synth: Synthesized):
    matches = lint(synth.template_path.read_text(), config=ManualArgs(regions=["eu-west-1", "us-east-1"]))
    errors = [
        f"{m.rule.id} {m.message} at {'/'.join(map(str, m.path))}" for m in matches if m.rule.id[0] == "E"
    ]
    assert errors == []


def test_every_allow_statement_is_usable_per_the_service_authorization_reference(synth: Synthesized):
    # Given every policy statement of the template, intrinsics resolved to sample values
    statements = [statement for _, statement in template_statements(synth.cfn)]
    assert any("datazone:CreateAsset" in str(s["Action"]) for s in statements)  # the check sees the roles
    # When checked against the SAR data / Then each grant is one AWS would honour
    assert [str(finding) for finding in check_template(synth.cfn)] == []
