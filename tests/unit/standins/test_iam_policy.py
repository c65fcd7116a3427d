"""IAM identity-policy evaluation: Allow, explicit Deny, wildcards, conditions, AWS's denial text."""

from __future__ import annotations

from typing import Any

import pytest

from local.standins.iam_policy import Condition as C
from local.standins.iam_policy import (
    PolicyError,
    Request,
    condition_matches,
    denial_message,
    evaluate,
    parse_policy,
    resource_matches,
)

SCHEMA = "arn:aws:glue:eu-west-1:123456789012:schema/cdc/orders"
REGISTRY = "arn:aws:glue:eu-west-1:123456789012:registry/cdc"
BUS = "arn:aws:events:eu-west-1:123456789012:event-bus/default"


def policy(*statements: dict[str, Any]) -> Any:
    return parse_policy({"Version": "2012-10-17", "Statement": list(statements)})


def allow(actions: Any, resources: Any, **extra: Any) -> dict[str, Any]:
    return {"Effect": "Allow", "Action": actions, "Resource": resources, **extra}


def test_an_allow_must_match_action_and_every_resource():
    # Given a grant on the cdc registry and its schemas
    statements = policy(
        allow(["glue:GetSchema"], [REGISTRY, "arn:aws:glue:eu-west-1:123456789012:schema/cdc/*"])
    )

    # Then GetSchema on both is allowed, another action or another registry's schema is not
    assert evaluate(statements, Request("glue:GetSchema", (REGISTRY, SCHEMA))).allowed
    assert not evaluate(statements, Request("glue:GetSchemaVersion", (REGISTRY, SCHEMA))).allowed
    other = "arn:aws:glue:eu-west-1:123456789012:schema/prod/orders"
    decision = evaluate(statements, Request("glue:GetSchema", (REGISTRY, other)))
    assert not decision.allowed
    assert decision.resource == other
    assert not decision.explicit_deny


def test_actions_compare_case_insensitively_with_wildcards():
    statements = policy(allow("glue:get*", "*"))

    assert evaluate(statements, Request("glue:GetSchema", (SCHEMA,))).allowed
    assert not evaluate(statements, Request("glue:ListSchemas", (REGISTRY,))).allowed
    assert evaluate(policy(allow("GLUE:GetSchem?", "*")), Request("glue:GetSchema", (SCHEMA,))).allowed


def test_an_action_without_a_resource_type_is_granted_only_by_resource_star():
    # Given DataZone grants scoped to the domain ARN, and one on "*"
    domain = "arn:aws:datazone:eu-west-1:123456789012:domain/dzd_1"
    scoped = policy(allow("datazone:PostLineageEvent", domain))
    star = policy(allow("datazone:PostLineageEvent", "*"))

    # Then a request on "*" (the action takes no resource type) is only allowed by the second
    assert not evaluate(scoped, Request("datazone:PostLineageEvent", ("*",))).allowed
    assert evaluate(star, Request("datazone:PostLineageEvent", ("*",))).allowed


def test_resource_wildcards_stay_inside_arn_fields_except_the_resource_part():
    assert resource_matches(
        "arn:aws:ssm:*:123456789012:parameter/a/*", "arn:aws:ssm:eu-west-1:123456789012:parameter/a/b/c"
    )
    assert not resource_matches(
        "arn:aws:ssm:eu-*:123456789012:parameter/a", "arn:aws:ssm:us-east-1:123456789012:parameter/a"
    )
    # The resource part may hold colons: function:name:* covers every version
    assert resource_matches(
        "arn:aws:lambda:eu-west-1:1:function:f:*", "arn:aws:lambda:eu-west-1:1:function:f:7"
    )
    assert not resource_matches(
        "arn:aws:lambda:eu-west-1:1:function:f", "arn:aws:lambda:eu-west-1:1:function:f:7"
    )
    # Resources compare case-sensitively; ? is one character
    assert not resource_matches(
        "arn:aws:glue:eu-west-1:1:registry/CDC", "arn:aws:glue:eu-west-1:1:registry/cdc"
    )
    assert resource_matches("arn:aws:glue:eu-west-1:1:registry/cd?", "arn:aws:glue:eu-west-1:1:registry/cdc")
    # Names with the characters Glue allows are literal ($ # . - _)
    assert resource_matches(
        "arn:aws:glue:eu-west-1:1:schema/cdc.prod-$1/*", "arn:aws:glue:eu-west-1:1:schema/cdc.prod-$1/a#b"
    )
    assert not resource_matches(
        "arn:aws:glue:eu-west-1:1:schema/cdc.prod/*", "arn:aws:glue:eu-west-1:1:schema/cdcXprod/a"
    )


def test_an_explicit_deny_beats_any_allow():
    statements = policy(
        allow("glue:*", "*"),
        {"Effect": "Deny", "Action": "glue:GetSchema", "Resource": SCHEMA, "Sid": "NoOrders"},
    )

    decision = evaluate(statements, Request("glue:GetSchema", (REGISTRY, SCHEMA)))

    assert not decision.allowed
    assert decision.explicit_deny
    assert decision.statement == "NoOrders"
    assert evaluate(statements, Request("glue:GetSchema", (REGISTRY,))).allowed


def test_not_action_and_not_resource():
    statements = policy(
        {"Effect": "Allow", "NotAction": "glue:Delete*", "Resource": "*"},
        {"Effect": "Deny", "Action": "glue:*", "NotResource": [REGISTRY, SCHEMA]},
    )

    assert evaluate(statements, Request("glue:GetSchema", (SCHEMA,))).allowed
    assert not evaluate(statements, Request("glue:DeleteSchema", (SCHEMA,))).allowed
    assert evaluate(
        statements, Request("glue:GetSchema", ("arn:aws:glue:eu-west-1:1:registry/x",))
    ).explicit_deny


