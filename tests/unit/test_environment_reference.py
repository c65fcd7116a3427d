"""The functions' environment as the docs name it is the one the stack writes, and an oversized variable is
reported under its cdk.json key."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kafka_lineage.config import ConfigError, Settings, environment_variables
from stacks.config import CONTEXT_KEY, check_environment_size, load_config
from stacks.lineage_stack import EXTRA_ENVIRONMENT
from tests.unit.docs_generators import committed, load

ROOT = Path(__file__).resolve().parents[2]
gen = load("gen_environment")


def _shipped() -> dict[str, Any]:
    settings: dict[str, Any] = json.loads((ROOT / "cdk.json").read_text())["context"][CONTEXT_KEY]
    return copy.deepcopy(settings)


def _every_setting_set() -> Settings:
    """Settings with every optional variable written (not at its default)."""
    raw = _shipped()
    raw.update(
        mappingPath="/lineage-state",
        assetTypeName="TopicAssetType",
        tuning={"maxConcurrency": 3},
        driftDownstreamDepth=2,
        lineageTargets=["datazone", "glue"],
        assetForms=[{"formName": "Ownership", "typeIdentifier": "DataOwnershipForm", "content": {"a": "b"}}],
        glossaryTerms=["term_customer_data"],
        dataProducts=[{"name": "Inventory", "include": ["^dbserver1\\.inventory\\."]}],
    )
    return load_config(raw).settings


def test_the_listed_variables_are_exactly_what_the_stack_writes_when_everything_is_set():
    # Given settings with every optional setting set, when the stack derives the functions' environment
    written = {**_every_setting_set().to_environment(), **EXTRA_ENVIRONMENT}
    # then the generated list names exactly those variables
    assert set(gen.variables()) == set(written)
    assert len(gen.variables()) == len(set(gen.variables()))


@pytest.mark.parametrize("page", gen.PAGES)
def test_each_page_lists_the_variables_from_the_generator(page: str):
    # Given the page as committed
    built = committed(page)
    # then it names every variable
    for variable in gen.variables():
        assert f"`{variable}`" in built


def test_an_oversized_asset_forms_is_reported_under_its_cdk_json_key():
    # Given assetForms whose content alone passes Lambda's 4 KB environment
    raw = {
        **_shipped(),
        "assetForms": [{"formName": "Owner", "typeIdentifier": "OwnerForm", "content": {"x": "y" * 5000}}],
    }
    # When synth loads them, then the error names the cdk.json key, not the environment variable
    with pytest.raises(
        ConfigError, match=r"4096-byte limit \(largest: ASSET_FORMS, .*kafkaLineage\.assetForms\)"
    ):
        load_config(raw, extra_environment=EXTRA_ENVIRONMENT)


@pytest.mark.parametrize("variable", sorted(environment_variables().values()))
def test_whichever_variable_is_largest_the_error_names_its_cdk_json_key(variable: str):
    # Given an environment over the limit whose largest variable is `variable`
    environment = {**_every_setting_set().to_environment(), variable: "x" * 4200}
    # When its size is checked, then the error names that variable's cdk.json key
    key = {"DOMAIN_ID": "domainId", "MAPPING_PATH": "mappingPath", "GLOSSARY_TERMS": "glossaryTerms"}
    with pytest.raises(ConfigError, match=rf"largest: {variable}, .*kafkaLineage\.(\w+)\)") as refused:
        check_environment_size(environment)
    found = re.search(r"kafkaLineage\.(\w+)\)", str(refused.value))
    assert found is not None
    named = found.group(1)
    assert named != variable
    assert named == key.get(variable, named)


def test_every_variable_is_its_cdk_json_key_in_capitals():
    # Given every variable of the settings and the stack's ACCESS
    from stacks.function_environment import ACCESS_VARIABLE, context_key_of_variable

    keys = context_key_of_variable()
    # then each maps to a key (none falls back to its own name), and is that key in capitals, words split by _
    assert set(keys) == {*environment_variables().values(), ACCESS_VARIABLE}
    for variable, key in keys.items():
        assert variable == re.sub(r"(?<!^)(?=[A-Z])", "_", key).upper()
