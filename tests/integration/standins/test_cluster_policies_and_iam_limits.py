"""MSK cluster policies (versions, size, the race between a read and a write) and IAM's quotas and
permissions boundaries, on the stand-ins over the wire."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from local import access_world, world
from local.standins import LocalAws
from local.standins.iam_roles import Role
from tests.integration.conftest import client_as

CLUSTER = world.CLUSTER_ARN
GROUP_PREFIX = "arn:aws:kafka:eu-west-1:123456789012:group/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2"


def cluster_policy(*accounts: str, padding: int = 0) -> str:
    statement = {
        "Sid": "ConsumersElsewhere",
        "Effect": "Allow",
        "Principal": {"AWS": [f"arn:aws:iam::{a}:root" for a in accounts]},
        "Action": ["kafka-cluster:Connect", "kafka-cluster:DescribeTopic", "kafka-cluster:ReadData"],
        "Resource": [CLUSTER, f"{GROUP_PREFIX}/{'x' * padding}"],
    }
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def refusal(call: Callable[[], Any]) -> tuple[str, int, str]:
    with pytest.raises(ClientError) as raised:
        call()
    error = raised.value.response
    return error["Error"]["Code"], error["ResponseMetadata"]["HTTPStatusCode"], error["Error"]["Message"]


@pytest.fixture
def kafka(local_aws: LocalAws) -> Any:
    local_aws.kafka.set_brokers(CLUSTER, sasl_iam=world.BROKERS_IAM)
    return boto3.client("kafka")


class TestClusterPolicies:
    def test_a_read_modify_write_moves_the_version_each_time(self, kafka: Any):
        first = kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("444455556666"))
        read = kafka.get_cluster_policy(ClusterArn=CLUSTER)
        second = kafka.put_cluster_policy(
            ClusterArn=CLUSTER,
            Policy=cluster_policy("444455556666", "777788889999"),
            CurrentVersion=read["CurrentVersion"],
        )

        assert read["CurrentVersion"] == first["CurrentVersion"] != second["CurrentVersion"]
        assert json.loads(kafka.get_cluster_policy(ClusterArn=CLUSTER)["Policy"]) == json.loads(
            cluster_policy("444455556666", "777788889999")
        )

    def test_a_stale_version_is_refused_and_changes_nothing(self, kafka: Any):
        stale = kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("444455556666"))
        kafka.put_cluster_policy(
            ClusterArn=CLUSTER, Policy=cluster_policy("777788889999"), CurrentVersion=stale["CurrentVersion"]
        )

        code, status, _ = refusal(
            lambda: kafka.put_cluster_policy(
                ClusterArn=CLUSTER,
                Policy=cluster_policy("111122223333"),
                CurrentVersion=stale["CurrentVersion"],
            )
        )

        assert (code, status) == ("BadRequestException", 400)
        assert "777788889999" in kafka.get_cluster_policy(ClusterArn=CLUSTER)["Policy"]

    def test_the_race_hook_moves_the_version_between_a_get_and_a_put(self, local_aws: LocalAws, kafka: Any):
        kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("444455556666"))
        other_writer = cluster_policy("999999999999")
        local_aws.cluster_policies.race(CLUSTER, other_writer)

        read = kafka.get_cluster_policy(ClusterArn=CLUSTER)
        code, _, _ = refusal(
            lambda: kafka.put_cluster_policy(
                ClusterArn=CLUSTER,
                Policy=cluster_policy("777788889999"),
                CurrentVersion=read["CurrentVersion"],
            )
        )
        again = kafka.get_cluster_policy(ClusterArn=CLUSTER)  # the race ran once: this read is current
        kafka.put_cluster_policy(
            ClusterArn=CLUSTER, Policy=read["Policy"], CurrentVersion=again["CurrentVersion"]
        )

        assert code == "BadRequestException"
        assert "999999999999" in again["Policy"]

    def test_the_race_hook_is_driven_over_the_control_api_too(self, local_aws: LocalAws, kafka: Any):
        from local.standins.remote import RemoteAws

        first = kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("444455556666"))
        RemoteAws(local_aws.endpoint_url).cluster_policies.race(CLUSTER)

        read = kafka.get_cluster_policy(ClusterArn=CLUSTER)
        moved = kafka.get_cluster_policy(ClusterArn=CLUSTER)

        assert read["CurrentVersion"] == first["CurrentVersion"] != moved["CurrentVersion"]
        assert read["Policy"] == moved["Policy"]  # the other writer put the same document again

    def test_a_policy_over_20_kb_or_not_a_policy_is_refused(self, kafka: Any):
        big = cluster_policy("444455556666", padding=20 * 1024)

        assert (
            refusal(lambda: kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=big))[0]
            == "BadRequestException"
        )
        assert (
            refusal(lambda: kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy="{"))[0]
            == "BadRequestException"
        )
        kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("444455556666", padding=19 * 1024))

    @pytest.mark.parametrize("reading", ["rejected", "overwrites"])
    def test_a_put_without_a_version_over_a_policy_follows_its_reading(
        self, local_aws: LocalAws, kafka: Any, reading: str
    ):
        local_aws.set_readings(cluster_policy_put_unversioned=reading)
        kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("444455556666"))

        def put() -> Any:
            return kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("777788889999"))

        if reading == "rejected":
            assert refusal(put)[0] == "BadRequestException"
        else:
            assert put()["CurrentVersion"]

    @pytest.mark.parametrize("reading", ["not_found", "empty"])
    def test_a_cluster_without_a_policy_follows_its_reading(
        self, local_aws: LocalAws, kafka: Any, reading: str
    ):
        local_aws.set_readings(cluster_policy_absent=reading)

        if reading == "not_found":
            code, status, _ = refusal(lambda: kafka.get_cluster_policy(ClusterArn=CLUSTER))
            assert (code, status) == ("NotFoundException", 404)
        else:
            answer = kafka.get_cluster_policy(ClusterArn=CLUSTER)
            assert "Policy" not in answer
            assert "CurrentVersion" not in answer

    def test_a_cluster_created_in_moto_takes_a_policy_too(self, kafka: Any):
        created = kafka.create_cluster_v2(
            ClusterName="serverless-cdc",
            Serverless={"VpcConfigs": [{"SubnetIds": ["subnet-0a1b2c3d"]}]},
        )

        kafka.put_cluster_policy(ClusterArn=created["ClusterArn"], Policy=cluster_policy("444455556666"))

        assert "444455556666" in kafka.get_cluster_policy(ClusterArn=created["ClusterArn"])["Policy"]

    def test_unknown_clusters_and_deleted_policies(self, kafka: Any):
        elsewhere = CLUSTER.replace("cluster/cdc/", "cluster/other/")
        assert refusal(lambda: kafka.get_cluster_policy(ClusterArn=elsewhere))[0] == "NotFoundException"
        assert refusal(lambda: kafka.put_cluster_policy(ClusterArn=elsewhere, Policy=cluster_policy("1")))[
            0
        ] == ("BadRequestException")
        version = kafka.put_cluster_policy(ClusterArn=CLUSTER, Policy=cluster_policy("444455556666"))
        kafka.delete_cluster_policy(ClusterArn=CLUSTER)
        assert refusal(lambda: kafka.delete_cluster_policy(ClusterArn=CLUSTER))[0] == "NotFoundException"
        # a version read before the deletion is stale now
        stale = refusal(
            lambda: kafka.put_cluster_policy(
                ClusterArn=CLUSTER, Policy=cluster_policy("1"), CurrentVersion=version["CurrentVersion"]
            )
        )
        assert stale[0] == "BadRequestException"


def document(resource_chars: int, action: str = "kafka-cluster:ReadData") -> str:
    """A policy of `resource_chars` + 157 non-white-space characters, indented (white space is free)."""
    topic = f"arn:aws:kafka:eu-west-1:123456789012:topic/cdc/0f1e/{'t' * resource_chars}"
    body = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": action, "Resource": topic}]}
    return json.dumps(body, indent=8)


class TestIamQuotas:
    @pytest.fixture
    def iam(self, local_aws: LocalAws) -> Any:
        access_world.consumer_role("orders-consumer", path="/analytics/")
        return boto3.client("iam")

    def test_inline_policies_total_10240_characters_white_space_not_counted(self, iam: Any):
        # 2 x (4963 + 157) = 10,240: exactly the quota
        iam.put_role_policy(RoleName="orders-consumer", PolicyName="a", PolicyDocument=document(4963))
        iam.put_role_policy(
            RoleName="orders-consumer", PolicyName="a", PolicyDocument=document(4963)
        )  # replaced
        iam.put_role_policy(RoleName="orders-consumer", PolicyName="b", PolicyDocument=document(4963))

        code, status, message = refusal(
            lambda: iam.put_role_policy(
                RoleName="orders-consumer", PolicyName="c", PolicyDocument=document(100)
            )
        )

        assert (code, status) == ("LimitExceeded", 409)
        assert message == "Maximum policy size of 10240 bytes exceeded for role orders-consumer"
        assert 2 * len(document(4963)) > 10_240  # counting the indentation would have broken the quota

    def test_a_managed_policy_holds_6144_characters(self, iam: Any):
        iam.create_policy(PolicyName="fits", PolicyDocument=document(6144 - 157))

        code, _, message = refusal(
            lambda: iam.create_policy(PolicyName="big", PolicyDocument=document(6144 - 156))
        )
        arn = f"arn:aws:iam::{world.ACCOUNT}:policy/fits"
        version = refusal(
            lambda: iam.create_policy_version(PolicyArn=arn, PolicyDocument=document(6144 - 156))
        )

        assert (code, message) == ("LimitExceeded", "Cannot exceed quota for PolicySize: 6144")
        assert version[0] == "LimitExceeded"

    def test_ten_attached_policies_then_a_quota_increase(self, local_aws: LocalAws, iam: Any):
        arns = [
            iam.create_policy(PolicyName=f"p{n}", PolicyDocument=document(10))["Policy"]["Arn"]
            for n in range(12)
        ]
        for arn in arns[:10]:
            iam.attach_role_policy(RoleName="orders-consumer", PolicyArn=arn)
        iam.attach_role_policy(RoleName="orders-consumer", PolicyArn=arns[0])  # attached already: no change

        code, _, message = refusal(
            lambda: iam.attach_role_policy(RoleName="orders-consumer", PolicyArn=arns[10])
        )
        local_aws.standins.iam_limits.attached_per_role = 20
        iam.attach_role_policy(RoleName="orders-consumer", PolicyArn=arns[10])

        assert (code, message) == ("LimitExceeded", "Cannot exceed quota for PoliciesPerRole: 10")

    def test_five_versions_and_malformed_documents_are_moto_s_own(self, iam: Any):
        arn = iam.create_policy(PolicyName="versions", PolicyDocument=document(10))["Policy"]["Arn"]
        for _ in range(4):
            iam.create_policy_version(PolicyArn=arn, PolicyDocument=document(10))

        assert refusal(lambda: iam.create_policy_version(PolicyArn=arn, PolicyDocument=document(10)))[0] == (
            "LimitExceeded"
        )
        malformed = json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*"}]})
        assert refusal(lambda: iam.create_policy(PolicyName="bad", PolicyDocument=malformed))[0] == (
            "MalformedPolicyDocument"
        )

    def test_a_roles_boundary_is_read_back_with_the_role(self, local_aws: LocalAws):
        boundary = access_world.sagemaker_boundary()
        arn = access_world.consumer_role("project-user", boundary=boundary)
        iam = boto3.client("iam")

        role = iam.get_role(RoleName="project-user")["Role"]
        policy = iam.get_policy(PolicyArn=role["PermissionsBoundary"]["PermissionsBoundaryArn"])["Policy"]
        version = iam.get_policy_version(PolicyArn=policy["Arn"], VersionId=policy["DefaultVersionId"])

        assert role["Arn"] == arn
        assert role["PermissionsBoundary"]["PermissionsBoundaryType"] == "PermissionsBoundaryPolicy"
        assert version["PolicyVersion"]["Document"] == boundary  # boto3 decodes the document


class TestBoundariesInIamMode:
    @pytest.fixture
    def role(self, local_aws: LocalAws, monkeypatch: pytest.MonkeyPatch) -> Role:
        for key, value in world.environment([world.source_config()]).items():
            monkeypatch.setenv(key, value)
        return world.deployed_role(local_aws, "lineage-emission", {})

    def put(self, local_aws: LocalAws, role: Role) -> Callable[[], Any]:
        ssm = client_as(local_aws, role, "ssm")
        return lambda: ssm.put_parameter(
            Name="/kafka-lineage/lineage/x", Value="v", Type="String", Overwrite=True
        )

    def test_a_boundary_that_denies_denies_what_the_role_allows(self, local_aws: LocalAws, role: Role):
        put = self.put(local_aws, role)
        put()  # the role's own policy allows it
        deny = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Deny", "Action": "ssm:Put*", "Resource": "*"}],
        }
        local_aws.iam.set_boundary("lineage-emission", deny)

        code, status, message = refusal(put)

        assert (code, status) == ("AccessDeniedException", 400)
        assert message.endswith("with an explicit deny in a permissions boundary")

    def test_a_boundary_that_does_not_allow_denies_and_taking_it_away_allows_again(
        self, local_aws: LocalAws, role: Role
    ):
        put = self.put(local_aws, role)
        reads = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "ssm:GetParameter*", "Resource": "*"}],
        }
        local_aws.iam.set_boundary("lineage-emission", reads)

        code, _, message = refusal(put)
        local_aws.iam.set_boundary("lineage-emission", None)
        put()

        assert code == "AccessDeniedException"
        assert message.endswith("because no permissions boundary allows the ssm:PutParameter action")
        assert local_aws.iam.denials[-1].action == "ssm:PutParameter"


class TestWhatAConsumerRoleMayDo:
    TOPIC = "arn:aws:kafka:eu-west-1:123456789012:topic/cdc/0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0-2/orders"

    def grant(self, role: str) -> None:
        iam = boto3.client("iam")
        read = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "kafka-cluster:ReadData", "Resource": self.TOPIC}],
        }
        iam.put_role_policy(RoleName=role, PolicyName="topic", PolicyDocument=json.dumps(read))
        connect = iam.create_policy(
            PolicyName=f"{role}-connect",
            PolicyDocument=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {"Effect": "Allow", "Action": "kafka-cluster:Connect", "Resource": CLUSTER}
                    ],
                }
            ),
        )
        iam.attach_role_policy(RoleName=role, PolicyArn=connect["Policy"]["Arn"])

    def test_inline_and_attached_policies_give_exactly_what_they_name(self, local_aws: LocalAws):
        from local.standins.iam_effective import decide

        access_world.consumer_role("orders-consumer", path="/analytics/")
        self.grant("orders-consumer")

        def may(action: str, resource: str) -> bool:
            return decide(local_aws.account, "orders-consumer", action, resource).allowed

        assert may("kafka-cluster:ReadData", self.TOPIC)
        assert may("kafka-cluster:Connect", CLUSTER)
        assert not may("kafka-cluster:ReadData", self.TOPIC.replace("/orders", "/customers"))
        assert not may("kafka-cluster:WriteData", self.TOPIC)

    def test_the_sagemaker_boundary_takes_it_all_away(self, local_aws: LocalAws):
        from local.standins.iam_effective import decide

        access_world.consumer_role("project-user", boundary=access_world.sagemaker_boundary())
        self.grant("project-user")

        decision = decide(local_aws.account, "project-user", "kafka-cluster:ReadData", self.TOPIC)

        assert not decision.allowed
        assert decision.boundary
        assert decision.explicit_deny
