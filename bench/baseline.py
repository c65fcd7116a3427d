"""The seed design's schema sync and lineage emission, written minimally: the benchmark's yardstick.

It follows the background write-up (the "Schema Sync Lambda" and "Lineage Emission Lambda" sections) step by
step, sequentially, with plain boto3 clients and their default retries.

Sync:
  1. load the mapping: GetParametersByPath under the prefix, recursive (SSM pages at most 10 parameters);
  2. one GetAssetType: the asset type revision the write-up's `create_asset` passes;
  3. ListSchemas of the registry (pages of 100);
  4. per schema, one after the other: GetSchema, then GetSchemaVersion of its latest version;
     - not in the mapping: CreateAsset, then PutParameter (one mapping parameter per schema);
     - mapped at an older version: CreateAssetRevision ("updates existing assets when schema versions
       change"), then PutParameter;
     - otherwise nothing.
  What the write-up leaves out stays out: no publishing, no deletions, no events, no parallelism.

Lineage: load the mapping, then for every mapped topic that the naming convention maps to a table, build a
START and a COMPLETE event and post each (PostLineageEvent with a random clientToken), on every run.

Departures from the write-up, each the least needed to run against AWS's documented rules (no extra calls):
  - parameter names: `::COLON::` is not a valid SSM name (nor are the `$` and `#` Glue allows in schema names,
    and two 255-character names overflow the 1,011-character ARN), so a name is the SHA-256 of the schema
    ARN and the value carries the ARN;
  - the value records the mirrored version next to the asset id (JSON): the cheapest way to notice a new
    version without reading every asset back;
  - forms: the write-up's two, plus what our asset type requires of every asset (`registry_name`, an
    `AssetCommonDetailsForm`), so that DataZone accepts them; the name is cut to DataZone's 256 characters.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

SSM_PAGE = 10  # GetParametersByPath MaxResults maximum
GLUE_PAGE = 100  # ListSchemas MaxResults maximum
ASSET_NAME_MAX = 256


@dataclass(frozen=True)
class BaselineConfig:
    domain_id: str
    project_id: str
    registry_name: str
    cluster_arn: str
    mapping_prefix: str  # e.g. /bench-baseline/msk-assets
    asset_type_name: str = "KafkaTopicAssetType"
    cluster_type: str = "MSK"
    # Lineage naming convention (the write-up's "based on naming conventions"): a topic that fully matches
    # `table_match` feeds `{table_database}/{table_template filled from the named groups}`.
    table_database: str = ""
    table_match: str = ""
    table_template: str = ""

    @property
    def cluster_name(self) -> str:
        return self.cluster_arn.split(":")[5].split("/")[1]

    @property
    def region(self) -> str:
        return self.cluster_arn.split(":")[3]

    @property
    def account(self) -> str:
        return self.cluster_arn.split(":")[4]

    def as_dict(self) -> dict[str, str]:
        return dict(self.__dict__)


def parameter_name(prefix: str, schema_arn: str) -> str:
    """A valid SSM name for any schema ARN: one level of 64 hex digits below the prefix."""
    return f"{prefix.rstrip('/')}/{hashlib.sha256(schema_arn.encode()).hexdigest()}"


def load_mapping(ssm: Any, prefix: str) -> dict[str, dict[str, Any]]:
    """schema ARN -> {"assetId", "version"}: the write-up's `get_existing_assets`."""
    mapping: dict[str, dict[str, Any]] = {}
    paginator = ssm.get_paginator("get_parameters_by_path")
    for page in paginator.paginate(Path=prefix, Recursive=True, PaginationConfig={"PageSize": SSM_PAGE}):
        for parameter in page.get("Parameters", []):
            value = json.loads(parameter["Value"])
            mapping[value["schemaArn"]] = {"assetId": value["assetId"], "version": int(value["version"])}
    return mapping


def save_mapping(ssm: Any, prefix: str, schema_arn: str, asset_id: str, version: int) -> None:
    """The write-up's `save_asset_mapping`, with a valid name."""
    ssm.put_parameter(
        Name=parameter_name(prefix, schema_arn),
        Value=json.dumps({"schemaArn": schema_arn, "assetId": asset_id, "version": version}),
        Type="String",
        Overwrite=True,
    )


def forms_input(config: BaselineConfig, schema: dict[str, Any], version: int) -> list[dict[str, str]]:
    return [
        {
            "formName": "MskSourceReferenceFormType",
            "content": json.dumps({"cluster_arn": config.cluster_arn, "cluster_type": config.cluster_type}),
        },
        {
            "formName": "KafkaSchemaFormType",
            "content": json.dumps(
                {
                    "kafka_topic": schema["SchemaName"],
                    "schema_version": str(version),
                    "schema_arn": schema["SchemaArn"],
                    "registry_arn": schema["RegistryArn"],
                    "registry_name": schema["RegistryName"],
                    "compatibility_mode": schema["Compatibility"],
                    "data_format": schema["DataFormat"],
                }
            ),
        },
        {"formName": "AssetCommonDetailsForm", "content": "{}"},
    ]


