"""The per-source `connectors` setting: "off", or include / exclude by connector name or glob; a bad value
fails fast naming the setting, in the Lambda environment and in cdk.json alike."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kafka_lineage.config import ConfigError, Settings
from stacks.config import CONTEXT_KEY, load_config
from tests.infrastructure.stack_synth import shipped_context

CLUSTER_ARN = "arn:aws:kafka:eu-west-1:123456789012:cluster/orders/11111111-2222"


def environment(**source: Any) -> dict[str, str]:
    entry = {"registryName": "cdc", "clusterArn": CLUSTER_ARN, **source}
    return {
        "DOMAIN_ID": "dzd_abc",
        "PROJECT_ID": "p1",
        "MAPPING_PATH": "/kafka-lineage",
        "SOURCES": json.dumps([entry]),
    }


def test_the_default_reads_every_connector_and_round_trips_unwritten():
    settings = Settings.from_environment(environment())
    (source,) = settings.sources
    assert source.reads_connector("anything")
    assert "connectors" not in settings.to_environment()["SOURCES"]


def test_include_and_exclude_globs_round_trip_through_the_environment():
    settings = Settings.from_environment(
        environment(connectors={"include": ["cdc-*", "lake"], "exclude": ["cdc-old*"]})
    )
    again = Settings.from_environment(settings.to_environment())
    (source,) = again.sources
    assert [source.reads_connector(n) for n in ("cdc-mysql", "cdc-old-1", "lake", "lake2")] == [
        True,
        False,
        True,
        False,
    ]


def test_off_reads_none():
    (source,) = Settings.from_environment(environment(connectors="off")).sources
    assert not source.reads_connector("cdc-mysql")


@pytest.mark.parametrize(
    "value",
    [
        "on",
        ["cdc-*"],
        {"include": ["cdc-*"], "extra": 1},
        {"include": [""]},
        {"exclude": ["x" * 129]},
        {"include": [" a"]},
    ],
)
def test_a_bad_value_names_the_setting(value):
    with pytest.raises(ConfigError) as raised:
        Settings.from_environment(environment(connectors=value))
    assert "SOURCES[0].connectors" in str(raised.value)


def test_the_stack_rejects_it_at_synth_naming_the_cdk_json_key():
    raw = copy.deepcopy(shipped_context()[CONTEXT_KEY])
    raw["sources"][0]["connectors"] = {"include": "cdc-*"}
    with pytest.raises(ConfigError) as raised:
        load_config(raw)
    assert "kafkaLineage.sources[0].connectors" in str(raised.value)
    raw["sources"][0]["connectors"] = "off"
    assert load_config(raw).settings.sources[0].connectors == "off"
