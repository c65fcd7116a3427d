"""IAM mode for MSK Connect: each operation asked as the SAR names it, on the resource the SAR gives it."""

from __future__ import annotations

import pytest

from local.standins.iam_requests import Where, requests_for

ARN = "arn:aws:kafkaconnect:eu-west-1:123456789012:connector/cdc-mysql/0a1b2c3d-4e5f"
WHERE = Where("eu-west-1", "123456789012")


@pytest.mark.parametrize("operation", ["ListConnectors", "CreateConnector"])
def test_actions_without_a_resource_type_are_asked_on_star(operation):
    (request,) = requests_for("kafkaconnect", operation, {}, WHERE)
    assert (request.action, request.resources) == (f"kafkaconnect:{operation}", ("*",))


@pytest.mark.parametrize("operation", ["DescribeConnector", "DeleteConnector"])
def test_connector_actions_are_asked_on_the_connector_arn(operation):
    (request,) = requests_for("kafkaconnect", operation, {"connectorArn": ARN}, WHERE)
    assert (request.action, request.resources) == (f"kafkaconnect:{operation}", (ARN,))
