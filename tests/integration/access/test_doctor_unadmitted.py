"""`kafka-lineage doctor`'s unadmitted check on the stand-ins (moto's IAM, the DataZone stand-in): after
`consumerRoles` was narrowed, the role the function granted is found among the domain's subscription
targets, named with the command that cleans it, and passes once that command ran."""

from __future__ import annotations

from types import SimpleNamespace

import boto3

from kafka_lineage.access.model import Naming
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage_cdk.doctor import read_only_clients
from kafka_lineage_cdk.doctor_access import unadmitted_roles
from kafka_lineage_cdk.findings import FAIL, OK, Target
from local import world
from tests.integration.access.conftest import ORDERS, AccessWorld, reads
from tests.integration.access.test_access_cli_unadmitted import run_as_printed

NAMING = Naming.for_stack(world.DOMAIN_ID, "KafkaTopicAssetType")


def test_doctor_names_a_granted_role_that_consumer_roles_no_longer_admits(access: AccessWorld):
    # Given a reader granted the orders topic by the function (our inline policy on it)
    reader = access.role("orders-reader")
    access.subscribe(access.consumer([reader]), ORDERS)
    access.deliver()
    # And the settings doctor checks, consumerRoles narrowed so that the reader is no longer admitted
    narrowed = AccessSettings.parse({"consumerRoles": ["arn:aws:iam::*:role/analytics/team-*"]})
    config = SimpleNamespace(
        deployment=SimpleNamespace(access=narrowed),
        settings=SimpleNamespace(domain_id=world.DOMAIN_ID, asset_type_name="KafkaTopicAssetType"),
    )
    target = Target(world.ACCOUNT, "aws", world.REGION, f"arn:aws:iam::{world.ACCOUNT}:role/deployer")
    clients = read_only_clients(boto3.client)

    # When the check runs, through doctor's read-only clients
    [finding] = unadmitted_roles(clients("iam"), clients("datazone"), config, target)

    # Then the reader fails, named with our inline policy and the command that removes it
    command = f"aws iam delete-role-policy --role-name orders-reader --policy-name {NAMING.inline_name}"
    assert finding.status == FAIL
    assert finding.message.startswith(f"{reader} still holds this stack's access ({NAMING.inline_name})")
    assert command in finding.message

    # When that command is run, then the reader no longer reads and the check passes
    run_as_printed(command)
    assert not reads(reader, ORDERS)
    [finding] = unadmitted_roles(clients("iam"), clients("datazone"), config, target)
    assert finding.status == OK
