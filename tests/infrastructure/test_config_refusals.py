"""Configuration that CloudFormation, EventBridge or the functions would refuse later is refused at synth,
naming the setting; and the governed-domain settings (no synthesis here)."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kafka_lineage.config import ConfigError
from stacks.config import CONTEXT_KEY, load_config
from tests.infrastructure.stack_synth import shipped_context

ROLE = "arn:aws:iam::111122223333:role/kafka-lineage-source-read"


def settings_with(**changes: Any) -> dict[str, Any]:
    raw = copy.deepcopy(shipped_context()[CONTEXT_KEY])
    raw.update(changes)
    return raw


def source(**changes: Any) -> dict[str, Any]:
    entry = copy.deepcopy(shipped_context()[CONTEXT_KEY]["sources"][0])
    entry.update(changes)
    return entry


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        # cron fields out of range (EventBridge refuses them at deploy time)
        (settings_with(schedules={"sync": "cron(61 * * * ? *)"}), "schedules.sync: Value error, schedule"),
        (settings_with(schedules={"sync": "cron(0 24 * * ? *)"}), "hours '24' is outside 0-23"),
        (settings_with(schedules={"verify": "cron(0 3 32 * ? *)"}), "day-of-month '32' is outside 1-31"),
        (settings_with(schedules={"verify": "cron(0 3 ? 13 * *)"}), "month '13' is outside 1-12 or JAN-DEC"),
        (settings_with(schedules={"verify": "cron(0 3 ? * 8 *)"}), "day-of-week '8' is outside 1-7"),
        (settings_with(schedules={"lineage": "cron(0/75 * * * ? *)"}), "minutes step '75'"),
        (settings_with(schedules={"lineage": "cron(0 12 * * * *)"}), "exactly one of day-of-month"),
        (settings_with(schedules={"lineage": "cron(0 12 ? * FUN *)"}), "day-of-week 'FUN'"),
        # stack names CloudFormation refuses (a jsii stack trace before)
        (settings_with(stackName="Kafka_Lineage"), "kafkaLineage.stackName"),
        (settings_with(stackName="1KafkaLineage"), "kafkaLineage.stackName"),
        (settings_with(stackName="K" * 129), "kafkaLineage.stackName"),
        # strings where booleans belong
        (settings_with(reserveConcurrency="false"), "kafkaLineage.reserveConcurrency"),
        (settings_with(createCloudTrail="yes"), "kafkaLineage.createCloudTrail"),
        (settings_with(notifyBreakingDrift=1), "kafkaLineage.notifyBreakingDrift"),
        # an explicit mapping that the source's filters drop
        (
            settings_with(
                tableMappings=[{"topic": "__debezium-heartbeat.dbserver1", "database": "d", "table": "t"}]
            ),
            "kafkaLineage.tableMappings[0].topic: '__debezium-heartbeat.dbserver1' is dropped by the "
            "include/exclude filters of every source",
        ),
        (
            settings_with(
                tableMappings=[
                    {"topic": "other.orders", "database": "d", "table": "t", "registryName": "cdc"}
                ]
            ),
            "'other.orders' is dropped by the include/exclude filters of source 'cdc'",
        ),
        # the asset type name: at most what a Search filter value takes
        (settings_with(assetTypeName="T" * 129), "kafkaLineage.assetTypeName"),
        # governed domains
        (settings_with(domainUnitId="Has Spaces"), "kafkaLineage.domainUnitId"),
        (settings_with(domainKmsKeyArn="alias/datazone"), "kafkaLineage.domainKmsKeyArn"),
        (
            settings_with(domainKmsKeyArn="arn:aws:kms:eu-west-1:111122223333:alias/datazone"),
            "not a KMS key ARN",
        ),
        (settings_with(projectMembership="cloudformation"), "kafkaLineage.projectMembership"),
        # access: the same model the function reads ACCESS with, its errors naming the key
        (settings_with(access={"consumerRoles": ["orders-reader"]}), "kafkaLineage.access.consumerRoles"),
        (
            settings_with(access={"consumerRoles": ["arn:aws:iam::111122223333:user/bob"]}),
            "is not an IAM role ARN pattern",
        ),
        (settings_with(access={"consumerGroups": ["orders-*"]}), "kafkaLineage.access.consumerGroups"),
        (settings_with(access={"consumerGroups": []}), "at least one consumer-group pattern"),
        (
            settings_with(access={"consumerAccountRole": "arn:aws:iam::444455556666:role/x"}),
            "kafkaLineage.access.consumerAccountRole",
        ),
        (settings_with(access={"externalId": "x"}), "kafkaLineage.access.externalId"),
        (settings_with(access={"consumerRole": []}), "kafkaLineage.access.consumerRole"),
        (settings_with(access="all"), "kafkaLineage.access"),
        (settings_with(schedules={"grants": "rate(1 hours)"}), "schedules.grants"),
        (
            settings_with(
                access={
                    "consumerRoles": [f"arn:aws:iam::111122223333:role/{n}-" + "r" * 60 for n in range(70)]
                }
            ),
            "(largest: ACCESS, ",
        ),
        (
            settings_with(projectMembership="manual", stackName="S" * 48),
            'kafkaLineage.stackName: with projectMembership "manual"',
        ),
    ],
)
def test_refused_at_synth_naming_the_setting(raw: Any, named: str):
    with pytest.raises(ConfigError, match=re.escape(named)):
        load_config(raw)


@pytest.mark.parametrize(
    "expression",
    [
        "cron(0 * * * ? *)",
        "cron(0/15 8-18 ? * MON-FRI *)",
        "cron(0 12 L * ? *)",
        "cron(0 12 15W * ? 2027)",
        "cron(0 12 ? * 6#3 *)",
        "cron(0 12 ? JAN,JUL 2L *)",
        "cron(59 23 31 12 ? 2199)",
    ],
)
def test_valid_cron_expressions_pass(expression: str):
    assert load_config(settings_with(schedules={"sync": expression})).deployment.schedules.sync == expression


def test_the_longest_stack_name_manual_membership_allows_passes():
    config = load_config(settings_with(projectMembership="manual", stackName="S" * 47))
    assert config.role_name("AssetTypeHandler") == "S" * 47 + "-AssetTypeHandler"
    assert len(config.role_name("AssetTypeHandler") or "") == 64
    assert load_config(settings_with()).role_name("SchemaSync") is None


def test_access_passes_to_the_function_as_the_settings_it_reads():
    # Given access with a string where a list may be, and defaults left out
    config = load_config(settings_with(access={"consumerRoles": "arn:aws:iam::111122223333:role/team/*"}))
    # Then ACCESS holds only what differs from the defaults, which the function reads back
    environment = config.grants_environment
    assert environment is not None
    assert json.loads(environment["ACCESS"]) == {"consumerRoles": ["arn:aws:iam::111122223333:role/team/*"]}
    assert config.warnings == []
    # and unset, no environment: the function is not deployed
    assert load_config(settings_with()).grants_environment is None
    # and an empty access deploys it, with a warning naming the key
    assert any("access.consumerRoles is empty" in w for w in load_config(settings_with(access={})).warnings)


def test_a_missing_context_file_is_named_as_a_file(tmp_path: Path):
    missing = tmp_path / "kafka-lineage.json"
    with pytest.raises(ConfigError, match=r"is neither a JSON object nor an existing file"):
        load_config(str(missing))
    # And an existing file is read
    missing.write_text(json.dumps(settings_with()))
    assert load_config(str(missing)).settings.project_id == "PLACEHOLDER_project_id"


def test_a_role_source_without_external_id_deploys_with_a_warning_naming_it():
    with_id = source(roleArn=ROLE, externalId="kafka-lineage-7f3a", clusterArn=source()["clusterArn"])
    without = source(roleArn=ROLE, registryName="other", clusterArn=source()["clusterArn"])
    config = load_config(settings_with(sources=[with_id, without]))
    (warning,) = config.warnings
    assert "kafkaLineage.sources[1].roleArn is assumed without an externalId" in warning


def test_governed_settings_are_read():
    config = load_config(
        settings_with(
            domainUnitId="unit_streaming-01",
            domainKmsKeyArn="arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab",
            projectMembership="manual",
        )
    )
    assert config.deployment.domain_unit_id == "unit_streaming-01"
    assert config.deployment.project_membership == "manual"
