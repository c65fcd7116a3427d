"""IAM's limits hold for any number of grants to one role: the inline policy first, then managed ones."""

from __future__ import annotations

import json

import pytest

from kafka_lineage.access.arns import ClusterArn
from kafka_lineage.access.desired import policy_size, role_access, statements
from kafka_lineage.access.model import GrantStatus, RoleState
from kafka_lineage.access.packing import MANAGED_POLICY_LIMIT, ROLE_INLINE_LIMIT, Budget, NoRoom, pack
from kafka_lineage.access.plan import budget
from kafka_lineage.model.iam import ManagedPolicy
from tests.unit.access.access_builders import (
    ACCOUNT,
    CLUSTER,
    NAMING,
    ROLE,
    grant,
    iam_size,
    settings,
    topic_grants,
)


def packed_for(grants: list, room: Budget):
    return pack(statements(role_access(ROLE, grants, settings())), room)


def topics_in(packed) -> list[str]:
    documents = ([packed.inline] if packed.inline else []) + list(packed.managed)
    return [
        resource
        for document in documents
        for statement in document["Statement"]
        if "kafka-cluster:ReadData" in statement["Action"]
        for resource in statement["Resource"]
    ]


def test_120_grants_to_one_role_fit_within_iams_limits() -> None:
    # Given 120 grants, each on its own topic, to a role with no other policy
    grants = topic_grants(120)

    # When packed
    packed = packed_for(grants, Budget(inline=ROLE_INLINE_LIMIT, managed_slots=10))

    # Then the inline policy is full first, a few managed policies take the rest, each within its limit,
    # and every topic is there once
    assert packed.inline is not None
    assert iam_size(json.dumps(packed.inline, indent=2)) <= ROLE_INLINE_LIMIT
    assert 1 <= len(packed.managed) <= 2
    assert all(iam_size(json.dumps(doc, indent=2)) <= MANAGED_POLICY_LIMIT for doc in packed.managed)
    assert sorted(topics_in(packed)) == sorted(set(topics_in(packed)))
    assert len(topics_in(packed)) == 120


def test_how_many_topics_fit_in_a_role_with_room_for_ten_managed_policies() -> None:
    # Given a role with nothing else attached, and realistic CDC topic names on one cluster
    room = Budget(inline=ROLE_INLINE_LIMIT, managed_slots=10)
    arn = ClusterArn.parse(CLUSTER).topic("dbserver1.inventory.table_0001")

    # When the largest number of grants that still fits is searched
    low, high = 1, 2_000
    while low < high:
        middle = (low + high + 1) // 2
        try:
            packed_for(topic_grants(middle), room)
            low = middle
        except NoRoom:
            high = middle - 1

    # Then it is within a few percent of the bound the limits set (each topic costs its ARN, two quotes and
    # a comma): 580 topics of 116-character ARNs, against a bound of 602
    bound = (ROLE_INLINE_LIMIT + 10 * MANAGED_POLICY_LIMIT) // (len(arn) + 3)
    assert (len(arn), bound, low) == (116, 602, 580)
    assert low >= bound * 0.95


def test_a_topic_list_too_long_for_one_statement_is_split_across_statements_and_policies() -> None:
    packed = packed_for(topic_grants(200), Budget(inline=ROLE_INLINE_LIMIT, managed_slots=10))

    sids = [s["Sid"] for doc in (packed.inline, *packed.managed) if doc for s in doc["Statement"]]
    assert any(sid.endswith("Part2") for sid in sids)
    assert len(sids) == len(set(sids))
    assert len(topics_in(packed)) == 200


def test_other_inline_policies_and_attached_policies_count_against_the_limits() -> None:
    # Given a role whose other inline policy takes 9,000 characters and 9 other attached managed policies
    big = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "s3:GetObject", "Resource": ["arn:aws:s3:::b/" + "k" * 8_900]}
        ],
    }
    others = tuple(
        ManagedPolicy(f"arn:aws:iam::{ACCOUNT}:policy/team-{n}", f"team-{n}", "/", True) for n in range(9)
    )
    state = RoleState(ROLE, inline={"team-inline": big}, managed=others)

    # When the budget is read from the role
    room = budget(state, NAMING)

    # Then only what they leave is ours
    assert room.inline == ROLE_INLINE_LIMIT - policy_size(big)
    assert (room.managed_slots, room.other_managed) == (1, 9)

    # And 60 grants do not fit, with a cause that names the limits
    with pytest.raises(NoRoom) as raised:
        packed_for(topic_grants(60), room)
    cause = str(raised.value)
    assert "10,240 characters" in cause
    assert "6,144 characters" in cause
    assert "at most 10 managed policies" in cause
    assert "9 attached by others" in cause


def test_a_role_with_no_room_at_all_fails_even_for_one_grant() -> None:
    # Given a role whose inline budget is spent and whose managed slots are all taken
    room = Budget(inline=50, managed_slots=0, other_inline=10_190, other_managed=10)

    # Then a single grant does not fit
    with pytest.raises(NoRoom, match="no room left in IAM's limits"):
        packed_for([grant("orders")], room)


def test_a_pending_grant_packs_like_a_granted_one() -> None:
    pending = packed_for([grant("orders", status=GrantStatus.GRANT_IN_PROGRESS)], Budget(10_240, 10))

    assert topics_in(pending)[0].endswith("/orders")
