"""DescribeClusterV2 on a cluster registered with set_brokers (moto knows only its own clusters): the
subscription-grants function asks it whether a cluster is MSK Serverless before writing a cluster policy."""

from __future__ import annotations

import boto3
import pytest
from botocore.exceptions import ClientError

from local import world
from local.standins import LocalAws


def test_a_registered_cluster_is_described_as_provisioned_unless_set_serverless(local_aws: LocalAws):
    # Given the world's cluster, registered with its brokers
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    kafka = boto3.client("kafka")

    # When it is described, then it is an active provisioned cluster named as its ARN says
    info = kafka.describe_cluster_v2(ClusterArn=world.CLUSTER_ARN)["ClusterInfo"]
    assert (info["ClusterName"], info["ClusterType"], info["State"]) == ("cdc", "PROVISIONED", "ACTIVE")

    # When it is set Serverless, then it is described so
    local_aws.kafka.set_cluster_type(world.CLUSTER_ARN, "SERVERLESS")
    assert (
        kafka.describe_cluster_v2(ClusterArn=world.CLUSTER_ARN)["ClusterInfo"]["ClusterType"] == "SERVERLESS"
    )


def test_a_registered_cluster_is_not_found_from_another_account(local_aws: LocalAws):
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    with pytest.raises(ClientError):
        local_aws.client("kafka", account="444455556666").describe_cluster_v2(ClusterArn=world.CLUSTER_ARN)


def test_a_cluster_type_outside_the_model_is_refused(local_aws: LocalAws):
    with pytest.raises(ValueError, match="PROVISIONED or SERVERLESS"):
        local_aws.kafka.set_cluster_type(world.CLUSTER_ARN, "EXPRESS")
