"""The real DataZone stand-in (local/standins/datazone/) behind the front door, through boto3."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from local.standins import LocalAws

DOMAIN = "dzd_front1"


def run_event(event_type: str) -> bytes:
    return json.dumps(
        {
            "eventType": event_type,
            "eventTime": "2024-05-01T12:00:00Z",
            "producer": "https://github.com/example/kafka-lineage",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": "0190f0b4-8f6e-7c3a-9a51-3d2b1c0e9f11"},
            "job": {"namespace": "kafka-iceberg-sink", "name": "sink/lakehouse.orders"},
            "inputs": [{"namespace": "kafka://b-1.example:9098", "name": "dbserver1.inventory.orders"}],
            "outputs": [
                {"namespace": "arn:aws:glue:eu-west-1:123456789012:table", "name": "lakehouse/orders"}
            ],
        }
    ).encode()


@pytest.fixture
def client(local_aws: LocalAws) -> Any:
    if local_aws.datazone is None:
        pytest.skip("local/standins/datazone/ is missing")
    local_aws.datazone.add_domain(DOMAIN, ["prj1"])
    return boto3.client("datazone")


def test_a_lineage_event_round_trips_through_boto3(local_aws: LocalAws, client: Any) -> None:
    event = run_event("START")

    posted = client.post_lineage_event(domainIdentifier=DOMAIN, event=event)
    listed = client.list_lineage_events(domainIdentifier=DOMAIN)["items"]
    fetched = client.get_lineage_event(domainIdentifier=DOMAIN, identifier=listed[0]["id"])

    assert posted["domainId"] == DOMAIN
    assert json.loads(fetched["event"].read()) == json.loads(event)
    assert fetched["domainId"] == DOMAIN
    assert local_aws.call_counts(service="datazone") == {
        "datazone:PostLineageEvent": 1,
        "datazone:ListLineageEvents": 1,
        "datazone:GetLineageEvent": 1,
    }


def test_the_front_door_validates_before_the_stand_in(client: Any) -> None:
    with pytest.raises(ClientError) as excinfo:
        client.create_asset(
            domainIdentifier=DOMAIN,
            name="n" * 257,
            typeIdentifier="KafkaTopicAssetType",
            owningProjectIdentifier="prj1",
        )

    assert excinfo.value.response["Error"]["Code"] == "ValidationException"
    assert "Value at 'name'" in excinfo.value.response["Error"]["Message"]
