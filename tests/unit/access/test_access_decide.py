"""The whole decision: every grant's outcome and every role's plan, from the grants and the roles' state."""

from __future__ import annotations

import json
from dataclasses import replace

from kafka_lineage.access.decide import decide
from kafka_lineage.access.model import GrantStatus, RoleState
from kafka_lineage.access.plan import PutRolePolicy
from kafka_lineage.model.iam import ManagedPolicy
from tests.unit.access.access_builders import (
    ACCOUNT,
    CLUSTER,
    NAMING,
    PATH_ROLE,
    ROLE,
    FakeIam,
    fixture,
    grant,
    settings,
    topic_grants,
)

PENDING = GrantStatus.GRANT_PENDING
SUS_ROLE = f"arn:aws:iam::{ACCOUNT}:role/datazone_usr_role_prj_sales01_env_sales01"
BOUNDARY_ARN = f"arn:aws:iam::{ACCOUNT}:policy/SageMakerStudioProjectUserRolePermissionsBoundary"


def topics_of(state: RoleState) -> list[str]:
    document = state.inline.get("KafkaLineageAccess", {"Statement": []})
    return [
        r for s in document["Statement"] if "kafka-cluster:ReadData" in s["Action"] for r in s["Resource"]
    ]


def test_two_grants_to_one_role_are_granted_with_one_inline_policy() -> None:
    # Given two pending grants to one role
    grants = [grant("orders", status=PENDING), grant("payments", number=2, status=PENDING)]

    # When decided
    decision = decide(grants, {ROLE: RoleState(ROLE)}, settings(), NAMING)

    # Then both are granted and the role gets one inline policy with both topics
    assert decision.granted == (grants[0].key, grants[1].key)
    assert decision.refused == {}
    (plan,) = decision.plans
    (write,) = plan.writes
    assert isinstance(write, PutRolePolicy)
    assert "/orders" in write.document
    assert "/payments" in write.document


def test_a_role_outside_the_allow_list_fails_its_grant_and_nothing_is_written_for_it() -> None:
    # Given a pending grant to a role the allow-list does not name
    outsider = "arn:aws:iam::999988887777:role/outsider"
    pending = grant("orders", roles=(outsider,), status=PENDING)

    # When decided
    decision = decide([pending], {outsider: RoleState(outsider)}, settings(), NAMING)

    # Then the grant fails, naming the setting, and the role's plan writes nothing
    assert "access.consumerRoles" in decision.refused[pending.key]
    assert decision.granted == ()
    assert all(plan.empty for plan in decision.plans)


def test_a_grant_refused_for_one_of_its_roles_gives_nothing_to_the_other() -> None:
    # Given a grant to a customer role and to a Unified Studio project role with its boundary
    shared = grant("orders", roles=(ROLE, SUS_ROLE), status=PENDING)
    kept = grant("payments", number=2, roles=(ROLE,), status=PENDING)
    states = {
        ROLE: RoleState(ROLE),
        SUS_ROLE: RoleState(
            SUS_ROLE, boundary_arn=BOUNDARY_ARN, boundary=fixture("sus_project_role_boundary.json")
        ),
    }

    # When decided
    decision = decide([shared, kept], states, settings(), NAMING)

    # Then the shared grant fails with the boundary named; the customer role gets only the other topic
    assert BOUNDARY_ARN in decision.refused[shared.key]
    assert "denies kafka-cluster:Connect" in decision.refused[shared.key]
    assert decision.granted == (kept.key,)
    (plan,) = [p for p in decision.plans if p.role_arn == ROLE]
    after = FakeIam(states[ROLE]).apply(plan)
    assert [t.rsplit("/", 1)[1] for t in topics_of(after)] == ["payments"]
    (sus_plan,) = [p for p in decision.plans if p.role_arn == SUS_ROLE]
    assert sus_plan.empty


def test_a_revoke_takes_its_access_away_and_keeps_what_another_grant_gives() -> None:
    # Given a role that holds two grants' access on one topic and one more topic
    granted = [
        grant("orders", number=1),
        grant("orders", number=2, project="prj_b"),
        grant("payments", number=3),
    ]
    state = FakeIam(RoleState(ROLE)).apply(
        decide(granted, {ROLE: RoleState(ROLE)}, settings(), NAMING).plans[0]
    )

    # When one grant on the shared topic and the other topic's grant are revoked
    now = [granted[0], replace(granted[1], revoke=True), replace(granted[2], revoke=True)]
    decision = decide(now, {ROLE: state}, settings(), NAMING)
    after = FakeIam(state).apply(decision.plans[0])

    # Then the shared topic stays, the other goes, and the revokes are listed
    assert [t.rsplit("/", 1)[1] for t in topics_of(after)] == ["orders"]
    assert decision.revoked == (granted[1].key, granted[2].key)
    assert decide(now, {ROLE: after}, settings(), NAMING).plans[0].empty


