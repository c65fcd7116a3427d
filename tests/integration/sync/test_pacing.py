"""What a first sync writes: SSM writes per mapping parameter (`make bench` measures pacing efficiency)."""

from __future__ import annotations

import boto3

from kafka_lineage.aws.asset_records import AssetRecordStore
from local import world
from tests.integration.sync.conftest import AVRO_VALUE, CdcWorld

LEASE_WRITES = 2  # the lease's create and its release


def mapping_parameters() -> int:
    mapping = AssetRecordStore(boto3.client("ssm", region_name=world.REGION), world.MAPPING_PATH)
    mapping.load()
    return mapping.store.parameter_count()


def register_many(cdc: CdcWorld, count: int) -> None:
    world.create_registry("cdc")
    glue = boto3.client("glue", region_name=world.REGION)
    for i in range(count):
        glue.create_schema(
            RegistryId={"RegistryName": "cdc"},
            SchemaName=f"dbserver1.inventory.table_{i:04d}",
            DataFormat="AVRO",
            Compatibility="BACKWARD",
            SchemaDefinition=AVRO_VALUE,
        )


def test_a_first_sync_writes_each_mapping_parameter_about_once(cdc: CdcWorld) -> None:
    # Given 400 new schemas (their entries spread over the mapping's 256 hash groups)
    register_many(cdc, 400)
    cdc.reset_calls()

    # When the first sync runs
    result = cdc.sync()

    # Then every schema is mirrored, and SSM was written at most 1.2 times per parameter the mapping ends with
    assert result["created"] == 400
    final = mapping_parameters()
    calls = cdc.calls()
    ssm_writes = calls["ssm:PutParameter"] + calls.get("ssm:DeleteParameter", 0)
    assert ssm_writes == result["mappingWrites"] + LEASE_WRITES
    assert result["mappingWrites"] <= 1.2 * final, (result["mappingWrites"], final)
