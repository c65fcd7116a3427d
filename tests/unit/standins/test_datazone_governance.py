"""DataZone stand-in, governed domains: publishing rules, glossary terms, extra metadata forms,
subscriptions, and deleting an asset with its listing (refused while subscribed)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from local.standins.errors import ServiceError
from tests.unit.standins.test_datazone_support import (
    ASSET_TYPE,
    DOMAIN,
    OTHER_PROJECT,
    PROJECT,
    World,
    create_topic_asset,
    kafka_forms,
    kafka_world,
)

TOPIC = "dbserver1.inventory.orders"
OWNERSHIP_MODEL = """
namespace governance
structure DataOwnershipForm {
    @required
    owner: String
    steward: String
}
"""


def error_of(w: World, operation: str, **params: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        w.call(operation, **params)
    return caught.value


def publish(w: World, asset_id: str, **params: Any) -> dict[str, Any]:
    return w.call(
        "CreateListingChangeSet", entityIdentifier=asset_id, entityType="ASSET", action="PUBLISH", **params
    )


def ownership_form_type(w: World) -> str:
    w.call(
        "CreateFormType",
        name="DataOwnershipForm",
        model={"smithy": OWNERSHIP_MODEL},
        owningProjectIdentifier=PROJECT,
        status="ENABLED",
    )
    return str(w.call("GetFormType", formTypeIdentifier="DataOwnershipForm")["revision"])


def root(w: World) -> str:
    return w.backend.root_domain_unit(DOMAIN)


def form_rule(
    w: World, revision: str, unit: str | None = None, cascade: bool = False, **scope: Any
) -> dict[str, Any]:
    return w.call(
        "CreateRule",
        name="ownership required",
        target={"domainUnitTarget": {"domainUnitId": unit or root(w), "includeChildDomainUnits": cascade}},
        action="CREATE_LISTING_CHANGE_SET",
        scope=scope or {"assetType": {"selectionMode": "ALL"}, "project": {"selectionMode": "ALL"}},
        detail={
            "metadataFormEnforcementDetail": {
                "requiredMetadataForms": [{"typeIdentifier": "DataOwnershipForm", "typeRevision": revision}]
            }
        },
    )


def glossary_term(w: World, name: str = "Customer data") -> str:
    glossary = w.call("CreateGlossary", name="Business", owningProjectIdentifier=PROJECT)
    return str(w.call("CreateGlossaryTerm", glossaryIdentifier=glossary["id"], name=name)["id"])


def ownership(owner: str = "team-cdc") -> dict[str, Any]:
    return {
        "formName": "Ownership",
        "typeIdentifier": "DataOwnershipForm",
        "content": json.dumps({"owner": owner}),
    }


class TestExtraFormsAndTerms:
    def test_given_an_extra_form_of_an_existing_type_then_the_asset_carries_it_validated(self):
        w = kafka_world()
        revision = ownership_form_type(w)
        created = create_topic_asset(w, TOPIC, formsInput=[*kafka_forms(TOPIC), ownership()])
        forms = {f["formName"]: f for f in created["formsOutput"]}
        assert (forms["Ownership"]["typeName"], forms["Ownership"]["typeRevision"]) == (
            "DataOwnershipForm",
            revision,
        )
        assert json.loads(forms["Ownership"]["content"]) == {"owner": "team-cdc"}

    def test_given_extra_form_content_its_model_refuses_then_validation_names_the_member(self):
        w = kafka_world()
        ownership_form_type(w)
        bad = {**ownership(), "content": json.dumps({"steward": "x"})}
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=[*kafka_forms(TOPIC), bad],
        )
        assert error.code == "ValidationException"
        assert "owner" in error.message

    def test_given_an_extra_form_of_an_unknown_type_then_validation(self):
        w = kafka_world()
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=[*kafka_forms(TOPIC), ownership()],
        )
        assert (error.code, "DataOwnershipForm" in error.message) == ("ValidationException", True)

    def test_given_a_known_glossary_term_then_create_and_revision_carry_it(self):
        w = kafka_world()
        term = glossary_term(w)
        created = create_topic_asset(w, TOPIC, glossaryTerms=[term])
        assert created["glossaryTerms"] == [term]
        revised = w.call(
            "CreateAssetRevision",
            identifier=created["id"],
            name=TOPIC,
            formsInput=kafka_forms(TOPIC),
            glossaryTerms=[term],
        )
        assert revised["glossaryTerms"] == [term]
        assert w.backend.assets(DOMAIN)[0].glossary_terms == (term,)

    def test_given_a_disabled_term_then_validation(self):
        w = kafka_world()
        glossary = w.call("CreateGlossary", name="Business", owningProjectIdentifier=PROJECT)
        term = w.call("CreateGlossaryTerm", glossaryIdentifier=glossary["id"], name="Old", status="DISABLED")[
            "id"
        ]
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=kafka_forms(TOPIC),
            glossaryTerms=[term],
        )
        assert error.code == "ValidationException"


class TestRules:
    def test_given_a_form_rule_then_a_publish_without_the_form_is_refused_naming_the_rule(self):
        # Given a rule requiring the ownership form, and an asset without it
        w = kafka_world()
        rule = form_rule(w, ownership_form_type(w))
        asset = create_topic_asset(w, TOPIC)
        # When it is published, Then the refusal names the rule and leaves the asset unlisted
        error = error_of(
            w, "CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH"
        )
        assert error.code == "ValidationException"
        assert "'ownership required'" in error.message
        assert rule["identifier"] in error.message
        assert "DataOwnershipForm revision 1" in error.message
        assert w.backend.listings(DOMAIN) == []
        # And once a revision carries the form, the publish goes through
        revised = w.call(
            "CreateAssetRevision",
            identifier=asset["id"],
            name=TOPIC,
            formsInput=[*kafka_forms(TOPIC), ownership()],
        )
        assert publish(w, asset["id"], entityRevision=revised["revision"])["status"] == "ACTIVE"

    def test_given_the_reading_that_names_no_rule_then_the_message_is_generic(self):
        w = kafka_world(rule_refusal_names_rule=False)
        form_rule(w, ownership_form_type(w))
        asset = create_topic_asset(w, TOPIC)
        error = error_of(
            w, "CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH"
        )
        assert error.code == "ValidationException"
        assert "ownership required" not in error.message

    def test_a_rule_scoped_to_another_project_or_type_does_not_apply(self):
        w = kafka_world()
        revision = ownership_form_type(w)
        form_rule(w, revision, project={"selectionMode": "SPECIFIC", "specificProjects": [OTHER_PROJECT]})
        form_rule(w, revision, assetType={"selectionMode": "SPECIFIC", "specificAssetTypes": ["OtherType"]})
        asset = create_topic_asset(w, TOPIC)
        assert publish(w, asset["id"])["status"] == "ACTIVE"

    @pytest.mark.parametrize(("requires", "published"), [("all", False), ("any", True)])
    def test_a_glossary_rule_needs_all_or_any_of_its_terms_by_the_reading(
        self, requires: str, published: bool
    ):
        w = kafka_world(glossary_rule_requires=requires)
        glossary = w.call("CreateGlossary", name="Business", owningProjectIdentifier=PROJECT)
        one, two = (
            w.call("CreateGlossaryTerm", glossaryIdentifier=glossary["id"], name=n)["id"] for n in "ab"
        )
        w.call(
            "CreateRule",
            name="terms required",
            target={"domainUnitTarget": {"domainUnitId": root(w)}},
            action="CREATE_LISTING_CHANGE_SET",
            scope={"assetType": {"selectionMode": "ALL"}},
            detail={"glossaryTermEnforcementDetail": {"requiredGlossaryTermIds": [one, two]}},
        )
        asset = create_topic_asset(w, TOPIC, glossaryTerms=[one])
        if published:
            assert publish(w, asset["id"])["status"] == "ACTIVE"
        else:
            error = error_of(
                w,
                "CreateListingChangeSet",
                entityIdentifier=asset["id"],
                entityType="ASSET",
                action="PUBLISH",
            )
            assert two in error.message

    def test_a_rule_on_another_unit_does_not_apply_and_a_parents_applies_only_when_it_cascades(self):
        w = kafka_world()
        revision = ownership_form_type(w)
        w.backend.add_domain_unit(DOMAIN, "unit_sales")
        w.backend.add_domain_unit(DOMAIN, "unit_cdc")
        w.backend.add_project(DOMAIN, "prj_cdc", domain_unit="unit_cdc")
        form_rule(w, revision, unit="unit_sales")
        form_rule(w, revision)  # on the root unit, not cascading
        asset = create_topic_asset(w, TOPIC, owningProjectIdentifier="prj_cdc")
        assert publish(w, asset["id"])["status"] == "ACTIVE"
        form_rule(w, revision, cascade=True)
        revised = w.call(
            "CreateAssetRevision", identifier=asset["id"], name=TOPIC, formsInput=kafka_forms(TOPIC)
        )
        error = error_of(
            w,
            "CreateListingChangeSet",
            entityIdentifier=asset["id"],
            entityType="ASSET",
            action="PUBLISH",
            entityRevision=revised["revision"],
        )
        assert error.code == "ValidationException"
        cascaded = w.call(
            "ListRules", targetType="DOMAIN_UNIT", targetIdentifier="unit_cdc", includeCascaded=True
        )
        assert len(cascaded["items"]) == 1
        assert w.call("ListRules", targetType="DOMAIN_UNIT", targetIdentifier="unit_cdc")["items"] == []

    def test_list_and_get_rules_by_domain_unit_and_filters(self):
        w = kafka_world()
        rule = form_rule(w, ownership_form_type(w))
        listed = w.call(
            "ListRules",
            targetType="DOMAIN_UNIT",
            targetIdentifier=root(w),
            action="CREATE_LISTING_CHANGE_SET",
            projectIds=[PROJECT],
            assetTypes=[ASSET_TYPE],
        )["items"]
        assert [item["identifier"] for item in listed] == [rule["identifier"]]
        assert listed[0]["ruleType"] == "METADATA_FORM_ENFORCEMENT"
        assert w.call("ListRules", targetType="DOMAIN_UNIT", targetIdentifier="other_unit")["items"] == []
        got = w.call("GetRule", identifier=rule["identifier"])
        assert (got["name"], got["revision"]) == ("ownership required", "1")

    def test_a_rule_on_a_form_type_revision_that_does_not_exist_is_refused(self):
        w = kafka_world()
        error = error_of(
            w,
            "CreateRule",
            name="bad",
            target={"domainUnitTarget": {"domainUnitId": root(w)}},
            action="CREATE_LISTING_CHANGE_SET",
            scope={},
            detail={
                "metadataFormEnforcementDetail": {
                    "requiredMetadataForms": [{"typeIdentifier": "Nope", "typeRevision": "1"}]
                }
            },
        )
        assert error.code == "ValidationException"


class TestSubscriptionsAndDeletion:
    def subscribed(self, **readings: Any) -> tuple[World, str, str, str]:
        w = kafka_world(**readings)
        asset = create_topic_asset(w, TOPIC)
        listing = publish(w, asset["id"])["listingId"]
        subscription = w.backend.subscribe(DOMAIN, asset["id"], OTHER_PROJECT)
        return w, asset["id"], listing, subscription

    def test_list_subscriptions_filters_by_listing_and_status(self):
        w, _, listing, subscription = self.subscribed()
        approved = w.call("ListSubscriptions", subscribedListingId=listing, status="APPROVED")["items"]
        assert [s["id"] for s in approved] == [subscription]
        assert approved[0]["subscribedListing"]["id"] == listing
        assert approved[0]["subscribedPrincipal"] == {"project": {"id": OTHER_PROJECT}}
        assert w.call("ListSubscriptions", subscribedListingId=listing, status="REVOKED")["items"] == []
        assert w.call("ListSubscriptions", subscribedListingId="someother")["items"] == []

    @pytest.mark.parametrize(
        ("refusal", "code"), [("conflict", "ConflictException"), ("validation", "ValidationException")]
    )
    def test_delete_is_refused_while_the_listing_has_an_approved_subscription(self, refusal: str, code: str):
        w, asset_id, listing, subscription = self.subscribed(subscribed_delete_refusal=refusal)
        error = error_of(w, "DeleteAsset", identifier=asset_id)
        assert error.code == code
        assert "1 subscription" in error.message
        # Once the subscription is revoked, the asset goes, its listing with it
        w.call("RevokeSubscription", identifier=subscription)
        assert w.call("DeleteAsset", identifier=asset_id) == {}
        assert error_of(w, "GetListing", identifier=listing).code == "ResourceNotFoundException"
        assert w.backend.assets(DOMAIN) == []

    def test_a_cancelled_subscription_no_longer_holds_the_asset(self):
        w, asset_id, _, subscription = self.subscribed()
        assert w.call("CancelSubscription", identifier=subscription)["status"] == "CANCELLED"
        assert w.call("DeleteAsset", identifier=asset_id) == {}

    def test_nobody_subscribes_to_an_unpublished_asset(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        with pytest.raises(ValueError, match="no listing"):
            w.backend.subscribe(DOMAIN, asset["id"], OTHER_PROJECT)

    def test_a_request_is_accepted_once(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        listing = publish(w, asset["id"])["listingId"]
        request = w.call(
            "CreateSubscriptionRequest",
            subscribedPrincipals=[{"project": {"identifier": OTHER_PROJECT}}],
            subscribedListings=[{"identifier": listing}],
            requestReason="analytics",
        )
        assert request["status"] == "PENDING"
        assert w.call("AcceptSubscriptionRequest", identifier=request["id"])["status"] == "ACCEPTED"
        assert error_of(w, "AcceptSubscriptionRequest", identifier=request["id"]).code == "ConflictException"


@pytest.mark.parametrize(
    ("answer", "code"),
    [
        ("not_found", "ResourceNotFoundException"),
        ("conflict", "ConflictException"),
        ("validation", "ValidationException"),
        ("accepted", None),
    ],
)
def test_unpublishing_a_never_published_asset_answers_by_the_reading(answer: str, code: str | None) -> None:
    w = kafka_world(unpublish_unlisted=answer)
    asset = create_topic_asset(w, TOPIC)
    params = {"entityIdentifier": asset["id"], "entityType": "ASSET", "action": "UNPUBLISH"}
    if code is None:
        assert w.call("CreateListingChangeSet", **params)["status"] == "INACTIVE"
    else:
        assert error_of(w, "CreateListingChangeSet", **params).code == code
    assert w.backend.listings(DOMAIN) == []
