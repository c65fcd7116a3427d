"""The frozen plan of IAM writes: ours recognised by name and path, idempotent, empty when right."""

from __future__ import annotations

import json
from dataclasses import FrozenInstanceError, replace

import pytest

from kafka_lineage.access.desired import role_access, statements
from kafka_lineage.access.model import Naming, RoleState
from kafka_lineage.access.packing import pack
from kafka_lineage.access.plan import (
    AttachRolePolicy,
    CreatePolicy,
    CreatePolicyVersion,
    DeletePolicy,
    DeletePolicyVersion,
    DeleteRolePolicy,
    DetachRolePolicy,
    PutRolePolicy,
    RolePlan,
    budget,
    plan_role,
)
from kafka_lineage.model.iam import ManagedPolicy, PolicyVersion
from tests.unit.access.access_builders import (
    ACCOUNT,
    NAMING,
    PATH_ROLE,
    ROLE,
    FakeIam,
    grant,
    settings,
    topic_grants,
)

FOREIGN_INLINE = {
    "Version": "2012-10-17",
    "Statement": [{"Effect": "Allow", "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::team-bucket"}],
}


def plan_for(state: RoleState, grants: list, naming: Naming = NAMING) -> RolePlan:
    access = role_access(state.role_arn, grants, settings())
    return plan_role(state, pack(statements(access), budget(state, naming)), naming)


def kinds(plan: RolePlan) -> list[str]:
    return [type(write).__name__ for write in plan.writes]


def test_a_first_grant_puts_one_inline_policy_and_replanning_after_it_writes_nothing() -> None:
    # Given a role with only a policy of its own team
    state = RoleState(ROLE, inline={"team": FOREIGN_INLINE})

    # When the first grant is planned and applied
    plan = plan_for(state, [grant("orders")])
    after = FakeIam(state).apply(plan)

    # Then one inline policy was put, the team's policy untouched, and planning again writes nothing
    (put,) = plan.writes
    assert isinstance(put, PutRolePolicy)
    assert (put.role_name, put.policy_name) == ("analytics-consumer", "KafkaLineageAccess")
    assert put.document == json.dumps(after.inline["KafkaLineageAccess"], separators=(",", ":"))
    assert after.inline["team"] == FOREIGN_INLINE
    assert plan_for(after, [grant("orders")]).empty


def test_the_plan_is_frozen() -> None:
    plan = plan_for(RoleState(ROLE), [grant("orders")])
    with pytest.raises(FrozenInstanceError):
        plan.writes = ()  # type: ignore[misc]


def test_access_spills_into_managed_policies_and_comes_back_when_most_grants_are_revoked() -> None:
    # Given a role that receives 200 grants
    iam = FakeIam(RoleState(ROLE))
    grants = topic_grants(200)
    plan = plan_for(iam.state, grants)
    state = iam.apply(plan)

    # Then managed policies under the stack's path, named for the role, are created and attached first,
    # then the inline policy is put
    assert kinds(plan) == ["CreatePolicy", "AttachRolePolicy"] * 3 + ["PutRolePolicy"]
    created = [w for w in plan.writes if isinstance(w, CreatePolicy)]
    assert [(w.policy_name, w.path) for w in created] == [
        (f"KafkaLineageAccess-analytics-consumer-{n}", "/kafka-lineage/") for n in (1, 2, 3)
    ]
    assert (
        created[0].policy_arn
        == f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/KafkaLineageAccess-analytics-consumer-1"
    )
    assert plan_for(state, grants).empty

    # When all but five grants are revoked
    revoked = [replace(g, revoke=True) if n >= 5 else g for n, g in enumerate(grants)]
    shrink = plan_for(state, revoked)
    state = FakeIam(state).apply(shrink)

    # Then the inline policy holds the rest, and the managed policies are detached and deleted
    assert kinds(shrink) == ["PutRolePolicy"] + ["DetachRolePolicy", "DeletePolicy"] * 3
    assert state.managed == ()
    topics = [
        r
        for s in state.inline["KafkaLineageAccess"]["Statement"]
        if "kafka-cluster:ReadData" in s["Action"]
        for r in s["Resource"]
    ]
    assert len(topics) == 5
    assert plan_for(state, revoked).empty

    # And when the last ones go, the inline policy goes too
    last = plan_for(state, [replace(g, revoke=True) for g in grants])
    assert last.writes == (DeleteRolePolicy("analytics-consumer", "KafkaLineageAccess"),)
    assert FakeIam(state).apply(last).inline == {}


@pytest.mark.parametrize(
    "change",
    ["a topic that sorts first arrives", "the first topic is revoked", "half the topics are revoked"],
)
def test_access_that_moves_between_policies_is_never_missing_between_two_writes(change: str) -> None:
    # Given a role holding 300 grants, spread over the inline policy and managed ones
    grants = topic_grants(300)
    state = FakeIam(RoleState(ROLE)).apply(plan_for(RoleState(ROLE), grants))
    # When the grants change so that the packing shifts topics from one policy to another
    if change == "a topic that sorts first arrives":
        now = [grant("aaa.first", number=999), *grants]
    elif change == "the first topic is revoked":
        now = [replace(grants[0], revoke=True), *grants[1:]]
    else:
        now = [replace(g, revoke=True) if n % 2 else g for n, g in enumerate(grants)]
    plan = plan_for(state, now)
    iam = FakeIam(state)
    kept = iam.allowed() & FakeIam(FakeIam(state).apply(plan)).allowed()
    missing: list[tuple[str, int]] = []

    # Then after every single write, whatever the role keeps through the change is still allowed
    iam.apply(plan, watch=lambda write, pairs: missing.append((type(write).__name__, len(kept - pairs))))
    assert len(plan.writes) >= 3
    assert all(count == 0 for _, count in missing), missing


