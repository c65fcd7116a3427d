"""The `driftDownstreamDepth` setting: cdk.json key, DRIFT_DOWNSTREAM_DEPTH variable, 0..10, default 3."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kafka_lineage.config import ConfigError, Settings
from stacks.config import CONTEXT_KEY, load_config
from tests.fixtures import environment
from tests.infrastructure.stack_synth import shipped_context


def context(**changes: Any) -> dict[str, Any]:
    raw = copy.deepcopy(shipped_context()[CONTEXT_KEY])
    raw.update(changes)
    return raw


def test_given_no_setting_then_the_depth_is_3_and_the_environment_does_not_carry_it():
    settings = Settings.from_environment(environment())
    assert settings.drift_downstream_depth == 3
    assert "DRIFT_DOWNSTREAM_DEPTH" not in settings.to_environment()
    assert load_config(context()).settings.drift_downstream_depth == 3


@pytest.mark.parametrize("depth", [0, 1, 10])
def test_given_a_depth_in_bounds_then_the_stack_passes_it_and_the_function_reads_it_back(depth: int):
    # Given the cdk.json key
    config = load_config(context(driftDownstreamDepth=depth))
    # When the stack writes the functions' environment and a function reads it
    read = Settings.from_environment(config.settings.to_environment())
    # Then
    assert read.drift_downstream_depth == depth
    assert read == config.settings


@pytest.mark.parametrize("value", [-1, 11, "3", 2.5, True, None])
def test_given_a_bad_cdk_json_value_then_synth_fails_naming_the_key(value: Any):
    with pytest.raises(ConfigError, match=r"cdk\.json context kafkaLineage\.driftDownstreamDepth: "):
        load_config(context(driftDownstreamDepth=value))


@pytest.mark.parametrize("value", ["-1", "11", "three", "2.5", "1e1"])
def test_given_a_bad_variable_then_the_function_fails_naming_it(value: str):
    with pytest.raises(ConfigError, match=r"DRIFT_DOWNSTREAM_DEPTH: "):
        Settings.from_environment(environment(DRIFT_DOWNSTREAM_DEPTH=value))


def test_given_a_variable_with_spaces_then_it_is_read_as_the_number():
    assert Settings.from_environment(environment(DRIFT_DOWNSTREAM_DEPTH=" 5 ")).drift_downstream_depth == 5
