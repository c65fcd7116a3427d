"""DataZone stand-in, access through the catalog: environments, subscription targets, subscription grants,
their status changes (and the readings that decide the undocumented ones), and the events put on the bus.
Every answer is checked against the operation's output shape in botocore's model."""

from __future__ import annotations

from typing import Any

import botocore.session
import pytest

from local.standins.datazone.grants import overall_status
from local.standins.datazone.records import GrantedAsset
from local.standins.errors import ServiceError
from local.standins.validation import problems_in
from tests.unit.standins.test_datazone_support import (
    ASSET_TYPE,
    DOMAIN,
    OTHER_PROJECT,
    PROJECT,
    World,
    create_topic_asset,
    kafka_world,
    world,
)

MODEL = botocore.session.get_session().get_service_model("datazone")
CONSUMER_ROLE = "arn:aws:iam::444455556666:role/analytics/orders-consumer"
MANAGE_ROLE = "arn:aws:iam::111122223333:role/service-role/datazone-manage-access"
TOPIC = "dbserver1.inventory.orders"


def valid(operation: str, answer: dict[str, Any]) -> dict[str, Any]:
    """The answer, once it satisfies the operation's output shape (required members, enums, patterns)."""
    problems = problems_in(MODEL.operation_model(operation).output_shape, answer)
    assert not problems, problems
    return answer


def call(w: World, operation: str, **params: Any) -> dict[str, Any]:
    return valid(operation, w.call(operation, **params))


