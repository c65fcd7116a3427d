"""Access that can be trusted, in the pure logic: consumer-group templates that isolate (the function and
synth share one rule), revokes that are only as true as IAM, conditioned Denies judged on what is known, the
stack's token in cluster-policy Sids, and the roles left behind by a narrowed `consumerRoles`."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kafka_lineage.access.cluster_policy import consumers, merge
from kafka_lineage.access.decide import decide
from kafka_lineage.access.desired import role_access
from kafka_lineage.access.evaluate import condition_holds
from kafka_lineage.access.guards import boundary_refusal, condition_warnings
from kafka_lineage.access.leftovers import left_behind
from kafka_lineage.access.model import GrantStatus, Naming, RoleState
from kafka_lineage.access.settings import AccessSettings, AccessSettingsError
from kafka_lineage.config import ConfigError
from stacks.config import CONTEXT_KEY, load_config
from tests.infrastructure.stack_synth import shipped_context
from tests.unit.access.access_builders import (
    ACCOUNT,
    CLUSTER,
    CONSUMER_ACCOUNT,
    NAMING,
    ROLE,
    FakeIam,
    grant,
    settings,
)

PENDING = GrantStatus.GRANT_PENDING
REVOKING = GrantStatus.REVOKE_PENDING
OTHER = f"arn:aws:iam::{ACCOUNT}:role/etl"
REMOTE_ROLE = f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/lake/orders-reader"
DEV = Naming.for_stack("dzd_4p5kx2n9lqv7ab", "KafkaTopicAssetTypeDev")
PROD = Naming.for_stack("dzd_4p5kx2n9lqv7ab", "KafkaTopicAssetType")


# --------------------------------------------------------------------------------------- group templates
@pytest.mark.parametrize(
    "template",
    [
        "{projectId}*",
        "{roleName}",
        "*-{projectId}-x",
        "a?{roleName}.x",
        "{projectId}{roleName}-*",
        "{projectId}x*",
    ],
)
def test_a_template_whose_placeholder_is_not_followed_by_a_separator_or_follows_a_wildcard_is_refused(
    template: str,
) -> None:
    # Given a consumerGroups template that could let one subscriber's groups cover another's
    # When the function reads its settings, then it refuses them, naming the setting
    with pytest.raises(AccessSettingsError, match=re.escape("access.consumerGroups")):
        AccessSettings.parse({"consumerGroups": [template]})
    # And synth refuses the same template with the same rule, naming the cdk.json key
    raw = dict(shipped_context()[CONTEXT_KEY])
    raw["access"] = {**(raw.get("access") or {}), "consumerGroups": [template]}
    with pytest.raises(ConfigError, match=re.escape("kafkaLineage.access.consumerGroups")):
        load_config(raw)


@pytest.mark.parametrize(
    "template", ["{projectId}-*", "{roleName}.orders", "app_{environmentId}_{roleName}-*"]
)
def test_a_template_with_a_separator_after_each_placeholder_is_accepted(template: str) -> None:
    assert AccessSettings.parse({"consumerGroups": [template]}).consumer_groups == (template,)


def test_a_grant_whose_value_holds_the_separator_after_its_placeholder_is_refused_with_why() -> None:
    # Given a template {roleName}-* and two roles, etl and etl-prod (whose groups etl-* would cover)
    templates = settings(consumerGroups=["{roleName}-*"])
    prod = f"arn:aws:iam::{ACCOUNT}:role/etl-prod"
    grants = [
        grant("orders", roles=(OTHER,), status=PENDING),
        grant("orders", number=2, roles=(prod,), status=PENDING),
    ]

    # When decided
    decision = decide(grants, {OTHER: RoleState(OTHER), prod: RoleState(prod)}, templates, NAMING)

    # Then etl is granted, and etl-prod is refused with a cause naming the separator and the setting
    assert decision.granted == (grants[0].key,)
    cause = decision.refused[grants[1].key]
    assert "'etl-prod' contains '-'" in cause
    assert "access.consumerGroups" in cause
    # And a project id holding the separator is refused alike under {projectId}-*
    team = grant("orders", number=3, project="team-x", status=PENDING)
    assert (
        "projectId 'team-x'" in decide([team], {ROLE: RoleState(ROLE)}, settings(), NAMING).refused[team.key]
    )


# --------------------------------------------------------------------------------------- revokes
def test_a_revoke_of_a_role_no_longer_admitted_is_not_revoked_but_failed_with_the_setting_named() -> None:
    # Given a revoke of a grant to a role that consumerRoles no longer admits (so it is not read)
    narrowed = settings(consumerRoles=[f"arn:aws:iam::{ACCOUNT}:role/teams/*"])
    revoked = grant("orders", status=REVOKING)

    # When decided
    decision = decide([revoked], {}, narrowed, NAMING)

    # Then the revoke cannot be said done: REVOKE_FAILED with a cause naming the setting and the way out
    assert decision.revoked == ()
    assert "access.consumerRoles" in decision.revoke_failed[revoked.key]
    assert "admitted again" in decision.revoke_failed[revoked.key]
    assert ROLE in decision.blocked


def test_a_revoke_of_a_role_that_could_not_be_read_fails_unless_another_grant_gives_the_same_topic() -> None:
    # Given a role that could not be read, with a revoke on orders and on payments, and orders still granted
    cause = f"role {ROLE} could not be read: AssumeRole: AccessDenied"
    revoked = [grant("orders", status=REVOKING), grant("payments", number=2, status=REVOKING)]
    standing = grant("orders", number=3, project="prj_other")

    # When decided
    decision = decide([*revoked, standing], {}, settings(), NAMING, unreadable={ROLE: cause})

    # Then the payments revoke fails with the cause, and the orders one is revoked: another grant gives it
    assert decision.revoke_failed == {
        revoked[1].key: f"the access grant grant0002 gave cannot be removed: {cause}"
    }
    assert decision.revoked == (revoked[0].key,)


def test_a_role_gone_from_iam_lets_its_revoke_complete() -> None:
    decision = decide([grant("orders", status=REVOKING)], {}, settings(), NAMING)
    assert decision.revoked == (grant("orders").key,)
    assert decision.revoke_failed == {}


# --------------------------------------------------------------------------------------- conditions
@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        ({"Bool": {"aws:SecureTransport": "false"}}, False),
        ({"Bool": {"aws:securetransport": ["true"]}}, True),
        (
            {"BoolIfExists": {"aws:SecureTransport": "false"}, "StringEquals": {"aws:SourceVpc": "vpc-1"}},
            False,
        ),
        ({"StringEquals": {"aws:SourceVpc": "vpc-1"}}, None),
        ({"Bool": {"aws:MultiFactorAuthPresent": "false"}}, None),
    ],
)
def test_conditions_are_judged_on_the_keys_known_for_every_granted_call(condition: Any, holds: Any) -> None:
    assert condition_holds(condition) is holds


def test_a_secure_transport_guard_does_not_refuse_and_an_unknown_condition_is_a_warning() -> None:
    # Given a boundary allowing everything, with the common TLS guard and a VPC guard on kafka-cluster
    boundary = {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Action": "*", "Resource": "*"},
            {
                "Sid": "DenyInsecure",
                "Effect": "Deny",
                "Action": "*",
                "Resource": "*",
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
            },
            {
                "Sid": "OnlyFromOurVpc",
                "Effect": "Deny",
                "Action": "kafka-cluster:*",
                "Resource": "*",
                "Condition": {"StringNotEquals": {"aws:SourceVpc": "vpc-0abc"}},
            },
        ],
    }
    state = RoleState(ROLE, boundary_arn=f"arn:aws:iam::{ACCOUNT}:policy/guard", boundary=boundary)
    access = role_access(ROLE, [grant("orders")], settings())

    # Then neither refuses the grant, and the VPC guard is a warning naming its condition
    assert boundary_refusal(state, access, NAMING) is None
    [warning] = condition_warnings(state, access, NAMING)
    assert "OnlyFromOurVpc" in warning
    assert "aws:SourceVpc" in warning
    decision = decide([grant("orders", status=PENDING)], {ROLE: state}, settings(), NAMING)
    assert decision.granted == (grant("orders").key,)
    assert decision.warnings == {ROLE: (warning,)}


# --------------------------------------------------------------------------------------- two stacks
def test_two_stacks_keep_each_others_cluster_policy_statements() -> None:
    # Given the dev stack's statement on the cluster
    dev_grants = consumers(CLUSTER, [grant("orders", roles=(REMOTE_ROLE,))], settings())
    after_dev = merge(CLUSTER, None, dev_grants, token=DEV.token).document

    # When the prod stack merges its own grant, and later revokes everything it gave
    prod_grants = consumers(CLUSTER, [grant("payments", roles=(REMOTE_ROLE,))], settings())
    after_prod = merge(CLUSTER, after_dev, prod_grants, token=PROD.token).document
    assert after_prod is not None
    emptied = merge(CLUSTER, after_prod, (), token=PROD.token).document

    # Then each stack's statement carries its token, and prod's revoke leaves dev's statement as it was
    assert DEV.token != PROD.token
    assert len(DEV.token) == len(PROD.token) == 8
    assert [s["Sid"] for s in after_prod["Statement"]] == [
        f"KafkaLineageConsumer{DEV.token}{CONSUMER_ACCOUNT}",
        f"KafkaLineageConsumer{PROD.token}{CONSUMER_ACCOUNT}",
    ]
    assert emptied == after_dev
    # ... and neither stack, merging the same grants again, moves the other's statement (no write)
    assert not merge(CLUSTER, after_prod, dev_grants, token=DEV.token).changed
    assert not merge(CLUSTER, after_prod, prod_grants, token=PROD.token).changed
    # And the principal is the granted role, not the account
    assert after_prod["Statement"][0]["Principal"] == {"AWS": [REMOTE_ROLE]}


def test_a_role_no_longer_admitted_is_left_out_of_the_cluster_policy() -> None:
    narrowed = settings(consumerRoles=[f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/other/*"])
    assert consumers(CLUSTER, [grant("orders", roles=(REMOTE_ROLE,))], narrowed) == ()


# --------------------------------------------------------------------------------------- left behind
def test_roles_no_longer_admitted_that_hold_our_policies_are_named_with_how_to_clean_them() -> None:
    # Given a role holding one of our managed policies, and another named by a granted grant, neither
    # admitted any more; and an admitted role holding ours too
    narrowed = settings(consumerRoles=[f"arn:aws:iam::{ACCOUNT}:role/etl"])
    policy = f"arn:aws:iam::{ACCOUNT}:policy/kafka-lineage/{PROD.prefix}-analytics-consumer-1"
    named = f"arn:aws:iam::{ACCOUNT}:role/teams/reader"
    holders = {"analytics-consumer": (policy,), "etl": (f"{policy}-etl",)}

    # When asked
    found = left_behind([ROLE, OTHER, named], holders, [grant("orders", roles=(named,))], narrowed, PROD)

    # Then both are named, what they hold, why, and the commands that clean them; the admitted one is not
    assert [item.role_arn for item in found] == [ROLE, named]
    first, second = found
    assert first.policies == (policy,)
    assert "access.consumerRoles" in first.cause
    assert f"aws iam detach-role-policy --role-name analytics-consumer --policy-arn {policy}" in first.clean
    assert second.grants == ("grant0001",)
    assert second.clean[0].startswith(
        f"aws iam delete-role-policy --role-name reader --policy-name {PROD.prefix}"
    )


def test_a_role_whose_every_grant_is_gone_loses_what_it_holds() -> None:
    # Given a role holding our policy for a grant no longer listed at all
    state = FakeIam(RoleState(ROLE)).apply(
        decide([grant("orders")], {ROLE: RoleState(ROLE)}, settings(), NAMING).plans[0]
    )

    # When decided from no grant (the sweep found it holding ours)
    decision = decide([], {ROLE: state}, settings(), NAMING)

    # Then its plan takes our policy away
    assert FakeIam(state).apply(decision.plans[0]).inline == {}
