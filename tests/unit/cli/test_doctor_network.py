"""`kafka-lineage doctor`'s network check: a cluster whose topics a role of another account may be granted
has multi-VPC private connectivity on for IAM (DescribeClusterV2's VpcConnectivity), or the finding says
what to turn on, and how.

AWS is botocore's Stubber (the kafka model checks each DescribeClusterV2 and its answer); the other checks'
reads are test_doctor's healthy account. A kafka call not queued fails the test, so each test also shows
when the check reads a cluster at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from kafka_lineage_cdk import cli
from kafka_lineage_cdk.outcome import OK, PARTIAL
from tests.unit.cli.test_doctor import ACCOUNT, CLUSTER, REGION, Account, _cdk_json, _context, _doctor, _lines

CONSUMER_ACCOUNT = "444455556666"
SOURCE_CLUSTER = CLUSTER.replace(ACCOUNT, "777788889999")
OTHER_ACCOUNT_ACCESS = {
    "consumerRoles": [f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/analytics/*"],
    "consumerAccountRole": "arn:aws:iam::{account}:role/KafkaLineageConsumer",
    "externalId": "kafka-lineage-consumers-7f3c",
}


class Accounts(Account):
    def __init__(self) -> None:
        super().__init__()
        kafka = boto3.client("kafka", region_name=REGION, aws_access_key_id="x", aws_secret_access_key="y")
        self.clients["kafka"] = kafka
        self.stubs["kafka"] = Stubber(kafka)

    def cluster(self, info: dict[str, Any], arn: str = CLUSTER) -> None:
        answer = {
            "ClusterInfo": {"ClusterArn": arn, "ClusterName": "cdc", "CurrentVersion": "K3AEGXETSR30VB"}
        }
        answer["ClusterInfo"].update(info)
        self.add("kafka", "describe_cluster_v2", answer, {"ClusterArn": arn})


def provisioned(
    *, vpc_iam: bool, vpc_tls: bool = False, version: str = "3.6.0", instance: str = "kafka.m5.large"
) -> dict[str, Any]:
    schemes: dict[str, Any] = {"Sasl": {"Iam": {"Enabled": vpc_iam}, "Scram": {"Enabled": False}}}
    if vpc_tls:
        schemes["Tls"] = {"Enabled": True}
    return {
        "ClusterType": "PROVISIONED",
        "Provisioned": {
            "BrokerNodeGroupInfo": {
                "ClientSubnets": ["subnet-0abc"],
                "InstanceType": instance,
                "ConnectivityInfo": {"VpcConnectivity": {"ClientAuthentication": schemes}},
            },
            "CurrentBrokerSoftwareInfo": {"KafkaVersion": version},
            "ClientAuthentication": {"Sasl": {"Iam": {"Enabled": True}}},
            "NumberOfBrokerNodes": 3,
        },
    }


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[Accounts]:
    account = Accounts()
    monkeypatch.setattr(cli, "make_clients", lambda region, profile: account.clients.__getitem__)
    for stub in account.stubs.values():
        stub.activate()
    yield account
    for stub in account.stubs.values():
        stub.assert_no_pending_responses()


def _network(aws: Accounts, tmp_path: Path, access: dict[str, Any], **context: Any) -> tuple[int, Any]:
    # Every other check's reads, as an account ready for the first deploy (a source read through its role
    # has no table in this account: no Lake Formation read)
    aws.healthy(skip="" if "sources" not in context else "lake")
    aws.nothing_unadmitted()  # with `access`, the unadmitted check reads too
    done = _doctor(_cdk_json(tmp_path, _context(access=access, **context)))
    return done.exit_code, _lines(done.stdout)["network"]


def test_a_cluster_with_multi_vpc_connectivity_on_for_iam_passes(aws: Accounts, tmp_path: Path):
    # Given a role of another account admitted, and the cluster reachable over multi-VPC with IAM
    aws.cluster(provisioned(vpc_iam=True))
    # When doctor runs, then the network check is one ok line
    code, lines = _network(aws, tmp_path, OTHER_ACCOUNT_ACCESS)
    assert code == OK
    on = f"{CLUSTER}: multi-VPC private connectivity is on for IAM (roles of account(s) {CONSUMER_ACCOUNT})"
    assert lines == [("ok", on)]


def test_connectivity_off_fails_with_the_command_that_turns_it_on_keeping_other_schemes(
    aws: Accounts, tmp_path: Path
):
    # Given the cluster reachable over multi-VPC with TLS only
    aws.cluster(provisioned(vpc_iam=False, vpc_tls=True))
    # When doctor runs
    code, [(status, message)] = _network(aws, tmp_path, OTHER_ACCOUNT_ACCESS)
    # Then it fails, names the consumers' account, and gives UpdateConnectivity with the cluster's version,
    # IAM turned on and TLS kept
    assert (code, status) == (PARTIAL, "FAIL")
    assert f"roles of account(s) {CONSUMER_ACCOUNT} may be granted the topics of {CLUSTER}" in message
    assert (
        f"aws kafka update-connectivity --cluster-arn {CLUSTER} --current-version K3AEGXETSR30VB" in message
    )
    assert '"Iam":{"Enabled":true}' in message
    assert '"Tls":{"Enabled":true}' in message
    assert "first" not in message  # nothing to do before


def test_an_old_kafka_on_small_brokers_is_told_what_comes_first(aws: Accounts, tmp_path: Path):
    aws.cluster(provisioned(vpc_iam=False, version="2.6.2", instance="kafka.t3.small"))
    _, [(status, message)] = _network(aws, tmp_path, OTHER_ACCOUNT_ACCESS)
    assert status == "FAIL"
    assert "first upgrade Apache Kafka 2.6.2 to 2.7.1 or later, then move its brokers off kafka.t3.small" in (
        message
    )


def test_a_serverless_cluster_fails_cross_account_grants(aws: Accounts, tmp_path: Path):
    aws.cluster({"ClusterType": "SERVERLESS", "Serverless": {"VpcConfigs": [{"SubnetIds": ["subnet-0abc"]}]}})
    _, [(status, message)] = _network(aws, tmp_path, OTHER_ACCOUNT_ACCESS)
    assert status == "FAIL"
    assert "MSK Serverless" in message
    assert "no multi-VPC private connectivity" in message


def test_a_pattern_of_any_account_only_warns(aws: Accounts, tmp_path: Path):
    access = {**OTHER_ACCOUNT_ACCESS, "consumerRoles": ["arn:aws:iam::*:role/analytics/*"]}
    aws.roles("/analytics/")  # the consumer-roles check lists this account's roles (none yet)
    aws.cluster(provisioned(vpc_iam=False))
    _, [(status, message)] = _network(aws, tmp_path, access)
    assert status == "warn"
    assert message.startswith(f"roles of any account may be granted the topics of {CLUSTER}")


def test_a_cluster_in_another_account_is_its_owners_to_check(aws: Accounts, tmp_path: Path):
    # Given a source whose cluster is in a source account, read through its role
    source = {
        "registryName": "cdc",
        "clusterArn": SOURCE_CLUSTER,
        "roleArn": "arn:aws:iam::777788889999:role/kafka-lineage-source-reader",
        "externalId": "kafka-lineage-7f3c9a51",
    }
    # When doctor runs with the governance account's credentials (no kafka call is queued: none is made)
    code, [(status, message)] = _network(aws, tmp_path, OTHER_ACCOUNT_ACCESS, sources=[source])
    # Then it says whose check it is, and the command to run there
    assert status == "warn"
    assert f"{SOURCE_CLUSTER} is in account 777788889999" in message
    assert f"aws kafka describe-cluster-v2 --cluster-arn {SOURCE_CLUSTER} --query" in message
    assert code == OK


def test_roles_of_the_clusters_own_account_need_no_connectivity(aws: Accounts, tmp_path: Path):
    # Given roles admitted only in the cluster's account, and roles of another account without
    # consumerAccountRole (which the function cannot write): no kafka call is queued
    access = {
        "consumerRoles": [
            f"arn:aws:iam::{ACCOUNT}:role/analytics/*",
            f"arn:aws:iam::{CONSUMER_ACCOUNT}:role/*",
        ]
    }
    aws.roles("/analytics/")
    _, lines = _network(aws, tmp_path, access)
    assert lines == [("ok", "no role of another account than its cluster's may be granted: nothing to reach")]


def test_a_refused_describe_fails_saying_the_check_cannot_tell(aws: Accounts, tmp_path: Path):
    aws.error("kafka", "describe_cluster_v2", "ForbiddenException", {"ClusterArn": CLUSTER}, 403)
    _, [(status, message)] = _network(aws, tmp_path, OTHER_ACCOUNT_ACCESS)
    assert status == "FAIL"
    assert "the check cannot tell" in message
