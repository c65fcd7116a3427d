"""From API requests to IAM requests: SAR action names and the resource ARNs the SAR names for them."""

from __future__ import annotations

import pytest

from local.standins import iam_sar
from local.standins.iam_requests import CannotAuthorize, Where, requests_for

HERE = Where("eu-west-1", "123456789012")
A = "arn:aws:glue:eu-west-1:123456789012"


def only(prefix: str, operation: str, params: dict) -> tuple[str, tuple[str, ...], dict]:
    [request] = requests_for(prefix, operation, params, HERE)
    return request.action, request.resources, dict(request.context)


def test_glue_schema_calls_are_authorised_on_the_registry_and_the_schema():
    # By registry and schema name (weird but valid Glue names stay literal)
    action, resources, _ = only(
        "glue", "GetSchema", {"SchemaId": {"RegistryName": "cdc.prod-$1", "SchemaName": "a#b"}}
    )
    assert action == "glue:GetSchema"
    assert resources == (f"{A}:registry/cdc.prod-$1", f"{A}:schema/cdc.prod-$1/a#b")
    # By schema ARN: the registry comes from the ARN
    _, resources, _ = only("glue", "ListSchemaVersions", {"SchemaId": {"SchemaArn": f"{A}:schema/cdc/t"}})
    assert resources == (f"{A}:registry/cdc", f"{A}:schema/cdc/t")
    # ListSchemas names the registry
    assert only("glue", "ListSchemas", {"RegistryId": {"RegistryName": "cdc"}})[1] == (f"{A}:registry/cdc",)


def test_glue_catalog_calls_name_catalog_database_and_table():
    _, resources, _ = only("glue", "GetTable", {"DatabaseName": "LakeHouse", "Name": "Orders"})
    assert resources == (f"{A}:database/lakehouse", f"{A}:catalog", f"{A}:table/lakehouse/orders")
    # GetTables: every table of the database, as AWS documents it
    _, resources, _ = only("glue", "GetTables", {"DatabaseName": "lakehouse"})
    assert f"{A}:table/lakehouse/*" in resources
    assert only("glue", "GetDatabase", {"Name": "lakehouse"})[1] == (
        f"{A}:database/lakehouse",
        f"{A}:catalog",
    )


def test_ssm_parameter_arns_from_name_names_and_path():
    p = "arn:aws:ssm:eu-west-1:123456789012:parameter"
    assert only("ssm", "GetParameter", {"Name": "/kafka-lineage/x"})[1] == (f"{p}/kafka-lineage/x",)
    assert only("ssm", "GetParameter", {"Name": "plain:3"})[1] == (f"{p}/plain",)
    assert only("ssm", "DeleteParameters", {"Names": ["/a/b", "/a/c"]})[1] == (f"{p}/a/b", f"{p}/a/c")
    action, resources, context = only(
        "ssm", "GetParametersByPath", {"Path": "/kafka-lineage", "Recursive": True}
    )
    assert (action, resources) == ("ssm:GetParametersByPath", (f"{p}/kafka-lineage",))
    assert context == {"ssm:Recursive": ("true",)}
    assert only("ssm", "PutParameter", {"Name": "/a", "Overwrite": False})[2] == {"ssm:Overwrite": ("false",)}


def test_put_events_asks_once_per_entry_with_its_source():
    requests = requests_for(
        "events",
        "PutEvents",
        {
            "Entries": [
                {"Source": "kafka-lineage.schema-sync", "DetailType": "d"},
                {"Source": "x", "EventBusName": "other"},
            ]
        },
        HERE,
    )
    bus = "arn:aws:events:eu-west-1:123456789012:event-bus"
    assert [(r.resources, r.context["events:source"]) for r in requests] == [
        ((f"{bus}/default",), ("kafka-lineage.schema-sync",)),
        ((f"{bus}/other",), ("x",)),
    ]


def test_lambda_invoke_is_invoke_function_on_the_function_arn():
    action, resources, _ = only(
        "lambda", "Invoke", {"FunctionName": "schema-sync", "InvocationType": "Event"}
    )
    assert action == "lambda:InvokeFunction"
    assert resources == ("arn:aws:lambda:eu-west-1:123456789012:function:schema-sync",)
    arn = "arn:aws:lambda:eu-west-1:123456789012:function:f"
    assert only("lambda", "Invoke", {"FunctionName": arn, "Qualifier": "live"})[1] == (f"{arn}:live",)


@pytest.mark.parametrize(
    ("prefix", "operation", "params"),
    [
        ("kafka", "GetBootstrapBrokers", {"ClusterArn": "arn:aws:kafka:eu-west-1:1:cluster/c/u"}),
        ("datazone", "PostLineageEvent", {"domainIdentifier": "dzd_1"}),
        ("datazone", "CreateAsset", {"domainIdentifier": "dzd_1"}),
        ("datazone", "DeleteLineageEvent", {"domainIdentifier": "dzd_1"}),  # newer than the SAR data
    ],
)
def test_actions_without_a_resource_type_are_asked_on_star(prefix: str, operation: str, params: dict):
    assert only(prefix, operation, params)[1] == ("*",)


def test_describe_cluster_takes_the_cluster():
    arn = "arn:aws:kafka:eu-west-1:1:cluster/c/u"
    assert only("kafka", "DescribeClusterV2", {"ClusterArn": arn})[1] == (arn,)


def test_a_required_resource_the_request_does_not_name_is_a_loud_gap():
    with pytest.raises(CannotAuthorize, match="needs a registry, schema"):
        requests_for("glue", "GetSchema", {}, HERE)
    with pytest.raises(iam_sar.SarError):
        requests_for("datazone", "NoSuchOperation", {}, HERE)


def test_the_sar_data_is_what_the_rules_rely_on():
    # These facts are read from the shipped data, not restated: check the ones the stack depends on.
    assert iam_sar.action("datazone:PostLineageEvent").takes_no_resource
    assert iam_sar.action("kafka:GetBootstrapBrokers").takes_no_resource
    assert iam_sar.action("kafka:DescribeClusterV2").required == ("cluster",)
    assert iam_sar.action("lambda:InvokeFunction").required == ("function",)
    assert "events:source" in iam_sar.action("events:PutEvents").condition_keys
    assert set(iam_sar.action("glue:GetSchema").required) == {"registry", "schema"}
