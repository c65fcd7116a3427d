"""Sources in other accounts, in IAM mode: the functions run in the governance account under their synthesized
roles and read each source through the reader role its source stack deploys (trust: the two function roles,
by ARN, with the external id). The README's two-account walkthrough follows these steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from local import world
from tests.integration.cross_account.conftest import (
    CUSTOMERS,
    OTHER_SOURCE_ACCOUNT,
    SOURCE_ACCOUNT,
    Accounts,
    brokers,
    role_arn,
    schema_arn,
    source,
)
from tests.integration.sync.conftest import AVRO_VALUE

EVENTS = Path(__file__).resolve().parents[2] / "events"
TABLE_NAMESPACE = f"arn:aws:glue:{world.REGION}:{{}}:table"


def test_a_source_in_another_account_is_synced_and_its_lineage_points_at_its_own_table(accounts: Accounts):
    # Given a registry, a cluster and a table in the source account, its reader role trusting the functions
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS)
    accounts.table(SOURCE_ACCOUNT, "customers", "id", "name")
    accounts.configure(source(SOURCE_ACCOUNT, "ext-4c1d9e"))

    # When schema-sync runs in the governance account
    synced = accounts.sync()

    # Then the schema of the source account is an asset, named by its own ARN (its account), and the topic's
    # namespace comes from the source account's brokers
    assert synced["created"] == 1, synced
    arn = schema_arn(SOURCE_ACCOUNT, "cdc", CUSTOMERS)
    assert list(accounts.assets()) == [arn]
    # And every read went through the source role: the functions' own roles were never denied
    assert accounts.aws.iam.denials == []
    assert accounts.aws.iam.allowed["schema-sync sts:AssumeRole"] == 1  # one session for the whole run

    # When lineage-emission runs
    emitted = accounts.emit()

    # Then the edge runs from the topic on the source cluster to the table in the source account's catalog
    assert emitted["emitted"] == 1, emitted
    (emission,) = emitted["emissions"]
    assert emission["tableArn"] == f"arn:aws:glue:{world.REGION}:{SOURCE_ACCOUNT}:table/lakehouse/customers"
    assert (TABLE_NAMESPACE.format(SOURCE_ACCOUNT), "lakehouse/customers") in accounts.outputs()
    assert emission["registryName"] == f"{SOURCE_ACCOUNT}:cdc"
    assert accounts.aws.iam.denials == []
    # And the topic's namespace is the source cluster's first IAM broker
    (record,) = list(accounts.aws.datazone.assets(world.DOMAIN_ID))
    assert f"kafka://{brokers(SOURCE_ACCOUNT)}/{CUSTOMERS}" in json.dumps(record.__dict__, default=str)


def test_a_wrong_external_id_is_denied_and_fails_only_that_sources_items(accounts: Accounts):
    # Given a source whose settings carry another external id than its role trusts, beside a source in the
    # functions' own account
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS)
    accounts.schema(world.ACCOUNT, "dbserver1.inventory.orders")
    accounts.configure(world.source_config(), source(SOURCE_ACCOUNT, "not-the-trusted-id"))
    accounts.aws.calls.clear()  # seeding assumed roles too

    # When schema-sync runs, then it finishes every item and raises with that source's failure
    with pytest.raises(Exception, match="failed") as raised:
        accounts.sync()
    summary = json.loads(str(raised.value))

    # Then only the other source's schema was mirrored
    assert summary["created"] == 1
    assert list(accounts.assets()) == [world.schema_arn("cdc", "dbserver1.inventory.orders")]
    (failure,) = summary["failed"]
    assert failure["registryName"] == f"{SOURCE_ACCOUNT}:cdc"
    assert f"cannot assume role {role_arn(SOURCE_ACCOUNT)}" in failure["error"]
    assert "AccessDenied" in failure["error"]
    # And the denial was the role's trust policy (the function's own policy allowed the call)
    assert len(accounts.aws.iam.denials) == 1, accounts.aws.iam.denials
    (denial,) = accounts.aws.iam.denials
    assert (denial.role, denial.action, denial.resource) == (
        "schema-sync",
        "sts:AssumeRole",
        role_arn(SOURCE_ACCOUNT),
    )
    # And STS was asked once for the run, not once per item
    assert accounts.aws.call_counts()["sts:AssumeRole"] == 1


def test_a_forwarded_cloudtrail_event_of_a_source_account_syncs_that_schema_only(accounts: Accounts):
    # Given a source account with two schemas, already mirrored, and a new version of one of them
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS)
    accounts.schema(SOURCE_ACCOUNT, "dbserver1.inventory.orders")
    accounts.configure(source(SOURCE_ACCOUNT, "ext-4c1d9e"))
    assert accounts.sync()["created"] == 2
    event = json.loads((EVENTS / "glue_register_schema_version_source_account.json").read_text())
    glue = accounts.aws.client("glue", account=SOURCE_ACCOUNT)
    glue.register_schema_version(
        SchemaId={"RegistryName": "cdc", "SchemaName": CUSTOMERS},
        SchemaDefinition=event["detail"]["requestParameters"]["schemaDefinition"],
    )
    accounts.aws.calls.clear()

    # When the source account's CloudTrail event, forwarded to the governance bus, reaches schema-sync
    assert event["account"] == SOURCE_ACCOUNT
    result = accounts.sync(event)

    # Then it read that schema in the source account (no listing) and revised its asset only
    assert result["trigger"] == "cloudtrail:RegisterSchemaVersion"
    assert result["updated"] == 1, result
    calls = accounts.aws.call_counts()
    assert calls["glue:ListSchemas"] == 0
    assert calls["glue:GetSchema"] == 1
    assert accounts.aws.iam.denials == []


def test_a_forwarded_event_of_a_registry_no_source_names_in_that_account_reads_nothing(accounts: Accounts):
    # Given the governance account's own "cdc" and a source account configured for registry "cdc" too, and an
    # event from the source account about a registry it is not configured for
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.schema(world.ACCOUNT, CUSTOMERS, registry="orders")
    accounts.configure(world.source_config("orders"), source(SOURCE_ACCOUNT, "ext-4c1d9e"))
    event = json.loads((EVENTS / "glue_register_schema_version_source_account.json").read_text())
    event["detail"]["requestParameters"]["schemaId"]["registryName"] = "orders"

    # When schema-sync gets it, then it is skipped as not configured: the own "orders" is not read for it
    result = accounts.sync(event)
    assert result["skipped"] == [
        {"registryName": f"{SOURCE_ACCOUNT}:orders", "topic": CUSTOMERS, "reason": "registry not configured"}
    ]
    assert accounts.aws.call_counts()["glue:GetSchema"] == 0


def test_identically_named_registries_in_two_accounts_are_kept_apart(accounts: Accounts):
    # Given registry "cdc" in the governance account and in two source accounts, each with the same topic
    # (a different schema in each) and its own table
    accounts.source_account(SOURCE_ACCOUNT, trusted_external_id="ext-4c1d9e")
    accounts.source_account(OTHER_SOURCE_ACCOUNT, trusted_external_id="ext-77a0b2")
    wide = json.loads(AVRO_VALUE)
    wide["fields"].append({"name": "email", "type": "string"})
    accounts.schema(world.ACCOUNT, CUSTOMERS)
    accounts.schema(SOURCE_ACCOUNT, CUSTOMERS, json.dumps(wide))
    accounts.schema(OTHER_SOURCE_ACCOUNT, CUSTOMERS)
    accounts.table(SOURCE_ACCOUNT, "customers", "id", "name", "email")
    accounts.table(OTHER_SOURCE_ACCOUNT, "customers", "id", "name")
    accounts.configure(
        world.source_config(),
        source(SOURCE_ACCOUNT, "ext-4c1d9e"),
        source(OTHER_SOURCE_ACCOUNT, "ext-77a0b2"),
    )

    # When both functions run
    synced = accounts.sync()
    emitted_keys = _emit_keys(accounts)

    # Then three assets, one per account, each named by its own schema ARN
    assert synced["created"] == 3, synced
    assert sorted(accounts.assets()) == sorted(
        schema_arn(account, "cdc", CUSTOMERS)
        for account in (world.ACCOUNT, SOURCE_ACCOUNT, OTHER_SOURCE_ACCOUNT)
    )
    # And lineage kept three topics apart: the own one has no table in the governance account (failed),
    # the two others point at their own account's table
    assert emitted_keys == {f"{SOURCE_ACCOUNT}:cdc", f"{OTHER_SOURCE_ACCOUNT}:cdc"}
    outputs = accounts.outputs()
    assert (TABLE_NAMESPACE.format(SOURCE_ACCOUNT), "lakehouse/customers") in outputs
    assert (TABLE_NAMESPACE.format(OTHER_SOURCE_ACCOUNT), "lakehouse/customers") in outputs

    # When the schema is deleted in one source account only and a sync confirms it
    accounts.aws.client("glue", account=OTHER_SOURCE_ACCOUNT).delete_schema(
        SchemaId={"RegistryName": "cdc", "SchemaName": CUSTOMERS}
    )
    accounts.sync({"allowMassDelete": True})

    # Then only that account's asset is gone
    assert sorted(accounts.assets()) == sorted(
        schema_arn(account, "cdc", CUSTOMERS) for account in (world.ACCOUNT, SOURCE_ACCOUNT)
    )


def _emit_keys(accounts: Accounts) -> set[str]:
    try:
        result = accounts.emit()
    except Exception as error:  # the own topic's table does not exist: that topic fails, the others emit
        result = json.loads(str(error))
        (failure,) = result["failed"]
        assert failure["registryName"] == "cdc"
        assert "does not exist" in failure["error"]
    return {emission["registryName"] for emission in result["emissions"]}
