"""The guards: the allow-list, and permissions boundaries read by the small IAM evaluator."""

from __future__ import annotations

from typing import Any

import pytest

from kafka_lineage.access.desired import role_access
from kafka_lineage.access.evaluate import Decision, evaluate
from kafka_lineage.access.guards import boundary_refusal, role_refusal
from kafka_lineage.access.model import RoleState
from kafka_lineage.access.settings import AccessSettings
from kafka_lineage.model.iam import ManagedPolicy
from tests.unit.access.access_builders import (
    ACCOUNT,
    CLUSTER,
    NAMING,
    PATH_ROLE,
    ROLE,
    fixture,
    grant,
    settings,
)

BOUNDARY_ARN = f"arn:aws:iam::{ACCOUNT}:policy/SageMakerStudioProjectUserRolePermissionsBoundary"
GROUPS = CLUSTER.replace(":cluster/", ":group/")


def refusal(boundary: dict | None, **state: Any) -> str | None:
    arn = BOUNDARY_ARN if boundary is not None else None
    role_state = RoleState(ROLE, boundary_arn=arn, boundary=boundary, **state)
    return boundary_refusal(role_state, role_access(ROLE, [grant("orders")], settings()), NAMING)


def test_a_role_outside_the_allow_list_is_refused_with_the_setting_named() -> None:
    # Given an allow-list of one team's path
    narrow = AccessSettings.parse({"consumerRoles": [f"arn:aws:iam::{ACCOUNT}:role/teams/streaming/*"]})

    # Then a role elsewhere is refused, naming the setting; the role in the path is admitted
    cause = role_refusal(ROLE, narrow)
    assert cause is not None
    assert "access.consumerRoles" in cause
    assert ROLE in cause
    assert role_refusal(PATH_ROLE, narrow) is None
    assert "admits no role" in (role_refusal(ROLE, AccessSettings()) or "")


def test_the_sagemaker_unified_studio_project_boundary_denies_and_the_cause_names_it() -> None:
    # Given a project role with the Unified Studio boundary shape (denies kafka-cluster:* and glue:GetSchema*)
    cause = refusal(fixture("sus_project_role_boundary.json"))

    # Then the cause names the boundary and the first action it denies
    assert cause == (
        f"the permissions boundary {BOUNDARY_ARN} of role {ROLE} denies kafka-cluster:Connect on {CLUSTER} "
        "(statement StreamingServicesDenied)"
    )


def test_the_schema_registry_read_is_caught_by_the_boundary_too() -> None:
    boundary = fixture("sus_project_role_boundary.json")
    boundary["Statement"] = [s for s in boundary["Statement"] if s["Sid"] != "StreamingServicesDenied"]
    boundary["Statement"][0]["Action"].append("kafka-cluster:*")

    cause = refusal(boundary)

    assert cause is not None
    assert "denies glue:GetSchemaVersion on * (statement SchemaRegistryReadsDenied)" in cause


def test_a_boundary_allowing_through_not_action_lets_the_read_access_through() -> None:
    assert refusal(fixture("consumer_boundary_not_action.json")) is None


def test_a_boundary_denying_through_not_action_denies_kafka() -> None:
    cause = refusal(fixture("boundary_not_action_deny.json"))

    assert cause is not None
    assert "denies kafka-cluster:Connect" in cause
    assert "OnlyAnalyticsServices" in cause


def test_a_boundary_that_allows_nothing_kafka_is_a_refusal_too() -> None:
    # An implicit deny: the boundary has no Allow for the action
    boundary = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
    }

    assert f"does not allow kafka-cluster:Connect on {CLUSTER}" in (refusal(boundary) or "")


def test_an_empty_policy_allows_nothing() -> None:
    assert evaluate(None, "kafka-cluster:Connect", CLUSTER).decision == Decision.NOT_ALLOWED
    assert (
        evaluate({"Statement": {"Effect": "Allow", "Action": "*", "Resource": "*"}}, "a:b", "c").sid is None
    )


def test_a_boundary_that_cannot_be_read_is_a_refusal() -> None:
    role_state = RoleState(ROLE, boundary_arn=BOUNDARY_ARN)

    cause = boundary_refusal(role_state, role_access(ROLE, [grant("orders")], settings()), NAMING)

    assert cause == f"the permissions boundary {BOUNDARY_ARN} of role {ROLE} could not be read"


def test_a_conditional_allow_does_not_count_and_a_conditional_deny_is_a_warning_not_a_refusal() -> None:
    condition = {"StringEquals": {"aws:RequestedRegion": "eu-west-1"}}
    allow_if = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": condition}],
    }
    deny_if = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "*", "Resource": "*"},
            {
                "Sid": "RegionGuard",
                "Effect": "Deny",
                "Action": "kafka-cluster:ReadData",
                "Resource": "*",
                "Condition": condition,
            },
        ],
    }

    assert "does not allow kafka-cluster:Connect" in (refusal(allow_if) or "")
    assert refusal(deny_if) is None


