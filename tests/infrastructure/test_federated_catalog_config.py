"""Federated Glue catalogs in the configuration: `catalog` on table rules and mappings, and
`<catalog>/<database>` in extraDatabases, validated at synth and granted by database path. No synthesis."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from kafka_lineage.config import ConfigError
from kafka_lineage.model.table_mapping import TableMapping
from stacks.config import CONTEXT_KEY, load_config
from tests.infrastructure.stack_synth import shipped_context


def context(**changes: Any) -> dict[str, Any]:
    raw = copy.deepcopy(shipped_context()[CONTEXT_KEY])
    raw.update(changes)
    return raw


def test_a_rule_a_mapping_and_extra_databases_in_federated_catalogs_are_granted_by_path() -> None:
    source = copy.deepcopy(shipped_context()[CONTEXT_KEY]["sources"][0])
    source["tableRule"] = {**source["tableRule"], "catalog": "s3tablescatalog/Lake-Tables"}
    mapping = {
        "topic": "dbserver1.inventory.orders",
        "database": "sales",
        "table": "orders",
        "catalog": "s3tablescatalog/finance",
    }

    config = load_config(
        context(sources=[source], tableMappings=[mapping], extraDatabases=["s3tablescatalog/raw/landing"])
    )

    rule_database = source["tableRule"]["database"].lower()
    assert set(config.own_databases) == {
        f"s3tablescatalog/lake-tables/{rule_database}",
        "s3tablescatalog/finance/sales",
        "s3tablescatalog/raw/landing",
    }
    (parameter,) = config.table_mapping_parameters
    assert '"catalog":"s3tablescatalog/finance"' in parameter.value


@pytest.mark.parametrize("catalog", ["s3tablescatalog/", "a/b/c", "s3tables catalog/x", ""])
def test_a_catalog_name_glue_cannot_have_fails_synth_naming_the_setting(catalog: str) -> None:
    mapping = {
        "topic": "dbserver1.inventory.orders",
        "database": "sales",
        "table": "orders",
        "catalog": catalog,
    }

    with pytest.raises(ConfigError, match="catalog"):
        load_config(context(tableMappings=[mapping]))


def test_a_mapping_without_catalog_keeps_its_value_unchanged() -> None:
    mapping = TableMapping(topic="orders", database="sales", table="orders")

    assert mapping.parameter_value() == '{"database":"sales","table":"orders","topic":"orders"}'
