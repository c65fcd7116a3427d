"""MSK cluster policies (version conflicts) and the per-role leases, on moto."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from moto import mock_aws

from kafka_lineage.aws.calls import calls_of, instrument
from kafka_lineage.aws.cluster_policies import ClusterPolicies, ClusterPolicyConflict

# --- MSK cluster policies on moto ----------------------------------------------------------------------


@pytest.fixture
def kafka() -> Iterator[Any]:
    with mock_aws():
        yield instrument(boto3.client("kafka", region_name="eu-west-1"))


def cluster(kafka: Any, serverless: bool = False) -> str:
    kind: dict[str, Any] = (
        {"Serverless": {"VpcConfigs": [{"SubnetIds": ["subnet-1"]}]}}
        if serverless
        else {
            "Provisioned": {
                "BrokerNodeGroupInfo": {"ClientSubnets": ["subnet-1"], "InstanceType": "kafka.m5.large"},
                "KafkaVersion": "3.6.0",
                "NumberOfBrokerNodes": 2,
            }
        }
    )
    return str(kafka.create_cluster_v2(ClusterName="cdc", **kind)["ClusterArn"])


def statement(sid: str, account: str = "777788889999") -> dict[str, Any]:
    return {
        "Sid": sid,
        "Effect": "Allow",
        "Principal": {"AWS": f"arn:aws:iam::{account}:root"},
        "Action": ["kafka:DescribeCluster"],
        "Resource": ["*"],
    }


def adding(sid: str) -> Any:
    def render(current: Any) -> tuple[bool, Any]:
        statements = list((current or {}).get("Statement", []))
        if any(s["Sid"] == sid for s in statements):
            return False, current
        return True, {"Version": "2012-10-17", "Statement": [*statements, statement(sid)]}

    return render


def test_a_cluster_policy_is_read_written_and_deleted(kafka: Any) -> None:
    arn = cluster(kafka)
    policies = ClusterPolicies(lambda _: kafka)
    assert policies.read(arn) is None
    assert not policies.serverless(arn)
    assert policies.update(arn, adding("Ours"))
    assert [s["Sid"] for s in policies.read(arn)["Statement"]] == ["Ours"]  # type: ignore[index]
    assert not policies.update(arn, adding("Ours"))  # nothing changes: no write
    assert policies.update(arn, lambda current: (True, None))
    assert policies.read(arn) is None


def test_a_version_conflict_is_read_again_merged_again_and_put_again(kafka: Any) -> None:
    # Given a cluster policy another writer changes between our read and our put
    arn = cluster(kafka)
    kafka.put_cluster_policy(
        ClusterArn=arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [statement("Owner")]})
    )

    class Interfering:
        def __init__(self) -> None:
            self.once = True

        def __getattr__(self, name: str) -> Any:
            return getattr(kafka, name)

        def put_cluster_policy(self, **asked: Any) -> Any:
            if self.once:
                self.once = False
                current = json.loads(kafka.get_cluster_policy(ClusterArn=arn)["Policy"])
                current["Statement"].append(statement("Console"))
                version = kafka.get_cluster_policy(ClusterArn=arn)["CurrentVersion"]
                kafka.put_cluster_policy(ClusterArn=arn, Policy=json.dumps(current), CurrentVersion=version)
            return kafka.put_cluster_policy(**asked)

    # When ours is added
    before = calls_of(kafka).count("PutClusterPolicy")
    assert ClusterPolicies(lambda _: Interfering()).update(arn, adding("Ours"))
    # Then MSK refused the stale version, and the re-merge kept the other writer's statement
    final = json.loads(kafka.get_cluster_policy(ClusterArn=arn)["Policy"])
    assert [s["Sid"] for s in final["Statement"]] == ["Owner", "Console", "Ours"]
    # the other writer's put, our refused one, ours again
    assert calls_of(kafka).count("PutClusterPolicy") - before == 3


def test_a_policy_that_keeps_changing_gives_up_after_bounded_attempts(kafka: Any) -> None:
    arn = cluster(kafka)
    kafka.put_cluster_policy(
        ClusterArn=arn, Policy=json.dumps({"Version": "2012-10-17", "Statement": [statement("Owner")]})
    )

    class AlwaysInterfering:
        def __getattr__(self, name: str) -> Any:
            return getattr(kafka, name)

        def put_cluster_policy(self, **asked: Any) -> Any:
            found = kafka.get_cluster_policy(ClusterArn=arn)
            kafka.put_cluster_policy(
                ClusterArn=arn, Policy=found["Policy"], CurrentVersion=found["CurrentVersion"]
            )
            return kafka.put_cluster_policy(**asked)

    with pytest.raises(ClusterPolicyConflict):
        ClusterPolicies(lambda _: AlwaysInterfering()).update(arn, adding("Ours"))


def test_a_serverless_cluster_is_told_apart(kafka: Any) -> None:
    assert ClusterPolicies(lambda _: kafka).serverless(cluster(kafka, serverless=True))


# --- Role leases on moto's SSM -------------------------------------------------------------------------


def test_a_role_lease_is_one_valid_ssm_name_per_role_and_a_second_holder_waits_then_gives_up() -> None:
    from kafka_lineage.aws.lease import lease_path, role_holder
    from kafka_lineage.aws.role_leases import RoleLeases
    from kafka_lineage.model.failures import LeaseBusy
    from kafka_lineage.model.ssm_names import SSM_PATH

    # Given two roles whose ARNs carry characters SSM names refuse
    first, second = "arn:aws:iam::111122223333:role/a+b=c,d@e", "arn:aws:iam::111122223333:role/teams/x.y_z-1"
    paths = {lease_path("/kafka-lineage", role_holder(role)) for role in (first, second)}
    # Then each has its own lease path under config/, valid for SSM
    assert len(paths) == 2
    assert all(
        p.startswith("/kafka-lineage/config/lease/subscription-grants-") and SSM_PATH.fullmatch(p)
        for p in paths
    )
    with mock_aws():
        ssm = boto3.client("ssm", region_name="eu-west-1")
        one = RoleLeases(ssm, "/kafka-lineage", "invocation-1", lambda: 60.0)
        two = RoleLeases(ssm, "/kafka-lineage", "invocation-2", lambda: 60.0)
        # When one invocation holds a role, another cannot take it; once released, it can
        with one.hold([first, second], 0.0), pytest.raises(LeaseBusy), two.hold([second], 0.0):
            pass
        with two.hold([second], 0.0):
            pass
        assert one.taken == 2
        assert two.taken == 1


def test_a_held_role_lease_says_whether_another_run_wrote_the_role_since_a_listing() -> None:
    from kafka_lineage.aws.role_leases import CLOCK_SKEW_SECONDS, RoleLeases

    role = "arn:aws:iam::111122223333:role/teams/reader$1"
    now = {"t": 1_000_000.0}
    with mock_aws():
        ssm = boto3.client("ssm", region_name="eu-west-1")

        def leases(owner: str) -> RoleLeases:
            return RoleLeases(ssm, "/kafka-lineage", owner, lambda: 60.0, clock=lambda: now["t"])

        ours = leases("invocation-1")
        # Given a role nobody ever held: a listing of any age is fresh
        listed = ours.mark()
        with ours.hold([role], 0.0) as held:
            assert not held.written_since(listed)
        # When another run holds and releases it after our next listing began
        listed = ours.mark()
        now["t"] += 60
        with leases("invocation-2").hold([role], 0.0):
            now["t"] += 1
        now["t"] += 60
        # Then our listing is stale for that role; a listing begun after the release is fresh
        with ours.hold([role], 0.0) as held:
            assert held.written_since(listed)
            assert not held.written_since(ours.mark() - 30)
            # (a release within the clocks' skew of the mark counts as after it: list again)
            assert held.written_since(now["t"] - 60 + CLOCK_SKEW_SECONDS - 1)


def test_a_role_lease_that_expired_unreleased_counts_as_written_until_its_expiry() -> None:
    from kafka_lineage.aws.role_leases import CLOCK_SKEW_SECONDS, RoleLeases

    role = "arn:aws:iam::111122223333:role/reader"
    now = {"t": 2_000_000.0}
    with mock_aws():
        ssm = boto3.client("ssm", region_name="eu-west-1")
        # Given a holder that stopped without releasing (its lease runs 60 s)
        crashed = RoleLeases(ssm, "/kafka-lineage", "crashed", lambda: 60.0, clock=lambda: now["t"])
        never_released = crashed.hold([role], 0.0)  # (kept referenced: a collected one would release)
        never_released.__enter__()
        listed = now["t"] + 30  # a listing begun while it could still write
        now["t"] += 61
        ours = RoleLeases(ssm, "/kafka-lineage", "next", lambda: 60.0, clock=lambda: now["t"])
        # Then the takeover treats that listing as stale, and one begun after the expiry as fresh
        with ours.hold([role], 0.0) as held:
            assert held.written_since(listed)
            assert not held.written_since(now["t"] + CLOCK_SKEW_SECONDS)