def test_the_events_source_condition():
    # Given schema-sync's grant: PutEvents on the default bus, only with its own source
    statements = policy(
        allow(
            "events:PutEvents",
            BUS,
            Condition={"StringEquals": {"events:source": ["kafka-lineage.schema-sync"]}},
        )
    )

    def put(source: str) -> bool:
        return evaluate(statements, Request("events:PutEvents", (BUS,), {"events:source": (source,)})).allowed

    assert put("kafka-lineage.schema-sync")
    assert not put("aws.glue")  # another source
    assert not put("Kafka-Lineage.Schema-Sync")  # StringEquals is case-sensitive
    # A request without the key does not meet a StringEquals condition
    assert not evaluate(statements, Request("events:PutEvents", (BUS,))).allowed
    # Without conditions the grant exists: what tells a refused entry from a refused request
    assert evaluate(statements, Request("events:PutEvents", (BUS,)), with_conditions=False).allowed


@pytest.mark.parametrize(
    ("condition", "context", "expected"),
    [
        (
            C("StringLike", "events:source", ("kafka-lineage.*",)),
            {"events:source": ("kafka-lineage.x",)},
            True,
        ),
        (C("StringLike", "events:source", ("kafka-lineage.*",)), {"events:source": ("aws.glue",)}, False),
        (C("StringNotEquals", "events:source", ("a",)), {"events:source": ("b",)}, True),
        (C("StringNotEquals", "events:source", ("a",)), {"events:source": ("a",)}, False),
        (C("StringNotEquals", "events:source", ("a",)), {}, True),  # missing key: "not equal"
        (C("StringEquals", "events:source", ("a",), if_exists=True), {}, True),
        (C("StringEqualsIgnoreCase", "events:source", ("AbC",)), {"events:source": ("abc",)}, True),
        (C("StringEquals", "aws:tagkeys", ("a", "b"), "ForAnyValue"), {"aws:TagKeys": ("b", "z")}, True),
        (C("StringEquals", "aws:tagkeys", ("a", "b"), "ForAnyValue"), {"aws:TagKeys": ("z",)}, False),
        (C("StringEquals", "aws:tagkeys", ("a", "b"), "ForAnyValue"), {}, False),
        (C("StringEquals", "aws:tagkeys", ("a", "b"), "ForAllValues"), {"aws:TagKeys": ("a", "b")}, True),
        (C("StringEquals", "aws:tagkeys", ("a", "b"), "ForAllValues"), {"aws:TagKeys": ("a", "z")}, False),
        (C("StringEquals", "aws:tagkeys", ("a",), "ForAllValues"), {}, True),  # vacuously true
        (C("Bool", "ssm:overwrite", ("true",)), {"ssm:Overwrite": ("true",)}, True),
        (C("Null", "ssm:overwrite", ("true",)), {}, True),
        (C("Null", "ssm:overwrite", ("true",)), {"ssm:Overwrite": ("false",)}, False),
        (
            C("ArnLike", "aws:sourcearn", ("arn:aws:events:*:1:rule/*",)),
            {"aws:SourceArn": ("arn:aws:events:eu-west-1:1:rule/r",)},
            True,
        ),
    ],
)
def test_condition_operators(condition: C, context: dict[str, tuple[str, ...]], expected: bool):
    assert condition_matches(condition, context) is expected


@pytest.mark.parametrize(
    "document",
    [
        {"Statement": [allow("glue:*", "*", Condition={"NumericLessThan": {"x": "1"}})]},
        {"Statement": [allow("glue:*", "*", Condition={"SomeValues:StringEquals": {"x": "1"}})]},
        {"Statement": [{"Effect": "Maybe", "Action": "glue:*", "Resource": "*"}]},
        {"Statement": [{"Effect": "Allow", "Resource": "*"}]},
        {"Statement": [{"Effect": "Allow", "Action": "glue:*"}]},
        {"Statement": [allow("glue:*", "*", Principal={"AWS": "*"})]},
        {"Version": "2099-01-01", "Statement": [allow("glue:*", "*")]},
    ],
)
def test_policies_iam_would_reject_or_that_are_not_modelled_fail_loudly(document: dict[str, Any]):
    with pytest.raises(PolicyError):
        parse_policy(document)


def test_denial_messages_read_as_aws_writes_them():
    session = "arn:aws:sts::123456789012:assumed-role/KafkaLineage-SchemaSyncRole/schema-sync"
    implicit = evaluate((), Request("glue:GetSchema", (REGISTRY, SCHEMA)))
    assert denial_message(session, Request("glue:GetSchema"), implicit) == (
        f"User: {session} is not authorized to perform: glue:GetSchema on resource: {REGISTRY} "
        "because no identity-based policy allows the glue:GetSchema action"
    )
    # An action without a resource type names no resource
    no_type = evaluate((), Request("datazone:PostLineageEvent", ("*",)))
    assert denial_message(session, Request("datazone:PostLineageEvent"), no_type) == (
        f"User: {session} is not authorized to perform: datazone:PostLineageEvent "
        "because no identity-based policy allows the datazone:PostLineageEvent action"
    )
    explicit = evaluate(
        policy({"Effect": "Deny", "Action": "*", "Resource": "*"}),
        Request("lambda:InvokeFunction", ("arn:f",)),
    )
    assert denial_message(session, Request("lambda:InvokeFunction"), explicit) == (
        f"User: {session} is not authorized to perform: lambda:InvokeFunction on resource: arn:f "
        "with an explicit deny in an identity-based policy"
    )
