"""Access through the catalog, on the stand-ins over the wire: a consumer's environment and subscription
target, the grants DataZone asks for when a subscription to a topic listing is approved or revoked, the
events it puts on the default bus (shaped like tests/events/access/*.json), and the front door's checks of
these operations against botocore's model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError

from local import access_world, world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests.fixtures import FakeContext

EVENTS = Path(__file__).resolve().parents[2] / "events" / "access"
TOPIC = "dbserver1.inventory.orders"
CONSUMER_PROJECT = "prjconsumer01"


def shape(value: Any) -> Any:
    """A JSON value's structure: objects' keys (recursively), lists' first element, scalars' types."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(value[0])] if value else []
    return type(value).__name__


@pytest.fixture
def published(local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch) -> LocalAws:
    """The local world after a first schema-sync: every inventory topic is a published asset."""
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    world.create_registry("cdc")
    for spec in world.inventory():
        world.register("cdc", spec)
    tuning = {"datazone_rps": 500, "glue_rps": 500, "ssm_write_rps": 500}
    for key, value in world.environment([world.source_config()], tuning).items():
        monkeypatch.setenv(key, value)
    deployed.invoke("schema-sync", {}, FakeContext())
    return local_aws


def test_an_approved_subscription_asks_for_a_grant_on_the_bus_and_a_revoke_when_revoked(published: LocalAws):
    # Given a consuming project whose environment's target takes topic assets, and catchers on the bus
    requested = world.BusCatcher("aws.datazone", "Subscription Grant Requested")
    revoking = world.BusCatcher("aws.datazone", "Subscription Grant Revoke Requested")
    role = access_world.consumer_role("orders-consumer", path="/analytics/")
    consumer = access_world.add_consumer(published.datazone, CONSUMER_PROJECT, [role], account="444455556666")
    datazone = boto3.client("datazone")

    # When the project subscribes to the orders topic and the owner accepts
    subscription = access_world.subscribe(published.datazone, consumer, TOPIC)

    # Then one grant asks for the topic's asset, and the event carries what a fulfiller reads first
    grant = access_world.grant_of(published.datazone, subscription)
    read = datazone.get_subscription_grant(domainIdentifier=world.DOMAIN_ID, identifier=grant.id)
    assert (read["status"], read["assets"][0]["status"]) == ("PENDING", "GRANT_PENDING")
    [event] = requested.drain()
    fixture = json.loads((EVENTS / "subscription_grant_requested.json").read_text())
    assert shape(event["detail"]) == shape(fixture["detail"])
    assert (event["source"], event["detail-type"]) == (fixture["source"], fixture["detail-type"])
    assert event["detail"]["metadata"] == {"id": grant.id, "domain": world.DOMAIN_ID}
    assert event["detail"]["data"]["subscriptionTarget"] == {
        "id": consumer.target_id,
        "environmentId": consumer.environment_id,
    }
    # ... and from it the API gives the rest: the listing's asset, the target's principals, the account
    listing = datazone.get_listing(
        domainIdentifier=world.DOMAIN_ID,
        identifier=event["detail"]["data"]["asset"]["listingId"],
        listingRevision=event["detail"]["data"]["asset"]["listingVersion"],
    )
    assert listing["item"]["assetListing"]["assetId"] == read["assets"][0]["assetId"]
    target = datazone.get_subscription_target(
        domainIdentifier=world.DOMAIN_ID,
        environmentIdentifier=consumer.environment_id,
        identifier=consumer.target_id,
    )
    assert target["authorizedPrincipals"] == [role]
    environment = datazone.get_environment(
        domainIdentifier=world.DOMAIN_ID, identifier=consumer.environment_id
    )
    assert environment["awsAccountId"] == "444455556666"

    # When the fulfiller reports, then the owner revokes
    for status in ("GRANT_IN_PROGRESS", "GRANTED"):
        datazone.update_subscription_grant_status(
            domainIdentifier=world.DOMAIN_ID,
            identifier=grant.id,
            assetIdentifier=grant.assets[0][0],
            status=status,
        )
    access_world.revoke(subscription)

    # Then the revoke is asked for, in the fixture's shape
    [revoke] = revoking.drain()
    revoke_fixture = json.loads((EVENTS / "subscription_grant_revoke_requested.json").read_text())
    assert shape(revoke["detail"]) == shape(revoke_fixture["detail"])
    assert revoke["detail-type"] == revoke_fixture["detail-type"]
    assert access_world.grant_of(published.datazone, subscription).assets[0][1] == "REVOKE_PENDING"
    assert [e.detail_type for e in published.datazone.emitted_events(world.DOMAIN_ID)] == [
        "Subscription Grant Requested",
        "Subscription Grant Completed",
        "Subscription Grant Revoke Requested",
    ]


