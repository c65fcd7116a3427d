"""IAM mode over the wire: callers told by their access key, denials answered as each service answers them."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from local import world
from local.standins import LocalAws
from local.standins.iam_roles import Role
from tests.integration.conftest import ONE_TRY, client_as


@pytest.fixture
def roles(local_aws: LocalAws, monkeypatch: pytest.MonkeyPatch) -> dict[str, Role]:
    env = world.environment(
        [world.source_config(tableRule={"database": "lakehouse", "match": "^(?P<t>x)$", "table": "{t}"})]
    )
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    names = ("schema-sync", "lineage-emission", "asset-type-resource")
    return {name: world.deployed_role(local_aws, name, {}) for name in names}


def error_of(call: Any) -> tuple[str, int, str]:
    with pytest.raises(ClientError) as raised:
        call()
    error = raised.value.response
    return error["Error"]["Code"], error["ResponseMetadata"]["HTTPStatusCode"], error["Error"]["Message"]


def test_the_default_test_key_is_never_restricted(local_aws: LocalAws, roles: dict[str, Role]):
    # Given IAM mode on, the seeding client (test key) writes where no role may
    local_aws.client("ssm").put_parameter(Name="/elsewhere/x", Value="v", Type="String")
    assert local_aws.iam.denials == []


def test_an_awsjson_service_denies_with_400_and_names_role_action_and_resource(
    local_aws: LocalAws, roles: dict[str, Role]
):
    # Given lineage-emission, which may write only under {MAPPING_PATH}/lineage/
    ssm = client_as(local_aws, roles["lineage-emission"], "ssm")
    ssm.put_parameter(Name="/kafka-lineage/lineage/ok", Value="v", Type="String")

    # When it writes into schema-sync's part of the tree
    code, status, message = error_of(
        lambda: ssm.put_parameter(Name="/kafka-lineage/assets/x", Value="v", Type="String")
    )

    # Then SSM answers as AWS does
    role = roles["lineage-emission"]
    assert (code, status) == ("AccessDeniedException", 400)
    assert message == (
        f"User: arn:aws:sts::{world.ACCOUNT}:assumed-role/{role.role_name}/lineage-emission is not "
        "authorized to perform: ssm:PutParameter on resource: "
        f"arn:aws:ssm:{world.REGION}:{world.ACCOUNT}:parameter/kafka-lineage/assets/x "
        "because no identity-based policy allows the ssm:PutParameter action"
    )


def test_glue_denies_another_registry(local_aws: LocalAws, roles: dict[str, Role]):
    world.create_registry("other")
    glue = client_as(local_aws, roles["schema-sync"], "glue")

    code, status, message = error_of(lambda: glue.list_schemas(RegistryId={"RegistryName": "other"}))

    assert (code, status) == ("AccessDeniedException", 400)
    assert "glue:ListSchemas on resource: arn:aws:glue:eu-west-1:123456789012:registry/other" in message


def test_rest_json_services_deny_with_403(local_aws: LocalAws, roles: dict[str, Role]):
    # Given schema-sync, which has no lineage grant, and lineage-emission, which may not invoke schema-sync
    local_aws.datazone.add_domain(world.DOMAIN_ID, project_ids=[world.PROJECT_ID])
    datazone = client_as(local_aws, roles["schema-sync"], "datazone")
    lambda_ = client_as(local_aws, roles["lineage-emission"], "lambda")

    code, status, message = error_of(lambda: datazone.list_lineage_events(domainIdentifier=world.DOMAIN_ID))
    assert (code, status) == ("AccessDeniedException", 403)
    assert message.endswith(
        "is not authorized to perform: datazone:ListLineageEvents because no identity-based policy allows "
        "the datazone:ListLineageEvents action"
    )
    code, status, message = error_of(
        lambda: lambda_.invoke(
            FunctionName=roles["schema-sync"].function_arn, InvocationType="Event", Payload=b"{}"
        )
    )
    assert (code, status) == ("AccessDeniedException", 403)
    assert f"lambda:InvokeFunction on resource: {roles['schema-sync'].function_arn}" in message
    assert local_aws.iam.pending == []


def test_put_events_refuses_only_the_entries_whose_source_is_not_allowed(
    local_aws: LocalAws, roles: dict[str, Role]
):
    events = client_as(local_aws, roles["schema-sync"], "events")

    answer = events.put_events(
        Entries=[
            {"Source": "kafka-lineage.schema-sync", "DetailType": "Topic Asset Changed", "Detail": "{}"},
            {"Source": "aws.glue", "DetailType": "spoofed", "Detail": "{}"},
        ]
    )

    assert answer["FailedEntryCount"] == 1
    first, second = answer["Entries"]
    assert "EventId" in first
    assert "ErrorCode" not in first
    assert second["ErrorCode"] == "NotAuthorizedForSourceException"
    assert [d.action for d in local_aws.iam.denials] == ["events:PutEvents"]


def test_put_events_on_a_bus_no_statement_grants_is_refused_whole(
    local_aws: LocalAws, roles: dict[str, Role]
):
    # The custom resource's role puts no events: nothing grants it PutEvents on any bus.
    events = client_as(local_aws, roles["asset-type-resource"], "events")

    code, status, _ = error_of(
        lambda: events.put_events(
            Entries=[{"Source": "kafka-lineage.schema-sync", "DetailType": "x", "Detail": "{}"}]
        )
    )

    assert (code, status) == ("AccessDeniedException", 400)


def test_an_access_key_nobody_issued_is_rejected(local_aws: LocalAws, roles: dict[str, Role]):
    ssm = boto3.session.Session().client(
        "ssm",
        endpoint_url=local_aws.endpoint_url,
        region_name=local_aws.region,
        aws_access_key_id="ASIAUNKNOWNUNKNOWN00",
        aws_secret_access_key="x",
        config=ONE_TRY,
    )

    code, status, _ = error_of(lambda: ssm.get_parameters_by_path(Path="/kafka-lineage"))

    assert (code, status) == ("UnrecognizedClientException", 403)


def test_a_revoked_grant_is_denied_until_the_stand_ins_are_reset(local_aws: LocalAws, roles: dict[str, Role]):
    ssm = client_as(local_aws, roles["schema-sync"], "ssm")
    ssm.get_parameters_by_path(Path="/kafka-lineage")

    local_aws.iam.revoke("schema-sync", "ssm:GetParametersByPath")

    code, _, _ = error_of(lambda: ssm.get_parameters_by_path(Path="/kafka-lineage"))
    assert code == "AccessDeniedException"
    local_aws.reset()
    ssm.get_parameters_by_path(Path="/kafka-lineage")  # reset gives the grant back
    assert json.dumps([d.action for d in local_aws.iam.denials]) == "[]"
