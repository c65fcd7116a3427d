"""DataZone stand-in: CreateAsset, GetAsset, CreateAssetRevision, DeleteAsset."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from local.standins.errors import ServiceError
from tests.unit.standins.test_datazone_support import (
    ASSET_TYPE,
    DOMAIN,
    PROJECT,
    World,
    create_topic_asset,
    kafka_forms,
    kafka_world,
    schema_arn,
)

TOPIC = "dbserver1.inventory.orders"
ASSET_ID = re.compile(r"[a-zA-Z0-9_-]{1,36}")
# Registry and schema names may hold `$ # . - _` and run to 255 characters.
WEIRD_NAMES = [
    ("cdc", "__debezium-heartbeat.dbserver1"),
    ("reg$with#odd.chars-_", "topic$v1#x.y-z_"),
    ("r" * 255, "s" * 255),
    ("r" * 255, "s" * 254 + "$"),
]


def error_of(w: World, operation: str, **params: Any) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        w.call(operation, **params)
    return caught.value


def forms_with(form_name: str, content: Any, topic: str = TOPIC) -> list[dict[str, Any]]:
    """The valid forms of `topic`, one of them replaced by `content` (a dict or raw text)."""
    forms = kafka_forms(topic)
    for form in forms:
        if form["formName"] == form_name:
            form["content"] = content if isinstance(content, str) else json.dumps(content)
    return forms


def schema_form(**changes: Any) -> dict[str, Any]:
    content = json.loads(kafka_forms(TOPIC)[0]["content"])
    content.update(changes)
    return {k: v for k, v in content.items() if v is not None}


class TestCreateAsset:
    def test_given_valid_forms_when_created_then_the_output_follows_create_asset_output(self):
        # Given
        w = kafka_world()
        # When
        created = create_topic_asset(w, TOPIC, description="Orders topic")
        # Then
        assert ASSET_ID.fullmatch(created["id"])
        assert created["revision"] == "1"
        assert (created["name"], created["description"]) == (TOPIC, "Orders topic")
        assert (created["typeIdentifier"], created["typeRevision"]) == (ASSET_TYPE, "1")
        assert created["externalIdentifier"] == schema_arn("cdc", TOPIC)
        assert (created["owningProjectId"], created["domainId"]) == (PROJECT, DOMAIN)
        assert created["createdAt"] == created["firstRevisionCreatedAt"]
        assert created["createdAt"].tzinfo is not None
        assert "listing" not in created
        forms = {f["formName"]: f for f in created["formsOutput"]}
        assert forms["AssetCommonDetailsForm"]["typeName"] == "amazon.datazone.AssetCommonDetailsFormType"
        assert forms["AssetCommonDetailsForm"]["typeRevision"] == "6"
        assert forms["KafkaSchemaFormType"]["typeName"] == "KafkaSchemaFormType"
        assert json.loads(forms["KafkaSchemaFormType"]["content"])["kafka_topic"] == TOPIC

    def test_given_a_missing_required_member_then_the_message_names_form_and_field(self):
        w = kafka_world()
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms_with("KafkaSchemaFormType", schema_form(kafka_topic=None)),
        )
        assert (error.code, error.status) == ("ValidationException", 400)
        assert error.message == "$.KafkaSchemaFormType.kafka_topic: is missing but it is required"
        assert w.backend.assets(DOMAIN) == []

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            (
                schema_form(version_count="3"),
                "$.KafkaSchemaFormType.version_count: string found, integer expected",
            ),
            (
                schema_form(schema_version=2),
                "$.KafkaSchemaFormType.schema_version: integer found, string expected",
            ),
            (
                schema_form(schema_versions=[{"version_number": 1}]),
                "$.KafkaSchemaFormType.schema_versions[0].registered_at: is missing but it is required",
            ),
            (
                schema_form(schema_versions={"v": 1}),
                "$.KafkaSchemaFormType.schema_versions: object found, array expected",
            ),
            ("[]", "$.KafkaSchemaFormType: array found, object expected"),
            ("{not json", "Form KafkaSchemaFormType content is not valid JSON"),
        ],
    )
    def test_given_content_that_breaks_the_model_then_validation_names_the_path(self, content, message):
        w = kafka_world()
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms_with("KafkaSchemaFormType", content),
        )
        assert error.code == "ValidationException"
        assert error.message == message

    def test_given_an_undeclared_member_then_it_is_rejected_under_the_strict_reading_only(self):
        forms = forms_with(
            "MskSourceReferenceFormType",
            {"cluster_arn": "arn:aws:kafka:x", "cluster_type": "MSK", "bootstrap": "b-1:9098"},
        )
        strict = kafka_world()
        error = error_of(
            strict,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert error.message.startswith(
            "$.MskSourceReferenceFormType.bootstrap: is not defined in the schema"
        )
        lenient = kafka_world(reject_unknown_form_members=False)
        created = lenient.call(
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert created["revision"] == "1"

    def test_given_a_managed_form_with_bad_columns_then_the_nested_path_is_named(self):
        w = kafka_world()
        table = {
            "tableName": TOPIC,
            "columns": [{"columnName": "id", "dataType": "long"}, {"columnName": "x"}],
        }
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms_with("RelationalTableForm", table),
        )
        assert error.message == "$.RelationalTableForm.columns[1].dataType: is missing but it is required"

    def test_given_content_over_300000_characters_then_validation_error(self):
        w = kafka_world()
        big = schema_form(parse_warning="x" * 300_000)
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms_with("KafkaSchemaFormType", big),
        )
        assert error.code == "ValidationException"
        assert "at most 300000" in error.message

    def test_given_content_of_exactly_300000_characters_then_it_is_accepted(self):
        w = kafka_world()
        base = json.dumps(schema_form(parse_warning=""))
        exact = base.replace('"parse_warning": ""', '"parse_warning": "' + "x" * (300_000 - len(base)) + '"')
        assert len(exact) == 300_000
        created = w.call(
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms_with("KafkaSchemaFormType", exact),
        )
        assert created["revision"] == "1"

    def test_given_more_than_10_forms_then_validation_error(self):
        w = kafka_world()
        forms = kafka_forms(TOPIC) * 3  # 12 forms
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert "at most 10 forms" in error.message

    def test_given_a_form_the_asset_type_lacks_and_no_type_then_validation_error(self):
        # An extra metadata form (beyond the asset type's) must name its form type.
        w = kafka_world()
        forms = [*kafka_forms(TOPIC), {"formName": "Extra", "content": "{}"}]
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert error.message == (
            f"Form Extra is not defined in asset type {ASSET_TYPE}@1; an extra form needs a typeIdentifier"
        )

    def test_given_a_required_form_left_out_then_the_message_names_it(self):
        w = kafka_world()
        forms = [f for f in kafka_forms(TOPIC) if f["formName"] != "MskSourceReferenceFormType"]
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert error.message == (
            f"Form MskSourceReferenceFormType is required by asset type {ASSET_TYPE}@1 but was not provided"
        )

    def test_given_an_optional_form_left_out_then_the_asset_is_created_without_it(self):
        w = kafka_world()
        forms = [f for f in kafka_forms(TOPIC) if f["formName"] != "RelationalTableForm"]
        created = w.call(
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert "RelationalTableForm" not in {f["formName"] for f in created["formsOutput"]}

    def test_given_a_form_revision_other_than_the_pinned_one_then_expected_but_provided(self):
        w = kafka_world()
        forms = kafka_forms(TOPIC)
        forms[2].update(typeIdentifier="amazon.datazone.AssetCommonDetailsFormType", typeRevision="5")
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert error.message == (
            "Form AssetCommonDetailsForm expected form amazon.datazone#AssetCommonDetailsFormType@6"
            " but was provided amazon.datazone#AssetCommonDetailsFormType@5"
        )

    def test_given_a_custom_form_pinned_at_1_and_revision_2_provided_then_the_domain_namespace_is_named(self):
        w = kafka_world()
        forms = kafka_forms(TOPIC)
        forms[0].update(typeIdentifier="KafkaSchemaFormType", typeRevision="2")
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=forms,
        )
        assert error.message == (
            "Form KafkaSchemaFormType expected form dzd_4p5kx2n9lqv7ab#KafkaSchemaFormType@1"
            " but was provided dzd_4p5kx2n9lqv7ab#KafkaSchemaFormType@2"
        )

    def test_given_the_pinned_type_and_revision_spelled_out_then_accepted(self):
        w = kafka_world()
        forms = kafka_forms(TOPIC)
        forms[0].update(typeIdentifier="KafkaSchemaFormType", typeRevision="1")
        forms[2].update(typeIdentifier="amazon.datazone.AssetCommonDetailsFormType", typeRevision="6")
        assert create_topic_asset(w, TOPIC, formsInput=forms)["revision"] == "1"

    def test_given_an_unknown_type_project_or_type_revision_then_refused(self):
        w = kafka_world()
        assert (
            error_of(
                w,
                "CreateAsset",
                name=TOPIC,
                typeIdentifier="NoSuchType",
                owningProjectIdentifier=PROJECT,
                formsInput=[],
            ).code
            == "ResourceNotFoundException"
        )
        assert (
            error_of(
                w,
                "CreateAsset",
                name=TOPIC,
                typeIdentifier=ASSET_TYPE,
                owningProjectIdentifier="nope",
                formsInput=kafka_forms(TOPIC),
            ).code
            == "ResourceNotFoundException"
        )
        assert (
            error_of(
                w,
                "CreateAsset",
                name=TOPIC,
                typeIdentifier=ASSET_TYPE,
                typeRevision="9",
                owningProjectIdentifier=PROJECT,
                formsInput=kafka_forms(TOPIC),
            ).code
            == "ValidationException"
        )

    def test_given_an_unknown_glossary_term_then_not_found(self):
        w = kafka_world()
        error = error_of(
            w,
            "CreateAsset",
            name=TOPIC,
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=kafka_forms(TOPIC),
            glossaryTerms=["term1"],
        )
        assert error.code == "ResourceNotFoundException"


class TestExternalIdentifier:
    @pytest.mark.parametrize(("registry", "schema"), WEIRD_NAMES)
    def test_given_a_live_asset_with_the_external_id_then_conflict_names_that_asset(self, registry, schema):
        # Given
        w = kafka_world()
        first = create_topic_asset(w, schema, registry)
        # When
        error = error_of(
            w,
            "CreateAsset",
            name="again",
            typeIdentifier=ASSET_TYPE,
            externalIdentifier=schema_arn(registry, schema),
            owningProjectIdentifier=PROJECT,
            formsInput=kafka_forms(schema, registry),
        )
        # Then
        assert (error.code, error.status) == ("ConflictException", 409)
        assert error.message == f"Conflict with asset {first['id']}"
        assert len(w.backend.assets(DOMAIN)) == 1

    def test_given_weird_names_that_differ_in_one_character_then_both_assets_exist(self):
        w = kafka_world()
        ids = {create_topic_asset(w, schema, registry)["id"] for registry, schema in WEIRD_NAMES}
        assert len(ids) == len(WEIRD_NAMES)
        assert {a.external_identifier for a in w.backend.assets(DOMAIN)} == {
            schema_arn(r, s) for r, s in WEIRD_NAMES
        }

    def test_given_the_holder_was_deleted_then_the_external_id_can_be_used_again(self):
        w = kafka_world()
        first = create_topic_asset(w, TOPIC)
        w.call("DeleteAsset", identifier=first["id"])
        second = create_topic_asset(w, TOPIC)
        assert second["id"] != first["id"]


class TestClientToken:
    def test_given_the_same_token_and_request_then_the_first_response_and_no_second_asset(self):
        w = kafka_world()
        first = create_topic_asset(w, TOPIC, clientToken="tok-1")
        again = create_topic_asset(w, TOPIC, clientToken="tok-1")
        assert again == first
        assert len(w.backend.assets(DOMAIN)) == 1

    def test_given_the_same_token_and_another_request_then_conflict(self):
        w = kafka_world()
        create_topic_asset(w, TOPIC, clientToken="tok-1")
        error = error_of(
            w,
            "CreateAsset",
            name="other",
            typeIdentifier=ASSET_TYPE,
            owningProjectIdentifier=PROJECT,
            formsInput=kafka_forms("other"),
            clientToken="tok-1",
        )
        assert error.code == "ConflictException"
        assert "tok-1" in error.message

    def test_given_the_token_window_passed_then_the_retry_is_a_new_create_and_meets_the_first_asset(self):
        w = kafka_world(client_token_ttl_seconds=60)
        first = create_topic_asset(w, TOPIC, clientToken="tok-1")
        w.clock.advance(61)
        with pytest.raises(ServiceError, match=f"Conflict with asset {first['id']}"):
            create_topic_asset(w, TOPIC, clientToken="tok-1")

    def test_given_a_failed_request_then_its_token_is_not_remembered(self):
        w = kafka_world()
        with pytest.raises(ServiceError):
            create_topic_asset(w, TOPIC, formsInput=[], clientToken="tok-1")
        assert create_topic_asset(w, TOPIC, clientToken="tok-1")["revision"] == "1"


class TestGetAsset:
    def test_given_revisions_when_got_by_revision_then_that_snapshot(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        w.call("CreateAssetRevision", identifier=asset["id"], name="renamed", formsInput=kafka_forms(TOPIC))
        assert w.call("GetAsset", identifier=asset["id"])["name"] == "renamed"
        old = w.call("GetAsset", identifier=asset["id"], revision="1")
        assert (old["name"], old["revision"]) == (TOPIC, "1")
        assert "predictionConfiguration" not in old

    def test_given_an_unknown_asset_or_revision_then_not_found(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        assert error_of(w, "GetAsset", identifier="nope").code == "ResourceNotFoundException"
        assert (
            error_of(w, "GetAsset", identifier=asset["id"], revision="2").code == "ResourceNotFoundException"
        )

    def test_given_content_with_spaces_and_any_key_order_then_it_comes_back_compact_and_sorted(self):
        w = kafka_world()
        forms = forms_with("MskSourceReferenceFormType", '{ "cluster_type": "MSK",  "cluster_arn": "arn:x" }')
        asset = create_topic_asset(w, TOPIC, formsInput=forms)
        got = {f["formName"]: f["content"] for f in w.call("GetAsset", identifier=asset["id"])["formsOutput"]}
        assert got["MskSourceReferenceFormType"] == '{"cluster_arn":"arn:x","cluster_type":"MSK"}'

    def test_given_normalization_off_then_content_comes_back_as_sent(self):
        w = kafka_world(normalize_form_content=False)
        text = '{ "cluster_type": "MSK",  "cluster_arn": "arn:x" }'
        asset = create_topic_asset(w, TOPIC, formsInput=forms_with("MskSourceReferenceFormType", text))
        got = {f["formName"]: f["content"] for f in w.call("GetAsset", identifier=asset["id"])["formsOutput"]}
        assert got["MskSourceReferenceFormType"] == text


class TestCreateAssetRevision:
    def test_given_new_forms_then_revision_2_replaces_name_description_and_forms(self):
        # Given
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        forms = [f for f in kafka_forms(TOPIC) if f["formName"] != "RelationalTableForm"]
        forms[0]["content"] = json.dumps(schema_form(schema_version="2"))
        # When
        revised = w.call(
            "CreateAssetRevision", identifier=asset["id"], name="v2", description="second", formsInput=forms
        )
        # Then
        assert (revised["revision"], revised["name"], revised["description"]) == ("2", "v2", "second")
        assert revised["externalIdentifier"] == asset["externalIdentifier"]
        assert revised["firstRevisionCreatedAt"] == asset["createdAt"] < revised["createdAt"]
        view = w.backend.assets(DOMAIN)[0]
        assert view.revision == "2"
        assert view.forms["KafkaSchemaFormType"]["schema_version"] == "2"
        assert "RelationalTableForm" not in view.forms

    def test_given_invalid_forms_then_the_revision_is_refused_like_a_create(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        error = error_of(
            w,
            "CreateAssetRevision",
            identifier=asset["id"],
            name="v2",
            formsInput=forms_with("KafkaSchemaFormType", schema_form(data_format=None)),
        )
        assert error.message == "$.KafkaSchemaFormType.data_format: is missing but it is required"
        assert w.backend.assets(DOMAIN)[0].revision == "1"

    def test_given_the_same_token_twice_then_one_revision(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        request = {
            "identifier": asset["id"],
            "name": "v2",
            "formsInput": kafka_forms(TOPIC),
            "clientToken": "t",
        }
        first = w.call("CreateAssetRevision", **request)
        assert w.call("CreateAssetRevision", **request) == first
        assert w.backend.assets(DOMAIN)[0].revision == "2"

    def test_given_an_unknown_or_deleted_asset_then_not_found(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        w.call("DeleteAsset", identifier=asset["id"])
        assert (
            error_of(
                w, "CreateAssetRevision", identifier=asset["id"], name="x", formsInput=kafka_forms(TOPIC)
            ).code
            == "ResourceNotFoundException"
        )

    def add_type_revision(self, w: World) -> None:
        """Asset type revision 2: a new KafkaSchemaFormType revision with one more optional member."""
        text = w.call("GetFormType", formTypeIdentifier="KafkaSchemaFormType")["model"]["smithy"]
        text = text.replace(
            "structure KafkaSchemaFormType {", "structure KafkaSchemaFormType {\n    owner: String\n"
        )
        w.call(
            "CreateFormType",
            name="KafkaSchemaFormType",
            model={"smithy": text},
            owningProjectIdentifier=PROJECT,
        )
        forms = w.call("GetAssetType", identifier=ASSET_TYPE)["formsOutput"]
        forms_input = {
            name: {
                "typeIdentifier": f["typeName"],
                "typeRevision": f["typeRevision"],
                "required": f["required"],
            }
            for name, f in forms.items()
        }
        forms_input["KafkaSchemaFormType"]["typeRevision"] = "2"
        w.call("CreateAssetType", name=ASSET_TYPE, formsInput=forms_input, owningProjectIdentifier=PROJECT)

    def test_given_a_newer_asset_type_and_no_type_revision_then_the_asset_keeps_its_type_revision(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        self.add_type_revision(w)
        forms = forms_with("KafkaSchemaFormType", schema_form(owner="team-a"))
        error = error_of(w, "CreateAssetRevision", identifier=asset["id"], name="v2", formsInput=forms)
        assert "owner: is not defined in the schema" in error.message
        revised = w.call(
            "CreateAssetRevision", identifier=asset["id"], name="v2", typeRevision="2", formsInput=forms
        )
        assert revised["typeRevision"] == "2"

    def test_given_the_latest_type_reading_then_a_revision_moves_to_the_newest_type_revision(self):
        w = kafka_world(revision_keeps_type_revision=False)
        asset = create_topic_asset(w, TOPIC)
        self.add_type_revision(w)
        forms = forms_with("KafkaSchemaFormType", schema_form(owner="team-a"))
        revised = w.call("CreateAssetRevision", identifier=asset["id"], name="v2", formsInput=forms)
        assert revised["typeRevision"] == "2"


class TestDeleteAsset:
    def test_given_an_unpublished_asset_when_deleted_then_204_and_gone(self):
        w = kafka_world()
        asset = create_topic_asset(w, TOPIC)
        assert w.call("DeleteAsset", identifier=asset["id"]) == {}
        assert w.backend.assets(DOMAIN) == []
        assert error_of(w, "GetAsset", identifier=asset["id"]).code == "ResourceNotFoundException"
        assert error_of(w, "DeleteAsset", identifier=asset["id"]).code == "ResourceNotFoundException"

    def test_given_a_published_asset_then_delete_is_refused_until_unpublished_under_that_reading(self):
        w = kafka_world(delete_requires_unpublish=True)
        asset = create_topic_asset(w, TOPIC)
        w.call("CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH")
        error = error_of(w, "DeleteAsset", identifier=asset["id"])
        assert (error.code, error.status) == ("ConflictException", 409)
        w.call("CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="UNPUBLISH")
        assert w.call("DeleteAsset", identifier=asset["id"]) == {}
        assert w.backend.listings(DOMAIN) == []

    def test_given_the_documented_reading_then_a_published_asset_is_deleted_with_its_listing(self):
        w = kafka_world(delete_requires_unpublish=False)
        asset = create_topic_asset(w, TOPIC)
        listing = w.call(
            "CreateListingChangeSet", entityIdentifier=asset["id"], entityType="ASSET", action="PUBLISH"
        )
        assert w.call("DeleteAsset", identifier=asset["id"]) == {}
        assert error_of(w, "GetListing", identifier=listing["listingId"]).code == "ResourceNotFoundException"


class TestInspection:
    def test_assets_lists_live_assets_with_parsed_forms_and_listing_state(self):
        w = kafka_world()
        kept = create_topic_asset(w, TOPIC)
        gone = create_topic_asset(w, "other")
        w.call("DeleteAsset", identifier=gone["id"])
        w.call("CreateListingChangeSet", entityIdentifier=kept["id"], entityType="ASSET", action="PUBLISH")
        [view] = w.backend.assets(DOMAIN)
        assert view.id == kept["id"]
        assert view.forms["AssetCommonDetailsForm"]["sourceIdentifier"].endswith(f"/{TOPIC}")
        assert view.form_types["AssetCommonDetailsForm"] == (
            "amazon.datazone.AssetCommonDetailsFormType",
            "6",
        )
        assert (view.listing_status, view.listed_revision) == ("ACTIVE", "1")

    def test_given_an_injected_fault_then_the_next_call_fails_and_the_one_after_succeeds(self):
        w = kafka_world()
        w.backend.inject_fault("CreateAsset", ServiceError("ThrottlingException", "Rate exceeded", 429))
        with pytest.raises(ServiceError) as caught:
            create_topic_asset(w, TOPIC)
        assert caught.value.status == 429
        assert create_topic_asset(w, TOPIC)["revision"] == "1"
