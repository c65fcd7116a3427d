"""A lakehouse on the stand-ins for the lineage handler: schemas in the Glue registry and the asset mapping
(as schema-sync leaves them), Iceberg tables in the Glue Data Catalog, a DataZone domain, and the handler."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from kafka_lineage.aws.asset_records import AssetRecordStore
from kafka_lineage.model.asset_records import AssetRecord
from local import world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests import fixtures
from tests.fixtures import CLUSTER_ARN, DOMAIN_ID, PROJECT_ID
from tests.unit.lineage.openlineage_rules import assert_valid

REGION = "eu-west-1"
ACCOUNT = "123456789012"
MAPPING_PATH = "/kafka-lineage"
NAMESPACE = "kafka://b-1.cdc.abc123.c2.kafka.eu-west-1.amazonaws.com:9098"
BROKERS = ",".join(f"b-{n}.cdc.abc123.c2.kafka.eu-west-1.amazonaws.com:9098" for n in (1, 2))
TABLE_NAMESPACE = f"arn:aws:glue:{REGION}:{ACCOUNT}:table"
RULE = {"database": "lakehouse", "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}


@dataclass
class FakeContext(fixtures.FakeContext):
    """lineage-emission's context (the shared fake, with this function's name and request id)."""

    function_name: str = "lineage-emission"
    aws_request_id: str = "6f1c1d2e-0000-4000-8000-000000000001"


class Failed(Exception):
    def __init__(self, summary: dict[str, Any]) -> None:
        super().__init__(json.dumps(summary))
        self.summary = summary


@dataclass
class Lakehouse:
    aws: LocalAws
    monkeypatch: pytest.MonkeyPatch
    deployed: DeployedFunctions
    records: dict[str, AssetRecord] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.glue = boto3.client("glue", region_name=REGION)
        self.ssm = boto3.client("ssm", region_name=REGION)
        self.aws.datazone.add_domain(DOMAIN_ID, project_ids=[PROJECT_ID])
        # The cluster's brokers: how the lineage run tells which MSK Connect connectors are its source's.
        self.aws.kafka.set_brokers(CLUSTER_ARN, sasl_iam=BROKERS)
        self.configure()

    # -- configuration ---------------------------------------------------------------------------------

    def configure(self, *sources: dict[str, Any], tuning: dict[str, Any] | None = None) -> None:
        env = {
            "DOMAIN_ID": DOMAIN_ID,
            "PROJECT_ID": PROJECT_ID,
            "MAPPING_PATH": MAPPING_PATH,
            "SOURCES": json.dumps(
                list(sources) or [{"registryName": "cdc", "clusterArn": CLUSTER_ARN, "tableRule": RULE}]
            ),
        }
        if tuning:
            env["TUNING"] = json.dumps(tuning)
        for key, value in env.items():
            self.monkeypatch.setenv(key, value)

    # -- the world -------------------------------------------------------------------------------------

    def schema(
        self, topic: str, definition: str, registry: str = "cdc", data_format: str = "AVRO"
    ) -> AssetRecord:
        """Register the schema (or its next version) and record it in the asset mapping like schema-sync."""
        try:
            self.glue.create_registry(RegistryName=registry)
        except ClientError as error:
            if error.response["Error"]["Code"] != "AlreadyExistsException":
                raise
        try:
            answer = self.glue.create_schema(
                RegistryId={"RegistryName": registry},
                SchemaName=topic,
                DataFormat=data_format,
                Compatibility="NONE",
                SchemaDefinition=definition,
            )
            version, version_id = 1, answer["SchemaVersionId"]
        except ClientError as error:
            if error.response["Error"]["Code"] != "AlreadyExistsException":
                raise
            answer = self.glue.register_schema_version(
                SchemaId={"RegistryName": registry, "SchemaName": topic}, SchemaDefinition=definition
            )
            version, version_id = int(answer["VersionNumber"]), answer["SchemaVersionId"]
        arn = f"arn:aws:glue:{REGION}:{ACCOUNT}:schema/{registry}/{topic}"
        before = self.records.get(arn)
        record = AssetRecord(
            registry_name=registry,
            schema_name=topic,
            schema_arn=arn,
            asset_id=f"asset{len(self.records):09d}",
            latest_version=version,
            data_format=data_format,
            namespace=NAMESPACE,
            updated_time="2025-03-14T09:15:02+00:00",
            created_time="2025-03-01T08:00:00+00:00",
            content_hash="0" * 16,
            schema_version_id=version_id,
            # as schema-sync records it: the version mirrored before this one
            previous_version=before.latest_version if before else 0,
        )
        self.records[arn] = record
        self._save_mapping({arn: record})
        return record

    def drop_schema(self, topic: str, registry: str = "cdc") -> None:
        """Delete the schema and its mapping entry, as schema-sync does before announcing the deletion."""
        arn = f"arn:aws:glue:{REGION}:{ACCOUNT}:schema/{registry}/{topic}"
        self.glue.delete_schema(SchemaId={"SchemaArn": arn})
        self.records.pop(arn, None)
        self._save_mapping({arn: None})

    def _save_mapping(self, changes: dict[str, AssetRecord | None]) -> None:
        mapping = AssetRecordStore(self.ssm, MAPPING_PATH)
        mapping.load()
        mapping.save(changes)

    def table(
        self, name: str, *columns: str | tuple[str, str], database: str = "lakehouse", **extra: Any
    ) -> None:
        """Create (or replace) an Iceberg table in the Glue Data Catalog."""
        try:
            self.glue.create_database(DatabaseInput={"Name": database})
        except ClientError as error:
            if error.response["Error"]["Code"] != "AlreadyExistsException":
                raise
        table_input = {
            "Name": name,
            "TableType": "EXTERNAL_TABLE",
            "Parameters": {"table_type": "ICEBERG"},
            "StorageDescriptor": {
                "Columns": [
                    {"Name": c, "Type": "string"} if isinstance(c, str) else {"Name": c[0], "Type": c[1]}
                    for c in columns
                ],
                **extra,
            },
        }
        try:
            self.glue.create_table(DatabaseName=database, TableInput=table_input)
        except ClientError as error:
            if error.response["Error"]["Code"] != "AlreadyExistsException":
                raise
            self.glue.update_table(DatabaseName=database, TableInput=table_input)

    def mapping(self, relative: str, **value: str) -> str:
        name = f"{MAPPING_PATH}/table-mappings/{relative}"
        self.ssm.put_parameter(Name=name, Value=json.dumps(value), Type="String", Overwrite=True)
        return name

    def catch_drift(self) -> world.BusCatcher:
        """Catch the lineage function's "Schema Drift Detected" events from the default bus."""
        return world.BusCatcher("kafka-lineage.lineage-emission", "Schema Drift Detected")

    # -- running ---------------------------------------------------------------------------------------

    def emit(self, event: dict[str, Any] | None = None, context: FakeContext | None = None) -> dict[str, Any]:
        """Invoke the function (under its role); raise `Failed` with the summary when it raises (after
        finishing)."""
        from lineage_emission.handler import LineageEmissionFailed

        try:
            result: dict[str, Any] = self.deployed.invoke(
                "lineage-emission", event if event is not None else {}, context or FakeContext()
            )
        except LineageEmissionFailed as error:
            raise Failed(json.loads(str(error))) from error
        finally:
            self.check_events()
        return result

    def check_events(self) -> None:
        """Every live event (so every event any run posted, while it lived) keeps the OpenLineage rules."""
        for event in self.events():
            assert_valid(event)

    def events(self) -> list[dict[str, Any]]:
        return list(self.aws.datazone.lineage_events(DOMAIN_ID))

    def runs(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for event in self.events():
            found.setdefault(event["run"]["runId"], []).append(event["eventType"])
        return found

    def edges(self) -> dict[tuple[str, str], Any]:
        return {(edge.upstream, edge.downstream): edge for edge in self.aws.datazone.lineage_edges(DOMAIN_ID)}

    def count(self, operation: str) -> int:
        return int(self.aws.call_counts()[operation])

    def reset_calls(self) -> None:
        self.aws.calls.clear()


@pytest.fixture
def lakehouse(local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch) -> Lakehouse:
    return Lakehouse(local_aws, monkeypatch, deployed)
