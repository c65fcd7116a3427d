"""The DataZone grants adapter through botocore's Stubber, which checks every member name and type against
botocore's datazone model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.subscription_grants import SubscriptionGrants
from tests.unit.grants.adapter_builders import DOMAIN, LISTING_FORMS, WHEN, grant_item


@pytest.fixture
def datazone() -> Iterator[tuple[SubscriptionGrants, Stubber]]:
    client = boto3.client("datazone", region_name="eu-west-1")
    with Stubber(client) as stubber:
        yield SubscriptionGrants(instrument(client), DOMAIN), stubber
        stubber.assert_no_pending_responses()


def test_a_grant_is_read_with_its_assets_and_a_missing_one_is_none(datazone: Any) -> None:
    adapter, stub = datazone
    stub.add_response(
        "get_subscription_grant",
        grant_item("grant0001"),
        {"domainIdentifier": DOMAIN, "identifier": "grant0001"},
    )
    stub.add_client_error("get_subscription_grant", "ResourceNotFoundException", http_status_code=404)
    record = adapter.grant("grant0001")
    assert record is not None
    assert (record.listing_id, record.listing_revision, record.target_id, record.environment_id) == (
        "listing0001",
        "3",
        "target01",
        "env_sales01",
    )
    assert record.assets[0].status == "GRANT_PENDING"
    assert record.updated_at == WHEN
    assert adapter.grant("gone") is None


def test_every_page_of_grants_is_listed_50_at_a_time(datazone: Any) -> None:
    adapter, stub = datazone
    stub.add_response(
        "list_subscription_grants",
        {"items": [grant_item("grant0001")], "nextToken": "page2"},
        {"domainIdentifier": DOMAIN, "maxResults": 50},
    )
    stub.add_response(
        "list_subscription_grants",
        {"items": [grant_item("grant0002", "GRANTED")]},
        {"domainIdentifier": DOMAIN, "maxResults": 50, "nextToken": "page2"},
    )
    assert [r.grant_id for r in adapter.grants()] == ["grant0001", "grant0002"]


def test_a_listing_is_read_once_with_its_forms_and_a_data_product_through_its_items(datazone: Any) -> None:
    adapter, stub = datazone
    asset = {"assetId": "asset0001", "assetType": "KafkaTopicAssetType", "forms": LISTING_FORMS}
    stub.add_response(
        "get_listing",
        {"domainId": DOMAIN, "id": "listing0001", "listingRevision": "3", "item": {"assetListing": asset}},
        {"domainIdentifier": DOMAIN, "identifier": "listing0001", "listingRevision": "3"},
    )
    product = {"dataProductListing": {"items": [{"listingId": "listing0001", "listingRevision": "3"}]}}
    stub.add_response(
        "get_listing",
        {"domainId": DOMAIN, "id": "product01", "listingRevision": "1", "item": product},
        {"domainIdentifier": DOMAIN, "identifier": "product01", "listingRevision": "1"},
    )
    stub.add_response(
        "get_listing",
        {"domainId": DOMAIN, "id": "listing0001", "listingRevision": "3", "item": {"assetListing": asset}},
        {"domainIdentifier": DOMAIN, "identifier": "listing0001", "listingRevision": "3"},
    )
    first = adapter.listing("listing0001", "3")
    assert adapter.listing("listing0001", "3") is first  # a revision is read once
    assert first.assets[0].forms["KafkaSchemaFormType"]["kafka_topic"] == "dbserver1.inventory.customers"
    assert [a.asset_id for a in adapter.listing("product01", "1").assets] == ["asset0001"]


def test_target_environment_and_status_updates_use_the_models_members(datazone: Any) -> None:
    adapter, stub = datazone
    target = {
        "id": "target01",
        "authorizedPrincipals": ["arn:aws:iam::111122223333:role/analytics-consumer"],
        "domainId": DOMAIN,
        "projectId": "prj_sales01",
        "environmentId": "env_sales01",
        "name": "kafka",
        "type": "KafkaTopicSubscriptionTargetType",
        "createdBy": "user",
        "createdAt": WHEN,
        "applicableAssetTypes": ["KafkaTopicAssetType"],
        "subscriptionTargetConfig": [],
        "provider": "kafka-lineage",
    }
    stub.add_response(
        "get_subscription_target",
        target,
        {"domainIdentifier": DOMAIN, "environmentIdentifier": "env_sales01", "identifier": "target01"},
    )
    environment = {
        "projectId": "prj_sales01",
        "domainId": DOMAIN,
        "createdBy": "user",
        "name": "sales",
        "provider": "Amazon DataZone",
        "awsAccountId": "111122223333",
        "awsAccountRegion": "eu-west-1",
    }
    stub.add_response(
        "get_environment", environment, {"domainIdentifier": DOMAIN, "identifier": "env_sales01"}
    )
    stub.add_response(
        "update_subscription_grant_status",
        grant_item("grant0001", "GRANT_FAILED"),
        {
            "domainIdentifier": DOMAIN,
            "identifier": "grant0001",
            "assetIdentifier": "asset0001",
            "status": "GRANT_FAILED",
            "failureCause": {"message": "the permissions boundary denies kafka-cluster:Connect"},
        },
    )
    found = adapter.target("env_sales01", "target01")
    assert found.principals == ("arn:aws:iam::111122223333:role/analytics-consumer",)
    assert found.project_id == "prj_sales01"
    assert adapter.environment("env_sales01").account == "111122223333"
    adapter.set_status(
        "grant0001", "asset0001", "GRANT_FAILED", "the permissions boundary denies kafka-cluster:Connect"
    )
