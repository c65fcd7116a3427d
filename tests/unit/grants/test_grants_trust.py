"""The grants run and adapters, trusted: no role is written for a grant that could not be started; STS
throttling is transient; a cluster policy is deleted only when its version has not moved; another stack's
managed policies are read without failing the role; the holders of this stack's policies are found."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from kafka_lineage.aws.accounts import AccountClients
from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.cluster_policies import ClusterPolicies
from kafka_lineage.aws.iam_roles import IamRoles
from kafka_lineage.grants.apply import transient
from kafka_lineage.model.failures import SourceRoleUnavailable, Throttled, Unavailable
from tests.unit.fake_clients import FakeClients
from tests.unit.grants.fakes import ROLE, FakeWorld
from tests.unit.grants.test_grants_cluster_policies_and_leases import cluster, statement
from tests.unit.grants.test_grants_run import TOPIC, event, run


def test_no_role_is_written_for_a_grant_whose_move_to_in_progress_failed() -> None:
    # Given a pending grant, and DataZone refusing the status update (throttled past the retries)
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    world.datazone.fail_status = Throttled(
        "UpdateSubscriptionGrantStatus", "ThrottlingException", "slow down"
    )

    # When the grant event is handled
    result = run(world, event("subscription_grant_requested.json"))

    # Then nothing was written to IAM, and the failure is transient: left for the next run
    assert world.iam.writes == []
    assert result.raises
    # And once DataZone answers again, the reconciling run grants it
    world.datazone.fail_status = None
    run(world, {})
    assert world.datazone.status_of("grant0001") == "GRANTED"
    assert world.iam.writes


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (Throttled("AssumeRole", "Throttling", "Rate exceeded"), Throttled),
        (Unavailable("AssumeRole", "ServiceUnavailable", "try later"), Unavailable),
    ],
)
def test_sts_throttling_or_5xx_is_transient_and_a_refusal_is_not(error: Exception, kind: type) -> None:
    # Given STS answering with throttling (or a 5xx) after the call layer's retries
    class Sts:
        def __init__(self, fails: Exception) -> None:
            self.fails = fails

        def assume_role(self, **_: Any) -> dict[str, Any]:
            raise self.fails

    own = FakeClients(sts=Sts(error))
    role = ("arn:aws:iam::444455556666:role/C", "x")
    clients = AccountClients("111122223333", lambda _: role, "f", "", own)

    # When the consumer account's role is assumed, then the error stays what it is: transient
    with pytest.raises(kind) as raised:
        clients._assume("444455556666")
    assert transient(raised.value)

    # And a refusal (AccessDenied) is a role that cannot be assumed: permanent, with the role named
    from kafka_lineage.model.failures import AccessDenied

    own.doubles["sts"] = Sts(AccessDenied("AssumeRole", "AccessDenied", "no"))
    with pytest.raises(SourceRoleUnavailable, match="cannot assume role arn:aws:iam::444455556666:role/C"):
        clients._assume("444455556666")


@pytest.fixture
def kafka() -> Iterator[Any]:
    with mock_aws():
        yield instrument(boto3.client("kafka", region_name="eu-west-1"))


def test_a_cluster_policy_is_not_deleted_when_a_statement_was_added_since_it_was_rendered(kafka: Any) -> None:
    # Given a cluster policy holding only our statement
    arn = cluster(kafka)
    ours = {"Version": "2012-10-17", "Statement": [statement("KafkaLineageConsumer444455556666")]}
    kafka.put_cluster_policy(ClusterArn=arn, Policy=json.dumps(ours))
    policies = ClusterPolicies(lambda _: kafka)
    added = {"Version": "2012-10-17", "Statement": [*ours["Statement"], statement("Owner")]}
    renders: list[Any] = []

    def render(current: Any) -> tuple[bool, Any]:
        renders.append(current)
        if len(renders) == 1:  # another writer adds a statement right after our first read
            kafka.put_cluster_policy(
                ClusterArn=arn,
                Policy=json.dumps(added),
                CurrentVersion=kafka.get_cluster_policy(ClusterArn=arn)["CurrentVersion"],
            )
        kept = [s for s in (current or {}).get("Statement", []) if not s["Sid"].startswith("KafkaLineage")]
        return True, ({"Version": "2012-10-17", "Statement": kept} if kept else None)

    # When our statement is removed
    assert policies.update(arn, render)

    # Then the other writer's statement stays: the delete was not made, the policy merged again and put
    assert [s["Sid"] for s in policies.read(arn)["Statement"]] == ["Owner"]  # type: ignore[index]
    assert len(renders) == 2


@pytest.fixture
def iam() -> Iterator[Any]:
    with mock_aws():
        yield instrument(boto3.client("iam", region_name="eu-west-1"))


def _policy(iam: Any, name: str, path: str = "/kafka-lineage/") -> str:
    document = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "glue:Get*", "Resource": "*"}],
    }
    return str(
        iam.create_policy(PolicyName=name, Path=path, PolicyDocument=json.dumps(document))["Policy"]["Arn"]
    )


def test_the_holders_of_this_stacks_policies_are_found_from_the_policies(iam: Any) -> None:
    # Given roles holding this stack's managed policy, another stack's, and this stack's inline policy
    trust = json.dumps({"Version": "2012-10-17", "Statement": []})
    for name in ("reader", "other", "inline-only"):
        iam.create_role(RoleName=name, Path="/analytics/", AssumeRolePolicyDocument=trust)
    mine = _policy(iam, "KafkaLineageAccess-aaaa1111-reader-1")
    theirs = _policy(iam, "KafkaLineageAccess-bbbb2222-other-1")
    iam.attach_role_policy(RoleName="reader", PolicyArn=mine)
    iam.attach_role_policy(RoleName="other", PolicyArn=theirs)
    allow = {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Action": "glue:Get*", "Resource": "*"}],
    }
    iam.put_role_policy(
        RoleName="inline-only", PolicyName="KafkaLineageAccess-aaaa1111", PolicyDocument=json.dumps(allow)
    )
    roles = IamRoles(lambda _: iam, "/kafka-lineage/", "KafkaLineageAccess-aaaa1111")
    account = "123456789012"

    # Then the managed holder is found by name, the other stack's is not, and the inline one by its name
    assert roles.policy_holders(account, "/kafka-lineage/", "KafkaLineageAccess-aaaa1111") == {
        "reader": (mine,)
    }
    assert len(roles.account_roles(account)) == 3
    assert roles.holds_inline(
        f"arn:aws:iam::{account}:role/analytics/inline-only", "KafkaLineageAccess-aaaa1111"
    )
    assert not roles.holds_inline(
        f"arn:aws:iam::{account}:role/analytics/reader", "KafkaLineageAccess-aaaa1111"
    )
    # And reading the role holding the other stack's policy reads that policy by its default version only
    record = roles.read(f"arn:aws:iam::{account}:role/analytics/other")
    assert record is not None
    [policy] = record.managed
    assert (policy.arn, policy.versions) == (theirs, ())


def test_a_role_whose_every_grant_was_deleted_loses_its_access_on_the_reconciling_run() -> None:
    # Given a role granted a topic, whose grant record is then deleted from DataZone
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    run(world, event("subscription_grant_requested.json"))
    assert world.iam.roles[ROLE].inline
    del world.datazone.records["grant0001"]

    # When the reconciling run goes (the stack's cluster is in the role's account: SOURCES)
    result = run(world, {}, cluster_accounts=(ROLE.split(":")[4],))

    # Then the role, found from this stack's policy, loses it; nothing failed
    assert world.iam.roles[ROLE].inline == {}
    assert result.failed.total == 0


@pytest.mark.parametrize("transient_error", [True, False])
def test_a_sweep_that_fails_is_withheld_when_refused_and_failed_when_transient(transient_error: bool) -> None:
    # Given IAM refusing (or throttling) the listing of the account's roles
    world = FakeWorld()
    world.datazone.add_grant(1, TOPIC)
    world.iam.add_role(ROLE)
    run(world, event("subscription_grant_requested.json"))
    from kafka_lineage.model.failures import AccessDenied

    error = (
        Throttled("ListRoles", "Throttling", "slow down")
        if transient_error
        else AccessDenied("ListRoles", "AccessDenied", "no")
    )

    def refuse(account: str) -> tuple[str, ...]:
        raise error

    world.iam.account_roles = refuse  # type: ignore[method-assign]

    # When the reconciling run goes
    result = run(world, {})

    # Then a refusal is reported as withheld (a setting or permission to fix, no failed grant), and
    # throttling as a transient failure; the grant stays GRANTED either way
    if transient_error:
        assert result.raises
    else:
        assert not result.raises
        assert result.failed.total == 0
        assert "ListRoles" in result.withheld.items[0]["cause"]
    assert world.datazone.status_of("grant0001") == "GRANTED"


def test_the_stacks_cluster_accounts_are_read_from_sources() -> None:
    from kafka_lineage.grants.settings import cluster_accounts

    sources = json.dumps(
        [
            {"clusterArn": "arn:aws:kafka:eu-west-1:111122223333:cluster/a/u-1"},
            {"clusterArn": "arn:aws:kafka:eu-west-1:444455556666:cluster/b/u-2", "roleArn": "x"},
            {"clusterArn": "not an arn"},
        ]
    )
    assert cluster_accounts(sources) == ("111122223333", "444455556666")
    assert cluster_accounts("not json") == ()
