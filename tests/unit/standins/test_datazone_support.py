"""Builders shared by the DataZone stand-in tests (this module holds no tests).

Requests are shaped exactly like botocore's input shapes, as the server hands them to the backend.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from local.standins.datazone import DataZoneBackend

REPO = Path(__file__).resolve().parents[3]
DOMAIN = "dzd_4p5kx2n9lqv7ab"
PROJECT = "5dlrnw7s3hm8qe"
OTHER_PROJECT = "b2kq9x0c1zv4ry"
REGION, ACCOUNT = "eu-west-1", "111122223333"
KAFKA_NAMESPACE = "kafka://b-1.cdc.abc123.kafka.eu-west-1.amazonaws.com:9098"
GLUE_NAMESPACE = f"arn:aws:glue:{REGION}:{ACCOUNT}:table"
ASSET_TYPE = "KafkaTopicAssetType"


@dataclass
class Readings:
    """Stands in for the server's Readings: the backend reads any attribute it finds."""

    reject_unknown_form_members: bool = True
    delete_requires_unpublish: bool = False
    search_lag_calls: int = 0
    lineage_processing_lag_calls: int = 0
    normalize_form_content: bool = True
    client_token_ttl_seconds: int = 86_400
    search_text_matches_external_identifier: bool = False
    revision_keeps_type_revision: bool = True
    revision_changes_type_revision: bool = True
    conflict_message_names_asset: bool = True
    search_type_filter: str = "honoured"
    listing_change_calls: int = 0
    asset_type_create_existing: str = "revision"
    managed_form_members_undeclared: str = ""
    subscribed_delete_refusal: str = "conflict"
    unpublish_unlisted: str = "not_found"
    rule_refusal_names_rule: bool = True
    glossary_rule_requires: str = "all"
    grant_status_repeat_accepted: bool = True
    grant_status_retry_after_failure: bool = True
    grant_status_skips_in_progress: bool = True
    grant_status_refusal: str = "conflict"
    data_product_event_type_name: str = "product"
    data_product_name_taken: str = "conflict"
    data_product_delete_requires_unpublish: bool = True


@dataclass
class Clock:
    now: datetime = field(default_factory=lambda: datetime(2026, 3, 1, 12, 0, tzinfo=UTC))

    def __call__(self) -> datetime:
        self.now += timedelta(milliseconds=1)  # every call is a distinct instant
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class World:
    backend: DataZoneBackend
    readings: Readings
    clock: Clock

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        return self.backend.handle(operation, {"domainIdentifier": DOMAIN, **params})


def world(**readings: Any) -> World:
    """A domain with two projects and the managed form types; nothing else."""
    settings = Readings(**readings)
    clock = Clock()
    backend = DataZoneBackend(settings, seed=7, clock=clock)
    backend.add_domain(DOMAIN, project_ids=[PROJECT, OTHER_PROJECT])
    return World(backend, settings, clock)


def smithy_text(name: str) -> str:
    return (REPO / "smithy" / f"{name}.smithy").read_text(encoding="utf-8")


def kafka_world(**readings: Any) -> World:
    """The project's real form types (smithy/*.smithy) and asset type (smithy/KafkaTopicAssetType.json)."""
    w = world(**readings)
    spec = json.loads((REPO / "smithy" / f"{ASSET_TYPE}.json").read_text(encoding="utf-8"))
    forms_input = {}
    for form_name, form in spec["forms"].items():
        type_name = form["typeName"]
        if not type_name.startswith("amazon.datazone."):
            w.call(
                "CreateFormType",
                name=type_name,
                model={"smithy": smithy_text(type_name)},
                owningProjectIdentifier=PROJECT,
                status="ENABLED",
            )
        revision = w.call("GetFormType", formTypeIdentifier=type_name)["revision"]
        forms_input[form_name] = {
            "typeIdentifier": type_name,
            "typeRevision": revision,
            "required": form["required"],
        }
    w.call(
        "CreateAssetType",
        name=spec["name"],
        description=spec["description"],
        formsInput=forms_input,
        owningProjectIdentifier=PROJECT,
    )
    return w


def schema_arn(registry: str, schema: str) -> str:
    return f"arn:aws:glue:{REGION}:{ACCOUNT}:schema/{registry}/{schema}"


def kafka_forms(
    topic: str, registry: str = "cdc", version: int = 1, **schema_extra: Any
) -> list[dict[str, Any]]:
    """formsInput for one topic, valid against the project's models."""
    schema = {
        "kafka_topic": topic,
        "schema_version": str(version),
        "schema_arn": schema_arn(registry, topic),
        "registry_arn": f"arn:aws:glue:{REGION}:{ACCOUNT}:registry/{registry}",
        "registry_name": registry,
        "data_format": "AVRO",
        **schema_extra,
    }
    msk = {"cluster_arn": f"arn:aws:kafka:{REGION}:{ACCOUNT}:cluster/cdc/0f1e", "cluster_type": "MSK"}
    common = {"sourceIdentifier": f"{KAFKA_NAMESPACE}/{topic}"}
    table = {"tableName": topic, "columns": [{"columnName": "id", "dataType": "long"}]}
    return [
        {"formName": "KafkaSchemaFormType", "content": json.dumps(schema)},
        {"formName": "MskSourceReferenceFormType", "content": json.dumps(msk)},
        {"formName": "AssetCommonDetailsForm", "content": json.dumps(common)},
        {"formName": "RelationalTableForm", "content": json.dumps(table)},
    ]


def create_topic_asset(w: World, topic: str, registry: str = "cdc", **overrides: Any) -> dict[str, Any]:
    request: dict[str, Any] = {
        "name": topic[:256],
        "typeIdentifier": ASSET_TYPE,
        "externalIdentifier": schema_arn(registry, topic),
        "owningProjectIdentifier": PROJECT,
        "formsInput": kafka_forms(topic, registry),
        **overrides,
    }
    return w.call("CreateAsset", **request)


def run_event(
    topic: str,
    table: str,
    event_type: str = "COMPLETE",
    run_id: str | None = None,
    event_time: str = "2026-03-01T11:00:00+00:00",
    columns: dict[str, str] | None = None,
) -> dict[str, Any]:
    """An OpenLineage RunEvent: topic -> Glue table `db/table`, with column lineage when `columns` maps
    output field -> input field."""
    output: dict[str, Any] = {"namespace": GLUE_NAMESPACE, "name": table, "facets": {}}
    if columns:
        output["facets"]["columnLineage"] = {
            "_producer": "https://github.com/example/kafka-lineage",
            "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json",
            "fields": {
                out: {"inputFields": [{"namespace": KAFKA_NAMESPACE, "name": topic, "field": src}]}
                for out, src in columns.items()
            },
        }
    return {
        "eventType": event_type,
        "eventTime": event_time,
        "producer": "https://github.com/example/kafka-lineage",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run_id or str(uuid.uuid4())},
        "job": {"namespace": "kafka-iceberg-sink", "name": f"sink/{table.replace('/', '.')}"},
        "inputs": [{"namespace": KAFKA_NAMESPACE, "name": topic}],
        "outputs": [output],
    }


def post(w: World, event: dict[str, Any], **params: Any) -> dict[str, Any]:
    return w.call("PostLineageEvent", event=json.dumps(event).encode("utf-8"), **params)