def test_a_repeated_report_is_a_conflict_under_the_strict_reading(published: LocalAws):
    published.set_readings(grant_status_repeat_accepted=False)
    consumer = access_world.add_consumer(published.datazone, CONSUMER_PROJECT, [world_role()])
    grant = access_world.grant_of(
        published.datazone, access_world.subscribe(published.datazone, consumer, TOPIC)
    )
    datazone = boto3.client("datazone")
    report = {
        "domainIdentifier": world.DOMAIN_ID,
        "identifier": grant.id,
        "assetIdentifier": grant.assets[0][0],
    }
    datazone.update_subscription_grant_status(**report, status="GRANTED")

    with pytest.raises(ClientError) as refused:
        datazone.update_subscription_grant_status(**report, status="GRANTED")

    assert refused.value.response["Error"]["Code"] == "ConflictException"
    assert refused.value.response["ResponseMetadata"]["HTTPStatusCode"] == 409


def world_role() -> str:
    return f"arn:aws:iam::{world.ACCOUNT}:role/orders-consumer"


class TestTheModelIsEnforced:
    """What botocore's client lets through and the service refuses: the front door's checks."""

    @pytest.fixture
    def environment(self, local_aws: LocalAws) -> str:
        local_aws.datazone.add_domain(world.DOMAIN_ID, [CONSUMER_PROJECT])
        return str(local_aws.datazone.add_environment(world.DOMAIN_ID, CONSUMER_PROJECT))

    def target(self, environment: str, **overrides: Any) -> dict[str, Any]:
        from tests.integration.standins.conftest import NO_CLIENT_CHECKS

        request = {
            "domainIdentifier": world.DOMAIN_ID,
            "environmentIdentifier": environment,
            "name": "consumers",
            "type": "KafkaTopicSubscriptionTarget",
            "subscriptionTargetConfig": [{"formName": "KafkaTopicConsumers", "content": "{}"}],
            "authorizedPrincipals": [world_role()],
            "manageAccessRole": f"arn:aws:iam::{world.ACCOUNT}:role/service-role/manage",
            "applicableAssetTypes": ["KafkaTopicAssetType"],
            **overrides,
        }
        client = boto3.client("datazone", config=NO_CLIENT_CHECKS)
        return dict(client.create_subscription_target(**request))

    @pytest.mark.parametrize(
        ("overrides", "member"),
        [
            (
                {"authorizedPrincipals": [f"arn:aws:iam::{world.ACCOUNT}:role/r{n}" for n in range(21)]},
                "authorizedPrincipals",
            ),
            ({"manageAccessRole": "arn:aws:iam::123:role/short-account"}, "manageAccessRole"),
            ({"subscriptionGrantCreationMode": "SOMETIMES"}, "subscriptionGrantCreationMode"),
            ({"name": ""}, "name"),
        ],
    )
    def test_a_target_outside_the_model_is_a_validation_error(
        self, environment: str, overrides: dict[str, Any], member: str
    ):
        with pytest.raises(ClientError) as refused:
            self.target(environment, **overrides)

        assert refused.value.response["Error"]["Code"] == "ValidationException"
        assert f"'{member}" in refused.value.response["Error"]["Message"]

    def test_twenty_principals_with_weird_names_are_taken(self, environment: str):
        principals = [
            f"arn:aws:iam::{world.ACCOUNT}:role/team-{n}/__heartbeat.$consumer#{n}" for n in range(20)
        ]

        with pytest.raises(ClientError) as refused:
            self.target(environment, authorizedPrincipals=principals)
        assert refused.value.response["Error"]["Code"] == "ValidationException"  # '$' and '#': the pattern

        made = self.target(
            environment, authorizedPrincipals=[p.replace("$", "").replace("#", "") for p in principals]
        )
        assert len(made["authorizedPrincipals"]) == 20

    @pytest.mark.parametrize(
        ("operation", "params"),
        [
            ("list_subscription_grants", {"maxResults": 51}),
            ("get_subscription_grant", {"identifier": "grant$1"}),
            ("list_subscription_targets", {"environmentIdentifier": "e" * 37}),
            ("get_environment", {"identifier": "env#1"}),
        ],
    )
    def test_reads_outside_the_model_are_validation_errors(
        self, environment: str, operation: str, params: dict[str, Any]
    ):
        from tests.integration.standins.conftest import NO_CLIENT_CHECKS

        client = boto3.client("datazone", config=NO_CLIENT_CHECKS)
        with pytest.raises(ClientError) as refused:
            getattr(client, operation)(domainIdentifier=world.DOMAIN_ID, **params)
        assert refused.value.response["Error"]["Code"] == "ValidationException"

    def test_an_unknown_status_is_refused_before_the_stand_in(self, environment: str):
        from tests.integration.standins.conftest import NO_CLIENT_CHECKS

        client = boto3.client("datazone", config=NO_CLIENT_CHECKS)
        with pytest.raises(ClientError) as refused:
            client.update_subscription_grant_status(
                domainIdentifier=world.DOMAIN_ID, identifier="g1", assetIdentifier="a1", status="DONE"
            )
        assert refused.value.response["Error"]["Code"] == "ValidationException"
