"""DataZone stand-in: domains, projects, form types and asset types."""

from __future__ import annotations

import pytest

from local.standins.datazone import DataZoneBackend
from local.standins.errors import ServiceError
from tests.unit.standins.test_datazone_support import (
    ASSET_TYPE,
    DOMAIN,
    OTHER_PROJECT,
    PROJECT,
    World,
    create_topic_asset,
    kafka_world,
    smithy_text,
    world,
)

FORM = "structure OrdersForm {\n    @required\n    table: String\n}\n"
FORM_V2 = "structure OrdersForm {\n    @required\n    table: String\n    owner: String\n}\n"


def error_of(w: World, operation: str, **params) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        w.call(operation, **params)
    return caught.value


def create_form(w: World, model: str = FORM, project: str = PROJECT, name: str = "OrdersForm") -> dict:
    return w.call("CreateFormType", name=name, model={"smithy": model}, owningProjectIdentifier=project)


class TestDomainsAndProjects:
    def test_given_an_unknown_domain_when_any_operation_is_called_then_resource_not_found(self):
        w = world()
        for operation, params in [
            ("GetFormType", {"formTypeIdentifier": "OrdersForm"}),
            ("Search", {"searchScope": "ASSET"}),
            ("ListLineageEvents", {}),
            ("CreateAsset", {"name": "n", "typeIdentifier": "T", "owningProjectIdentifier": PROJECT}),
        ]:
            with pytest.raises(ServiceError) as caught:
                w.backend.handle(operation, {"domainIdentifier": "dzd_unknown1", **params})
            assert (caught.value.code, caught.value.status) == ("ResourceNotFoundException", 404)
            assert "dzd_unknown1" in caught.value.message

    def test_given_ids_off_the_models_patterns_when_seeding_then_value_error(self):
        backend = DataZoneBackend()
        with pytest.raises(ValueError, match="domain id pattern"):
            backend.add_domain("domain-1")
        backend.add_domain(DOMAIN)
        with pytest.raises(ValueError, match="project id pattern"):
            backend.add_project(DOMAIN, "has space")
        with pytest.raises(ValueError, match="already exists"):
            backend.add_domain(DOMAIN)

    def test_given_an_unknown_owning_project_then_creates_are_refused(self):
        w = world()
        assert (
            error_of(
                w, "CreateFormType", name="OrdersForm", model={"smithy": FORM}, owningProjectIdentifier="nope"
            ).code
            == "ValidationException"
        )
        assert (
            error_of(w, "CreateAssetType", name="T", formsInput={}, owningProjectIdentifier="nope").code
            == "ValidationException"
        )

    def test_given_an_operation_the_stand_in_lacks_then_unknown_operation(self):
        error = error_of(world(), "ListDataProductRevisions", identifier="g")
        assert (error.code, error.status) == ("UnknownOperationException", 400)


class TestFormTypes:
    def test_given_a_new_form_type_when_created_then_revision_1_and_get_returns_the_model(self):
        # Given
        w = world()
        # When
        created = create_form(w)
        got = w.call("GetFormType", formTypeIdentifier="OrdersForm")
        # Then
        assert created == {
            "domainId": DOMAIN,
            "name": "OrdersForm",
            "revision": "1",
            "owningProjectId": PROJECT,
            "originDomainId": DOMAIN,
            "originProjectId": PROJECT,
        }
        assert got["model"] == {"smithy": FORM}
        assert (got["revision"], got["status"], got["owningProjectId"]) == ("1", "ENABLED", PROJECT)
        assert got["createdAt"].tzinfo is not None

    def test_given_the_same_model_again_then_the_existing_revision_is_returned(self):
        w = world()
        create_form(w)
        again = create_form(w, FORM.replace("    ", "  ") + "// trailing comment\n")
        assert again["revision"] == "1"

    def test_given_a_changed_model_then_a_new_revision_and_both_stay_readable(self):
        w = world()
        create_form(w)
        assert create_form(w, FORM_V2)["revision"] == "2"
        assert w.call("GetFormType", formTypeIdentifier="OrdersForm")["revision"] == "2"
        assert w.call("GetFormType", formTypeIdentifier="OrdersForm", revision="1")["model"]["smithy"] == FORM

    def test_given_a_model_whose_structure_is_named_differently_then_validation_error(self):
        error = error_of(
            world(),
            "CreateFormType",
            name="OtherForm",
            model={"smithy": FORM},
            owningProjectIdentifier=PROJECT,
        )
        assert error.code == "ValidationException"
        assert "structure named OtherForm" in error.message

    def test_given_invalid_smithy_then_validation_error_with_the_line(self):
        error = error_of(
            world(),
            "CreateFormType",
            name="OrdersForm",
            model={"smithy": "structure OrdersForm {\n  a: Strin\n}"},
            owningProjectIdentifier=PROJECT,
        )
        assert error.code == "ValidationException"
        assert "Strin" in error.message

    def test_given_a_reserved_amazon_name_then_validation_error(self):
        error = error_of(
            world(),
            "CreateFormType",
            name="amazon.datazone.MyForm",
            model={"smithy": "structure MyForm { a: String }"},
            owningProjectIdentifier=PROJECT,
        )
        assert error.code == "ValidationException"

    def test_given_a_name_another_project_owns_then_conflict(self):
        w = world()
        create_form(w)
        assert (
            error_of(
                w,
                "CreateFormType",
                name="OrdersForm",
                model={"smithy": FORM_V2},
                owningProjectIdentifier=OTHER_PROJECT,
            ).code
            == "ConflictException"
        )

    def test_given_an_unknown_form_type_or_revision_then_resource_not_found(self):
        w = world()
        create_form(w)
        assert error_of(w, "GetFormType", formTypeIdentifier="Nope").code == "ResourceNotFoundException"
        assert error_of(w, "GetFormType", formTypeIdentifier="OrdersForm", revision="9").code == (
            "ResourceNotFoundException"
        )

    @pytest.mark.parametrize(
        ("name", "revision", "member"),
        [
            ("amazon.datazone.AssetCommonDetailsFormType", "6", "sourceIdentifier"),
            ("amazon.datazone.RelationalTableFormType", "1", "columns"),
        ],
    )
    def test_given_a_new_domain_then_the_managed_form_types_exist(self, name, revision, member):
        got = world().call("GetFormType", formTypeIdentifier=name)
        assert got["revision"] == revision
        assert member in got["model"]["smithy"]
        assert "owningProjectId" not in got


