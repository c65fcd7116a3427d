"""The `access` settings and the ARNs a grant is written in."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from kafka_lineage.access.arns import ClusterArn, RoleArn, role_name
from kafka_lineage.access.settings import AccessSettings, AccessSettingsError
from tests.unit.access.access_builders import ACCOUNT, CLUSTER, PATH_ROLE, grant


def test_unset_access_admits_no_role_and_has_a_default_group_template() -> None:
    # Given no ACCESS variable
    settings = AccessSettings.from_environment({})

    # Then no role is admitted, and groups default to the project's own prefix
    assert not settings.admits_role(f"arn:aws:iam::{ACCOUNT}:role/anything")
    assert settings.group_patterns(project_id="p1", environment_id="e1", role_name="r") == ("p1-*",)


def test_a_star_matches_any_run_of_characters_and_a_role_with_a_path_is_named_by_its_full_arn() -> None:
    # Given an allow-list of one path and one exact role
    settings = AccessSettings.from_environment(
        {
            "ACCESS": '{"consumerRoles": ["arn:aws:iam::111122223333:role/teams/streaming/*",'
            ' "arn:aws:iam::111122223333:role/orders-reader"]}'
        }
    )

    # Then the path's roles match, and the bare name does not stand for the role with a path
    assert settings.admits_role(PATH_ROLE)
    assert settings.admits_role("arn:aws:iam::111122223333:role/teams/streaming/deep/er/x")
    assert settings.admits_role("arn:aws:iam::111122223333:role/orders-reader")
    assert not settings.admits_role("arn:aws:iam::111122223333:role/teams/other/orders-reader")
    assert not settings.admits_role("arn:aws:iam::111122223333:role/orders-reader-2")
    assert not settings.admits_role("arn:aws:iam::999988887777:role/orders-reader")


@pytest.mark.parametrize(
    ("raw", "named"),
    [
        ({"consumerRoles": ["arn:aws:s3:::bucket"]}, "access.consumerRoles"),
        ({"consumerRoles": "not-an-arn"}, "access.consumerRoles"),
        ({"consumerGroups": "fixed-group"}, "access.consumerGroups"),
        ({"consumerGroups": ["{project}-*"]}, "access.consumerGroups"),
        ({"consumerGroups": ["{projectId}:*"]}, "access.consumerGroups"),
        ({"consumerGroups": ["{projectId"]}, "access.consumerGroups"),
        ({"consumerGroups": []}, "access.consumerGroups"),
        ({"consumerGroup": ["{projectId}"]}, "access.consumerGroup"),
    ],
)
def test_a_malformed_setting_is_refused_with_its_name(raw: dict[str, object], named: str) -> None:
    # When the settings are parsed
    with pytest.raises(AccessSettingsError) as raised:
        AccessSettings.parse(raw)

    # Then the error names the setting
    assert named in str(raised.value)


def test_access_that_is_not_json_names_the_variable() -> None:
    with pytest.raises(AccessSettingsError, match="ACCESS is not valid JSON"):
        AccessSettings.from_environment({"ACCESS": "{consumerRoles"})


def test_group_templates_fill_every_placeholder() -> None:
    # Given two templates
    settings = AccessSettings.parse(
        {"consumerGroups": ["{projectId}.{environmentId}.*", "{roleName}-?"], "consumerRoles": []}
    )

    # When a role with a path renders its groups
    patterns = settings.group_patterns(project_id="prj_1", environment_id="env-2", role_name="orders-reader")

    # Then each placeholder is filled, sorted
    assert patterns == ("orders-reader-?", "prj_1.env-2.*")


@pytest.mark.parametrize("partition", ["aws", "aws-cn", "aws-us-gov"])
def test_topic_and_group_arns_keep_the_clusters_partition_region_account_name_and_uuid(
    partition: str,
) -> None:
    # Given a cluster in a partition (a Serverless cluster's ARN has the same shape)
    cluster = ClusterArn.parse(f"arn:{partition}:kafka:cn-north-1:{ACCOUNT}:cluster/orders.prod-1/abc-123-s1")

    # Then its topic and group ARNs follow MSK's resource types
    assert cluster.topic("dbserver1.inventory.customers") == (
        f"arn:{partition}:kafka:cn-north-1:{ACCOUNT}:topic/orders.prod-1/abc-123-s1/dbserver1.inventory.customers"
    )
    assert (
        cluster.group("prj-*")
        == f"arn:{partition}:kafka:cn-north-1:{ACCOUNT}:group/orders.prod-1/abc-123-s1/prj-*"
    )
    assert cluster.arn == f"arn:{partition}:kafka:cn-north-1:{ACCOUNT}:cluster/orders.prod-1/abc-123-s1"


@pytest.mark.parametrize(
    "topic",
    ["__debezium-heartbeat.dbserver1", "a" * 249, "Orders_v2-final.x", "__consumer_offsets"],
)
def test_every_legal_kafka_topic_name_has_an_arn(topic: str) -> None:
    assert ClusterArn.parse(CLUSTER).topic(topic).endswith(f"/{topic}")


@pytest.mark.parametrize("topic", ["orders*", "orders?", "a" * 250, "", "orders$1", "orders#2", "a/b", "a b"])
def test_a_topic_name_that_could_widen_the_grant_is_refused(topic: str) -> None:
    # IAM ARN wildcards cannot be escaped: a name outside Kafka's characters never reaches a Resource
    with pytest.raises(ValueError, match="not a Kafka topic name"):
        ClusterArn.parse(CLUSTER).topic(topic)


@pytest.mark.parametrize(
    "arn",
    [CLUSTER.replace("arn:aws:", "arn:aws-iso:"), "arn:aws:kafka:eu-west-1:1:cluster/a/b", CLUSTER + "/x"],
)
def test_what_is_not_a_cluster_arn_is_refused(arn: str) -> None:
    with pytest.raises(ValueError, match="not an MSK cluster ARN"):
        ClusterArn.parse(arn)


def test_a_role_with_a_path_is_named_by_its_last_segment() -> None:
    # The role is `orders-reader`, not `teams/streaming/orders-reader`
    assert role_name(PATH_ROLE) == "orders-reader"
    role = RoleArn.parse("arn:aws-us-gov:iam::111122223333:role/service-role/a+b=c,d.e@f-g")
    assert (role.partition, role.path, role.name) == ("aws-us-gov", "/service-role/", "a+b=c,d.e@f-g")
    assert role.arn == "arn:aws-us-gov:iam::111122223333:role/service-role/a+b=c,d.e@f-g"
    assert (
        role.policy_arn("/kafka-lineage/", "P") == "arn:aws-us-gov:iam::111122223333:policy/kafka-lineage/P"
    )
    with pytest.raises(ValueError, match="not an IAM role ARN"):
        RoleArn.parse("arn:aws:iam::111122223333:user/alice")


def test_access_must_be_an_object_and_templates_have_a_length() -> None:
    with pytest.raises(AccessSettingsError, match="access must be an object"):
        AccessSettings.parse(["arn:aws:iam::111122223333:role/*"])
    with pytest.raises(AccessSettingsError, match=r"access\.consumerGroups.*1-255 characters"):
        AccessSettings.parse({"consumerGroups": ["{projectId}" + "x" * 250]})


def test_a_group_pattern_with_characters_no_arn_carries_is_refused() -> None:
    with pytest.raises(ValueError, match="characters an ARN cannot carry"):
        ClusterArn.parse(CLUSTER).group("prj 1/*")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("grant_id", "grant/1", "grant id"),
        ("project_id", "p" * 37, "project id"),
        ("environment_id", "", "environment id"),
        ("account", "12345", "12-digit"),
    ],
)
def test_a_grant_with_identifiers_datazone_does_not_make_is_refused(
    field: str, value: str, message: str
) -> None:
    changes: dict[str, Any] = {field: value}
    with pytest.raises(ValueError, match=message):
        replace(grant("orders"), **changes)
