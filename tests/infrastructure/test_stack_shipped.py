"""The stack as cdk.json ships it: resources, IAM, environment, schedules, patterns, cdk-nag, cfn-lint."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from aws_cdk.assertions import Match
from cfnlint.api import ManualArgs, lint

from kafka_lineage.aws.lease import HOLDERS, lease_path
from kafka_lineage.config import Settings
from stacks.bundling import RUNTIME
from stacks.config import CONTEXT_KEY, load_config
from stacks.datazone_types import ASSET_TYPE_FILE, SMITHY_DIR
from stacks.lineage_stack import (
    EXTRA_ENVIRONMENT,
    LEASE_PATH,
    LINEAGE_HANDLER,
    LINEAGE_HOLDER,
    SCHEMA_SYNC_HANDLER,
    SCHEMA_SYNC_HOLDER,
)
from stacks.monitoring import FAILED_ITEM_METRICS
from stacks.triggers import glue_registry_change_pattern
from tests.infrastructure.sar import check_template, template_statements
from tests.infrastructure.stack_synth import ROOT, Synthesized, shipped_context


@pytest.fixture(scope="module")
def synth(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    return synth_factory(shipped_context())


def _function(synth: Synthesized, handler: str) -> tuple[str, dict[str, Any]]:
    matches = [
        (logical_id, resource)
        for logical_id, resource in synth.resources("AWS::Lambda::Function").items()
        if resource["Properties"].get("Handler") == handler
    ]
    assert len(matches) == 1, f"expected one function with handler {handler}"
    return matches[0]


def _statements(synth: Synthesized, function_logical_id: str) -> dict[str, dict[str, Any]]:
    """The statements of all the role's policies, by Sid (CDK's own grants under their first action)."""
    role = synth.resources("AWS::Lambda::Function")[function_logical_id]["Properties"]["Role"]["Fn::GetAtt"][
        0
    ]
    policies = [
        resource
        for resource in synth.resources("AWS::IAM::Policy").values()
        if {"Ref": role} in resource["Properties"]["Roles"]
    ]
    statements = {}
    for statement in (s for policy in policies for s in policy["Properties"]["PolicyDocument"]["Statement"]):
        actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
        statements[statement.get("Sid", actions[0])] = statement
    return statements


def _render(value: Any) -> str:
    """A Fn::Join of pseudo parameters as a readable string, e.g. arn:${AWS::Partition}:glue:..."""
    if isinstance(value, str):
        return value
    if "Ref" in value:
        return "${" + value["Ref"] + "}"
    if "Fn::Join" in value:
        separator, parts = value["Fn::Join"]
        return str(separator).join(_render(part) for part in parts)
    if "Fn::GetAtt" in value:
        return "${" + ".".join(value["Fn::GetAtt"]) + "}"
    raise AssertionError(f"unexpected intrinsic {value}")


def _resources(statement: dict[str, Any]) -> list[str]:
    resource = statement["Resource"]
    return [_render(item) for item in (resource if isinstance(resource, list) else [resource])]


ARN = "arn:${AWS::Partition}:{service}:${AWS::Region}:${AWS::AccountId}:{resource}"


def _arn(service: str, resource: str) -> str:
    return ARN.replace("{service}", service).replace("{resource}", resource)


def test_functions_use_the_current_python_runtime_on_arm64_with_the_dependencies_layer(synth: Synthesized):
    # Given the shipped context / When synthesized
    layers = synth.resources("AWS::Lambda::LayerVersion")
    # Then each function (and the custom resource handler) runs python3.14 on arm64 with the one layer
    assert len(layers) == 1
    (layer_id,) = layers
    assert layers[layer_id]["Properties"]["CompatibleRuntimes"] == ["python3.14"]
    for handler in (SCHEMA_SYNC_HANDLER, LINEAGE_HANDLER, "asset_type_resource.handler.handler"):
        _, function = _function(synth, handler)
        props = function["Properties"]
        assert props["Runtime"] == RUNTIME.name == "python3.14"
        assert props["Architectures"] == ["arm64"]
        assert props["Layers"] == [{"Ref": layer_id}]
        assert props["LoggingConfig"]["LogFormat"] == "JSON"


def test_the_layer_holds_wheels_built_for_lambda_not_for_this_machine(synth: Synthesized):
    # Given the staged layer asset
    (layer,) = synth.resources("AWS::Lambda::LayerVersion").values()
    staged = synth.outdir / f"asset.{layer['Properties']['Content']['S3Key'].removesuffix('.zip')}" / "python"
    # Then compiled packages are the CPython 3.14 aarch64 Linux builds, and the pinned versions are there
    assert list((staged / "pydantic_core").glob("*.cpython-314-aarch64-linux-gnu.so"))
    assert list((staged / "fastavro").glob("*.cpython-314-aarch64-linux-gnu.so"))
    assert (staged / "aws_lambda_powertools").is_dir()
    assert (staged / "boto3-1.44.18.dist-info").is_dir()
    assert not (staged / "bin").exists()


def test_function_code_is_lambdas_without_tests_caches_or_requirements(synth: Synthesized):
    # Given the staged code asset of the schema-sync function
    _, function = _function(synth, SCHEMA_SYNC_HANDLER)
    code = synth.outdir / f"asset.{function['Properties']['Code']['S3Key'].removesuffix('.zip')}"
    # Then it holds the handlers' packages and nothing the functions do not need
    assert (code / "kafka_lineage" / "config" / "settings.py").is_file()
    assert (code / "asset_type_resource" / "handler.py").is_file()
    assert not (code / "requirements.txt").exists()
    assert not (code / "requirements.lock").exists()
    assert not list(code.rglob("__pycache__"))


def test_environment_is_the_settings_the_lambdas_read_back(synth: Synthesized):
    # Given the settings the context describes
    config = load_config(shipped_context()[CONTEXT_KEY])
    for handler in (SCHEMA_SYNC_HANDLER, LINEAGE_HANDLER):
        _, function = _function(synth, handler)
        variables = function["Properties"]["Environment"]["Variables"]
        # Then the functions get exactly Settings.to_environment() (plus Powertools' tracer switch)
        assert variables == {**config.settings.to_environment(), **EXTRA_ENVIRONMENT}
        # And the Lambdas' own parser reads the same settings back
        assert Settings.from_environment(variables) == config.settings
        # And the required settings are always written (the others only when not at their defaults)
        assert set(variables) >= {"DOMAIN_ID", "PROJECT_ID", "SOURCES"}


def test_functions_have_tracing_memory_timeout_and_reserved_concurrency(synth: Synthesized):
    _, sync = _function(synth, SCHEMA_SYNC_HANDLER)
    _, lineage = _function(synth, LINEAGE_HANDLER)
    assert sync["Properties"]["TracingConfig"] == {"Mode": "Active"}
    assert lineage["Properties"]["TracingConfig"] == {"Mode": "Active"}
    assert (sync["Properties"]["MemorySize"], sync["Properties"]["Timeout"]) == (1024, 900)
    assert (lineage["Properties"]["MemorySize"], lineage["Properties"]["Timeout"]) == (512, 600)
    # reserveConcurrency defaults to on: one schema-sync at a time
    assert sync["Properties"]["ReservedConcurrentExecutions"] == 1
    assert lineage["Properties"]["ReservedConcurrentExecutions"] == 2


def test_log_groups_keep_logs_for_the_configured_retention(synth: Synthesized):
    groups = synth.resources("AWS::Logs::LogGroup")
    assert len(groups) == 4  # two functions, the custom resource handler, the provider framework
    assert {group["Properties"]["RetentionInDays"] for group in groups.values()} == {30}


def test_asynchronous_invocations_retry_twice_then_land_in_an_encrypted_queue(synth: Synthesized):
    (queue_id,) = synth.resources("AWS::SQS::Queue")
    synth.template.has_resource_properties("AWS::SQS::Queue", {"SqsManagedSseEnabled": True})
    configs = synth.resources("AWS::Lambda::EventInvokeConfig")
    assert len(configs) == 2
    for config in configs.values():
        props = config["Properties"]
        assert props["MaximumRetryAttempts"] == 2
        assert props["MaximumEventAgeInSeconds"] == 6 * 3600
        assert props["DestinationConfig"]["OnFailure"]["Destination"] == {"Fn::GetAtt": [queue_id, "Arn"]}
    # And the queue only accepts TLS
    synth.template.has_resource_properties(
        "AWS::SQS::QueuePolicy",
        {
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [
                        Match.object_like(
                            {"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}}
                        )
                    ]
                )
            }
        },
    )


def test_one_form_type_per_smithy_file_with_the_model_unchanged(synth: Synthesized):
    form_types = synth.resources("AWS::DataZone::FormType")
    files = {path.stem: path.read_text(encoding="utf-8") for path in SMITHY_DIR.glob("*.smithy")}
    assert {
        ft["Properties"]["Name"]: ft["Properties"]["Model"]["Smithy"] for ft in form_types.values()
    } == files
    for form_type in form_types.values():
        # Kept with the retained asset type that uses them
        assert form_type["DeletionPolicy"] == form_type["UpdateReplacePolicy"] == "Retain"
        assert form_type["Properties"]["DomainIdentifier"] == "dzd_PLACEHOLDER_domain"
        assert form_type["Properties"]["OwningProjectIdentifier"] == "PLACEHOLDER_project_id"
        assert form_type["Properties"]["Status"] == "ENABLED"


def test_asset_type_custom_resource_pins_the_form_type_revisions(synth: Synthesized):
    (resource,) = synth.resources("Custom::DataZoneAssetType").values()
    props = resource["Properties"]
    form_types = {
        ft["Properties"]["Name"]: lid for lid, ft in synth.resources("AWS::DataZone::FormType").items()
    }
    # The spec is smithy/KafkaTopicAssetType.json, read not restated
    assert json.loads(props["Spec"]) == json.loads(ASSET_TYPE_FILE.read_text())
    assert props["FormRevisions"] == {
        name: {"Fn::GetAtt": [logical_id, "Revision"]} for name, logical_id in form_types.items()
    }
    assert props["RemovalPolicy"] == "retain"
    assert (props["DomainId"], props["ProjectId"]) == ("dzd_PLACEHOLDER_domain", "PLACEHOLDER_project_id")


def test_the_asset_type_handler_may_replace_an_unused_type_even_when_retained(synth: Synthesized):
    # DataZone may refuse a new asset type revision (ConflictException); the handler then replaces a type
    # no asset uses, so it needs DeleteAssetType under "retain" too
    (policy,) = [
        p
        for lid, p in synth.resources("AWS::IAM::Policy").items()
        if lid.startswith("DataZoneTypesHandlerRole")
    ]
    (statement,) = [
        s for s in policy["Properties"]["PolicyDocument"]["Statement"] if s.get("Sid") == "DataZoneAssetType"
    ]
    assert "datazone:DeleteAssetType" in statement["Action"]
    assert statement["Resource"] == "*"


def test_every_role_writing_to_datazone_is_a_project_member(synth: Synthesized):
    memberships = synth.resources("AWS::DataZone::ProjectMembership")
    members = {
        m["Properties"]["Member"]["UserIdentifier"]["Fn::GetAtt"][0]: m["Properties"]["Designation"]
        for m in memberships.values()
    }
    roles = {
        handler: _function(synth, handler)[1]["Properties"]["Role"]["Fn::GetAtt"][0]
        for handler in (SCHEMA_SYNC_HANDLER, LINEAGE_HANDLER, "asset_type_resource.handler.handler")
    }
    assert members == {
        roles[SCHEMA_SYNC_HANDLER]: "PROJECT_CONTRIBUTOR",
        roles[LINEAGE_HANDLER]: "PROJECT_CONTRIBUTOR",
        roles["asset_type_resource.handler.handler"]: "PROJECT_OWNER",
    }


def test_schema_sync_permissions_are_explicit_and_scoped(synth: Synthesized):
    function_id, _ = _function(synth, SCHEMA_SYNC_HANDLER)
    statements = _statements(synth, function_id)
    # DataZone's data-plane actions take no resource type: "*" is the only grant that works
    assert statements["DataZoneAssets"]["Resource"] == "*"
    assert set(statements["DataZoneAssets"]["Action"]) == {
        "datazone:GetAssetType",
        "datazone:GetFormType",
        "datazone:CreateAsset",
        "datazone:CreateAssetRevision",
        "datazone:GetAsset",
        "datazone:DeleteAsset",
        "datazone:Search",
        "datazone:CreateListingChangeSet",
        "datazone:GetListing",
        # governed domains: held deletions (subscriptions) and the rules that refuse a publish
        "datazone:ListSubscriptions",
        "datazone:GetProject",
        "datazone:ListRules",
    }
    assert _resources(statements["GlueSchemaRegistryRead"]) == [
        _arn("glue", "registry/cdc"),
        _arn("glue", "schema/cdc/*"),
    ]
    # The source has no explicit namespace: it comes from the brokers (GetBootstrapBrokers: "*" only)
    assert statements["MskBootstrapBrokers"]["Action"] == "kafka:GetBootstrapBrokers"
    assert statements["MskBootstrapBrokers"]["Resource"] == "*"
    # The topics as the source's cluster has them: ListTopics on the cluster, DescribeTopic on its topics
    assert statements["MskTopicList"]["Action"] == "kafka:ListTopics"
    (cluster,) = _resources(statements["MskTopicList"])
    assert ":cluster/" in cluster
    assert statements["MskTopicDescribe"]["Action"] == "kafka:DescribeTopic"
    assert _resources(statements["MskTopicDescribe"]) == [cluster.replace(":cluster/", ":topic/") + "/*"]
    assert _resources(statements["MappingsRead"]) == [
        _arn("ssm", "parameter/kafka-lineage"),
        _arn("ssm", "parameter/kafka-lineage/*"),
    ]
    assert _resources(statements["MappingsWrite"]) == [_arn("ssm", "parameter/kafka-lineage/assets/*")]
    # Its own lease, and no other function's, at the path the lease module uses
    path = lease_path("/kafka-lineage", "schema-sync")
    assert _resources(statements["StateLease"]) == [
        _arn("ssm", f"parameter{path}"),
        _arn("ssm", f"parameter{path}/*"),
    ]
    assert set(statements["StateLease"]["Action"]) == {
        "ssm:GetParametersByPath",
        "ssm:PutParameter",
        "ssm:DeleteParameters",
    }
    # It may hand a checkpointed run to a follow-up invocation of itself, and invoke nothing else
    assert statements["InvokeItself"]["Action"] == "lambda:InvokeFunction"
    assert statements["InvokeItself"]["Resource"] == {"Fn::GetAtt": [function_id, "Arn"]}
    events = statements["PutAssetChangedEvents"]
    assert _resources(events) == [_arn("events", "event-bus/default")]
    assert events["Condition"] == {"StringEquals": {"events:source": ["kafka-lineage.schema-sync"]}}
    # No Glue Data Catalog, no lineage writes
    assert "GlueCatalogRead" not in statements
    assert not any("PostLineageEvent" in str(s["Action"]) for s in statements.values())


def test_lineage_permissions_are_explicit_and_scoped(synth: Synthesized):
    function_id, _ = _function(synth, LINEAGE_HANDLER)
    statements = _statements(synth, function_id)
    assert statements["DataZoneLineage"]["Resource"] == "*"
    assert set(statements["DataZoneLineage"]["Action"]) == {
        "datazone:PostLineageEvent",
        "datazone:DeleteLineageEvent",
        "datazone:ListLineageEvents",
        "datazone:GetLineageEvent",
    }
    assert statements["GlueSchemaVersionRead"]["Action"] == "glue:GetSchemaVersion"
    # The table rule's database, and nothing else, in the Data Catalog
    assert _resources(statements["GlueCatalogRead"]) == [
        _arn("glue", "catalog"),
        _arn("glue", "database/lakehouse"),
        _arn("glue", "table/lakehouse/*"),
    ]
    assert _resources(statements["MappingsWrite"]) == [
        _arn("ssm", "parameter/kafka-lineage/lineage/*"),
        _arn("ssm", "parameter/kafka-lineage/drift/*"),
    ]
    # Schema drift announcements: the default bus, under the lineage function's own source only
    assert statements["PutSchemaDriftEvents"]["Condition"] == {
        "StringEquals": {"events:source": ["kafka-lineage.lineage-emission"]}
    }
    path = lease_path("/kafka-lineage", "lineage-emission")
    assert _resources(statements["StateLease"]) == [
        _arn("ssm", f"parameter{path}"),
        _arn("ssm", f"parameter{path}/*"),
    ]
    assert statements["InvokeItself"]["Resource"] == {"Fn::GetAtt": [function_id, "Arn"]}
    assert "PutAssetChangedEvents" not in statements
    # MSK Connect: list (and the clusters' brokers, to tell whose a connector is) on "*", as the SAR
    # requires; describe only connectors (every one: the source reads all of its cluster's by default)
    assert statements["MskConnectList"]["Resource"] == "*"
    assert set(statements["MskConnectList"]["Action"]) == {
        "kafkaconnect:ListConnectors",
        "kafka:GetBootstrapBrokers",
    }
    assert statements["MskConnectDescribe"]["Action"] == "kafkaconnect:DescribeConnector"
    assert _resources(statements["MskConnectDescribe"]) == [_arn("kafkaconnect", "connector/*/*")]
    # Channels and delivery streams: list channels on the source's cluster, describe its channels; list
    # streams on "*" (the SAR gives it no resource type), describe this account's; read S3 Tables metadata
    cluster = load_config(shipped_context()[CONTEXT_KEY]).settings.sources[0].cluster_arn
    assert statements["MskChannelList"]["Resource"] == cluster
    assert statements["MskChannelDescribe"]["Resource"] == cluster.replace(":cluster/", ":channel/") + "/*"
    assert statements["FirehoseList"]["Resource"] == "*"
    assert _resources(statements["FirehoseDescribe"]) == [_arn("firehose", "deliverystream/*")]
    assert _resources(statements["S3TablesCatalogRead"]) == [
        _arn("glue", "catalog"),
        _arn("glue", "catalog/s3tablescatalog"),
        _arn("glue", "catalog/s3tablescatalog/*"),
        _arn("glue", "database/s3tablescatalog/*/*"),
        _arn("glue", "table/s3tablescatalog/*/*/*"),
    ]
    # Consumer groups: ListMetrics takes no resource type in the SAR, so only "*" grants it
    assert statements["ConsumerGroupsList"]["Action"] == "cloudwatch:ListMetrics"
    assert statements["ConsumerGroupsList"]["Resource"] == "*"
    # A drift names the subscribers of the topic's asset: its listing and its subscriptions, read only
    assert statements["DataZoneSubscribers"]["Resource"] == "*"
    assert set(statements["DataZoneSubscribers"]["Action"]) == {
        "datazone:GetAsset",
        "datazone:ListSubscriptions",
    }
    # The namespaces come from schema-sync's records: no DataZone asset call
    assert not any("CreateAsset" in str(s["Action"]) for s in statements.values())


def test_only_actions_without_a_resource_type_are_on_the_wildcard_resource(synth: Synthesized):
    on_star: set[str] = set()
    for logical_id, policy in synth.resources("AWS::IAM::Policy").items():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            actions = statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
            assert all("*" not in action.split(":")[1] for action in actions), (logical_id, actions)
            if statement["Resource"] == "*":
                on_star.update(actions)
    assert {action.split(":")[0] for action in on_star} == {
        "xray",
        "datazone",
        "kafka",
        "kafkaconnect",
        "firehose",
        "cloudwatch",
    }
    assert {a for a in on_star if not a.startswith("datazone:")} == {
        "xray:PutTraceSegments",
        "xray:PutTelemetryRecords",
        "kafka:GetBootstrapBrokers",
        "kafkaconnect:ListConnectors",
        "firehose:ListDeliveryStreams",
        "cloudwatch:ListMetrics",
    }


def test_schedules_sync_hourly_verify_daily_and_lineage_after_the_sync(synth: Synthesized):
    sync_id, _ = _function(synth, SCHEMA_SYNC_HANDLER)
    lineage_id, _ = _function(synth, LINEAGE_HANDLER)
    scheduled = {
        rule["Properties"]["ScheduleExpression"]: rule["Properties"]["Targets"]
        for rule in synth.resources("AWS::Events::Rule").values()
        if "ScheduleExpression" in rule["Properties"]
    }
    assert set(scheduled) == {"cron(0 * * * ? *)", "cron(40 3 * * ? *)", "cron(20 * * * ? *)"}
    (sync_target,) = scheduled["cron(0 * * * ? *)"]
    (verify_target,) = scheduled["cron(40 3 * * ? *)"]
    (lineage_target,) = scheduled["cron(20 * * * ? *)"]
    assert sync_target["Arn"] == {"Fn::GetAtt": [sync_id, "Arn"]}
    assert "Input" not in sync_target  # the "Scheduled Event" itself asks for a full sync
    assert verify_target["Arn"] == {"Fn::GetAtt": [sync_id, "Arn"]}
    assert json.loads(verify_target["Input"]) == {"verify": True}
    assert lineage_target["Arn"] == {"Fn::GetAtt": [lineage_id, "Arn"]}
    for target in (sync_target, verify_target, lineage_target):
        assert target["RetryPolicy"]["MaximumRetryAttempts"] == 4
        assert "DeadLetterConfig" in target


def test_glue_changes_go_to_schema_sync_and_asset_changes_to_lineage(synth: Synthesized):
    sync_id, _ = _function(synth, SCHEMA_SYNC_HANDLER)
    lineage_id, _ = _function(synth, LINEAGE_HANDLER)
    patterned = [
        rule["Properties"]
        for rule in synth.resources("AWS::Events::Rule").values()
        if "EventPattern" in rule["Properties"]
    ]
    by_source = {props["EventPattern"]["source"][0]: props for props in patterned}
    # (and lineage's drift events to schema-sync: test_drift_trigger.py)
    assert set(by_source) == {"aws.glue", "kafka-lineage.schema-sync", "kafka-lineage.lineage-emission"}
    # The deployed pattern is exactly the one tests/infrastructure/test_event_patterns.py runs through moto
    assert by_source["aws.glue"]["EventPattern"] == glue_registry_change_pattern(["cdc"])
    assert [t["Arn"] for t in by_source["aws.glue"]["Targets"]] == [{"Fn::GetAtt": [sync_id, "Arn"]}]
    assert "Input" not in by_source["aws.glue"]["Targets"][0]
    assert by_source["kafka-lineage.schema-sync"]["EventPattern"] == {
        "source": ["kafka-lineage.schema-sync"],
        "detail-type": ["Topic Asset Changed"],
    }
    targets = by_source["kafka-lineage.schema-sync"]["Targets"]
    assert [t["Arn"] for t in targets] == [{"Fn::GetAtt": [lineage_id, "Arn"]}]


def test_nothing_triggers_before_the_asset_type_and_memberships_exist(synth: Synthesized):
    (asset_type_id,) = synth.resources("Custom::DataZoneAssetType")
    memberships = set(synth.resources("AWS::DataZone::ProjectMembership"))
    for logical_id, rule in synth.resources("AWS::Events::Rule").items():
        depends = set(rule.get("DependsOn", []))
        assert asset_type_id in depends, logical_id
        assert len(depends & memberships) == 2, logical_id


def test_alarms_watch_errors_failed_items_and_the_failure_queue(synth: Synthesized):
    alarms = list(synth.resources("AWS::CloudWatch::Alarm").values())
    assert len(alarms) == 5
    (breaking,) = [a for a in alarms if a["Properties"].get("MetricName") == "SchemaDriftBreaking"]
    assert breaking["Properties"]["Threshold"] == 1
    assert breaking["Properties"]["Dimensions"] == [{"Name": "service", "Value": "kafka-lineage"}]
    errors = [a for a in alarms if a["Properties"].get("MetricName") == "Errors"]
    assert len(errors) == 2
    failed_items = [a for a in alarms if "Metrics" in a["Properties"]]
    (expression,) = [m for m in failed_items[0]["Properties"]["Metrics"] if "Expression" in m]
    names = {
        m["MetricStat"]["Metric"]["MetricName"]
        for m in failed_items[0]["Properties"]["Metrics"]
        if "MetricStat" in m
    }
    assert names == {"SchemasFailed", "EventsFailed", "LineageFailed"}
    assert expression["Expression"].count("FILL(") == 3
    for m in failed_items[0]["Properties"]["Metrics"]:
        if "MetricStat" in m:
            assert m["MetricStat"]["Metric"]["Namespace"] == "KafkaLineage"
            assert m["MetricStat"]["Metric"]["Dimensions"] == [{"Name": "service", "Value": "kafka-lineage"}]
    assert any(a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible" for a in alarms)
    # No e-mail or topic configured: the alarms have no actions, and there is no topic or trail
    assert all("AlarmActions" not in a["Properties"] for a in alarms)
    assert not synth.resources("AWS::SNS::Topic")
    assert not synth.resources("AWS::CloudTrail::Trail")
    assert not synth.resources("AWS::SSM::Parameter")


def test_cdk_nag_aws_solutions_reports_no_unacknowledged_finding(synth: Synthesized):
    # Synthesis would have raised on one; the report confirms no plugin failed
    report = synth.validation_report()
    failures = [r for r in report["pluginReports"] if r.get("conclusion") != "success"]
    assert failures == []


def test_cfn_lint_finds_no_error(synth: Synthesized):
    matches = lint(synth.template_path.read_text(), config=ManualArgs(regions=["eu-west-1", "us-east-1"]))
    errors = [
        f"{m.rule.id} {m.message} at {'/'.join(map(str, m.path))}" for m in matches if m.rule.id[0] == "E"
    ]
    assert errors == []


def test_placeholders_are_flagged_at_synth(synth: Synthesized):
    # The shipped cdk.json synthesizes, and says which values to replace before deploying
    assert load_config(shipped_context()[CONTEXT_KEY]).placeholders == [
        "kafkaLineage.domainId",
        "kafkaLineage.projectId",
        "kafkaLineage.sources[0].clusterArn",
    ]
    # as warnings in the cloud assembly (the CLI prints them; `cdk deploy` would then fail in DataZone)
    metadata = (synth.outdir / f"{synth.stack.stack_name}.metadata.json").read_text()
    for key in ("domainId", "projectId", "sources[0].clusterArn"):
        assert f"cdk.json context kafkaLineage.{key} is a placeholder" in metadata


def test_the_failed_items_alarm_watches_metrics_the_handlers_publish():
    # Each alarmed metric name is published somewhere in the shared runtime code (no silent drift)
    sources = "\n".join(path.read_text() for path in (ROOT / "lambdas" / "kafka_lineage").rglob("*.py"))
    for name in FAILED_ITEM_METRICS:
        assert f'"{name}"' in sources, name


def test_every_allow_statement_is_usable_per_the_service_authorization_reference(synth: Synthesized):
    # Given every policy statement of the template, intrinsics resolved to sample values
    statements = [statement for _, statement in template_statements(synth.cfn)]
    assert any("datazone:CreateAsset" in str(s["Action"]) for s in statements)  # the check sees the roles
    # When checked against the SAR data / Then each grant is one AWS would honour
    assert [str(finding) for finding in check_template(synth.cfn)] == []


def test_the_stack_grants_a_lease_to_every_holder_the_lease_module_knows():
    assert {SCHEMA_SYNC_HOLDER, LINEAGE_HOLDER} == set(HOLDERS)
    for holder in HOLDERS:
        assert lease_path("/kafka-lineage", holder) == f"/kafka-lineage/{LEASE_PATH}/{holder}"