def error_of(w: World, operation: str, **params: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        w.call(operation, **params)
    return caught.value


def target(w: World, environment: str, types: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    return call(
        w,
        "CreateSubscriptionTarget",
        environmentIdentifier=environment,
        name="kafka-consumers",
        type="KafkaTopicSubscriptionTarget",
        subscriptionTargetConfig=[{"formName": "KafkaConsumerForm", "content": "{}"}],
        authorizedPrincipals=[CONSUMER_ROLE],
        manageAccessRole=MANAGE_ROLE,
        applicableAssetTypes=types or [ASSET_TYPE],
        **extra,
    )


def consumer(**readings: Any) -> tuple[World, str, str, str]:
    """A published topic asset, and the other project with an environment and a target for its type:
    (world, asset id, listing id, target id)."""
    w = kafka_world(**readings)
    asset = create_topic_asset(w, TOPIC)
    listing = w.call(
        "CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH"
    )["listingId"]
    environment = w.backend.add_environment(DOMAIN, OTHER_PROJECT, account="444455556666")
    return w, asset["id"], listing, target(w, environment)["id"]


def subscribed(**readings: Any) -> tuple[World, str, str, str]:
    """(world, subscription id, grant id, asset id), the grant just requested."""
    w, asset_id, _, _ = consumer(**readings)
    subscription = w.backend.subscribe(DOMAIN, asset_id, OTHER_PROJECT)
    [grant] = w.backend.grants(DOMAIN)
    return w, subscription, grant.id, asset_id


def report(w: World, grant: str, asset: str, status: str, **extra: Any) -> dict[str, Any]:
    return call(
        w, "UpdateSubscriptionGrantStatus", identifier=grant, assetIdentifier=asset, status=status, **extra
    )


class TestEnvironmentsAndTargets:
    def test_given_an_environment_when_read_then_it_is_active_in_its_account_and_region(self):
        w = world()
        created = call(
            w,
            "CreateEnvironment",
            projectIdentifier=OTHER_PROJECT,
            name="analytics",
            environmentAccountIdentifier="444455556666",
            environmentAccountRegion="eu-central-1",
        )

        read = call(w, "GetEnvironment", identifier=created["id"])

        assert read["status"] == "ACTIVE"
        assert (read["awsAccountId"], read["awsAccountRegion"]) == ("444455556666", "eu-central-1")
        assert (read["projectId"], read["domainId"], read["provider"]) == (
            OTHER_PROJECT,
            DOMAIN,
            "Amazon DataZone",
        )

    def test_given_no_account_then_the_environment_is_in_the_domains(self):
        w = world()
        environment = w.backend.add_environment(DOMAIN, PROJECT)

        read = call(w, "GetEnvironment", identifier=environment)

        assert (read["awsAccountId"], read["awsAccountRegion"]) == ("123456789012", "eu-west-1")

    def test_a_v2_domain_refuses_a_blueprint_and_an_unknown_project_is_not_found(self):
        w = world()
        w.backend.add_domain("dzd_v2domain", [PROJECT], version="V2")
        with pytest.raises(ServiceError) as refused:
            w.backend.handle(
                "CreateEnvironment",
                {
                    "domainIdentifier": "dzd_v2domain",
                    "projectIdentifier": PROJECT,
                    "name": "tooling",
                    "environmentBlueprintIdentifier": "d6y5k8ahxwx4tj",
                },
            )
        assert refused.value.code == "ValidationException"
        assert error_of(w, "CreateEnvironment", projectIdentifier="nope", name="x").code == (
            "ResourceNotFoundException"
        )
        assert error_of(w, "GetEnvironment", identifier="nope").code == "ResourceNotFoundException"

    def test_given_targets_then_get_and_list_answer_them_per_environment(self):
        w = world()
        first = w.backend.add_environment(DOMAIN, OTHER_PROJECT)
        second = w.backend.add_environment(DOMAIN, OTHER_PROJECT)
        created = target(w, first, subscriptionGrantCreationMode="AUTOMATIC")
        target(w, second)

        read = call(w, "GetSubscriptionTarget", environmentIdentifier=first, identifier=created["id"])
        listed = call(w, "ListSubscriptionTargets", environmentIdentifier=first)

        assert read == created
        assert read["authorizedPrincipals"] == [CONSUMER_ROLE]
        assert (read["projectId"], read["environmentId"]) == (OTHER_PROJECT, first)
        assert [item["id"] for item in listed["items"]] == [created["id"]]
        missing = error_of(w, "GetSubscriptionTarget", environmentIdentifier=second, identifier=created["id"])
        assert missing.code == "ResourceNotFoundException"
        assert error_of(w, "ListSubscriptionTargets", environmentIdentifier="nope").code == (
            "ResourceNotFoundException"
        )


class TestGrantsOnApproval:
    def test_given_a_target_for_the_type_when_approved_then_a_pending_grant_and_its_event(self):
        w, asset_id, listing, target_id = consumer()

        subscription = w.backend.subscribe(DOMAIN, asset_id, OTHER_PROJECT)

        [view] = w.backend.grants(DOMAIN)
        grant = call(w, "GetSubscriptionGrant", identifier=view.id)
        assert grant["status"] == "PENDING"
        assert grant["subscriptionId"] == subscription
        assert grant["subscriptionTargetId"] == target_id
        assert grant["grantedEntity"] == {"listing": {"id": listing, "revision": "1"}}
        assert [(a["assetId"], a["assetRevision"], a["status"]) for a in grant["assets"]] == [
            (asset_id, "1", "GRANT_PENDING")
        ]
        [event] = w.backend.emitted_events(DOMAIN)
        assert (event.source, event.detail_type) == ("aws.datazone", "Subscription Grant Requested")
        assert event.detail == {
            "metadata": {"id": view.id, "domain": DOMAIN},
            "data": {
                "asset": {"listingId": listing, "listingVersion": "1", "typeName": ASSET_TYPE},
                "subscriptionTarget": {"id": target_id, "environmentId": grant["environmentId"]},
                "projectId": OTHER_PROJECT,
            },
        }

    def test_only_the_subscribers_targets_for_the_type_in_automatic_mode_get_grants(self):
        w, asset_id, _, wanted = consumer()
        other_type = w.backend.add_environment(DOMAIN, OTHER_PROJECT)
        target(w, other_type, ["GlueTableAssetType"])
        manual = w.backend.add_environment(DOMAIN, OTHER_PROJECT)
        target(w, manual, subscriptionGrantCreationMode="MANUAL")
        owners = w.backend.add_environment(DOMAIN, PROJECT)
        target(w, owners)

        w.backend.subscribe(DOMAIN, asset_id, OTHER_PROJECT)

        assert [g.target_id for g in w.backend.grants(DOMAIN)] == [wanted]

    def test_a_subscriber_without_a_target_gets_no_grant_and_no_event(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        w.call("CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH")

        w.backend.subscribe(DOMAIN, asset["id"], OTHER_PROJECT)

        assert w.backend.grants(DOMAIN) == []
        assert w.backend.emitted_events(DOMAIN) == []


class TestReportingStatus:
    def test_in_progress_then_granted_completes_the_grant_with_one_completed_event(self):
        w, _, grant, asset = subscribed()

        moving = report(w, grant, asset, "GRANT_IN_PROGRESS")
        done = report(w, grant, asset, "GRANTED", targetName="orders-consumer")

        assert moving["status"] == "IN_PROGRESS"
        assert done["status"] == "COMPLETED"
        [granted] = done["assets"]
        assert (granted["status"], granted["targetName"]) == ("GRANTED", "orders-consumer")
        assert "grantedTimestamp" in granted
        assert [e.detail_type for e in w.backend.emitted_events(DOMAIN)] == [
            "Subscription Grant Requested",
            "Subscription Grant Completed",
        ]

    def test_a_failure_keeps_its_cause_and_puts_a_failed_event(self):
        w, _, grant, asset = subscribed()
        report(w, grant, asset, "GRANT_IN_PROGRESS")
        cause = "role orders-consumer does not match consumerRoles"

        failed = report(w, grant, asset, "GRANT_FAILED", failureCause={"message": cause})

        assert failed["status"] == "GRANT_FAILED"
        assert failed["assets"][0]["failureCause"] == {"message": cause}
        assert "failureTimestamp" in failed["assets"][0]
        assert w.backend.emitted_events(DOMAIN)[-1].detail_type == "Subscription Grant Failed"

    @pytest.mark.parametrize("accepted", [True, False])
    def test_a_repeated_status_follows_its_reading(self, accepted: bool):
        w, _, grant, asset = subscribed(grant_status_repeat_accepted=accepted)
        report(w, grant, asset, "GRANT_IN_PROGRESS")
        report(w, grant, asset, "GRANTED")
        events = len(w.backend.emitted_events(DOMAIN))

        if accepted:
            assert report(w, grant, asset, "GRANTED")["status"] == "COMPLETED"
            assert len(w.backend.emitted_events(DOMAIN)) == events  # no second Completed
        else:
            error = error_of(
                w, "UpdateSubscriptionGrantStatus", identifier=grant, assetIdentifier=asset, status="GRANTED"
            )
            assert error.code == "ConflictException"
            assert "from GRANTED to GRANTED" in error.message

    @pytest.mark.parametrize("accepted", [True, False])
    def test_a_retry_after_a_failure_follows_its_reading(self, accepted: bool):
        w, _, grant, asset = subscribed(grant_status_retry_after_failure=accepted)
        report(w, grant, asset, "GRANT_FAILED", failureCause={"message": "IAM throttled"})

        if accepted:
            retried = report(w, grant, asset, "GRANT_IN_PROGRESS")
            assert retried["status"] == "IN_PROGRESS"
            assert "failureCause" not in retried["assets"][0]
        else:
            error = error_of(
                w,
                "UpdateSubscriptionGrantStatus",
                identifier=grant,
                assetIdentifier=asset,
                status="GRANT_IN_PROGRESS",
            )
            assert error.code == "ConflictException"

    @pytest.mark.parametrize("accepted", [True, False])
    def test_skipping_in_progress_follows_its_reading(self, accepted: bool):
        w, _, grant, asset = subscribed(grant_status_skips_in_progress=accepted)

        if accepted:
            assert report(w, grant, asset, "GRANTED")["status"] == "COMPLETED"
        else:
            error = error_of(
                w, "UpdateSubscriptionGrantStatus", identifier=grant, assetIdentifier=asset, status="GRANTED"
            )
            assert error.code == "ConflictException"

    @pytest.mark.parametrize(
        ("refusal", "code"), [("conflict", "ConflictException"), ("validation", "ValidationException")]
    )
    @pytest.mark.parametrize(
        ("steps", "refused"),
        [
            (["GRANT_IN_PROGRESS", "GRANTED"], "REVOKE_IN_PROGRESS"),  # a revoke is DataZone's to request
            (["GRANT_IN_PROGRESS", "GRANTED"], "GRANT_IN_PROGRESS"),  # no way back from finished
            ([], "REVOKED"),
            (["GRANT_IN_PROGRESS"], "GRANT_PENDING"),  # pending is DataZone's to set
        ],
    )
    def test_changes_outside_the_path_are_always_refused(
        self, steps: list[str], refused: str, refusal: str, code: str
    ):
        w, _, grant, asset = subscribed(grant_status_refusal=refusal)
        for step in steps:
            report(w, grant, asset, step)

        error = error_of(
            w, "UpdateSubscriptionGrantStatus", identifier=grant, assetIdentifier=asset, status=refused
        )

        assert error.code == code

    def test_an_unknown_grant_or_asset_is_not_found(self):
        w, _, grant, asset = subscribed()
        for identifier, asset_id in (("nope", asset), (grant, "nope")):
            error = error_of(
                w,
                "UpdateSubscriptionGrantStatus",
                identifier=identifier,
                assetIdentifier=asset_id,
                status="GRANT_IN_PROGRESS",
            )
            assert error.code == "ResourceNotFoundException"


class TestRevoking:
    @pytest.mark.parametrize("operation", ["RevokeSubscription", "CancelSubscription"])
    def test_ending_the_subscription_asks_for_the_revoke(self, operation: str):
        w, subscription, grant, asset = subscribed()
        report(w, grant, asset, "GRANT_IN_PROGRESS")
        report(w, grant, asset, "GRANTED")

        w.call(operation, identifier=subscription)

        pending = call(w, "GetSubscriptionGrant", identifier=grant)
        assert (pending["status"], pending["assets"][0]["status"]) == ("PENDING", "REVOKE_PENDING")
        assert w.backend.emitted_events(DOMAIN)[-1].detail_type == "Subscription Grant Revoke Requested"
        report(w, grant, asset, "REVOKE_IN_PROGRESS")
        done = report(w, grant, asset, "REVOKED")
        assert done["status"] == "COMPLETED"
        assert w.backend.emitted_events(DOMAIN)[-1].detail_type == "Subscription Grant Revoke Completed"

    def test_a_revoke_that_overtakes_a_grant_in_progress_refuses_its_granted_report(self):
        # Given a fulfiller halfway through a grant when the owner revokes
        w, subscription, grant, asset = subscribed()
        report(w, grant, asset, "GRANT_IN_PROGRESS")
        w.call("RevokeSubscription", identifier=subscription)

        # When it reports the grant done
        error = error_of(
            w, "UpdateSubscriptionGrantStatus", identifier=grant, assetIdentifier=asset, status="GRANTED"
        )

        # Then DataZone refuses: the asset waits for its revoke, which the fulfiller must now carry out
        assert error.code == "ConflictException"
        assert call(w, "GetSubscriptionGrant", identifier=grant)["assets"][0]["status"] == "REVOKE_PENDING"
        assert report(w, grant, asset, "REVOKE_IN_PROGRESS")["status"] == "IN_PROGRESS"

    def test_retaining_permissions_asks_for_no_revoke(self):
        w, subscription, grant, asset = subscribed()
        report(w, grant, asset, "GRANTED")
        events = len(w.backend.emitted_events(DOMAIN))

        w.call("RevokeSubscription", identifier=subscription, retainPermissions=True)

        assert call(w, "GetSubscriptionGrant", identifier=grant)["assets"][0]["status"] == "GRANTED"
        assert len(w.backend.emitted_events(DOMAIN)) == events

    def test_a_failed_grant_is_revoked_too_and_a_failed_revoke_is_reported(self):
        w, subscription, grant, asset = subscribed()
        report(w, grant, asset, "GRANT_FAILED", failureCause={"message": "boundary denies kafka-cluster:*"})

        w.call("RevokeSubscription", identifier=subscription)
        failed = report(w, grant, asset, "REVOKE_FAILED", failureCause={"message": "IAM unavailable"})

        assert failed["status"] == "REVOKE_FAILED"
        assert w.backend.emitted_events(DOMAIN)[-1].detail_type == "Subscription Grant Revoke Failed"


@pytest.mark.parametrize(
    ("statuses", "overall"),
    [
        (["GRANT_PENDING"], "PENDING"),
        (["GRANT_PENDING", "REVOKE_PENDING"], "PENDING"),
        (["GRANT_PENDING", "GRANTED"], "IN_PROGRESS"),
        (["GRANT_IN_PROGRESS"], "IN_PROGRESS"),
        (["GRANTED", "REVOKED"], "COMPLETED"),
        (["GRANTED", "GRANT_FAILED"], "GRANT_FAILED"),
        (["REVOKED", "REVOKE_FAILED"], "REVOKE_FAILED"),
        (["GRANT_FAILED", "REVOKE_FAILED"], "GRANT_AND_REVOKE_FAILED"),
    ],
)
def test_a_grants_overall_status_is_derived_from_its_assets(statuses: list[str], overall: str):
    assert overall_status([GrantedAsset(f"a{i}", "1", s) for i, s in enumerate(statuses)]) == overall


class TestListingAndManualGrants:
    def test_list_filters_by_target_listing_subscription_and_project_and_pages(self):
        w, asset_id, listing, target_id = consumer()
        subscription = w.backend.subscribe(DOMAIN, asset_id, OTHER_PROJECT)
        second = create_topic_asset(w, "dbserver1.inventory.customers")
        w.call("CreateListingChangeSet", entityIdentifier=second["id"], entityType="ASSET", action="PUBLISH")
        w.backend.subscribe(DOMAIN, second["id"], OTHER_PROJECT)

        def ids(**filters: Any) -> list[str]:
            return [g["id"] for g in call(w, "ListSubscriptionGrants", **filters)["items"]]

        everything = ids()
        assert len(everything) == 2
        assert len(ids(subscribedListingId=listing)) == 1
        assert ids(subscriptionId=subscription) == ids(subscribedListingId=listing)
        assert ids(subscriptionTargetId=target_id, owningProjectId=OTHER_PROJECT) == everything
        assert ids(owningProjectId=PROJECT) == []
        assert ids(owningIamPrincipalArn=CONSUMER_ROLE) == []
        assert ids(sortOrder="DESCENDING") == everything[::-1]
        first = call(w, "ListSubscriptionGrants", maxResults=1)
        rest = call(w, "ListSubscriptionGrants", maxResults=1, nextToken=first["nextToken"])
        assert [g["id"] for g in first["items"] + rest["items"]] == everything

    def test_a_manual_target_gets_a_grant_only_when_asked_and_only_for_a_subscription(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        listing = w.call(
            "CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH"
        )["listingId"]
        environment = w.backend.add_environment(DOMAIN, OTHER_PROJECT)
        manual = target(w, environment, subscriptionGrantCreationMode="MANUAL")["id"]
        ask = {
            "environmentIdentifier": environment,
            "subscriptionTargetIdentifier": manual,
            "grantedEntity": {"listing": {"identifier": listing, "revision": "1"}},
            "assetTargetNames": [{"assetId": asset["id"], "targetName": "orders"}],
        }
        assert error_of(w, "CreateSubscriptionGrant", **ask).code == "ValidationException"

        w.backend.subscribe(DOMAIN, asset["id"], OTHER_PROJECT)
        assert w.backend.grants(DOMAIN) == []
        created = call(w, "CreateSubscriptionGrant", **ask)

        assert created["status"] == "PENDING"
        assert created["assets"][0]["targetName"] == "orders"
        assert w.backend.emitted_events(DOMAIN)[-1].detail["metadata"]["id"] == created["id"]


class TestDataProducts:
    def product(self, **readings: Any) -> tuple[World, str, list[str], str]:
        """A data product of two published topics, and a consumer's target for their type:
        (world, product listing id, topic asset ids, target id)."""
        w, first, _, target_id = consumer(**readings)
        second = create_topic_asset(w, "dbserver1.inventory.customers")["id"]
        w.call("CreateListingChangeSet", entityIdentifier=second, entityType="ASSET", action="PUBLISH")
        listing = w.backend.add_data_product(DOMAIN, "inventory", PROJECT, [first, second])
        return w, listing, [first, second], target_id

    def test_a_product_listing_lists_its_assets_listings(self):
        w, listing, topics, _ = self.product()

        read = call(w, "GetListing", identifier=listing)

        product = read["item"]["dataProductListing"]
        assert product["owningProjectId"] == PROJECT
        assert [item["listingId"] for item in product["items"]] == [
            w.call("GetAsset", identifier=t)["listing"]["listingId"] for t in topics
        ]

    @pytest.mark.parametrize(("reading", "type_name"), [("product", "DataProduct"), ("asset", ASSET_TYPE)])
    def test_a_subscription_to_a_product_gets_one_grant_with_every_asset(self, reading: str, type_name: str):
        w, listing, topics, target_id = self.product(data_product_event_type_name=reading)

        subscription = w.backend.subscribe_listing(DOMAIN, listing, OTHER_PROJECT)

        [view] = w.backend.grants(DOMAIN)
        grant = call(w, "GetSubscriptionGrant", identifier=view.id)
        assert grant["grantedEntity"]["listing"]["id"] == listing
        assert [(a["assetId"], a["status"]) for a in grant["assets"]] == [
            (t, "GRANT_PENDING") for t in topics
        ]
        assert call(w, "GetSubscription", identifier=subscription)["subscribedListing"]["item"][
            "productListing"
        ]
        event = w.backend.emitted_events(DOMAIN)[-1]
        assert event.detail["data"]["asset"]["typeName"] == type_name
        assert event.detail["data"]["subscriptionTarget"]["id"] == target_id

    def test_each_asset_of_a_product_grant_is_reported_on_its_own(self):
        w, listing, topics, _ = self.product()
        w.backend.subscribe_listing(DOMAIN, listing, OTHER_PROJECT)
        [view] = w.backend.grants(DOMAIN)

        report(w, view.id, topics[0], "GRANTED")
        partly = call(w, "GetSubscriptionGrant", identifier=view.id)
        report(w, view.id, topics[1], "GRANT_FAILED", failureCause={"message": "quota"})
        mixed = call(w, "GetSubscriptionGrant", identifier=view.id)

        assert partly["status"] == "IN_PROGRESS"
        assert mixed["status"] == "GRANT_FAILED"
        assert [a["status"] for a in mixed["assets"]] == ["GRANTED", "GRANT_FAILED"]

    def test_a_product_of_an_unpublished_asset_is_refused(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        with pytest.raises(ValueError, match="not published"):
            w.backend.add_data_product(DOMAIN, "inventory", PROJECT, [asset["id"]])
