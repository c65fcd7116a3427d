"""Trust policies in IAM mode: who may assume a source account's role, and with which external id."""

from __future__ import annotations

from typing import Any

import pytest

from local.standins.iam_trust import trust_decision

ROLE = "arn:aws:iam::444455556666:role/kafka-lineage-source-reader"
SYNC = "arn:aws:iam::123456789012:role/KafkaLineage-SchemaSyncRole-ABC"
OTHER = "arn:aws:iam::123456789012:role/SomeoneElse"


def trusting(*principals: str, external_id: str | None = "ext-4c1d9e", **extra: Any) -> list[dict[str, Any]]:
    statement: dict[str, Any] = {
        "Effect": "Allow",
        "Principal": {"AWS": list(principals)},
        "Action": "sts:AssumeRole",
        **extra,
    }
    if external_id is not None:
        statement["Condition"] = {"StringEquals": {"sts:ExternalId": external_id}}
    return [statement]


@pytest.mark.parametrize(
    ("trust", "caller", "sent", "allowed"),
    [
        (trusting(SYNC), SYNC, "ext-4c1d9e", True),
        (trusting(SYNC), SYNC, "another-id", False),  # wrong external id
        (trusting(SYNC), SYNC, None, False),  # none sent: the condition's key is absent
        (trusting(SYNC), OTHER, "ext-4c1d9e", False),  # a role the policy does not name
        (trusting("arn:aws:iam::123456789012:root"), OTHER, "ext-4c1d9e", True),  # the account delegates
        (trusting("123456789012", external_id=None), OTHER, None, True),
        (trusting("arn:aws:iam::999999999999:root"), SYNC, "ext-4c1d9e", False),  # another account
        (trusting(SYNC, Action="sts:TagSession"), SYNC, "ext-4c1d9e", False),  # not AssumeRole
    ],
)
def test_assume_role_needs_a_trust_statement_naming_the_caller_whose_conditions_hold(
    trust: list[dict[str, Any]], caller: str, sent: str | None, allowed: bool
):
    assert trust_decision(trust, ROLE, caller, sent).allowed is allowed


def test_an_explicit_deny_in_the_trust_policy_wins():
    trust = [
        *trusting(SYNC),
        {"Effect": "Deny", "Principal": {"AWS": SYNC}, "Action": "sts:AssumeRole"},
    ]
    decision = trust_decision(trust, ROLE, SYNC, "ext-4c1d9e")
    assert decision.allowed is False
    assert decision.explicit_deny is True
