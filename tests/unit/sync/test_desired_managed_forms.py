"""desired_asset writes into DataZone's managed form types only the members their model declares.

RelationalTableFormType's member names are documented by example only (local/standins/readings.py,
managed_form_members_undeclared): the model GetFormType returns is the authority, passed in as
AssetType.members_of.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kafka_lineage.config import Source
from kafka_lineage.model.catalog import AssetType, FormSpec
from kafka_lineage.model.registry import SchemaDetails, SchemaVersion
from kafka_lineage.schemas.model import Column, ParsedSchema
from kafka_lineage.sync.desired import Catalogued, desired_asset

REGISTRY = "cdc.prod-$1"
TOPIC = "__debezium-heartbeat.dbserver1"
ARN = f"arn:aws:glue:eu-west-1:111122223333:schema/{REGISTRY}/{TOPIC}"
NAMESPACE = "kafka://b-1.cdc.abc123.kafka.eu-west-1.amazonaws.com:9098"
TABLE_TYPE = "amazon.datazone.RelationalTableFormType"
EVERY_TABLE_MEMBER = frozenset(
    {"tableName", "columns", "columns.columnName", "columns.dataType", "columns.description"}
)
SOURCE = Source(registry_name=REGISTRY, cluster_arn="arn:aws:kafka:eu-west-1:111122223333:cluster/cdc/0f1e")
VERSION = SchemaVersion(1, "b7c8e1a0-0000-4000-8000-000000000001", "AVAILABLE", "2026-03-01T10:00:00Z")
DETAILS = SchemaDetails(
    schema_arn=ARN,
    registry_name=REGISTRY,
    registry_arn=f"arn:aws:glue:eu-west-1:111122223333:registry/{REGISTRY}",
    schema_name=TOPIC,
    data_format="AVRO",
    compatibility="BACKWARD",
    description="",
    status="AVAILABLE",
    created_time="2026-03-01T10:00:00Z",
    updated_time="2026-03-01T10:00:00Z",
    versions=(VERSION,),
    latest=VERSION,
)
PARSED = ParsedSchema(
    columns=(
        Column("after.id", "int", False, "the key"),
        Column("after.name", "string", True),
    )
)


def asset_type(table_members: frozenset[str] | None) -> AssetType:
    forms = {
        "KafkaSchemaFormType": FormSpec("KafkaSchemaFormType", "1", True),
        "MskSourceReferenceFormType": FormSpec("MskSourceReferenceFormType", "1", True),
        "AssetCommonDetailsForm": FormSpec("amazon.datazone.AssetCommonDetailsFormType", "6", True),
        "RelationalTableForm": FormSpec(TABLE_TYPE, "1", False),
    }

    def members_of(type_name: str, revision: str) -> frozenset[str] | None:
        return table_members if type_name == TABLE_TYPE else None

    return AssetType("KafkaTopicAssetType", "1", forms, members_of=members_of)


def forms_of(table_members: frozenset[str] | None) -> dict[str, Any]:
    desired = desired_asset(SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, asset_type(table_members)))
    return {form.form_name: json.loads(form.content) for form in desired.content.forms}


def test_every_member_declared_writes_table_name_columns_and_descriptions() -> None:
    # Given a RelationalTableFormType model that declares every member our code knows
    forms = forms_of(EVERY_TABLE_MEMBER)
    # Then the form carries all of them, and the documented sourceIdentifier is written as always
    assert forms["RelationalTableForm"] == {
        "tableName": TOPIC,
        "columns": [
            {"columnName": "after.id", "dataType": "int", "description": "the key"},
            {"columnName": "after.name", "dataType": "string"},
        ],
    }
    assert forms["AssetCommonDetailsForm"] == {"sourceIdentifier": f"{NAMESPACE}/{TOPIC}"}


@pytest.mark.parametrize(
    ("undeclared", "expected"),
    [
        (
            "tableName",
            {
                "columns": [
                    {"columnName": "after.id", "dataType": "int", "description": "the key"},
                    {"columnName": "after.name", "dataType": "string"},
                ]
            },
        ),
        (
            "columns.description",
            {
                "tableName": TOPIC,
                "columns": [
                    {"columnName": "after.id", "dataType": "int"},
                    {"columnName": "after.name", "dataType": "string"},
                ],
            },
        ),
    ],
)
def test_an_undeclared_optional_member_is_left_out(undeclared: str, expected: dict[str, Any]) -> None:
    forms = forms_of(EVERY_TABLE_MEMBER - {undeclared})
    assert forms["RelationalTableForm"] == expected


@pytest.mark.parametrize("undeclared", ["columns", "columns.columnName", "columns.dataType"])
def test_without_what_a_column_needs_the_optional_table_form_is_left_out(undeclared: str) -> None:
    forms = forms_of(EVERY_TABLE_MEMBER - {undeclared})
    assert "RelationalTableForm" not in forms
    assert set(forms) == {"KafkaSchemaFormType", "MskSourceReferenceFormType", "AssetCommonDetailsForm"}


def test_an_unreadable_model_leaves_the_table_form_out() -> None:
    assert "RelationalTableForm" not in forms_of(None)


def test_the_content_hash_moves_with_the_declared_members() -> None:
    # A model that gains a member changes what is written, so the assets are revised
    full = desired_asset(SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, asset_type(EVERY_TABLE_MEMBER)))
    less_members = EVERY_TABLE_MEMBER - {"columns.description"}
    less = desired_asset(SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, asset_type(less_members)))
    assert full.content_hash != less.content_hash
