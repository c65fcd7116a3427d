"""The catalog adapter and sync.governed against the DataZone stand-in over HTTP: one DeleteAsset, held
while subscribed (never revoking), publishes a rule refuses (named either way), extra forms and terms, and
unpublishing a never-published asset under every reading."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from kafka_lineage.aws.catalog import Catalog
from kafka_lineage.model.catalog import AssetContent, FormInput
from kafka_lineage.model.failures import PublishRefused
from kafka_lineage.sync import governed, plan
from kafka_lineage.sync.apply import Tokens
from local import world
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests.unit.sync.test_plan import record

SUBSCRIBER = "subscriberprj1"
TOKENS = Tokens(world.DOMAIN_ID)
OWNERSHIP_MODEL = "namespace governance\nstructure DataOwnershipForm {\n  @required\n  owner: String\n}\n"


@pytest.fixture
def domain(local_aws: LocalAws, deployed: DeployedFunctions) -> tuple[LocalAws, Catalog, Any]:
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.datazone.add_project(world.DOMAIN_ID, SUBSCRIBER)
    datazone = boto3.client("datazone", region_name=world.REGION)
    catalog = Catalog(
        datazone, world.DOMAIN_ID, world.PROJECT_ID, listing_wait_seconds=2, sleep=lambda _: None
    )
    return local_aws, catalog, datazone


def content(topic: str, *extra: FormInput, terms: tuple[str, ...] = ()) -> AssetContent:
    arn = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:schema/cdc/{topic}"
    forms = (
        FormInput(
            "KafkaSchemaFormType",
            json.dumps(
                {
                    "kafka_topic": topic,
                    "schema_version": "1",
                    "schema_arn": arn,
                    "registry_arn": f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:registry/cdc",
                    "registry_name": "cdc",
                    "data_format": "AVRO",
                    "schema_status": "AVAILABLE",
                }
            ),
        ),
        FormInput(
            "MskSourceReferenceFormType",
            json.dumps({"cluster_arn": world.CLUSTER_ARN, "cluster_type": "MSK"}),
        ),
        FormInput("AssetCommonDetailsForm", json.dumps({"sourceIdentifier": f"kafka://b-1:9098/{topic}"})),
    )
    return AssetContent(topic, f"Kafka topic {topic}", forms + extra, terms)


def created(catalog: Catalog, topic: str, publish: bool = True) -> tuple[str, str]:
    asset_type = catalog.asset_type("KafkaTopicAssetType")
    arn = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:schema/cdc/{topic}"
    asset = catalog.create_asset(arn, content(topic), asset_type, f"create-{topic}")
    if publish:
        catalog.publish(asset.asset_id, asset.revision, f"publish-{asset.asset_id}")
    return asset.asset_id, arn


def delete_action(asset_id: str, topic: str, held: int = 0) -> plan.Delete:
    kept = record(topic, asset_id=asset_id, held=held, asset_revision="1")
    return plan.deletion(kept, "schema not found", False)


class TestDeletion:
    def test_a_published_asset_goes_with_one_delete_asset(self, domain: Any) -> None:
        aws, catalog, _ = domain
        asset_id, _ = created(catalog, "orders")
        aws.calls.clear()
        assert not catalog.delete_asset(asset_id, "token").held
        assert aws.call_counts() == {"datazone:DeleteAsset": 1}
        assert aws.datazone.assets(world.DOMAIN_ID) == []
        assert aws.datazone.listings(world.DOMAIN_ID) == []

    def test_under_the_reading_that_datazone_wants_an_unpublish_first_it_unpublishes_and_deletes(
        self, domain: Any
    ) -> None:
        aws, catalog, _ = domain
        aws.set_readings(delete_requires_unpublish=True)
        asset_id, _ = created(catalog, "orders")
        assert not catalog.delete_asset(asset_id, "token").held
        assert aws.datazone.assets(world.DOMAIN_ID) == []

    @pytest.mark.parametrize("refusal", ["conflict", "validation"])
    def test_a_subscribed_asset_is_held_revised_to_show_its_schema_deleted_and_deleted_once_unsubscribed(
        self, domain: Any, refusal: str
    ) -> None:
        # Given a published asset with two approved subscriptions
        aws, catalog, _ = domain
        ended = ("datazone:RevokeSubscription", "datazone:CancelSubscription")
        aws.set_readings(subscribed_delete_refusal=refusal)
        asset_id, _ = created(catalog, "orders")
        first = aws.datazone.subscribe(world.DOMAIN_ID, asset_id, SUBSCRIBER)
        second = aws.datazone.subscribe(world.DOMAIN_ID, asset_id, world.PROJECT_ID)
        asset_type = catalog.asset_type("KafkaTopicAssetType")
        # When its schema is gone
        outcome = governed.delete(catalog, delete_action(asset_id, "orders"), asset_type, TOKENS)
        assert not any(op in aws.call_counts() for op in ended)
        # Then the deletion is held, the asset shows its schema deleted, and nobody's subscription changed
        assert outcome.held is not None
        assert outcome.held.describe() == {
            "schemaArn": outcome.held.schema_arn,
            "assetId": asset_id,
            "reason": "subscribed",
            "subscriptions": 2,
        }
        assert outcome.record is not None
        assert outcome.record.held == 2
        [view] = aws.datazone.assets(world.DOMAIN_ID)
        assert view.forms["KafkaSchemaFormType"]["schema_status"] == "DELETED"
        assert "2 approved subscription(s)" in (view.description or "")
        assert view.listed_revision == view.revision  # subscribers see the revision
        assert [s[2] for s in aws.datazone.subscriptions(world.DOMAIN_ID)] == ["APPROVED", "APPROVED"]
        # And a later run, still subscribed, asks the subscriptions first and tries no delete
        aws.calls.clear()
        again = governed.delete(catalog, delete_action(asset_id, "orders", held=2), asset_type, TOKENS)
        assert again.held is not None
        assert "datazone:DeleteAsset" not in aws.call_counts()
        assert "datazone:CreateAssetRevision" not in aws.call_counts()
        assert aws.call_counts()["datazone:ListSubscriptions"] == 1
        assert not any(op in aws.call_counts() for op in ended)
        # When the subscribers leave (their decision), the next run deletes it
        boto3.client("datazone", region_name=world.REGION).revoke_subscription(
            domainIdentifier=world.DOMAIN_ID, identifier=first
        )
        boto3.client("datazone", region_name=world.REGION).cancel_subscription(
            domainIdentifier=world.DOMAIN_ID, identifier=second
        )
        aws.calls.clear()
        done = governed.delete(catalog, delete_action(asset_id, "orders", held=2), asset_type, TOKENS)
        assert (done.record, done.change, done.held) == (None, "deleted", None)
        assert aws.datazone.assets(world.DOMAIN_ID) == []
        # Nothing the sync did revoked or cancelled anything
        assert not any(op in aws.call_counts() for op in ended)

    def test_an_asset_already_gone_counts_as_deleted(self, domain: Any) -> None:
        _, catalog, _ = domain
        asset_id, _ = created(catalog, "orders")
        catalog.delete_asset(asset_id, "token")
        assert not catalog.delete_asset(asset_id, "token").held


@pytest.mark.parametrize("answer", ["not_found", "conflict", "validation", "accepted"])
def test_unpublishing_a_never_published_asset_is_nothing_to_withdraw_whatever_datazone_answers(
    domain: Any, answer: str
) -> None:
    aws, catalog, _ = domain
    aws.set_readings(unpublish_unlisted=answer)
    asset_id, _ = created(catalog, "orders", publish=False)
    catalog.unpublish(asset_id, "token")  # no error
    assert [a.id for a in aws.datazone.assets(world.DOMAIN_ID)] == [asset_id]


class TestRulesFormsAndTerms:
    def rule(self, datazone: Any, aws: LocalAws, revision: str) -> None:
        datazone.create_rule(
            domainIdentifier=world.DOMAIN_ID,
            name="ownership required",
            target={"domainUnitTarget": {"domainUnitId": aws.datazone.root_domain_unit(world.DOMAIN_ID)}},
            action="CREATE_LISTING_CHANGE_SET",
            scope={"assetType": {"selectionMode": "ALL"}, "project": {"selectionMode": "ALL"}},
            detail={
                "metadataFormEnforcementDetail": {
                    "requiredMetadataForms": [
                        {"typeIdentifier": "DataOwnershipForm", "typeRevision": revision}
                    ]
                }
            },
        )

    def form_type(self, datazone: Any) -> str:
        return str(
            datazone.create_form_type(
                domainIdentifier=world.DOMAIN_ID,
                name="DataOwnershipForm",
                model={"smithy": OWNERSHIP_MODEL},
                owningProjectIdentifier=world.PROJECT_ID,
                status="ENABLED",
            )["revision"]
        )

    @pytest.mark.parametrize("names_rule", [True, False])
    def test_a_refused_publish_names_the_rule_from_the_message_or_from_list_rules(
        self, domain: Any, names_rule: bool
    ) -> None:
        aws, catalog, datazone = domain
        aws.set_readings(rule_refusal_names_rule=names_rule)
        self.rule(datazone, aws, self.form_type(datazone))
        asset_id, _ = created(catalog, "orders", publish=False)
        with pytest.raises(PublishRefused) as refused:
            catalog.publish(asset_id, "1", "publish-token")
        assert refused.value.rules == ("ownership required",)
        assert "ownership required" in str(refused.value)
        [view] = aws.datazone.assets(world.DOMAIN_ID)
        assert view.listing_id is None

    def test_extra_forms_and_terms_satisfy_the_rule_and_the_asset_is_published(self, domain: Any) -> None:
        aws, catalog, datazone = domain
        revision = self.form_type(datazone)
        self.rule(datazone, aws, revision)
        glossary = datazone.create_glossary(
            domainIdentifier=world.DOMAIN_ID, name="Business", owningProjectIdentifier=world.PROJECT_ID
        )
        term = datazone.create_glossary_term(
            domainIdentifier=world.DOMAIN_ID, glossaryIdentifier=glossary["id"], name="CDC"
        )["id"]
        asset_type = catalog.asset_type("KafkaTopicAssetType")
        extra = FormInput("Ownership", json.dumps({"owner": "cdc-team"}), "DataOwnershipForm", revision)
        arn = f"arn:aws:glue:{world.REGION}:{world.ACCOUNT}:schema/cdc/orders"
        asset = catalog.create_asset(
            arn, content("orders", extra, terms=(term,)), asset_type, "create-orders"
        )
        catalog.publish(asset.asset_id, asset.revision, "publish-orders")
        [view] = aws.datazone.assets(world.DOMAIN_ID)
        assert view.forms["Ownership"] == {"owner": "cdc-team"}
        assert view.glossary_terms == (term,)
        assert view.listing_status == "ACTIVE"
        # The held content keeps the extra form and the terms
        current = catalog.asset_content(asset.asset_id)
        assert current.glossary_terms == (term,)
        assert {f.form_name for f in current.forms} >= {"Ownership", "KafkaSchemaFormType"}
        assert (
            governed.publish(
                catalog,
                plan.Publish("cdc", "orders", arn, "r", record("orders"), record("orders")),
                asset,
                TOKENS,
            )
            is None
        )
