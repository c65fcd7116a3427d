"""Glue ListSchemas / ListSchemaVersions / DeleteSchemaVersions on moto's registry data, per the API
reference, with AWS's undocumented behaviours as Readings."""

from __future__ import annotations

import json
import time
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from local.standins import LocalAws

SCHEMA_ITEM_MEMBERS = {
    "SchemaArn",
    "SchemaName",
    "RegistryName",
    "Description",
    "SchemaStatus",
    "CreatedTime",
    "UpdatedTime",
}
VERSION_ITEM_MEMBERS = {"SchemaArn", "SchemaVersionId", "VersionNumber", "Status", "CreatedTime"}


def avro(name: str, *fields: str) -> str:
    return json.dumps(
        {"type": "record", "name": name, "fields": [{"name": f, "type": "string"} for f in fields]}
    )


def create(glue: Any, registry: str, name: str, description: str | None = None) -> None:
    extra = {"Description": description} if description else {}
    glue.create_schema(
        RegistryId={"RegistryName": registry},
        SchemaName=name,
        DataFormat="AVRO",
        Compatibility="NONE",
        SchemaDefinition=avro("V", "a"),
        **extra,
    )


def listed(glue: Any, **kwargs: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for page in glue.get_paginator("list_schemas").paginate(**kwargs):
        items.extend(page["Schemas"])
    return items


@pytest.fixture
def glue(local_aws: LocalAws) -> Any:
    client = boto3.client("glue")
    client.create_registry(RegistryName="cdc")
    return client


def test_more_than_a_page_of_weird_names_lists_each_schema_once_in_stable_order(glue: Any) -> None:
    # Given 130 schemas whose names use $ # . - _, a Debezium heartbeat topic and a 255-character name
    names = [f"dbserver1.inventory.t-{i:03d}_$#" for i in range(127)]
    names += ["__debezium-heartbeat.dbserver1", "x" * 255, "#$.-_"]
    for name in names:
        create(glue, "cdc", name)

    # When listed 100 at a time
    pages = list(
        glue.get_paginator("list_schemas").paginate(RegistryId={"RegistryName": "cdc"}, MaxResults=100)
    )

    # Then two pages carry every schema exactly once, sorted, each item with only the documented members
    assert [len(p["Schemas"]) for p in pages] == [100, 30]
    got = [s["SchemaName"] for p in pages for s in p["Schemas"]]
    assert got == sorted(names)
    for item in (s for p in pages for s in p["Schemas"]):
        assert set(item) <= SCHEMA_ITEM_MEMBERS
        assert item["SchemaStatus"] == "AVAILABLE"
        assert item["SchemaArn"] == f"arn:aws:glue:eu-west-1:123456789012:schema/cdc/{item['SchemaName']}"
        time.strptime(item["CreatedTime"], "%Y-%m-%dT%H:%M:%S.%fZ")  # a string, per the model
    # And the same listing again is identical
    assert [s["SchemaName"] for s in listed(glue, RegistryId={"RegistryName": "cdc"})] == got


def test_default_page_is_25(glue: Any) -> None:
    for i in range(30):
        create(glue, "cdc", f"t{i:02d}")

    first = glue.list_schemas(RegistryId={"RegistryName": "cdc"})

    assert len(first["Schemas"]) == 25
    second = glue.list_schemas(RegistryId={"RegistryName": "cdc"}, NextToken=first["NextToken"])
    assert len(second["Schemas"]) == 5
    assert "NextToken" not in second


def test_registry_by_arn_and_all_registries(glue: Any) -> None:
    glue.create_registry(RegistryName="other")
    create(glue, "cdc", "a", description="the a topic")
    create(glue, "other", "b")

    by_arn = glue.list_schemas(RegistryId={"RegistryArn": "arn:aws:glue:eu-west-1:123456789012:registry/cdc"})
    everything = listed(glue)

    assert [(s["SchemaName"], s.get("Description")) for s in by_arn["Schemas"]] == [("a", "the a topic")]
    assert [(s["RegistryName"], s["SchemaName"]) for s in everything] == [("cdc", "a"), ("other", "b")]


def test_unknown_registry_is_entity_not_found(glue: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        glue.list_schemas(RegistryId={"RegistryName": "nope"})

    assert excinfo.value.response["Error"]["Code"] == "EntityNotFoundException"


def test_a_token_from_elsewhere_is_invalid_input(glue: Any) -> None:
    for i in range(3):
        create(glue, "cdc", f"t{i}")
    token = glue.list_schemas(RegistryId={"RegistryName": "cdc"}, MaxResults=1)["NextToken"]

    for bad in ("garbage", token):
        with pytest.raises(ClientError) as excinfo:
            glue.list_schemas(NextToken=bad)  # the token belongs to the registry's listing
        assert excinfo.value.response["Error"]["Code"] == "InvalidInputException"


def test_a_deletion_between_pages_skips_nothing(glue: Any) -> None:
    for name in "abcdef":
        create(glue, "cdc", name)
    first = glue.list_schemas(RegistryId={"RegistryName": "cdc"}, MaxResults=3)

    glue.delete_schema(SchemaId={"RegistryName": "cdc", "SchemaName": "a"})
    rest = glue.list_schemas(RegistryId={"RegistryName": "cdc"}, MaxResults=3, NextToken=first["NextToken"])

    assert [s["SchemaName"] for s in first["Schemas"] + rest["Schemas"]] == list("abcdef")


def _updated(glue: Any, name: str) -> tuple[str, str]:
    item = next(s for s in listed(glue, RegistryId={"RegistryName": "cdc"}) if s["SchemaName"] == name)
    return item["CreatedTime"], item["UpdatedTime"]


def test_new_version_moves_updated_time_when_that_reading_holds(local_aws: LocalAws, glue: Any) -> None:
    # Given the reading "a new version moves UpdatedTime"
    local_aws.readings.updated_time_moves_on_new_version = True
    create(glue, "cdc", "orders")
    created, updated = _updated(glue, "orders")
    assert created == updated

    # When a second version is registered
    time.sleep(0.01)
    glue.register_schema_version(
        SchemaId={"RegistryName": "cdc", "SchemaName": "orders"}, SchemaDefinition=avro("V", "a", "b")
    )

    # Then UpdatedTime moved past CreatedTime
    created_after, updated_after = _updated(glue, "orders")
    assert created_after == created
    assert updated_after > updated


def test_new_version_leaves_updated_time_when_the_other_reading_holds(local_aws: LocalAws, glue: Any) -> None:
    local_aws.readings.updated_time_moves_on_new_version = False
    create(glue, "cdc", "orders")
    before = _updated(glue, "orders")
    time.sleep(0.01)

    glue.register_schema_version(
        SchemaId={"RegistryName": "cdc", "SchemaName": "orders"}, SchemaDefinition=avro("V", "a", "b")
    )

    assert _updated(glue, "orders") == before
    # While UpdateSchema moves it under either reading
    time.sleep(0.01)
    glue.update_schema(SchemaId={"RegistryName": "cdc", "SchemaName": "orders"}, Description="changed")
    assert _updated(glue, "orders")[1] > before[1]


def test_deleted_schema_lingers_as_deleting_for_the_configured_listings(
    local_aws: LocalAws, glue: Any
) -> None:
    # Given deleted schemas stay listed twice, as DELETING
    local_aws.readings.deleted_schemas_linger = 2
    create(glue, "cdc", "keep")
    create(glue, "cdc", "gone")

    # When one is deleted
    glue.delete_schema(SchemaId={"RegistryName": "cdc", "SchemaName": "gone"})

    # Then the next two listings show it as DELETING, the third no more
    statuses = [
        {s["SchemaName"]: s["SchemaStatus"] for s in listed(glue, RegistryId={"RegistryName": "cdc"})}
        for _ in range(3)
    ]
    assert statuses == [
        {"keep": "AVAILABLE", "gone": "DELETING"},
        {"keep": "AVAILABLE", "gone": "DELETING"},
        {"keep": "AVAILABLE"},
    ]


def test_by_default_a_deleted_schema_is_gone_at_once_as_documented(glue: Any) -> None:
    create(glue, "cdc", "gone")

    glue.delete_schema(SchemaId={"SchemaArn": "arn:aws:glue:eu-west-1:123456789012:schema/cdc/gone"})

    assert listed(glue, RegistryId={"RegistryName": "cdc"}) == []


def test_deleted_registry_lingers_then_is_not_found(local_aws: LocalAws, glue: Any) -> None:
    local_aws.readings.deleted_schemas_linger = 1
    create(glue, "cdc", "a")
    create(glue, "cdc", "b")

    glue.delete_registry(RegistryId={"RegistryName": "cdc"})

    assert {s["SchemaName"]: s["SchemaStatus"] for s in listed(glue, RegistryId={"RegistryName": "cdc"})} == {
        "a": "DELETING",
        "b": "DELETING",
    }
    with pytest.raises(ClientError) as excinfo:
        glue.list_schemas(RegistryId={"RegistryName": "cdc"})
    assert excinfo.value.response["Error"]["Code"] == "EntityNotFoundException"


def test_a_schema_created_again_while_its_predecessor_lingers_is_listed_once(
    local_aws: LocalAws, glue: Any
) -> None:
    local_aws.readings.deleted_schemas_linger = 3
    create(glue, "cdc", "orders")
    glue.delete_schema(SchemaId={"RegistryName": "cdc", "SchemaName": "orders"})

    create(glue, "cdc", "orders")

    assert [(s["SchemaName"], s["SchemaStatus"]) for s in listed(glue)] == [("orders", "AVAILABLE")]


def test_versions_page_by_number_by_arn_or_name(glue: Any) -> None:
    # Given a schema with 12 versions
    create(glue, "cdc", "orders")
    for n in range(2, 13):
        glue.register_schema_version(
            SchemaId={"RegistryName": "cdc", "SchemaName": "orders"},
            SchemaDefinition=avro("V", *[f"f{i}" for i in range(n)]),
        )
    arn = "arn:aws:glue:eu-west-1:123456789012:schema/cdc/orders"

    # When its versions are listed 5 at a time, by ARN and by name
    by_arn = [
        v
        for page in glue.get_paginator("list_schema_versions").paginate(
            SchemaId={"SchemaArn": arn}, MaxResults=5
        )
        for v in page["Schemas"]
    ]
    by_name = glue.list_schema_versions(
        SchemaId={"RegistryName": "cdc", "SchemaName": "orders"}, MaxResults=100
    )

    # Then versions 1..12 in order, each with only the documented members
    assert [v["VersionNumber"] for v in by_arn] == list(range(1, 13))
    assert by_name["Schemas"] == by_arn
    for version in by_arn:
        assert set(version) == VERSION_ITEM_MEMBERS
        assert version["Status"] == "AVAILABLE"
        assert version["SchemaArn"] == arn


def test_versions_of_an_unknown_schema_are_entity_not_found(glue: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        glue.list_schema_versions(SchemaId={"RegistryName": "cdc", "SchemaName": "nope"})

    assert excinfo.value.response["Error"]["Code"] == "EntityNotFoundException"


def test_delete_schema_versions_marks_them_deleting_then_removes_them(local_aws: LocalAws, glue: Any) -> None:
    # Given versions 1..4 and the default reading (deleted versions are listed once more, as DELETING)
    create(glue, "cdc", "orders")
    schema_id = {"RegistryName": "cdc", "SchemaName": "orders"}
    for n in range(2, 5):
        glue.register_schema_version(
            SchemaId=schema_id, SchemaDefinition=avro("V", *[f"f{i}" for i in range(n)])
        )

    # When versions 2-3 and a missing 9 are deleted
    answer = glue.delete_schema_versions(SchemaId=schema_id, Versions="2-3")
    missing = glue.delete_schema_versions(SchemaId=schema_id, Versions="9")

    # Then the next listing shows them DELETING, the one after leaves them out, and they cannot be read
    assert answer["SchemaVersionErrors"] == []
    assert [(e["VersionNumber"], e["ErrorDetails"]["ErrorCode"]) for e in missing["SchemaVersionErrors"]] == [
        (9, "EntityNotFoundException")
    ]

    def statuses() -> list[tuple[int, str]]:
        return [
            (v["VersionNumber"], v["Status"])
            for v in glue.list_schema_versions(SchemaId=schema_id)["Schemas"]
        ]

    assert statuses() == [(1, "AVAILABLE"), (2, "DELETING"), (3, "DELETING"), (4, "AVAILABLE")]
    assert statuses() == [(1, "AVAILABLE"), (4, "AVAILABLE")]
    with pytest.raises(ClientError):
        glue.get_schema_version(SchemaId=schema_id, SchemaVersionNumber={"VersionNumber": 2})
    # And deleting them again reports each as not found
    again = glue.delete_schema_versions(SchemaId=schema_id, Versions="2-3")
    assert [e["VersionNumber"] for e in again["SchemaVersionErrors"]] == [2, 3]


def test_the_first_version_cannot_be_deleted_by_delete_schema_versions(glue: Any) -> None:
    create(glue, "cdc", "orders")

    with pytest.raises(ClientError) as excinfo:
        glue.delete_schema_versions(SchemaId={"RegistryName": "cdc", "SchemaName": "orders"}, Versions="1")

    assert excinfo.value.response["Error"]["Code"] == "InvalidInputException"
