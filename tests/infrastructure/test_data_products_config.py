"""The `dataProducts` setting at synth: a bad entry fails `load_config` with a message naming the setting;
a good one gives schema-sync the data products' permissions and lineage-emission GetDataProduct."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from kafka_lineage.config import ConfigError
from stacks.config import CONTEXT_KEY, load_config
from stacks.lineage_stack import EXTRA_ENVIRONMENT
from tests.infrastructure.stack_synth import Synthesized, full_context

GOOD = {"name": "Inventory", "include": ["^dbserver1\\.inventory\\."], "glossaryTerms": ["term1"]}


def with_products(products: list[dict[str, Any]]) -> dict[str, Any]:
    context = copy.deepcopy(full_context())
    context[CONTEXT_KEY]["dataProducts"] = products
    return context


@pytest.mark.parametrize(
    ("products", "message"),
    [
        ([{**GOOD, "name": "x" * 65}], r"dataProducts\[0\]\.name"),
        ([GOOD, {**GOOD}], r"dataProducts.*name listed more than once: \['Inventory'\]"),
        ([{**GOOD, "glossaryTerms": [f"term{i}" for i in range(21)]}], r"dataProducts\[0\]\.glossaryTerms"),
        ([{**GOOD, "include": ["(unclosed"]}], r"dataProducts\[0\]\.include.*not a valid regular expression"),
        ([{**GOOD, "exclude": ["[z-a]"]}], r"dataProducts\[0\]\.exclude.*not a valid regular expression"),
        ([{**GOOD, "include": []}], r"dataProducts\[0\]\.include"),
        ([{**GOOD, "owner": "me"}], r"dataProducts\[0\]\.owner"),
    ],
)
def test_a_bad_data_product_fails_synth_naming_the_setting(
    products: list[dict[str, Any]], message: str
) -> None:
    # Given a dataProducts entry AWS or the sync could not take
    context = with_products(products)
    # When the stack's config is loaded / Then it fails, naming the setting
    with pytest.raises(ConfigError, match=message):
        load_config(context[CONTEXT_KEY], extra_environment=EXTRA_ENVIRONMENT)


def test_a_name_of_64_characters_and_20_terms_are_taken() -> None:
    product = {**GOOD, "name": "$#.-_" + "n" * 59, "glossaryTerms": [f"term{i}" for i in range(20)]}
    config = load_config(with_products([product])[CONTEXT_KEY], extra_environment=EXTRA_ENVIRONMENT)
    assert config.settings.data_products[0].name == product["name"]


@pytest.fixture(scope="module")
def synth(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    return synth_factory(with_products([GOOD]))


def _actions(synth: Synthesized, sid: str) -> list[str]:
    for policy in synth.resources("AWS::IAM::Policy").values():
        for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
            if statement.get("Sid") == sid:
                actions = statement["Action"]
                return sorted([actions] if isinstance(actions, str) else actions)
    return []


def test_the_functions_get_the_data_products_permissions_and_the_setting_only_with_it(
    synth: Synthesized, synth_factory: Callable[[dict[str, Any]], Synthesized]
) -> None:
    # Given dataProducts set / Then schema-sync may keep the products, lineage-emission read them
    assert _actions(synth, "DataZoneDataProducts") == [
        "datazone:CreateDataProduct",
        "datazone:CreateDataProductRevision",
        "datazone:DeleteDataProduct",
        "datazone:GetDataProduct",
    ]
    assert _actions(synth, "DataZoneProductSubscribers") == ["datazone:GetDataProduct"]
    environments = [
        fn["Properties"].get("Environment", {}).get("Variables", {})
        for fn in synth.resources("AWS::Lambda::Function").values()
    ]
    assert next(json.loads(v["DATA_PRODUCTS"]) for v in environments if "DATA_PRODUCTS" in v) == [GOOD]
    # ... and without dataProducts, neither
    plain = synth_factory(copy.deepcopy(full_context()))
    assert _actions(plain, "DataZoneDataProducts") == []
    assert _actions(plain, "DataZoneProductSubscribers") == []
