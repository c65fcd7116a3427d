"""The whole reconciliation: roles in other accounts need the cluster's policy too."""

from __future__ import annotations

from kafka_lineage.access.cluster_policy import SID_PREFIX
from kafka_lineage.access.model import GrantStatus, RoleState
from kafka_lineage.access.reconcile import reconcile
from tests.unit.access.access_builders import CLUSTER, CONSUMER_ACCOUNT, NAMING, ROLE, grant, settings

REMOTE_ROLE = f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/lake/orders-reader"
PENDING = GrantStatus.GRANT_PENDING
STATES = {ROLE: RoleState(ROLE), REMOTE_ROLE: RoleState(REMOTE_ROLE)}


def test_a_grant_to_a_role_in_another_account_writes_its_role_and_the_cluster_policy() -> None:
    # Given a pending grant to a role in the consumer account, and a cluster without a policy
    remote = grant("orders", roles=(REMOTE_ROLE,), status=PENDING)

    # When reconciled
    result = reconcile([remote], STATES, {CLUSTER: None}, settings(), NAMING)

    # Then the grant stands, its role gets its policy, and the cluster gets one statement for the account
    assert result.decision.granted == (remote.key,)
    (role_plan,) = [p for p in result.decision.plans if p.role_arn == REMOTE_ROLE]
    assert not role_plan.empty
    (cluster_plan,) = result.cluster_plans
    assert cluster_plan.document is not None
    assert [s["Sid"] for s in cluster_plan.document["Statement"]] == [f"{SID_PREFIX}{CONSUMER_ACCOUNT}"]

    # And once written, reconciling again leaves the cluster policy alone
    again = reconcile([remote], STATES, {CLUSTER: cluster_plan.document}, settings(), NAMING)
    assert again.cluster_plans == ()


def test_a_grant_in_the_clusters_own_account_needs_no_cluster_policy() -> None:
    result = reconcile([grant("orders", status=PENDING)], STATES, {}, settings(), NAMING)

    assert result.cluster_plans == ()
    assert result.withheld == {}


def test_the_last_remote_revoke_removes_our_statement_and_the_policy() -> None:
    remote = grant("orders", roles=(REMOTE_ROLE,))
    written = reconcile([remote], STATES, {CLUSTER: None}, settings(), NAMING).cluster_plans[0].document

    result = reconcile(
        [grant("orders", roles=(REMOTE_ROLE,), revoke=True)], STATES, {CLUSTER: written}, settings(), NAMING
    )

    (plan,) = result.cluster_plans
    assert plan.delete


def test_pending_remote_grants_past_msks_limit_fail_and_granted_ones_stay() -> None:
    # Given 120 granted topics for the consumer account and 60 pending ones, more than 20 KB together
    held = [grant(f"dbserver1.inventory.table_{n:04d}", number=n, roles=(REMOTE_ROLE,)) for n in range(120)]
    pending = [
        grant(f"dbserver1.inventory.more_{n:04d}", number=500 + n, roles=(REMOTE_ROLE,), status=PENDING)
        for n in range(60)
    ]

    # When reconciled
    result = reconcile(held + pending, STATES, {CLUSTER: None}, settings(), NAMING)

    # Then the pending ones fail naming MSK's limit, the held ones keep their cluster statement
    assert set(result.decision.refused) == {g.key for g in pending}
    assert "20 KB" in result.decision.refused[pending[0].key]
    assert result.decision.granted == tuple(g.key for g in held)
    (plan,) = result.cluster_plans
    assert plan.document is not None
    assert len(plan.document["Statement"][0]["Resource"]) == 1 + 120 + 1
    assert result.withheld == {}


def test_a_cluster_whose_granted_grants_alone_pass_the_limit_is_left_as_it_is() -> None:
    held = [grant(f"dbserver1.inventory.table_{n:04d}", number=n, roles=(REMOTE_ROLE,)) for n in range(200)]

    result = reconcile(held, STATES, {CLUSTER: None}, settings(), NAMING)

    assert result.cluster_plans == ()
    assert "20 KB" in result.withheld[CLUSTER]
