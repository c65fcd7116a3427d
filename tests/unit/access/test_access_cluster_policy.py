"""The MSK cluster policy for consumers in other accounts: ours merged, everything else kept."""

from __future__ import annotations

import json

import pytest

from kafka_lineage.access.cluster_policy import (
    CLUSTER_POLICY_LIMIT,
    ClusterPolicyTooLarge,
    ConsumerAccess,
    consumers,
    merge,
)
from tests.unit.access.access_builders import (
    ACCOUNT,
    CLUSTER,
    CONSUMER_ACCOUNT,
    OTHER_CLUSTER,
    ROLE,
    grant,
    settings,
)

REMOTE_ROLE = f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/lake/orders-reader"
THIRD_ACCOUNT = "777788889999"
TOPICS = CLUSTER.replace(":cluster/", ":topic/")
GROUPS = CLUSTER.replace(":cluster/", ":group/")
FOREIGN = {
    "Sid": "PlatformTeamReplicator",
    "Effect": "Allow",
    "Principal": {"AWS": "arn:aws:iam::999900001111:role/replicator"},
    "Action": "kafka-cluster:*",
    "Resource": "*",
}


def granted(*grants):
    return consumers(CLUSTER, grants, settings())


def test_only_roles_in_other_accounts_need_the_cluster_policy() -> None:
    # Given grants to a role in the cluster's account, to one in another account, and on another cluster
    grants = (
        grant("orders", roles=(ROLE, REMOTE_ROLE)),
        grant("payments", number=2, roles=(REMOTE_ROLE,), project="prj_lake"),
        grant("refunds", number=3, roles=(REMOTE_ROLE,), cluster=OTHER_CLUSTER),
        grant("returns", number=4, roles=(REMOTE_ROLE,), revoke=True),
    )

    # Then one consumer account, with its standing grants' topics and groups on this cluster only
    assert granted(*grants) == (
        ConsumerAccess(
            CONSUMER_ACCOUNT,
            (f"{TOPICS}/orders", f"{TOPICS}/payments"),
            (f"{GROUPS}/prj_lake-*", f"{GROUPS}/prj_sales01-*"),
            (REMOTE_ROLE,),
        ),
    )


def test_the_merge_adds_one_statement_per_account_and_keeps_foreign_statements_in_place() -> None:
    # Given a cluster policy with a statement of the platform team's
    current = {"Version": "2012-10-17", "Statement": [FOREIGN]}
    remote = granted(grant("orders", roles=(REMOTE_ROLE,)))

    # When merged (the stack naming the account, as AWS's example does)
    plan = merge(CLUSTER, current, remote, by_account=True)

    # Then the foreign statement is first, untouched, and ours follows the MSK guide's example
    assert plan.changed
    assert plan.document is not None
    foreign, ours = plan.document["Statement"]
    assert foreign == FOREIGN
    assert ours == {
        "Sid": f"KafkaLineageConsumer{CONSUMER_ACCOUNT}",
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{CONSUMER_ACCOUNT}:root"},
        "Action": [
            "kafka-cluster:AlterGroup",
            "kafka-cluster:Connect",
            "kafka-cluster:DescribeGroup",
            "kafka-cluster:DescribeTopic",
            "kafka-cluster:ReadData",
            "kafka:CreateVpcConnection",
            "kafka:DescribeCluster",
            "kafka:DescribeClusterV2",
            "kafka:GetBootstrapBrokers",
        ],
        "Resource": [CLUSTER, f"{TOPICS}/orders", f"{GROUPS}/prj_sales01-*"],
    }
    # Action is a list of strings (never a boolean), and so is Resource
    assert all(isinstance(a, str) for a in ours["Action"] + ours["Resource"])


def test_the_merge_is_idempotent_even_when_msk_stores_the_principal_as_a_bare_account() -> None:
    remote = granted(grant("orders", roles=(REMOTE_ROLE,)))
    first = merge(CLUSTER, {"Version": "2012-10-17", "Statement": [FOREIGN]}, remote, by_account=True)
    assert first.document is not None

    # When the stored policy comes back (once as written, once as MSK might spell it) and is merged again
    stored = json.loads(json.dumps(first.document))
    spelled = json.loads(json.dumps(first.document))
    spelled["Statement"][1]["Principal"] = {"AWS": CONSUMER_ACCOUNT}

    # Then nothing is to be written
    assert not merge(CLUSTER, stored, remote, by_account=True).changed
    assert not merge(CLUSTER, spelled, remote, by_account=True).changed


def test_an_account_with_no_grant_left_loses_its_statement_and_an_empty_policy_is_deleted() -> None:
    # Given our statements for two accounts and a foreign one
    both = (
        ConsumerAccess(CONSUMER_ACCOUNT, (f"{TOPICS}/orders",), (f"{GROUPS}/p-*",)),
        ConsumerAccess(THIRD_ACCOUNT, (f"{TOPICS}/payments",), (f"{GROUPS}/q-*",)),
    )
    current = merge(CLUSTER, {"Version": "2012-10-17", "Statement": [FOREIGN]}, both).document

    # When one account's grants are all revoked
    plan = merge(CLUSTER, current, both[:1])

    # Then its statement goes, the others stay
    assert plan.document is not None
    assert [s["Sid"] for s in plan.document["Statement"]] == [
        "PlatformTeamReplicator",
        f"KafkaLineageConsumer{CONSUMER_ACCOUNT}",
    ]

    # And a policy that held only ours is deleted when the last grant goes; none to begin with is no write
    only_ours = merge(CLUSTER, None, both).document
    emptied = merge(CLUSTER, only_ours, ())
    assert (emptied.document, emptied.changed, emptied.delete) == (None, True, True)
    assert not merge(CLUSTER, None, ()).changed


def test_a_cluster_policy_past_msks_limit_is_refused_with_the_limit_named() -> None:
    # Given one account granted so many topics that its statement passes 20 KB
    topics = tuple(f"{TOPICS}/dbserver1.inventory.table_{n:04d}" for n in range(200))

    with pytest.raises(ClusterPolicyTooLarge) as raised:
        merge(CLUSTER, None, (ConsumerAccess(CONSUMER_ACCOUNT, topics, (f"{GROUPS}/p-*",)),))

    assert "20 KB" in str(raised.value)
    assert CONSUMER_ACCOUNT in str(raised.value)
    # And just under the limit it is accepted
    fitting = merge(CLUSTER, None, (ConsumerAccess(CONSUMER_ACCOUNT, topics[:150], (f"{GROUPS}/p-*",)),))
    assert fitting.document is not None
    assert len(json.dumps(fitting.document, separators=(",", ":"))) <= CLUSTER_POLICY_LIMIT


def test_a_statement_that_looks_like_ours_only_by_content_is_not_ours() -> None:
    # Given a foreign statement naming the same account, without our Sid
    lookalike = dict(FOREIGN, Sid="Consumer" + CONSUMER_ACCOUNT, Principal={"AWS": CONSUMER_ACCOUNT})

    plan = merge(CLUSTER, {"Version": "2012-10-17", "Statement": lookalike}, ())

    assert plan.document == {"Version": "2012-10-17", "Statement": [lookalike]}
    assert not plan.changed
    assert ACCOUNT not in json.dumps(plan.document)
