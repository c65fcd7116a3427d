"""The product state beside the asset records: packed under `assets/products/`, which the asset records'
store (reading `assets/` recursively) leaves alone without a warning, and two hash groups at most."""

from __future__ import annotations

import logging

import pytest

from kafka_lineage.aws.asset_records import AssetRecordStore
from kafka_lineage.aws.data_products import ProductStates
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.products import ProductRecord
from tests.unit.fake_clients import wired
from tests.unit.test_packed_store import FakeSSM

ROOT = "/kafka-lineage"


def test_the_asset_records_store_leaves_the_product_state_alone(caplog: pytest.LogCaptureFixture) -> None:
    # Given asset records and, below them, the state of twelve products
    ssm = FakeSSM()
    assets = AssetRecordStore(wired(ssm, "ssm"), ROOT)
    assets.load()
    arn = "arn:aws:glue:eu-west-1:111122223333:schema/cdc/dbserver1.inventory.orders"
    record = AssetRecord(
        "cdc", "dbserver1.inventory.orders", arn, "a1", 1, "AVRO", "kafka://b:9098", "t", "t", "h"
    )
    assets.save({arn: record})
    products = ProductStates(wired(ssm, "ssm"), ROOT)
    products.load()
    names = [f"Product {n:02d} $#.-_" for n in range(12)]
    products.save(
        {
            name: ProductRecord(name, f"dp{n:012d}", "1", "d" * 32, 100, f"l{n:013d}")
            for n, name in enumerate(names)
        }
    )

    # When each store loads
    with caplog.at_level(logging.WARNING):
        loaded_assets = assets.load()
        loaded_products = ProductStates(wired(ssm, "ssm"), ROOT).load()

    # Then each reads its own entries, nothing is unreadable, and no parameter is reported as foreign
    assert loaded_assets == {arn: record}
    assert assets.unreadable == []
    assert sorted(loaded_products) == sorted(names)
    assert "not a packed chunk" not in caplog.text
    assert assets.current() == {arn: record}
    state = [name for name in ssm.parameters if name.startswith(f"{ROOT}/assets/products/")]
    assert 1 <= len(state) <= 2
