"""A local CDC world on the stand-ins: a DataZone domain with our types, a Glue registry, an MSK cluster.

The demo, the integration tests and the benchmarks build the same world through real boto3 calls, so what
they exercise is what a deployed stack would meet (the form types and asset type come from `smithy/`, created
by the same code as the stack's custom resource).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import boto3
from botocore.exceptions import ClientError

from asset_type_resource.provision import create_form_types
from local import debezium
from local.standins.iam_roles import Role
from local.synth import Deployment, deployment_roles

REPO = Path(__file__).resolve().parent.parent
SMITHY = REPO / "smithy"
REGION = "eu-west-1"
ACCOUNT = "123456789012"
DOMAIN_ID = "dzd_local1234"
PROJECT_ID = "prj1234local"
CLUSTER_ARN = f"arn:aws:kafka:{REGION}:{ACCOUNT}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"
BROKERS_IAM = ",".join(f"b-{n}.cdc.abc123.c2.kafka.eu-west-1.amazonaws.com:9098" for n in (1, 2))
NAMESPACE = "kafka://b-1.cdc.abc123.c2.kafka.eu-west-1.amazonaws.com:9098"
MAPPING_PATH = "/kafka-lineage"


@dataclass(frozen=True)
class SchemaSpec:
    name: str
    data_format: str  # AVRO | JSON | PROTOBUF
    definition: str
    compatibility: str = "BACKWARD"


# The demo's registry: the Debezium tutorial's inventory tables in all three formats Glue supports, and the
# connector's heartbeat topic.
FORMATS = {
    "customers": "AVRO",
    "addresses": "AVRO",
    "orders": "JSON",
    "products": "JSON",
    "products_on_hand": "PROTOBUF",
    "geom": "PROTOBUF",
}


def inventory() -> list[SchemaSpec]:
    specs = [
        SchemaSpec(debezium.topic_for(table), data_format, debezium.table_envelope(table, data_format))
        for table, data_format in FORMATS.items()
    ]
    specs.append(SchemaSpec(debezium.HEARTBEAT_TOPIC, "AVRO", debezium.heartbeat("AVRO")))
    return specs


def create_topics(aws: Any, specs: Iterable[SchemaSpec]) -> None:
    """The cluster's topics, as a Debezium deployment leaves them: one per table (6 partitions, 7 days),
    the heartbeat (compacted and deleted, no time limit), Kafka's own `__consumer_offsets`, and the schema
    history topic, which no registry schema names (the sync reports it under `withoutSchema`)."""
    for spec in specs:
        heartbeat = spec.name.startswith("__")
        configs = (
            {"retention.ms": "-1", "cleanup.policy": "compact,delete"}
            if heartbeat
            else {"retention.ms": "604800000", "cleanup.policy": "delete"}
        )
        aws.kafka.create_topic(CLUSTER_ARN, spec.name, 1 if heartbeat else 6, 3, configs)
    aws.kafka.create_topic(CLUSTER_ARN, "__consumer_offsets", 50, 3, {"cleanup.policy": "compact"})
    aws.kafka.create_topic(CLUSTER_ARN, "schema-changes.inventory", 1, 3, {"retention.ms": "-1"})


def inventory_v2(table: str) -> SchemaSpec:
    """The next version of a tutorial table's schema (a compatible evolution: one nullable column added)."""
    return SchemaSpec(debezium.topic_for(table), FORMATS[table], debezium.table_v2(table, FORMATS[table]))


def inventory_without(table: str, column: str) -> SchemaSpec:
    """A version after inventory_v2 that drops `column` (a breaking change for the table it feeds)."""
    definition = debezium.table_without(table, column, FORMATS[table], after_v2=True)
    return SchemaSpec(debezium.topic_for(table), FORMATS[table], definition)


def source_config(registry: str = "cdc", **extra: Any) -> dict[str, Any]:
    """A SOURCES entry (docs/configuration.md) for the local cluster."""
    return {"registryName": registry, "clusterArn": CLUSTER_ARN, **extra}


