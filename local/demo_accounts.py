"""The demo's other accounts: a cluster in a source account, granted to a consumer in a third account.

Each account deploys its stack (synthesized here, as `cdk deploy` would): the source account's reader role
with `grantAccess` (it may write its listed cluster's policy), trusting the governance stack's function roles;
the KafkaLineageConsumer role of the consumer account (and of the source account), which may write IAM on
the consumer roles there, trusting subscription-grants. In IAM mode every call runs under the role it would
in AWS, and is authorised against it: the demo prints which role each call ran under.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from local import access_world, world
from local.cluster_access import reads_across
from local.deployed import DeployedFunctions
from local.runs import Context
from local.standins.iam_trust import assumable_roles_from_template
from local.synth import deployment_roles, other_account_templates

SOURCE_ACCOUNT = "444455556666"
CONSUMER_ACCOUNT = "777788889999"
CLUSTER = (
    f"arn:aws:kafka:{world.REGION}:{SOURCE_ACCOUNT}:cluster/billing/7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d-1"
)
BROKERS = "b-1.billing.x1y2z3.c2.kafka.eu-west-1.amazonaws.com:9098"
SOURCE_ROLE = "kafka-lineage-source-reader"
SOURCE_ID = "kafka-lineage-billing-51c0"
CONSUMER_ROLE = "KafkaLineageConsumer"
CONSUMER_ID = "kafka-lineage-consumers-7f3c"
INVOICES, PAYMENTS = "billing.invoices", "billing.payments"
INVOICE = json.dumps(
    {
        "type": "record",
        "name": "Invoice",
        "namespace": "billing",
        "fields": [
            {"name": "invoice_id", "type": "string"},
            {"name": "customer_id", "type": "long"},
            {"name": "amount_cents", "type": "long"},
        ],
    }
)

Table = Callable[[Sequence[Sequence[Any]], Sequence[str]], str]


def _source_account(aws: Any) -> dict[str, Any]:
    """The billing team's account: its cluster with two topics, its registry with the invoices' schema.
    Returns its SOURCES entry (read through its reader role)."""
    aws.kafka.set_brokers(CLUSTER, sasl_iam=BROKERS)
    for topic in (INVOICES, PAYMENTS):
        aws.kafka.create_topic(CLUSTER, topic, 6, 3, {"retention.ms": "604800000"})
    glue = aws.client("glue", account=SOURCE_ACCOUNT)
    glue.create_registry(RegistryName="billing")
    glue.create_schema(
        RegistryId={"RegistryName": "billing"},
        SchemaName=INVOICES,
        DataFormat="AVRO",
        Compatibility="BACKWARD",
        SchemaDefinition=INVOICE,
    )
    return {
        "registryName": "billing",
        "clusterArn": CLUSTER,
        "roleArn": f"arn:aws:iam::{SOURCE_ACCOUNT}:role/{SOURCE_ROLE}",
        "externalId": SOURCE_ID,
    }


def _deploy_other_accounts(aws: Any) -> None:
    """`cdk deploy` in the source and the consumer account, after the governance stack (its role ARNs)."""
    deployment = world.deployment_for(aws, "subscription-grants", {})
    roles = deployment_roles(deployment, aws.region, aws.account)
    source = {
        "trustedRoleArns": [
            roles[name].arn for name in ("schema-sync", "lineage-emission", "subscription-grants")
        ],
        "externalId": SOURCE_ID,
        "registries": ["billing"],
        "roleName": SOURCE_ROLE,
        "grantAccess": True,
        "clusters": [CLUSTER],
    }
    # The KafkaLineageConsumer stack of the consumer account, and of the source account too: the function
    # writes and reads consumer roles of an account only through that account's role. One template, the
    # analytics roles of the account it is deployed in (IAM acts in the caller's account only).
    consumer = {
        "trustedRoleArn": roles["subscription-grants"].arn,
        "externalId": CONSUMER_ID,
        "consumerRoles": ["arn:aws:iam::*:role/analytics/*"],
        "roleName": CONSUMER_ROLE,
    }
    templates = other_account_templates(
        deployment,
        {
            "kafkaLineageSource": json.dumps(source, sort_keys=True),
            "kafkaLineageConsumer": json.dumps(consumer, sort_keys=True),
        },
    )
    stacks = (
        ("kafkaLineageSource", SOURCE_ACCOUNT, "KafkaLineageSource"),
        ("kafkaLineageConsumer", CONSUMER_ACCOUNT, "KafkaLineageConsumer"),
        ("kafkaLineageConsumer", SOURCE_ACCOUNT, "KafkaLineageConsumer"),
    )
    for key, account, stack in stacks:
        aws.iam.add_assumable(assumable_roles_from_template(templates[key], aws.region, account, stack))


def show(deployed: DeployedFunctions, say: Callable[[str], None], table: Table) -> None:
    """11. and 12.: a consumer in a third account granted, then revoked, a topic of the source account."""
    aws = deployed.aws
    entry = _source_account(aws)
    os.environ["SOURCES"] = json.dumps([*json.loads(os.environ["SOURCES"]), entry])
    access = json.loads(os.environ["ACCESS"])
    access.update(
        consumerAccountRole=f"arn:aws:iam::{{account}}:role/{CONSUMER_ROLE}", externalId=CONSUMER_ID
    )
    os.environ["ACCESS"] = json.dumps(access)
    _deploy_other_accounts(aws)
    synced = deployed.invoke("schema-sync", {}, Context())
    role = access_world.consumer_role(
        "invoices-reader", path="/analytics/", iam=aws.client("iam", account=CONSUMER_ACCOUNT)
    )
    project = "prjinvoices01"
    consumer = access_world.add_consumer(aws.datazone, project, [role], account=CONSUMER_ACCOUNT)
    subscription = access_world.subscribe(aws.datazone, consumer, INVOICES)
    say(
        f"11. Other accounts: the billing team's cluster is in source account {SOURCE_ACCOUNT} (its source "
        f"stack with grantAccess); schema-sync published its topic through its role ({synced['created']} "
        "created). "
        f"Project {project}, whose role {role.split(':role', 1)[1]} is in account {CONSUMER_ACCOUNT} (its "
        f"KafkaLineageConsumer stack), subscribed to {INVOICES}"
    )
    requested = world.BusCatcher("aws.datazone", "Subscription Grant Requested")
    revoking = world.BusCatcher("aws.datazone", "Subscription Grant Revoke Requested")
    group = f"{project}-app"

    def deliver(catcher: world.BusCatcher) -> None:
        before = Counter(aws.iam.allowed)
        for event in catcher.drain():
            deployed.invoke("subscription-grants", event, Context())
        calls = Counter(aws.iam.allowed)
        calls.subtract(before)
        grant = access_world.grant_of(aws.datazone, subscription)
        print(f"grant {grant.id}: " + ", ".join(status for _, status in grant.assets))
        rows = [
            [who, action, n]
            for key, n in sorted(calls.items())
            if n > 0 and not key.split(" ", 1)[1].startswith(("datazone:", "ssm:"))
            for who, action in [key.split(" ", 1)]
        ]
        print(table(rows, ["ran under role", "IAM, STS and MSK calls", "n"]))
        policy = aws.cluster_policies.policy_of(CLUSTER) or {"Statement": []}
        statements = [
            [
                s.get("Sid", ""),
                json.dumps(s.get("Principal")),
                len(s.get("Action", [])),
                len(s.get("Resource", [])),
            ]
            for s in policy["Statement"]
        ]
        print(
            table(
                statements or [["(no cluster policy)", "", "", ""]],
                ["cluster policy: Sid", "principal", "actions", "resources"],
            )
        )
        decisions = [
            [topic, group, "allowed" if reads_across(aws, role, topic, group, CLUSTER) else "denied"]
            for topic in (INVOICES, PAYMENTS)
        ]
        print(
            table(
                decisions,
                ["MSK: may invoices-reader read (its policy and the cluster's)", "as group", "decision"],
            )
        )

    deliver(requested)
    access_world.revoke(subscription)
    say("12. The owner revoked it: the role's policy and the cluster policy's statement go")
    deliver(revoking)
