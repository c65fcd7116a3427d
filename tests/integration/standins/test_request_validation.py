"""Every request is checked against botocore's model on the server side, as AWS does, stand-in or moto."""

from __future__ import annotations

import json

import boto3
import pytest
from botocore.exceptions import ClientError

from local.standins import LocalAws
from tests.integration.standins.conftest import NO_CLIENT_CHECKS, FakeDataZone, signed_request


def _error(excinfo: pytest.ExceptionInfo[ClientError]) -> tuple[str, str, int]:
    error = excinfo.value.response
    return error["Error"]["Code"], error["Error"]["Message"], error["ResponseMetadata"]["HTTPStatusCode"]


def test_string_longer_than_the_model_allows_is_rejected_naming_the_member(local_aws: LocalAws) -> None:
    # Given a registry name of 256 characters (the model allows 255; botocore checks only the minimum)
    glue = boto3.client("glue")

    # When it is listed
    with pytest.raises(ClientError) as excinfo:
        glue.list_schemas(RegistryId={"RegistryName": "r" * 256})

    # Then the service answers ValidationException naming the member path and the limit
    code, message, status = _error(excinfo)
    assert (code, status) == ("ValidationException", 400)
    assert message.startswith("1 validation error detected: Value 'rrrr")
    assert "at 'registryId.registryName' failed to satisfy constraint" in message
    assert "Member must have length less than or equal to 255" in message


def test_string_shorter_than_the_minimum_is_rejected_when_the_client_does_not_check(
    local_aws: LocalAws,
) -> None:
    glue = boto3.client("glue", config=NO_CLIENT_CHECKS)

    with pytest.raises(ClientError) as excinfo:
        glue.list_schemas(RegistryId={"RegistryName": ""})

    code, message, _ = _error(excinfo)
    assert code == "ValidationException"
    assert "Member must have length greater than or equal to 1" in message


def test_pattern_must_match_in_full(local_aws: LocalAws) -> None:
    # Given names the registry-name pattern [a-zA-Z0-9-_$#.]+ matches only in part
    glue = boto3.client("glue")
    for name in ("cdc events", "cdc/events", "ok\n"):
        # When listed, Then rejected: the model's unanchored pattern is matched against the whole value
        with pytest.raises(ClientError) as excinfo:
            glue.list_schemas(RegistryId={"RegistryName": name})
        code, message, _ = _error(excinfo)
        assert code == "ValidationException"
        assert "Member must satisfy regular expression pattern: [a-zA-Z0-9-_$#.]+" in message


def test_weird_but_valid_names_pass_validation(local_aws: LocalAws) -> None:
    # Given a registry whose name uses every special character Glue allows, at the maximum length
    glue = boto3.client("glue")
    name = ("cdc$#.-_" * 40)[:255]
    glue.create_registry(RegistryName=name)

    # When it is listed, Then validation lets it through
    assert glue.list_schemas(RegistryId={"RegistryName": name})["Schemas"] == []


def test_enum_value_outside_the_set_is_rejected(local_aws: LocalAws) -> None:
    glue = boto3.client("glue")
    glue.create_registry(RegistryName="cdc")

    with pytest.raises(ClientError) as excinfo:
        glue.create_schema(
            RegistryId={"RegistryName": "cdc"},
            SchemaName="orders",
            DataFormat="XML",
            Compatibility="NONE",
            SchemaDefinition="{}",
        )

    code, message, _ = _error(excinfo)
    assert code == "ValidationException"
    assert "at 'dataFormat' failed to satisfy constraint" in message
    assert "Member must satisfy enum value set: [AVRO, JSON, PROTOBUF]" in message


@pytest.mark.parametrize(
    ("max_results", "constraint"),
    [(101, "have value less than or equal to 100"), (0, "have value greater than or equal to 1")],
)
def test_number_outside_its_range_is_rejected(local_aws: LocalAws, max_results: int, constraint: str) -> None:
    glue = boto3.client("glue", config=NO_CLIENT_CHECKS)

    with pytest.raises(ClientError) as excinfo:
        glue.list_schemas(MaxResults=max_results)

    code, message, _ = _error(excinfo)
    assert code == "ValidationException"
    assert (
        f"Value {max_results} at 'maxResults' failed to satisfy constraint: Member must {constraint}"
        in message
    )


def test_list_longer_than_allowed_is_rejected_on_a_call_moto_answers(local_aws: LocalAws) -> None:
    # Given eleven names for GetParameters (the model allows ten), a call forwarded to moto
    ssm = boto3.client("ssm")

    with pytest.raises(ClientError) as excinfo:
        ssm.get_parameters(Names=[f"/p/{i}" for i in range(11)])

    code, message, _ = _error(excinfo)
    assert code == "ValidationException"
    assert (
        "at 'names' failed to satisfy constraint: Member must have length less than or equal to 10" in message
    )