def environment(sources: Iterable[dict[str, Any]], tuning: dict[str, Any] | None = None) -> dict[str, str]:
    env = {
        "DOMAIN_ID": DOMAIN_ID,
        "PROJECT_ID": PROJECT_ID,
        "MAPPING_PATH": MAPPING_PATH,
        "SOURCES": json.dumps(list(sources)),
    }
    if tuning:
        env["TUNING"] = json.dumps(tuning)
    return env


def bootstrap_catalog(
    datazone_backend: Any, resource: Callable[[dict[str, Any], Any], Any] | None = None
) -> str:
    """Seed the domain and project, then deploy our types as the stack does: the form types as CloudFormation
    creates them (the deployer's credentials), the asset type through the custom resource's handler:
    `resource`, e.g. `DeployedFunctions.handler("asset-type-resource")` (under its own role), else the
    module's (under the caller's credentials). Returns the asset type's revision."""
    from asset_type_resource.handler import handler

    run = handler if resource is None else resource
    datazone_backend.add_domain(DOMAIN_ID, project_ids=[PROJECT_ID])
    datazone = boto3.client("datazone", region_name=REGION)
    revisions = create_form_types(datazone, DOMAIN_ID, PROJECT_ID, SMITHY)
    spec = json.loads((SMITHY / "KafkaTopicAssetType.json").read_text())
    event = {
        "RequestType": "Create",
        "ResourceType": "Custom::DataZoneAssetType",
        "LogicalResourceId": "DataZoneTypesAssetType",
        "StackId": f"arn:aws:cloudformation:{REGION}:{ACCOUNT}:stack/KafkaLineage/local",
        "RequestId": "local-bootstrap",
        "ResourceProperties": {
            "DomainId": DOMAIN_ID,
            "ProjectId": PROJECT_ID,
            "Spec": json.dumps(spec, sort_keys=True, separators=(",", ":")),
            "FormRevisions": revisions,
            "RemovalPolicy": "retain",
        },
    }
    answer = run(event, cast(Any, _ResourceContext()))
    return str(answer["Data"]["Revision"])


class _ResourceContext:
    """What Powertools reads from the custom resource handler's Lambda context."""

    function_name = "asset-type-resource"
    memory_limit_in_mb = 256
    invoked_function_arn = f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:asset-type-resource"
    aws_request_id = "00000000-0000-4000-8000-0000000a55e7"


def create_registry(registry: str) -> None:
    glue = boto3.client("glue", region_name=REGION)
    try:
        glue.create_registry(RegistryName=registry)
    except ClientError as error:
        if error.response["Error"]["Code"] != "AlreadyExistsException":
            raise


def register(registry: str, spec: SchemaSpec) -> int:
    """Create the schema, or register a new version of it; returns the version number."""
    glue = boto3.client("glue", region_name=REGION)
    try:
        answer = glue.create_schema(
            RegistryId={"RegistryName": registry},
            SchemaName=spec.name,
            DataFormat=spec.data_format,
            Compatibility=spec.compatibility,
            SchemaDefinition=spec.definition,
        )
        return int(answer.get("LatestSchemaVersion", 1))
    except ClientError as error:
        if error.response["Error"]["Code"] != "AlreadyExistsException":
            raise
    answer = glue.register_schema_version(
        SchemaId={"RegistryName": registry, "SchemaName": spec.name}, SchemaDefinition=spec.definition
    )
    return int(answer["VersionNumber"])


def delete_schema(registry: str, name: str) -> None:
    boto3.client("glue", region_name=REGION).delete_schema(
        SchemaId={"RegistryName": registry, "SchemaName": name}
    )


def schema_arn(registry: str, name: str) -> str:
    return f"arn:aws:glue:{REGION}:{ACCOUNT}:schema/{registry}/{name}"


# ------------------------------------------ the deployed role (local.deployed runs each function under it)


