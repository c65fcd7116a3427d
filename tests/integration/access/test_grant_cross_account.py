"""A consumer in another account than the cluster: its role is written in its own account (through
`access.consumerAccountRole`), and the cluster's policy gains a statement for that account, merged with the
statements others wrote there, even when another writer moves the policy's version between the read and
the write (the stand-in's race hook)."""

from __future__ import annotations

import json

from kafka_lineage.access.model import Naming
from local import access_world, world
from local.access_checks import may
from local.synth import consumer_account_roles, deployment_roles
from tests.integration.access.conftest import CLUSTER, CUSTOMERS, ORDERS, AccessWorld, reads

CONSUMER_ACCOUNT = "444455556666"
ACCOUNT_ROLE = "KafkaLineageConsumer"
EXTERNAL_ID = "kafka-lineage-consumers"
OTHER_TEAM = {
    "Sid": "PartnerIngest",
    "Effect": "Allow",
    "Principal": {"AWS": "arn:aws:iam::777788889999:root"},
    "Action": ["kafka-cluster:Connect", "kafka-cluster:WriteData"],
    "Resource": [CLUSTER.arn, CLUSTER.topic("partner.events")],
}

LATE_TEAM = {
    "Sid": "AuditRead",
    "Effect": "Allow",
    "Principal": {"AWS": "arn:aws:iam::777788889999:role/audit"},
    "Action": ["kafka-cluster:Connect"],
    "Resource": [CLUSTER.arn],
}


def consumer_account(access: AccessWorld) -> str:
    """The consumer account's role the function assumes (trusting the governance account, with the
    external id), and the consumer's role there."""
    iam = access.aws.client("iam", account=CONSUMER_ACCOUNT)
    trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"AWS": f"arn:aws:iam::{world.ACCOUNT}:root"},
                "Action": "sts:AssumeRole",
                "Condition": {"StringEquals": {"sts:ExternalId": EXTERNAL_ID}},
            }
        ],
    }
    iam.create_role(RoleName=ACCOUNT_ROLE, AssumeRolePolicyDocument=json.dumps(trust))
    # The consumer account deploys KafkaLineageConsumer: its role, as synthesized, trusting the governance
    # stack's subscription-grants role as deployed for the current ACCESS (its grants and trust are what the
    # stand-ins' IAM mode evaluates when the function assumes it and writes there).
    deployment = world.deployment_for(access.aws, "subscription-grants", {})
    grants_role = deployment_roles(deployment, access.aws.region, access.aws.account)["subscription-grants"]
    context = {
        "trustedRoleArn": grants_role.arn,
        "externalId": EXTERNAL_ID,
        "consumerRoles": [f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/analytics/*"],
        "roleName": ACCOUNT_ROLE,
    }
    text = json.dumps(context, sort_keys=True)
    access.aws.iam.add_assumable(
        consumer_account_roles(deployment, text, access.aws.region, CONSUMER_ACCOUNT)
    )
    return access_world.consumer_role("partner-reader", path="/analytics/", iam=iam)


def test_a_consumer_in_another_account_gets_its_role_and_a_merged_cluster_policy(access: AccessWorld):
    # Given a cluster whose policy already lets another team in, and a consumer in another account
    access.configure(
        consumerAccountRole=f"arn:aws:iam::{{account}}:role/{ACCOUNT_ROLE}", externalId=EXTERNAL_ID
    )
    kafka = access.aws.client("kafka")
    kafka.put_cluster_policy(
        ClusterArn=CLUSTER.arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [OTHER_TEAM]})
    )
    role = consumer_account(access)
    consumer = access.consumer([role], account=CONSUMER_ACCOUNT)
    subscription, _ = access.subscribe(consumer, ORDERS)
    # ... and another writer that adds a statement right after each of the function's two reads (the one
    # it decides from, and the one its write is versioned by), so its first PutClusterPolicy is stale
    raced = {"Version": "2012-10-17", "Statement": [OTHER_TEAM, LATE_TEAM]}
    access.aws.cluster_policies.race(CLUSTER.arn, json.dumps(raced), times=2)

    # When the grant event reaches the function
    [result] = access.deliver()

    # Then the grant is GRANTED: the role in its account may read the topic, and the cluster policy holds
    # the other team's statement as it was and one statement for the consumer account
    assert access.status(subscription) == "GRANTED", result
    assert reads(role, ORDERS)
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(CUSTOMERS))
    policy = access.aws.cluster_policies.policy_of(CLUSTER.arn)
    assert policy is not None
    [theirs, late, ours] = policy["Statement"]
    assert (theirs, late) == (OTHER_TEAM, LATE_TEAM)
    token = Naming.for_stack(world.DOMAIN_ID, access_world.ASSET_TYPE).token
    assert ours["Sid"] == f"KafkaLineageConsumer{token}{CONSUMER_ACCOUNT}"
    assert ours["Principal"] == {"AWS": [role]}  # the granted role, not the account's root
    assert CLUSTER.topic(ORDERS) in ours["Resource"]
    assert CLUSTER.topic(CUSTOMERS) not in ours["Resource"]
    assert "kafka-cluster:WriteData" not in ours["Action"]
    # ... written after one refused put: the stale version was refused, read again and merged again
    puts = [c.ok for c in access.aws.calls if c.key == "kafka:PutClusterPolicy"]
    assert puts == [True, False, True]  # the test's own put, the stale one, the merged one

    # When the subscription is revoked, then the account's statement goes and the others' stay
    access_world.revoke(subscription)
    access.deliver()
    assert access.status(subscription) == "REVOKED"
    after = access.aws.cluster_policies.policy_of(CLUSTER.arn)
    assert after is not None
    assert after["Statement"] == [OTHER_TEAM, LATE_TEAM]
    assert not may(role, "kafka-cluster:ReadData", CLUSTER.topic(ORDERS))


def test_a_consumer_in_another_account_of_a_serverless_cluster_is_refused(access: AccessWorld):
    # Given an MSK Serverless cluster (no cluster policy) and a consumer in another account
    access.configure(
        consumerAccountRole=f"arn:aws:iam::{{account}}:role/{ACCOUNT_ROLE}", externalId=EXTERNAL_ID
    )
    access.aws.kafka.set_cluster_type(CLUSTER.arn, "SERVERLESS")
    role = consumer_account(access)
    subscription, grant = access.subscribe(access.consumer([role], account=CONSUMER_ACCOUNT), ORDERS)
    access.reset_calls()

    # When the grant event reaches the function
    access.deliver()

    # Then it fails naming Serverless, and neither the role nor the cluster was written
    assert access.status(subscription) == "GRANT_FAILED"
    assert "MSK Serverless" in access.failure(grant)
    assert not any(
        key.startswith(("iam:Put", "iam:Create", "iam:Attach", "kafka:Put")) for key in access.calls()
    )
