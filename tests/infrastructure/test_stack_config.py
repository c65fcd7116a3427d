"""cdk.json context validation (no synthesis): every error names the context key at fault."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_lineage.config import (
    LAMBDA_ENV_LIMIT,
    SSM_ARN_PREFIX_BUDGET,
    SSM_MAX_ARN,
    SSM_MAX_LEVELS,
    ConfigError,
)
from kafka_lineage.model.names import GLUE_REGISTRY_NAME
from kafka_lineage.model.table_mapping import TableMapping
from stacks.config import (
    CONTEXT_KEY,
    environment_size,
    load_config,
    table_mapping_parameter_name,
)
from stacks.lineage_stack import EXTRA_ENVIRONMENT
from tests.infrastructure.stack_synth import full_context, shipped_context


def settings_with(**changes: Any) -> dict[str, Any]:
    raw = copy.deepcopy(shipped_context()[CONTEXT_KEY])
    raw.update(changes)
    return raw


def source(**changes: Any) -> dict[str, Any]:
    entry = copy.deepcopy(shipped_context()[CONTEXT_KEY]["sources"][0])
    entry.update(changes)
    return entry


def test_the_shipped_and_the_full_contexts_are_valid():
    assert load_config(shipped_context()[CONTEXT_KEY]).settings.domain_id == "dzd_PLACEHOLDER_domain"
    full = load_config(full_context()[CONTEXT_KEY], extra_environment=EXTRA_ENVIRONMENT)
    assert full.registry_names == ("cdc", "cdc.prod-$1")
    assert full.databases == ("archive", "lakehouse", "ops", "sales")


def test_a_json_string_from_cdk_c_is_accepted():
    # `cdk synth -c kafkaLineage='{...}'` passes the object as a string
    assert load_config(json.dumps(settings_with())).settings.project_id == "PLACEHOLDER_project_id"


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        (None, "kafkaLineage is missing"),
        ("{not json", "kafkaLineage is not valid JSON"),
        ([], "kafkaLineage must be an object"),
        (settings_with(domainId="dzd.nope"), "kafkaLineage.domainId"),
        (settings_with(projectId="has space"), "kafkaLineage.projectId"),
        (settings_with(mappingPath="kafka-lineage"), "kafkaLineage.mappingPath"),
        (settings_with(mappingPath="/aws/lineage"), "kafkaLineage.mappingPath"),
        (settings_with(sources=[]), "kafkaLineage.sources"),
        (
            settings_with(sources=[source(clusterArn="arn:aws:kafka:eu-west-1:1:cluster/x")]),
            "sources[0].clusterArn",
        ),
        (settings_with(sources=[source(registryName="bad name")]), "sources[0].registryName"),
        (settings_with(sources=[source(include=["(unclosed"])]), "sources[0].include"),
        (settings_with(sources=[source(), source()]), "kafkaLineage.sources"),
        (settings_with(tuning={"maxConcurrency": 0}), "kafkaLineage.tuning.maxConcurrency"),
        (settings_with(tuning={"maxConcurency": 4}), "kafkaLineage.tuning.maxConcurency: unknown setting"),
        (settings_with(schedules={"sync": "every hour"}), "kafkaLineage.schedules.sync"),
        (settings_with(schedules={"sync": "rate(1 hours)"}), "kafkaLineage.schedules.sync"),
        (settings_with(schedules={"verify": "cron(0 3 * *)"}), "kafkaLineage.schedules.verify"),
        (settings_with(logRetentionDays=10), "kafkaLineage.logRetentionDays"),
        (settings_with(alarmEmail="ops"), "kafkaLineage.alarmEmail"),
        (settings_with(notifyBreakingDrift=True), "kafkaLineage.notifyBreakingDrift"),
        (settings_with(alarmTopicArn="arn:aws:sqs:eu-west-1:111122223333:q"), "kafkaLineage.alarmTopicArn"),
        (settings_with(assetTypeRemovalPolicy="snapshot"), "kafkaLineage.assetTypeRemovalPolicy"),
        (settings_with(extraDatabases=["no spaces"]), "kafkaLineage.extraDatabases"),
        (
            settings_with(tableMappings=[{"topic": "t", "database": "d"}]),
            "kafkaLineage.tableMappings[0].table",
        ),
        (
            settings_with(tableMappings=[{"topic": "t$", "database": "d", "table": "t", "x": 1}]),
            "tableMappings[0].x",
        ),
        (
            settings_with(
                tableMappings=[{"topic": "t", "database": "d", "table": "t", "registryName": "other"}]
            ),
            "kafkaLineage.tableMappings[0].registryName",
        ),
        (
            settings_with(
                tableMappings=[{"topic": "dbserver1.inventory.t", "database": "d", "table": "a"}] * 2
            ),
            "kafkaLineage.tableMappings[1]",
        ),
        (settings_with(lineageTimeoutSeconds=60), "kafkaLineage.lineageTimeoutSeconds"),
        (settings_with(unknownKey=True), "kafkaLineage.unknownKey"),
    ],
)
def test_invalid_context_fails_naming_the_key(raw: Any, named: str):
    # Given a malformed value / When the context is loaded / Then the error names where it is
    with pytest.raises(ConfigError, match=re.escape(named)):
        load_config(raw)


def test_keys_starting_with_an_underscore_are_comments():
    assert load_config(settings_with(_note="anything")).settings.mapping_path == "/kafka-lineage"


def test_the_deprecated_state_root_key_is_accepted_with_a_warning_naming_its_replacement():
    # Given the snake_case spelling the context model accepted before mappingPath was the one name
    raw = settings_with(state_root="/lineage-state")
    del raw["mappingPath"]
    # When the context is loaded, then it is the mapping path, and synth warns naming both keys
    config = load_config(raw)
    assert config.settings.mapping_path == "/lineage-state"
    assert [w for w in config.warnings if "kafkaLineage.state_root is deprecated: write mappingPath" in w]
    # and the current key gives no such warning
    assert not [w for w in load_config(settings_with()).warnings if "deprecated" in w]


def test_off_disables_a_schedule():
    config = load_config(settings_with(schedules={"verify": "off", "sync": "rate(1 hour)"}))
    assert config.deployment.schedules.verify is None
    assert config.deployment.schedules.sync == "rate(1 hour)"
    assert config.deployment.schedules.lineage == "cron(20 * * * ? *)"


def test_an_environment_over_lambdas_4_kb_fails_synth_naming_sources():
    # Given sources whose SOURCES JSON alone passes 4 KB
    many = [source(registryName=f"registry-{i}", include=[f"^prefix-{i}-" + "x" * 150]) for i in range(24)]
    with pytest.raises(ConfigError, match=r"over Lambda's 4096-byte limit .*kafkaLineage\.sources"):
        load_config(settings_with(sources=many))


def test_an_environment_just_under_the_limit_passes():
    # Given as many sources as fit (the stack's own extra variables counted)
    sources: list[dict[str, Any]] = []
    while True:
        candidate = [*sources, source(registryName=f"r{len(sources)}")]
        try:
            config = load_config(settings_with(sources=candidate), extra_environment=EXTRA_ENVIRONMENT)
        except ConfigError:
            break
        sources = candidate
    env = {**config.settings.to_environment(), **EXTRA_ENVIRONMENT}
    assert LAMBDA_ENV_LIMIT - 400 < environment_size(env) <= LAMBDA_ENV_LIMIT


def test_a_mapping_path_too_long_for_ssm_fails_synth():
    deep = "/" + "/".join(["level"] * 13)
    with pytest.raises(ConfigError, match=r"kafkaLineage\.mappingPath.*too deep"):
        load_config(settings_with(mappingPath=deep))
    long = "/" + "p" * 900
    with pytest.raises(ConfigError, match=r"kafkaLineage\.mappingPath.*too long"):
        load_config(settings_with(mappingPath=long))


glue_names = st.from_regex(GLUE_REGISTRY_NAME, fullmatch=True)


@settings(max_examples=300, deadline=None)
@given(topic=glue_names, registry=st.one_of(st.none(), glue_names))
def test_table_mapping_parameter_names_are_valid_ssm_names_for_any_glue_name(
    topic: str, registry: str | None
):
    # Given any topic and registry name the Glue Schema Registry accepts, under the longest allowed path
    mapping_path = "/" + "m" * (SSM_MAX_ARN - SSM_ARN_PREFIX_BUDGET - len("/table-mappings/cdk/") - 64 - 1)
    name = table_mapping_parameter_name(
        mapping_path, TableMapping(topic=topic, database="db", table="t", registryName=registry)
    )
    levels = name.strip("/").split("/")
    # Then SSM accepts the name
    assert re.fullmatch(r"(/[a-zA-Z0-9_.\-]+)+", name)
    assert len(levels) <= SSM_MAX_LEVELS
    assert not any(level.lower().startswith(("aws", "ssm")) for level in levels)
    assert SSM_ARN_PREFIX_BUDGET + len(name) <= SSM_MAX_ARN


def test_table_mapping_parameter_names_are_unique_per_registry_and_topic():
    names = {
        table_mapping_parameter_name(
            "/p", TableMapping(topic=topic, database="d", table="t", registryName=registry)
        )
        for topic in ("orders", "orders$", "orders#", "Orders")
        for registry in (None, "cdc", "cdc.prod-$1")
    }
    assert len(names) == 12
