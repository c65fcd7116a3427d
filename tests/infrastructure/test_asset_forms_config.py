"""cdk.json `assetForms` and `glossaryTerms` (no synthesis): checked at synth where DataZone's rules allow,
passed to both functions as ASSET_FORMS and GLOSSARY_TERMS, every refusal naming the key."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kafka_lineage.config import ConfigError, Settings
from stacks.config import load_config
from tests.infrastructure.test_stack_config import settings_with

OWNERSHIP = {
    "formName": "Ownership",
    "typeIdentifier": "DataOwnershipForm",
    "typeRevision": "3",
    "content": {"owner": "{registryName}-team", "topic": "{topic}", "schema": "{schemaArn}"},
}


def test_the_settings_reach_the_functions_environment_and_read_back() -> None:
    config = load_config(settings_with(assetForms=[OWNERSHIP], glossaryTerms=["term_customer_data"]))
    env = config.settings.to_environment()
    assert json.loads(env["ASSET_FORMS"]) == [OWNERSHIP]
    assert json.loads(env["GLOSSARY_TERMS"]) == ["term_customer_data"]
    assert Settings.from_environment(env) == config.settings


def test_without_them_the_environment_is_unchanged() -> None:
    env = load_config(settings_with()).settings.to_environment()
    assert "ASSET_FORMS" not in env
    assert "GLOSSARY_TERMS" not in env


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"assetForms": [{**OWNERSHIP, "formName": "data.owner"}]}, "assetForms[0].formName"),
        ({"assetForms": [{**OWNERSHIP, "formName": "1st"}]}, "assetForms[0].formName"),
        ({"assetForms": [{**OWNERSHIP, "typeIdentifier": ".bad"}]}, "assetForms[0].typeIdentifier"),
        ({"assetForms": [{**OWNERSHIP, "typeRevision": "1.0"}]}, "assetForms[0].typeRevision"),
        ({"assetForms": [{**OWNERSHIP, "content": {"x": "{table}"}}]}, "assetForms[0].content"),
        ({"assetForms": [{**OWNERSHIP, "content": "owner=me"}]}, "assetForms[0].content"),
        ({"assetForms": [OWNERSHIP, OWNERSHIP]}, "assetForms"),
        ({"assetForms": [{**OWNERSHIP, "extra": 1}]}, "assetForms[0].extra"),
        ({"glossaryTerms": ["term with spaces"]}, "glossaryTerms"),
        ({"glossaryTerms": "term_one"}, "glossaryTerms"),
        ({"glossaryTerms": [f"t{n}" for n in range(21)]}, "glossaryTerms"),
    ],
)
def test_a_bad_value_fails_synth_naming_the_key(changes: dict[str, Any], named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(settings_with(**changes))
    assert f"kafkaLineage.{named}" in str(caught.value)


def test_a_form_name_of_the_asset_type_fails_synth() -> None:
    clash = {**OWNERSHIP, "formName": "AssetCommonDetailsForm"}
    with pytest.raises(ConfigError, match=r"kafkaLineage\.assetForms: formName \['AssetCommonDetailsForm'\]"):
        load_config(settings_with(assetForms=[clash]))


def test_more_forms_than_an_asset_carries_fail_synth() -> None:
    forms = [{**OWNERSHIP, "formName": f"Extra{n}"} for n in range(5)]  # the asset type has 6
    with pytest.raises(ConfigError, match="10 forms"):
        load_config(settings_with(assetForms=forms))