def test_pending_grants_that_do_not_fit_fail_and_the_granted_ones_stay() -> None:
    # Given a role with nine other managed policies and a big team inline policy, 40 grants already held
    spent = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/" + "k" * 9_000}
        ],
    }
    others = tuple(ManagedPolicy(f"arn:aws:iam::{ACCOUNT}:policy/t{n}", f"t{n}", "/", True) for n in range(9))
    held = topic_grants(40)
    base = RoleState(ROLE, inline={"team": spent}, managed=others)
    state = FakeIam(base).apply(decide(held, {ROLE: base}, settings(), NAMING).plans[0])

    # When 60 more grants arrive
    more = [grant(f"more.topic_{n:03d}", number=100 + n, status=PENDING) for n in range(60)]
    decision = decide(held + more, {ROLE: state}, settings(), NAMING)

    # Then the new ones fail with the limit named, and the role keeps exactly what it has
    assert set(decision.refused) == {g.key for g in more}
    assert "no room left in IAM's limits" in decision.refused[more[0].key]
    assert decision.granted == tuple(g.key for g in held)
    assert decision.plans[0].empty


def test_a_role_no_longer_admitted_loses_its_access_and_is_reported() -> None:
    # Given a role holding a granted grant, and an allow-list that no longer names it
    held = grant("orders", roles=(PATH_ROLE,))
    state = FakeIam(RoleState(PATH_ROLE)).apply(
        decide([held], {PATH_ROLE: RoleState(PATH_ROLE)}, settings(), NAMING).plans[0]
    )
    narrowed = settings(consumerRoles=[f"arn:aws:iam::{ACCOUNT}:role/analytics-*"])

    # When decided
    decision = decide([held], {PATH_ROLE: state}, narrowed, NAMING)

    # Then its access is taken away and the role is reported as withheld
    assert "access.consumerRoles" in decision.withheld[PATH_ROLE]
    assert FakeIam(state).apply(decision.plans[0]).inline == {}


def test_grants_that_cannot_be_written_or_whose_role_is_missing_fail_with_a_cause() -> None:
    bad_topic = grant("orders*", status=PENDING)
    no_role = grant("orders", number=2, roles=(f"arn:aws:iam::{ACCOUNT}:role/gone",), status=PENDING)
    user = grant("orders", number=3, roles=(f"arn:aws:iam::{ACCOUNT}:user/alice",), status=PENDING)

    decision = decide([bad_topic, no_role, user], {}, settings(), NAMING)

    assert "not a Kafka topic name" in decision.refused[bad_topic.key]
    assert "was not found in IAM" in decision.refused[no_role.key]
    assert "not an IAM role ARN" in decision.refused[user.key]
    assert decision.plans == ()


def test_the_decision_is_the_same_whatever_the_order() -> None:
    grants = [*topic_grants(30, status=PENDING), grant("x", number=99, roles=(ROLE, PATH_ROLE))]
    states = {ROLE: RoleState(ROLE), PATH_ROLE: RoleState(PATH_ROLE)}

    forward = decide(grants, states, settings(), NAMING)
    backward = decide(list(reversed(grants)), dict(reversed(states.items())), settings(), NAMING)

    assert forward == backward
    write = forward.plans[0].writes[0]
    assert isinstance(write, PutRolePolicy)
    assert json.loads(write.document)["Statement"][1]["Resource"] == [CLUSTER]


def test_a_grant_without_a_role_fails_and_a_full_role_holding_only_granted_grants_is_left_as_it_is() -> None:
    # Given a pending grant whose subscription target names no principal
    nobody = grant("orders", roles=(), status=PENDING)
    # and a role whose other policies took every slot after its grants were written
    spent = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": "arn:aws:s3:::b/" + "k" * 10_200}
        ],
    }
    others = tuple(
        ManagedPolicy(f"arn:aws:iam::{ACCOUNT}:policy/t{n}", f"t{n}", "/", True) for n in range(10)
    )
    full = RoleState(ROLE, inline={"team": spent}, managed=others)
    held = grant("payments", number=2)

    # When decided
    decision = decide([nobody, held], {ROLE: full}, settings(), NAMING)

    # Then the first fails naming the missing role; the second stays granted; the role is reported, unwritten
    assert "names no IAM role" in decision.refused[nobody.key]
    assert decision.granted == (held.key,)
    assert "no room left" in decision.withheld[ROLE]
    assert "left as they are" in decision.withheld[ROLE]
    assert decision.plans == ()