def deployment_for(aws: Any, function: str, event: Mapping[str, Any]) -> Deployment:
    """The stack deployment a function invoked now would belong to, built from what it is configured with.

    schema-sync and lineage-emission: their environment (as the stack sets it from cdk.json), with every
    Glue database of the catalog listed in `extraDatabases` (what an operator lists for the tables their
    mappings name). The asset-type custom resource: the domain, project, asset type name and removal
    policy its CloudFormation event carries, which the stack sets from the same context.
    """
    if function == "asset-type-resource":
        props = event.get("ResourceProperties", {})
        env = {
            "SOURCES": json.dumps([source_config()]),
            **{k: v for k, v in os.environ.items() if k in ("SOURCES", "MAPPING_PATH")},
            "DOMAIN_ID": str(props.get("DomainId", DOMAIN_ID)),
            "PROJECT_ID": str(props.get("ProjectId", PROJECT_ID)),
            "ASSET_TYPE_NAME": str(json.loads(props.get("Spec") or "{}").get("name") or ""),
        }
        return Deployment.from_environment(
            env, asset_type_removal_policy=str(props.get("RemovalPolicy", "retain"))
        )
    if function == "subscription-grants":
        # Deployed only with `access`: the deployment's is what the function reads as ACCESS. A malformed
        # ACCESS could not have been deployed; its role is then the one `access: {}` gets (no consumer role).
        return Deployment.from_environment(
            os.environ, extra_databases=_glue_databases(aws), access=_access_setting(os.environ)
        )
    # The data products' permissions come with the setting (stacks/lineage_stack.py).
    products = json.loads(os.environ.get("DATA_PRODUCTS") or "[]")
    extra = {"dataProducts": products} if products else {}
    return Deployment.from_environment(os.environ, extra_databases=_glue_databases(aws), **extra)


def _access_setting(environ: Mapping[str, str]) -> dict[str, Any]:
    from kafka_lineage.access.settings import AccessSettings, AccessSettingsError

    try:
        access = AccessSettings.from_environment(environ)
    except AccessSettingsError:
        return {}
    return dict(access.model_dump(mode="json", by_alias=True, exclude_defaults=True))


def _glue_databases(aws: Any) -> list[str]:
    # Read from moto's state in this process, not over the wire: tests count the calls the functions make.
    from moto.glue.models import glue_backends

    return sorted(glue_backends[aws.account][aws.region].databases)


def deployed_role(aws: Any, function: str, event: Mapping[str, Any]) -> Role:
    roles = deployment_roles(deployment_for(aws, function, event), aws.region, aws.account)
    return roles[function]


class BusCatcher:
    """An EventBridge rule on the default bus that sends one source's events of one type to an SQS queue."""

    def __init__(self, source: str, detail_type: str) -> None:
        self.sqs = boto3.client("sqs", region_name=REGION)
        events = boto3.client("events", region_name=REGION)
        name = "catch-" + detail_type.lower().replace(" ", "-")
        self.queue_url = self.sqs.create_queue(QueueName=name)["QueueUrl"]
        queue_arn = self.sqs.get_queue_attributes(QueueUrl=self.queue_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        events.put_rule(
            Name=name, EventPattern=json.dumps({"source": [source], "detail-type": [detail_type]})
        )
        events.put_targets(Rule=name, Targets=[{"Id": "q", "Arn": queue_arn}])

    def drain(self) -> list[dict[str, Any]]:
        """The events caught since the last drain (whole events: source, detail-type, detail)."""
        caught: list[dict[str, Any]] = []
        while True:
            messages = self.sqs.receive_message(QueueUrl=self.queue_url, MaxNumberOfMessages=10).get(
                "Messages", []
            )
            if not messages:
                return caught
            for message in messages:
                event = json.loads(message["Body"])
                # moto's SQS target leaves the envelope's `account` out; EventBridge always sends it (the
                # envelope every function's request reader checks), and here it is the world's account.
                event.setdefault("account", ACCOUNT)
                caught.append(event)
                self.sqs.delete_message(QueueUrl=self.queue_url, ReceiptHandle=message["ReceiptHandle"])
