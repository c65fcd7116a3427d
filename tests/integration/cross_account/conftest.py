"""Two (or three) accounts on the stand-ins, in IAM mode: the governance account runs both functions under
their synthesized roles; each source account has its registry, cluster and tables, and the reader role that
account's source stack (stacks/source_stack.py) would deploy there, trusting the two function roles by ARN
with the external id. Everything is seeded in its own account with unrestricted keys (LocalAws.client)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from botocore.exceptions import ClientError

from local import world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from local.synth import deployment_roles, source_account_roles
from tests.integration.sync.conftest import AVRO_VALUE, FakeContext

SOURCE_ACCOUNT = "444455556666"
OTHER_SOURCE_ACCOUNT = "777788889999"
ROLE_NAME = "kafka-lineage-source-reader"
RULE = {"database": "lakehouse", "match": r"^dbserver1\.inventory\.(?P<table>[^.]+)$", "table": "{table}"}
CUSTOMERS = "dbserver1.inventory.customers"


def cluster_arn(account: str) -> str:
    return f"arn:aws:kafka:{world.REGION}:{account}:cluster/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"


def brokers(account: str) -> str:
    return f"b-1.cdc{account[-4:]}.abc123.c2.kafka.eu-west-1.amazonaws.com:9098"


def role_arn(account: str) -> str:
    return f"arn:aws:iam::{account}:role/{ROLE_NAME}"


def schema_arn(account: str, registry: str, name: str) -> str:
    return f"arn:aws:glue:{world.REGION}:{account}:schema/{registry}/{name}"


def source(account: str, external_id: str, registry: str = "cdc") -> dict[str, Any]:
    """A SOURCES entry for a registry in another account, read through its reader role."""
    return {
        "registryName": registry,
        "clusterArn": cluster_arn(account),
        "roleArn": role_arn(account),
        "externalId": external_id,
        "tableRule": RULE,
    }


class LineageContext(FakeContext):
    def __init__(self) -> None:
        super().__init__(
            function_name="lineage-emission",
            invoked_function_arn=f"arn:aws:lambda:{world.REGION}:{world.ACCOUNT}:function:lineage-emission",
        )


@dataclass
class Accounts:
    aws: LocalAws
    monkeypatch: pytest.MonkeyPatch
    deployed: DeployedFunctions
    trusted_ids: dict[str, str] = field(default_factory=dict)  # account -> the external id its role trusts
    source_context: dict[str, Any] = field(default_factory=dict)  # more keys of the source stacks' context

    # -- configuration -----------------------------------------------------------------------------
    def configure(self, *sources: dict[str, Any]) -> None:
        tuning = {"datazone_rps": 500, "glue_rps": 500, "ssm_write_rps": 500}
        for key, value in world.environment(sources, tuning).items():
            self.monkeypatch.setenv(key, value)
        self.deploy_source_stacks()

    def deploy_source_stacks(self) -> None:
        """Each source account's stack, trusting the governance stack's two function roles as deployed for
        the current configuration (the README's deploy order: governance first, its role ARNs to the
        source stacks)."""
        deployment = world.deployment_for(self.aws, "schema-sync", {})
        roles = deployment_roles(deployment, self.aws.region, self.aws.account)
        trusted = [roles["schema-sync"].arn, roles["lineage-emission"].arn]
        for account, external_id in self.trusted_ids.items():
            context = {
                "trustedRoleArns": trusted,
                "externalId": external_id,
                "registries": ["cdc"],
                "databases": ["lakehouse"],
                "roleName": ROLE_NAME,
                **self.source_context,
            }
            text = json.dumps(context, sort_keys=True)
            self.aws.iam.add_assumable(source_account_roles(deployment, text, self.aws.region, account))

    # -- a source account's world ------------------------------------------------------------------
    def source_account(self, account: str, trusted_external_id: str) -> None:
        self.trusted_ids[account] = trusted_external_id
        self.aws.kafka.set_brokers(cluster_arn(account), sasl_iam=brokers(account))
        glue = self.aws.client("glue", account=account)
        _ignore_exists(lambda: glue.create_registry(RegistryName="cdc"))
        _ignore_exists(lambda: glue.create_database(DatabaseInput={"Name": "lakehouse"}))

    def schema(self, account: str, name: str, definition: str = AVRO_VALUE, registry: str = "cdc") -> None:
        glue = self.aws.client("glue", account=account) if account != world.ACCOUNT else None
        if glue is None:
            world.create_registry(registry)
            world.register(registry, world.SchemaSpec(name, "AVRO", definition))
            return
        glue.create_schema(
            RegistryId={"RegistryName": registry},
            SchemaName=name,
            DataFormat="AVRO",
            Compatibility="BACKWARD",
            SchemaDefinition=definition,
        )

    def table(self, account: str, name: str, *columns: str) -> None:
        glue = self.aws.client("glue", account=account)
        _ignore_exists(lambda: glue.create_database(DatabaseInput={"Name": "lakehouse"}))
        glue.create_table(
            DatabaseName="lakehouse",
            TableInput={
                "Name": name,
                "TableType": "EXTERNAL_TABLE",
                "Parameters": {"table_type": "ICEBERG"},
                "StorageDescriptor": {"Columns": [{"Name": c, "Type": "string"} for c in columns]},
            },
        )

    # -- running -----------------------------------------------------------------------------------
    def sync(self, event: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self.deployed.invoke("schema-sync", event or {}, FakeContext())
        return result

    def emit(self, event: dict[str, Any] | None = None) -> dict[str, Any]:
        result: dict[str, Any] = self.deployed.invoke("lineage-emission", event or {}, LineageContext())
        return result

    def assets(self) -> dict[str, Any]:
        """externalIdentifier -> asset."""
        return {a.external_identifier: a for a in self.aws.datazone.assets(world.DOMAIN_ID)}

    def outputs(self) -> set[tuple[str, str]]:
        """(namespace, name) of every lineage event's output dataset."""
        return {
            (output["namespace"], output["name"])
            for event in self.aws.datazone.lineage_events(world.DOMAIN_ID)
            for output in event.get("outputs", [])
        }


def _ignore_exists(call: Any) -> None:
    try:
        call()
    except ClientError as error:
        if error.response["Error"]["Code"] != "AlreadyExistsException":
            raise


@pytest.fixture
def accounts(
    local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch, fast_retries: None
) -> Accounts:
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    return Accounts(local_aws, monkeypatch, deployed)