class TestAssetTypes:
    def forms_input(self, revision: str = "1") -> dict:
        return {
            "Orders": {"typeIdentifier": "OrdersForm", "typeRevision": revision, "required": True},
            "AssetCommonDetailsForm": {
                "typeIdentifier": "amazon.datazone.AssetCommonDetailsFormType",
                "typeRevision": "6",
                "required": False,
            },
        }

    def test_given_forms_when_the_asset_type_is_created_then_it_pins_their_revisions(self):
        # Given
        w = world()
        create_form(w)
        # When
        created = w.call(
            "CreateAssetType",
            name="OrdersAssetType",
            formsInput=self.forms_input(),
            owningProjectIdentifier=PROJECT,
        )
        got = w.call("GetAssetType", identifier="OrdersAssetType")
        # Then
        assert created["revision"] == got["revision"] == "1"
        assert got["formsOutput"] == {
            "Orders": {"typeName": "OrdersForm", "typeRevision": "1", "required": True},
            "AssetCommonDetailsForm": {
                "typeName": "amazon.datazone.AssetCommonDetailsFormType",
                "typeRevision": "6",
                "required": False,
            },
        }
        assert got["owningProjectId"] == PROJECT

    def test_given_the_same_forms_again_then_same_revision_and_changed_forms_then_a_new_one(self):
        w = world()
        create_form(w)
        create_form(w, FORM_V2)
        first = w.call(
            "CreateAssetType", name="T", formsInput=self.forms_input("1"), owningProjectIdentifier=PROJECT
        )
        same = w.call(
            "CreateAssetType", name="T", formsInput=self.forms_input("1"), owningProjectIdentifier=PROJECT
        )
        moved = w.call(
            "CreateAssetType", name="T", formsInput=self.forms_input("2"), owningProjectIdentifier=PROJECT
        )
        assert (first["revision"], same["revision"], moved["revision"]) == ("1", "1", "2")
        old = w.call("GetAssetType", identifier="T", revision="1")
        assert old["formsOutput"]["Orders"]["typeRevision"] == "1"

    def test_given_a_form_name_with_a_dot_then_validation_error(self):
        w = world()
        forms = {"amazon.datazone.AssetCommonDetailsForm": self.forms_input()["AssetCommonDetailsForm"]}
        error = error_of(w, "CreateAssetType", name="T", formsInput=forms, owningProjectIdentifier=PROJECT)
        assert error.code == "ValidationException"
        assert "FormName" in error.message

    def test_given_a_form_type_revision_that_does_not_exist_then_validation_error(self):
        w = world()
        create_form(w)
        error = error_of(
            w, "CreateAssetType", name="T", formsInput=self.forms_input("3"), owningProjectIdentifier=PROJECT
        )
        assert error.code == "ValidationException"
        assert "OrdersForm revision 3" in error.message

    def test_given_a_disabled_form_type_then_it_cannot_join_an_asset_type(self):
        w = world()
        w.call(
            "CreateFormType",
            name="OrdersForm",
            model={"smithy": FORM},
            owningProjectIdentifier=PROJECT,
            status="DISABLED",
        )
        assert (
            error_of(
                w, "CreateAssetType", name="T", formsInput=self.forms_input(), owningProjectIdentifier=PROJECT
            ).code
            == "ValidationException"
        )

    def test_given_an_unused_asset_type_when_deleted_then_it_is_gone(self):
        w = world()
        create_form(w)
        w.call("CreateAssetType", name="T", formsInput=self.forms_input(), owningProjectIdentifier=PROJECT)
        assert w.call("DeleteAssetType", identifier="T") == {}
        assert error_of(w, "GetAssetType", identifier="T").code == "ResourceNotFoundException"
        assert error_of(w, "DeleteAssetType", identifier="T").code == "ResourceNotFoundException"

    def test_given_an_asset_of_the_type_when_deleting_the_type_then_conflict(self):
        w = kafka_world()
        create_topic_asset(w, "dbserver1.inventory.orders")
        assert error_of(w, "DeleteAssetType", identifier=ASSET_TYPE).code == "ConflictException"

    def test_given_the_projects_smithy_files_then_the_kafka_asset_type_builds(self):
        w = kafka_world()
        got = w.call("GetAssetType", identifier=ASSET_TYPE)
        assert set(got["formsOutput"]) == {
            "KafkaSchemaFormType",
            "MskSourceReferenceFormType",
            "AssetCommonDetailsForm",
            "RelationalTableForm",
            "KafkaSchemaDriftFormType",
            "KafkaTopicPropertiesFormType",
        }
        assert (
            "kafka_topic"
            in w.call("GetFormType", formTypeIdentifier="KafkaSchemaFormType")["model"]["smithy"]
        )
        assert (
            smithy_text("KafkaSchemaFormType")
            == w.call("GetFormType", formTypeIdentifier="KafkaSchemaFormType")["model"]["smithy"]
        )