def test_a_changed_managed_policy_gets_a_new_version_after_the_oldest_old_one_goes() -> None:
    # Given our managed policy with IAM's five versions, the default not the oldest
    arn = f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/KafkaLineageAccess-analytics-consumer-1"
    versions = (
        PolicyVersion("v3", False, "2026-11-03T00:00:00Z"),
        PolicyVersion("v2", False, "2026-11-02T00:00:00Z"),
        PolicyVersion("v7", True, "2026-11-01T00:00:00Z"),
        PolicyVersion("v4", False, "2026-11-04T00:00:00Z"),
        PolicyVersion("v5", False, "2026-11-05T00:00:00Z"),
    )
    ours = ManagedPolicy(
        arn,
        "KafkaLineageAccess-analytics-consumer-1",
        "/kafka-lineage/",
        True,
        {"Version": "2012-10-17", "Statement": []},
        versions,
    )
    # and an inline budget spent by the team, so our access goes to the managed policy
    spent = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/" + "k" * 10_100}
        ],
    }
    state = RoleState(ROLE, inline={"team": spent}, managed=(ours,))

    # When planned
    plan = plan_for(state, [grant("orders")])

    # Then the oldest version that is not the default goes first, then the new version
    drop, new = plan.writes
    assert drop == DeletePolicyVersion(arn, "v2")
    assert isinstance(new, CreatePolicyVersion)
    assert (new.policy_arn, new.set_as_default) == (arn, True)
    assert "/orders" in new.document
    assert plan_for(FakeIam(state).apply(plan), [grant("orders")]).empty


def test_an_unattached_policy_of_ours_left_by_an_interrupted_run_is_attached_or_removed() -> None:
    # Given our policy -1 created but never attached, and an old -3 with a second version
    arn = f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/KafkaLineageAccess-analytics-consumer-"
    spent = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/" + "k" * 10_100}
        ],
    }
    one = ManagedPolicy(
        arn + "1",
        "KafkaLineageAccess-analytics-consumer-1",
        "/kafka-lineage/",
        False,
        None,
        (PolicyVersion("v1", True, "2026-11-01T00:00:00Z"),),
    )
    three = ManagedPolicy(
        arn + "3",
        "KafkaLineageAccess-analytics-consumer-3",
        "/kafka-lineage/",
        True,
        None,
        (
            PolicyVersion("v1", False, "2026-11-01T00:00:00Z"),
            PolicyVersion("v2", True, "2026-11-02T00:00:00Z"),
        ),
    )
    state = RoleState(ROLE, inline={"team": spent}, managed=(one, three))

    # When planned
    plan = plan_for(state, [grant("orders")])

    # Then -1 gets its document and is attached; -3 is detached, its old version and itself deleted
    assert kinds(plan) == [
        "CreatePolicyVersion",
        "AttachRolePolicy",
        "DetachRolePolicy",
        "DeletePolicyVersion",
        "DeletePolicy",
    ]
    assert plan.writes[2:] == (
        DetachRolePolicy("analytics-consumer", arn + "3"),
        DeletePolicyVersion(arn + "3", "v1"),
        DeletePolicy(arn + "3"),
    )
    assert plan.writes[1] == AttachRolePolicy("analytics-consumer", arn + "1")


def test_policies_are_ours_only_by_name_and_path() -> None:
    # Given look-alikes: our name under another path, another role's name under our path, and an inline
    # policy with our prefix and more
    arn = f"arn:aws:iam::{ACCOUNT}:policy/"
    lookalikes = (
        ManagedPolicy(
            arn + "other/KafkaLineageAccess-analytics-consumer-1",
            "KafkaLineageAccess-analytics-consumer-1",
            "/other/",
            True,
        ),
        ManagedPolicy(
            arn + "kafka-lineage/KafkaLineageAccess-analytics-consumer-x-1",
            "KafkaLineageAccess-analytics-consumer-x-1",
            "/kafka-lineage/",
            True,
        ),
    )
    state = RoleState(ROLE, inline={"KafkaLineageAccess2": FOREIGN_INLINE}, managed=lookalikes)

    # When every grant is gone
    plan = plan_for(state, [])

    # Then nothing of theirs is touched, and they count as the role's other policies
    assert plan.empty
    assert budget(state, NAMING).other_managed == 2


def test_a_role_with_a_path_names_its_policies_after_its_name() -> None:
    state = RoleState(
        PATH_ROLE,
        inline={
            "team": {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": "s3:GetObject",
                        "Resource": "arn:aws:s3:::b/" + "k" * 10_100,
                    }
                ],
            }
        },
    )

    plan = plan_for(state, [grant("orders", roles=(PATH_ROLE,))])

    create, attach = plan.writes
    assert isinstance(create, CreatePolicy)
    assert create.policy_name == "KafkaLineageAccess-orders-reader-1"
    assert attach == AttachRolePolicy("orders-reader", create.policy_arn)
    assert json.loads(create.document)["Statement"][2]["Resource"][0].endswith("/orders")


def test_a_64_character_role_name_keeps_the_policy_name_within_iams_128() -> None:
    name = "r" * 64
    naming = Naming(path="/kafka-lineage/", prefix="P" * 60)

    assert len(naming.managed_name(name, 10)) <= 128
    with pytest.raises(ValueError, match="prefix"):
        Naming(prefix="P" * 61)
    with pytest.raises(ValueError, match="IAM path"):
        Naming(path="kafka-lineage")