def test_another_identity_policy_that_denies_is_a_refusal_but_ours_are_not_read() -> None:
    # Given a role without boundary whose team attached a policy denying topic reads
    deny = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Deny", "Action": "kafka-cluster:Read*", "Resource": "arn:aws:kafka:*"}],
    }
    team = ManagedPolicy(f"arn:aws:iam::{ACCOUNT}:policy/no-kafka", "no-kafka", "/", True, deny)

    # Then the cause names that policy
    cause = refusal(None, managed=(team,))
    assert cause == (
        f"the managed policy {team.arn} of role {ROLE} denies kafka-cluster:ReadData on "
        f"{CLUSTER.replace(':cluster/', ':topic/')}/orders"
    )
    # And a Deny in a policy of ours (by name) is not the role's: we rewrite those
    assert refusal(None, inline={"KafkaLineageAccess": deny}) is None


@pytest.mark.parametrize(
    ("pattern", "decision"),
    [
        (f"{GROUPS}/prj_sales01-*", Decision.ALLOWED),  # the same pattern covers itself
        (f"{GROUPS}/*", Decision.ALLOWED),
        (f"{GROUPS}/prj?sales01-*", Decision.ALLOWED),  # `?` covers the one character there
        (f"{GROUPS}/prj_sales01-?*", Decision.NOT_ALLOWED),  # misses the group named "prj_sales01-"
        (f"{GROUPS}/prj_sales01-reports", Decision.NOT_ALLOWED),  # one group of many
        ("arn:aws:kafka:*:*:group/*", Decision.ALLOWED),
        ("arn:aws:kafka:*:${aws:PrincipalAccount}:group/*", Decision.NOT_ALLOWED),  # variable: void in Allow
    ],
)
def test_an_allow_counts_for_a_group_pattern_only_when_it_covers_every_group(
    pattern: str, decision: Decision
) -> None:
    policy = {"Statement": [{"Effect": "Allow", "Action": "kafka-cluster:*Group", "Resource": pattern}]}

    assert evaluate(policy, "kafka-cluster:AlterGroup", f"{GROUPS}/prj_sales01-*").decision == decision


@pytest.mark.parametrize(
    ("pattern", "decision"),
    [
        (f"{GROUPS}/prj_sales01-reports", Decision.DENIED),  # one group the pattern names is enough
        (f"{GROUPS}/prj_*", Decision.DENIED),
        (f"{GROUPS}/other-*", Decision.NOT_ALLOWED),
        ("arn:aws:kafka:*:${aws:PrincipalAccount}:group/*", Decision.DENIED),  # variable: anything in a Deny
    ],
)
def test_a_deny_counts_for_a_group_pattern_when_it_could_match_any_group(
    pattern: str, decision: Decision
) -> None:
    policy = {"Statement": [{"Effect": "Deny", "Action": "kafka-cluster:AlterGroup", "Resource": pattern}]}

    assert evaluate(policy, "kafka-cluster:AlterGroup", f"{GROUPS}/prj_sales01-*").decision == decision


def test_actions_compare_without_case_and_resources_with_it() -> None:
    policy = {"Statement": [{"Effect": "Allow", "Action": "KAFKA-CLUSTER:connect", "Resource": CLUSTER}]}

    assert evaluate(policy, "kafka-cluster:Connect", CLUSTER).decision == Decision.ALLOWED
    assert evaluate(policy, "kafka-cluster:Connect", CLUSTER.upper()).decision == Decision.NOT_ALLOWED


def test_not_resource_spares_only_what_it_surely_covers() -> None:
    deny_but_topics = {
        "Statement": [{"Effect": "Deny", "Action": "*", "NotResource": "arn:aws:kafka:eu-west-1:*:topic/*"}]
    }
    allow_but_groups = {"Statement": [{"Effect": "Allow", "Action": "*", "NotResource": f"{GROUPS}/prj_*"}]}
    topic = CLUSTER.replace(":cluster/", ":topic/") + "/orders"

    assert evaluate(deny_but_topics, "kafka-cluster:ReadData", topic).decision == Decision.NOT_ALLOWED
    assert evaluate(deny_but_topics, "kafka-cluster:Connect", CLUSTER).decision == Decision.DENIED
    assert evaluate(allow_but_groups, "kafka-cluster:Connect", CLUSTER).decision == Decision.ALLOWED
    assert (
        evaluate(allow_but_groups, "kafka-cluster:AlterGroup", f"{GROUPS}/*").decision == Decision.NOT_ALLOWED
    )
