"""What a first sync costs at the pacing rates: SSM writes per mapping parameter, and pacing efficiency."""

from __future__ import annotations

import time

import boto3

from kafka_lineage.mapping import AssetMapping
from local import world
from tests.integration.sync.conftest import AVRO_VALUE, CdcWorld

LEASE_WRITES = 2  # the lease's create and its release


def mapping_parameters() -> int:
    mapping = AssetMapping(boto3.client("ssm", region_name=world.REGION), world.MAPPING_PATH)
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


def test_a_first_sync_goes_at_the_pace_of_its_slowest_service(cdc: CdcWorld) -> None:
    # Given 160 new schemas, every call taking 5 ms, request rates that make pacing the limit, and a warm
    # function (its clients made by an earlier invocation, as Lambda keeps them between invocations)
    register_many(cdc, 160)
    rates = {"glue_rps": 40.0, "datazone_rps": 20.0, "ssm_write_rps": 20.0}
    cdc.configure(world.source_config(), tuning={**rates, "max_concurrency": 8})
    cdc.sync({"dryRun": True, "schemaArns": [world.schema_arn("cdc", "dbserver1.inventory.table_0000")]})
    cdc.aws.latency_ms = 5
    cdc.reset_calls()

    # When the first sync runs
    started = time.monotonic()
    result = cdc.sync()
    wall = time.monotonic() - started

    # Then its wall time is close to the pacing floor: the largest calls / rate over the paced services
    assert result["created"] == 160
    calls = cdc.calls()
    per_service = {
        "glue": sum(n for op, n in calls.items() if op.startswith("glue:")) / rates["glue_rps"],
        "datazone": sum(n for op, n in calls.items() if op.startswith("datazone:")) / rates["datazone_rps"],
        "ssm": result["mappingWrites"] / rates["ssm_write_rps"],
    }
    floor = max(per_service.values())
    print("PACING", round(floor, 2), round(wall, 2), round(floor / wall, 3), per_service, result["chunks"])
    assert floor / wall >= 0.8, (floor, wall, per_service)
