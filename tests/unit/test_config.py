"""Settings: valid environments parse; every malformed setting fails fast, naming the variable."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from kafka_lineage.config import ConfigError, Settings, TableRule
from kafka_lineage.config.sources import ConnectorFilter, ConsumerFilter, DeliveryFilter
from kafka_lineage.model.ssm_names import validate_ssm_path
from tests.fixtures import CLUSTER_ARN, environment


def test_given_a_valid_environment_when_parsed_then_sources_and_defaults_are_set() -> None:
    settings = Settings.from_environment(environment())

    assert settings.asset_type_name == "KafkaTopicAssetType"
    assert settings.sources[0].registry_name == "cdc"
    assert settings.sources[0].region == "eu-west-1"
    assert settings.tuning.mass_delete_share == 0.5


def test_given_settings_when_written_to_an_environment_then_they_read_back_equal() -> None:
    settings = Settings.from_environment(environment(TUNING='{"max_concurrency": 4}'))

    assert Settings.from_environment(settings.to_environment()) == settings


@pytest.mark.parametrize(
    ("override", "named"),
    [
        ({"DOMAIN_ID": ""}, "DOMAIN_ID"),
        ({"DOMAIN_ID": "domain-1"}, "DOMAIN_ID"),
        ({"PROJECT_ID": "bad project"}, "PROJECT_ID"),
        ({"MAPPING_PATH": "kafka-lineage"}, "MAPPING_PATH"),
        ({"MAPPING_PATH": "/ssm-mappings"}, "MAPPING_PATH"),
        ({"MAPPING_PATH": "/" + "a" * 1000}, "MAPPING_PATH"),
        ({"SOURCES": "not json"}, "SOURCES"),
        ({"SOURCES": "[]"}, "SOURCES"),
        ({"SOURCES": json.dumps([{"registryName": "cdc"}])}, "SOURCES[0].clusterArn"),
        ({"SOURCES": json.dumps([{"registryName": "bad/name", "clusterArn": CLUSTER_ARN}])}, "SOURCES[0]"),
        (
            {"SOURCES": json.dumps([{"registryName": "cdc", "clusterArn": CLUSTER_ARN, "x": 1}])},
            "SOURCES[0].x",
        ),
        ({"TUNING": '{"mass_delete_share": 2}'}, "TUNING.mass_delete_share"),
    ],
)
def test_given_a_malformed_setting_when_parsed_then_the_error_names_it(
    override: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError, match=named.replace("[", r"\[").replace("]", r"\]").replace(".", r"\.")):
        Settings.from_environment(environment(**override))


def test_given_two_sources_with_one_registry_when_parsed_then_rejected() -> None:
    source = {"registryName": "cdc", "clusterArn": CLUSTER_ARN}
    with pytest.raises(ConfigError, match="more than once"):
        Settings.from_environment(environment(SOURCES=json.dumps([source, source])))


def test_given_a_table_rule_when_a_topic_matches_then_the_lowercased_table_is_returned() -> None:
    rule = TableRule(
        database="LakeHouse", match=r"dbserver1\.inventory\.(?P<table>[^.]+)", table="cdc_{table}"
    )

    assert rule.table_for("dbserver1.inventory.Customers") == ("lakehouse", "cdc_customers")
    assert rule.table_for("__debezium-heartbeat.dbserver1") is None


def test_given_a_template_with_an_unknown_group_when_validated_then_rejected() -> None:
    with pytest.raises(ValueError, match="named groups"):
        TableRule(database="db", match=r"(?P<table>.+)", table="{schema}_{table}")


@pytest.mark.parametrize("path", ["/awsome", "/x/SSM-things", "/a b", "/" + "/l" * 13])
def test_given_an_ssm_path_ssm_would_reject_when_validated_then_rejected(path: str) -> None:
    with pytest.raises(ValueError, match=r"SSM|too deep"):
        validate_ssm_path(path)


def test_given_a_setting_added_as_one_field_then_it_reaches_the_environment_and_back() -> None:
    # Given a settings model with one more field, and nothing else edited
    from typing import Annotated

    from pydantic import Field

    class Extended(Settings):
        lineage_page_size: Annotated[int, Field(ge=1, le=50)] = Field(default=25, description="A page.")

    # When settings with it set are written to an environment
    settings = Extended.from_environment(environment(LINEAGE_PAGE_SIZE="10"))
    written = settings.to_environment()
    # Then its variable is its name in capitals, read back equal, and an error names the variable
    assert written["LINEAGE_PAGE_SIZE"] == "10"
    assert Extended.from_environment(written) == settings
    with pytest.raises(ConfigError, match=r"LINEAGE_PAGE_SIZE: Input should be less than or equal to 50"):
        Extended.from_environment(environment(LINEAGE_PAGE_SIZE="51"))


def test_given_settings_at_their_defaults_then_only_the_required_variables_are_written() -> None:
    # Given an environment with only the required settings
    required = {key: environment()[key] for key in ("DOMAIN_ID", "PROJECT_ID", "SOURCES")}
    settings = Settings.from_environment(required)
    # Then the defaults apply, and writing them back writes only the required variables
    assert (settings.mapping_path, settings.asset_type_name) == ("/kafka-lineage", "KafkaTopicAssetType")
    assert set(settings.to_environment()) == set(required)


@pytest.mark.parametrize("tuning", ['{"maxConcurrency": 4}', '{"max_concurrency": 4}'])
def test_given_tuning_in_either_spelling_then_it_is_read_and_written_as_cdk_json_spells_it(
    tuning: str,
) -> None:
    settings = Settings.from_environment(environment(TUNING=tuning))
    assert settings.tuning.max_concurrency == 4
    assert json.loads(settings.to_environment()["TUNING"]) == {"maxConcurrency": 4}


def test_given_an_unknown_tuning_key_then_the_error_names_it_and_the_known_keys() -> None:
    with pytest.raises(
        ConfigError, match=r"TUNING\.maxConcurency: unknown setting \(known: massDeleteShare, "
    ):
        Settings.from_environment(environment(TUNING='{"maxConcurency": 4}'))


@pytest.mark.parametrize(
    ("kind", "longest", "what"),
    [
        (ConnectorFilter, 128, "a connector name"),
        (DeliveryFilter, 255, "a channel or stream name"),
        (ConsumerFilter, 1024, "a consumer group name"),
    ],
)
def test_each_name_filter_takes_names_up_to_its_own_limit(kind: type[Any], longest: int, what: str) -> None:
    # Given a filter, a name with $ # . - _ at its longest, and one a character longer
    at_limit = ("a$b#c.d-e_" + "x" * longest)[:longest]
    # When each is given to include or exclude
    kept = kind(include=(at_limit,), exclude=("__heartbeat*",))
    # Then the longest is kept, and the longer one refused in the filter's own words
    assert kept.include == (at_limit,)
    with pytest.raises(ValidationError, match=f"is not {what} or glob \\(1-{longest:,} characters"):
        kind(exclude=(at_limit + "x",))
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        kind(include=(), unknown=1)