def sync(config: BaselineConfig, glue: Any, datazone: Any, ssm: Any) -> dict[str, Any]:
    """One run of the seed's schema sync; returns the contract's counters."""
    result: dict[str, Any] = {"created": 0, "updated": 0, "unchanged": 0, "deleted": 0, "failed": []}
    mapping = load_mapping(ssm, config.mapping_prefix)
    asset_type = datazone.get_asset_type(domainIdentifier=config.domain_id, identifier=config.asset_type_name)
    revision = asset_type["revision"]
    for listed in _list_schemas(glue, config.registry_name):
        schema = glue.get_schema(SchemaId={"SchemaArn": listed["SchemaArn"]})
        latest = glue.get_schema_version(
            SchemaId={"SchemaArn": listed["SchemaArn"]}, SchemaVersionNumber={"LatestVersion": True}
        )
        version = int(latest["VersionNumber"])
        known = mapping.get(schema["SchemaArn"])
        name = f"{config.cluster_name}.{schema['SchemaName']}"[:ASSET_NAME_MAX]
        description = f"MSK Topic: {schema['SchemaName']}"
        if known is None:
            created = datazone.create_asset(
                domainIdentifier=config.domain_id,
                owningProjectIdentifier=config.project_id,
                name=name,
                typeIdentifier=config.asset_type_name,
                typeRevision=revision,
                description=description,
                formsInput=forms_input(config, schema, version),
            )
            save_mapping(ssm, config.mapping_prefix, schema["SchemaArn"], created["id"], version)
            result["created"] += 1
        elif known["version"] != version:
            datazone.create_asset_revision(
                domainIdentifier=config.domain_id,
                identifier=known["assetId"],
                name=name,
                typeRevision=revision,
                description=description,
                formsInput=forms_input(config, schema, version),
            )
            save_mapping(ssm, config.mapping_prefix, schema["SchemaArn"], known["assetId"], version)
            result["updated"] += 1
        else:
            result["unchanged"] += 1
    return result


def _list_schemas(glue: Any, registry_name: str) -> list[dict[str, Any]]:
    schemas: list[dict[str, Any]] = []
    request: dict[str, Any] = {"RegistryId": {"RegistryName": registry_name}, "MaxResults": GLUE_PAGE}
    while True:
        page = glue.list_schemas(**request)
        schemas.extend(page.get("Schemas", []))
        if not page.get("NextToken"):
            return schemas
        request["NextToken"] = page["NextToken"]


def table_for(config: BaselineConfig, topic: str) -> tuple[str, str] | None:
    found = re.fullmatch(config.table_match, topic) if config.table_match else None
    if found is None:
        return None
    return config.table_database, config.table_template.format(**found.groupdict()).lower()


def run_event(
    config: BaselineConfig, event_type: str, run_id: str, topic: str, table: tuple[str, str]
) -> bytes:
    """The write-up's `build_openlineage_event`."""
    database, name = table
    event = {
        "schemaURL": "https://openlineage.io/spec/2-0-0/OpenLineage.json",
        "eventType": event_type,
        "eventTime": datetime.now(UTC).isoformat(),
        "producer": "urn:datazone-msk-lineage:1.0",
        "run": {"runId": run_id, "facets": {}},
        "job": {"namespace": "kafka-iceberg-sink", "name": f"sink/{database}.{name}", "facets": {}},
        "inputs": [{"namespace": config.cluster_arn, "name": topic, "facets": {}}],
        "outputs": [
            {
                "namespace": f"arn:aws:glue:{config.region}:{config.account}:table",
                "name": f"{database}/{name}",
                "facets": {},
            }
        ],
    }
    return json.dumps(event).encode()


def lineage(config: BaselineConfig, datazone: Any, ssm: Any) -> dict[str, Any]:
    """One run of the seed's lineage emission: START and COMPLETE for every mapped topic, every time."""
    result: dict[str, Any] = {"emitted": 0, "unchanged": 0, "unmapped": 0, "failed": []}
    for schema_arn in load_mapping(ssm, config.mapping_prefix):
        topic = schema_arn.rsplit("/", 1)[-1]
        table = table_for(config, topic)
        if table is None:
            result["unmapped"] += 1
            continue
        run_id = str(uuid.uuid4())
        for event_type in ("START", "COMPLETE"):
            datazone.post_lineage_event(
                domainIdentifier=config.domain_id,
                event=run_event(config, event_type, run_id, topic, table),
                clientToken=str(uuid.uuid4()),
            )
        result["emitted"] += 1
    return result
