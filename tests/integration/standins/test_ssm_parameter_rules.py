"""SSM Parameter Store's documented naming and size rules, which moto does not enforce, on every call."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from local.standins import LocalAws
from local.standins.ssm_names import NAME_MESSAGE, PATH_MESSAGE, RESERVED_MESSAGE, STANDARD_VALUE_MESSAGE

ARN_PREFIX = "arn:aws:ssm:eu-west-1:123456789012:parameter"


@pytest.fixture
def ssm(local_aws: LocalAws) -> Any:
    return boto3.client("ssm")


def rejected(call: Any, **kwargs: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as excinfo:
        call(**kwargs)
    error = excinfo.value.response["Error"]
    return error["Code"], error["Message"]


@pytest.mark.parametrize(
    "name",
    [
        "/kafka-lineage/assets/has space",
        "/kafka-lineage/assets/cdc$orders",  # '$' is fine in Glue, not in SSM
        "/kafka-lineage/assets/cdc#orders",
        "/kafka-lineage/assets/é",
        "kafka-lineage/assets/orders",  # hierarchical but not fully qualified
        "/kafka-lineage//orders",
        "/kafka-lineage/orders/",
    ],
)
def test_names_outside_the_documented_form_are_rejected(ssm: Any, name: str) -> None:
    assert rejected(ssm.put_parameter, Name=name, Value="v", Type="String") == (
        "ValidationException",
        NAME_MESSAGE,
    )


def test_letters_digits_dot_dash_underscore_and_slashes_are_accepted(ssm: Any) -> None:
    name = "/kafka-lineage/assets/cdc_v1.2-x/Orders_9"

    ssm.put_parameter(Name=name, Value="v", Type="String")

    assert ssm.get_parameter(Name=name)["Parameter"]["Value"] == "v"


MOTO_PREFIX_MESSAGE = 'Parameter name: can\'t be prefixed with "aws" or "ssm" (case-insensitive).'


@pytest.mark.parametrize(
    ("name", "answer"),
    [
        ("awsThing", ("ValidationException", MOTO_PREFIX_MESSAGE)),
        ("/AWS/app/x", ("AccessDeniedException", "No access to reserved parameter name: /AWS/app/x.")),
        ("SSM-param", ("ValidationException", MOTO_PREFIX_MESSAGE)),
        ("/ssm/x", ("ValidationException", NAME_MESSAGE)),
    ],
)
def test_reserved_first_levels_are_refused_by_motos_put_parameter_in_any_case(
    ssm: Any, name: str, answer: tuple[str, str]
) -> None:
    # Given a name whose first level starts with aws or ssm / When it is put
    # Then moto's own check answers, as real SSM is seen to (AccessDenied for an /aws/ path)
    assert rejected(ssm.put_parameter, Name=name, Value="v", Type="String") == answer


@pytest.mark.parametrize("name", ["awsThing", "/AWS/app/x", "/ssm/x"])
def test_reserved_first_levels_are_refused_by_the_stand_in_in_other_calls(ssm: Any, name: str) -> None:
    # Given a reserved name that is no public parameter / When another call names it
    # Then the stand-in refuses it: moto checks prefixes in PutParameter only
    assert rejected(ssm.delete_parameter, Name=name) == ("ValidationException", RESERVED_MESSAGE)


def test_reserved_prefix_on_a_deeper_level_follows_the_reading(local_aws: LocalAws, ssm: Any) -> None:
    # Given the stricter reading (every level), a deeper level starting with "aws" is refused
    local_aws.readings.ssm_reserved_prefix_every_level = True
    assert rejected(ssm.put_parameter, Name="/kafka-lineage/awsome", Value="v", Type="String")[0] == (
        "ValidationException"
    )

    # Given the documented reading (the name's prefix only), it is accepted
    local_aws.readings.ssm_reserved_prefix_every_level = False
    ssm.put_parameter(Name="/kafka-lineage/awsome", Value="v", Type="String")


def test_fifteen_levels_are_allowed_sixteen_are_not(ssm: Any) -> None:
    fifteen = "/" + "/".join(f"l{i}" for i in range(15))
    ssm.put_parameter(Name=fifteen, Value="v", Type="String")

    code, message = rejected(ssm.put_parameter, Name=fifteen + "/l15", Value="v", Type="String")

    assert code == "HierarchyLevelLimitExceededException"
    assert message.startswith("A hierarchy can have a maximum of 15 levels.")


def test_name_is_limited_by_its_arn_length_of_1011(ssm: Any) -> None:
    # Given a name whose ARN is exactly 1011 characters, and one a character longer
    longest = "/" + "a" * (1011 - len(ARN_PREFIX) - 1)
    assert len(ARN_PREFIX + longest) == 1011

    ssm.put_parameter(Name=longest, Value="v", Type="String")
    code, message = rejected(ssm.put_parameter, Name=longest + "b", Value="v", Type="String")

    assert code == "ValidationException"
    assert "1011" in message


def test_standard_values_are_limited_to_4_kb(ssm: Any) -> None:
    ssm.put_parameter(Name="/p/ok", Value="x" * 4096, Type="String")

    assert rejected(ssm.put_parameter, Name="/p/big", Value="x" * 4097, Type="String") == (
        "ValidationException",
        STANDARD_VALUE_MESSAGE,
    )
    # Multi-byte characters count by their bytes
    assert (
        rejected(ssm.put_parameter, Name="/p/big", Value="é" * 2049, Type="String")[0]
        == "ValidationException"
    )


def test_advanced_values_are_limited_to_8_kb(ssm: Any) -> None:
    ssm.put_parameter(Name="/p/adv", Value="x" * 8192, Type="String", Tier="Advanced")
    # An existing advanced parameter stays advanced when Tier is left out
    ssm.put_parameter(Name="/p/adv", Value="y" * 8000, Type="String", Overwrite=True)

    code, message = rejected(
        ssm.put_parameter, Name="/p/adv2", Value="x" * 8193, Type="String", Tier="Advanced"
    )

    assert code == "ValidationException"
    assert "8192" in message


def test_every_call_that_names_a_parameter_is_checked(ssm: Any) -> None:
    bad = "/kafka-lineage/bad name"
    calls: list[tuple[Any, dict[str, Any]]] = [
        (ssm.get_parameter, {"Name": bad}),
        (ssm.get_parameters, {"Names": ["/ok", bad]}),
        (ssm.delete_parameter, {"Name": bad}),
        (ssm.delete_parameters, {"Names": [bad]}),
        (ssm.get_parameter_history, {"Name": bad}),
        (ssm.label_parameter_version, {"Name": bad, "Labels": ["l1"]}),
        (
            ssm.add_tags_to_resource,
            {"ResourceType": "Parameter", "ResourceId": bad, "Tags": [{"Key": "k", "Value": "v"}]},
        ),
    ]
    for call, kwargs in calls:
        assert rejected(call, **kwargs) == ("ValidationException", NAME_MESSAGE), call


def test_selectors_and_arns_are_read_as_the_name_they_carry(ssm: Any) -> None:
    ssm.put_parameter(Name="/kafka-lineage/x", Value="v", Type="String")

    assert ssm.get_parameter(Name="/kafka-lineage/x:1")["Parameter"]["Value"] == "v"
    assert ssm.get_parameters(Names=[f"{ARN_PREFIX}/kafka-lineage/x"])["InvalidParameters"] == []


def test_public_parameters_may_be_read_but_not_written(ssm: Any) -> None:
    # Reading under /aws/service/ is allowed (moto has no such parameter here: not found, not invalid)
    with pytest.raises(ClientError) as excinfo:
        ssm.get_parameter(Name="/aws/service/made-up/parameter")
    assert excinfo.value.response["Error"]["Code"] == "ParameterNotFound"

    # Writing there is refused (moto's answer for a reserved /aws/ path, as the SSM console shows it)
    assert (
        rejected(ssm.put_parameter, Name="/aws/service/x", Value="v", Type="String")[0]
        == "AccessDeniedException"
    )


@pytest.mark.parametrize("path", ["kafka-lineage", "/kafka lineage", "/ssm/x", "/a//b"])
def test_paths_follow_the_same_rules(ssm: Any, path: str) -> None:
    assert rejected(ssm.get_parameters_by_path, Path=path) == ("ValidationException", PATH_MESSAGE)


def test_get_parameters_by_path_pages_at_most_ten(ssm: Any) -> None:
    for i in range(12):
        ssm.put_parameter(Name=f"/kafka-lineage/assets/p{i:02d}", Value="v", Type="String")

    code, message = rejected(ssm.get_parameters_by_path, Path="/kafka-lineage", Recursive=True, MaxResults=11)
    page = ssm.get_parameters_by_path(Path="/kafka-lineage", Recursive=True, MaxResults=10)

    assert code == "ValidationException"
    assert "Member must have value less than or equal to 10" in message
    assert len(page["Parameters"]) == 10
    assert "NextToken" in page