def test_map_with_more_entries_than_allowed_is_rejected(local_aws: LocalAws) -> None:
    glue = boto3.client("glue")

    with pytest.raises(ClientError) as excinfo:
        glue.create_registry(RegistryName="cdc", Tags={f"k{i}": "v" for i in range(51)})

    code, message, _ = _error(excinfo)
    assert code == "ValidationException"
    assert (
        "at 'tags' failed to satisfy constraint: Member must have length less than or equal to 50" in message
    )
    # And nothing was created
    assert boto3.client("glue").list_registries()["Registries"] == []


def test_blob_larger_than_allowed_is_rejected_before_the_stand_in_sees_it(
    local_aws: LocalAws, fake_datazone: FakeDataZone
) -> None:
    # Given a lineage event of 300,001 bytes (the model allows 300,000)
    datazone = boto3.client("datazone")

    with pytest.raises(ClientError) as excinfo:
        datazone.post_lineage_event(domainIdentifier="dzd_abc123", event=b"x" * 300_001)

    code, message, status = _error(excinfo)
    assert (code, status) == ("ValidationException", 400)
    # The event is sensitive in the model: the message names the member, not the value
    assert (
        "Value at 'event' failed to satisfy constraint: Member must have length less than or equal to 300000"
        in (message)
    )
    assert fake_datazone.received == []


def test_missing_required_member_is_rejected(local_aws: LocalAws) -> None:
    glue = boto3.client("glue", config=NO_CLIENT_CHECKS)

    with pytest.raises(ClientError) as excinfo:
        glue.list_schema_versions()

    code, message, _ = _error(excinfo)
    assert code == "ValidationException"
    assert "Value null at 'schemaId' failed to satisfy constraint: Member must not be null" in message


def test_wrong_type_is_a_serialization_error(local_aws: LocalAws) -> None:
    glue = boto3.client("glue", config=NO_CLIENT_CHECKS)

    with pytest.raises(ClientError) as excinfo:
        glue.list_schemas(MaxResults="ten")

    code, message, status = _error(excinfo)
    assert (code, status) == ("SerializationException", 400)
    assert "maxResults" in message


def test_nested_list_members_are_checked_with_their_path(local_aws: LocalAws) -> None:
    # Given a Glue table whose second column name exceeds 255 characters
    glue = boto3.client("glue")
    glue.create_database(DatabaseInput={"Name": "lakehouse"})
    columns = [{"Name": "id", "Type": "int"}, {"Name": "c" * 256, "Type": "string"}]

    with pytest.raises(ClientError) as excinfo:
        glue.create_table(
            DatabaseName="lakehouse", TableInput={"Name": "orders", "StorageDescriptor": {"Columns": columns}}
        )

    _, message, _ = _error(excinfo)
    assert "at 'tableInput.storageDescriptor.columns.2.member.name'" in message


def test_every_violation_is_reported_at_once(local_aws: LocalAws) -> None:
    glue = boto3.client("glue", config=NO_CLIENT_CHECKS)

    with pytest.raises(ClientError) as excinfo:
        glue.list_schemas(MaxResults=500, RegistryId={"RegistryName": "bad name"})

    _, message, _ = _error(excinfo)
    assert message.startswith("2 validation errors detected: ")
    assert "registryId.registryName" in message
    assert "maxResults" in message


def test_raw_json_request_gets_an_aws_json_error(local_aws: LocalAws) -> None:
    # Given a hand-made, signed SSM request with MaxResults 11 (GetParametersByPath pages at most 10)
    body = json.dumps({"Path": "/kafka-lineage", "MaxResults": 11}).encode()
    headers = {"X-Amz-Target": "AmazonSSM.GetParametersByPath", "Content-Type": "application/x-amz-json-1.1"}

    # When it is posted
    response = signed_request(local_aws, "ssm", "POST", "/", body, headers)

    # Then the answer is SSM's json 1.1 error
    assert response.status == 400
    assert response.headers["content-type"] == "application/x-amz-json-1.1"
    payload = response.json()
    assert payload["__type"] == "ValidationException"
    assert "Member must have value less than or equal to 10" in payload["message"]


def test_raw_rest_json_request_gets_the_error_type_header(
    local_aws: LocalAws, fake_datazone: FakeDataZone
) -> None:
    # Given a signed CreateAsset whose name is 257 characters
    body = json.dumps(
        {"name": "n" * 257, "typeIdentifier": "KafkaTopicAssetType", "owningProjectIdentifier": "p1"}
    )

    response = signed_request(
        local_aws,
        "datazone",
        "POST",
        "/v2/domains/dzd_abc123/assets",
        body.encode(),
        {"Content-Type": "application/json"},
    )

    # Then rest-json's error shape: type in x-amzn-ErrorType, message in the body
    assert response.status == 400
    assert response.headers["x-amzn-errortype"] == "ValidationException"
    assert "Value at 'name' failed to satisfy constraint" in response.json()["message"]
    assert fake_datazone.received == []


def test_malformed_json_body_is_a_serialization_error(local_aws: LocalAws) -> None:
    headers = {"X-Amz-Target": "AWSGlue.ListSchemas", "Content-Type": "application/x-amz-json-1.1"}

    response = signed_request(local_aws, "glue", "POST", "/", b"{not json", headers)

    assert response.status == 400
    assert response.json()["__type"] == "SerializationException"
