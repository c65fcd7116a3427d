"""schema-sync in a governed domain, end to end through the handler (its deployed role): a publishing rule
that refuses and then is satisfied by `assetForms`, glossary terms, a subscribed asset whose schema is
deleted (held, then deleted), the fail-safe with held deletions, and payloads no run can read."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from local import world
from tests.fixtures import load_event
from tests.integration.sync.conftest import CdcWorld

SUBSCRIBER = "subscriberprj1"
OWNERSHIP_MODEL = "namespace governance\nstructure DataOwnershipForm {\n  @required\n  owner: String\n}\n"
OWNERSHIP = {
    "formName": "Ownership",
    "typeIdentifier": "DataOwnershipForm",
    "content": {"owner": "{registryName}-team"},
}


def datazone() -> Any:
    return boto3.client("datazone", region_name=world.REGION)


def ownership_rule(cdc: CdcWorld) -> str:
    revision = str(
        datazone().create_form_type(
            domainIdentifier=world.DOMAIN_ID,
            name="DataOwnershipForm",
            model={"smithy": OWNERSHIP_MODEL},
            owningProjectIdentifier=world.PROJECT_ID,
            status="ENABLED",
        )["revision"]
    )
    datazone().create_rule(
        domainIdentifier=world.DOMAIN_ID,
        name="ownership required",
        target={"domainUnitTarget": {"domainUnitId": cdc.aws.datazone.root_domain_unit(world.DOMAIN_ID)}},
        action="CREATE_LISTING_CHANGE_SET",
        scope={"assetType": {"selectionMode": "ALL"}},
        detail={
            "metadataFormEnforcementDetail": {
                "requiredMetadataForms": [{"typeIdentifier": "DataOwnershipForm", "typeRevision": revision}]
            }
        },
    )
    return revision


def govern(cdc: CdcWorld, **settings: Any) -> None:
    cdc.configure()
    for variable, value in settings.items():
        cdc.monkeypatch.setenv(variable, json.dumps(value))


def failure_summary(raised: pytest.ExceptionInfo[BaseException]) -> dict[str, Any]:
    text = str(raised.value)
    summary: dict[str, Any] = json.loads(text[text.index("{") :])
    return summary


@pytest.mark.parametrize("names_rule", [True, False])
def test_a_refused_publish_leaves_the_asset_and_the_next_run_publishes_it_without_creating_again(
    cdc: CdcWorld, names_rule: bool
) -> None:
    # Given a rule requiring an ownership form, and no assetForms yet
    cdc.aws.set_readings(rule_refusal_names_rule=names_rule)
    revision = ownership_rule(cdc)
    cdc.register("orders")
    # When the sync runs, then the asset is created, unpublished, and the failure names the rule
    with pytest.raises(Exception, match="publish refused") as raised:
        cdc.sync()
    [failure] = failure_summary(raised)["failed"]
    assert failure["rules"] == ["ownership required"]
    assert "ownership required" in failure["error"]
    [asset] = cdc.assets()
    assert asset.listing_id is None
    # When the run is repeated without a fix, it still creates nothing: the same asset, still refused
    with pytest.raises(Exception, match="publish refused"):
        cdc.sync()
    assert [a.id for a in cdc.assets()] == [asset.id]
    # When assetForms gives the form and a verify run looks again, the same asset is revised and published
    govern(cdc, ASSET_FORMS=[{**OWNERSHIP, "typeRevision": revision}])
    cdc.reset_calls()
    result = cdc.sync({"verify": True})
    assert "datazone:CreateAsset" not in cdc.calls()
    [published] = cdc.assets()
    assert published.id == asset.id
    assert published.listing_status == "ACTIVE"
    assert published.forms["Ownership"] == {"owner": "cdc-team"}
    assert result["failed"] == []


def test_a_refused_publish_is_published_by_the_next_run_once_the_rule_is_met_without_a_new_revision(
    cdc: CdcWorld,
) -> None:
    # Given an asset refused, then the domain's administrator deletes the rule
    ownership_rule(cdc)
    cdc.register("orders")
    with pytest.raises(Exception, match="publish refused"):
        cdc.sync()
    [rule] = datazone().list_rules(
        domainIdentifier=world.DOMAIN_ID,
        targetType="DOMAIN_UNIT",
        targetIdentifier=cdc.aws.datazone.root_domain_unit(world.DOMAIN_ID),
    )["items"]
    datazone().delete_rule(domainIdentifier=world.DOMAIN_ID, identifier=rule["identifier"])
    # When the next (plain) run comes, it publishes the asset it made, and writes no revision
    cdc.reset_calls()
    result = cdc.sync()
    assert result["published"] == 1
    assert "datazone:CreateAsset" not in cdc.calls()
    assert "datazone:CreateAssetRevision" not in cdc.calls()
    [asset] = cdc.assets()
    assert asset.listing_status == "ACTIVE"


def test_glossary_terms_are_attached_to_every_asset(cdc: CdcWorld) -> None:
    glossary = datazone().create_glossary(
        domainIdentifier=world.DOMAIN_ID, name="Business", owningProjectIdentifier=world.PROJECT_ID
    )
    term = datazone().create_glossary_term(
        domainIdentifier=world.DOMAIN_ID, glossaryIdentifier=glossary["id"], name="CDC"
    )["id"]
    govern(cdc, GLOSSARY_TERMS=[term])
    cdc.register("orders")
    cdc.register("customers")
    cdc.sync()
    assert [a.glossary_terms for a in cdc.assets()] == [(term,), (term,)]


def test_a_subscribed_assets_deletion_is_held_then_done_once_no_subscription_remains(cdc: CdcWorld) -> None:
    # Given two mirrored schemas, one subscribed by another project
    cdc.aws.datazone.add_project(world.DOMAIN_ID, SUBSCRIBER)
    for name in ("orders", "customers", "products"):
        cdc.register(name)
    cdc.sync()
    cdc.events.drain()
    [orders] = [a for a in cdc.assets() if a.name == "orders"]
    subscription = cdc.aws.datazone.subscribe(world.DOMAIN_ID, orders.id, SUBSCRIBER)
    # When its schema is deleted
    world.delete_schema("cdc", "orders")
    result = cdc.sync()  # does not raise
    # Then the deletion is held, not failed, and the asset shows its schema deleted
    assert result["held"] == [
        {
            "schemaArn": world.schema_arn("cdc", "orders"),
            "assetId": orders.id,
            "reason": "subscribed",
            "subscriptions": 1,
        }
    ]
    assert (result["heldTotal"], result["deleted"], result["failed"]) == (1, 0, [])
    [kept] = [a for a in cdc.assets() if a.id == orders.id]
    assert kept.forms["KafkaSchemaFormType"]["schema_status"] == "DELETED"
    # And the next run holds it again without revising it again, nor deleting, nor touching the subscription
    cdc.reset_calls()
    again = cdc.sync()
    assert again["heldTotal"] == 1
    calls = cdc.calls()
    assert "datazone:CreateAssetRevision" not in calls
    assert "datazone:DeleteAsset" not in calls
    assert not any(op in calls for op in ("datazone:RevokeSubscription", "datazone:CancelSubscription"))
    # When the subscriber's owner revokes it, the next run deletes the asset and forgets it
    datazone().revoke_subscription(domainIdentifier=world.DOMAIN_ID, identifier=subscription)
    done = cdc.sync()
    assert (done["deleted"], done["heldTotal"]) == (1, 0)
    assert orders.id not in {a.id for a in cdc.assets()}
    assert [(e["topic"], e["change"]) for e in cdc.events.drain()][-1] == ("orders", "deleted")


def test_held_deletions_do_not_trip_the_fail_safe_on_later_runs(cdc: CdcWorld) -> None:
    # Given 4 schemas, 2 subscribed, and those 2 deleted together with the event confirming each
    cdc.aws.datazone.add_project(world.DOMAIN_ID, SUBSCRIBER)
    for name in ("a", "b", "c", "d"):
        cdc.register(name)
    cdc.sync()
    for asset in cdc.assets():
        if asset.name in ("a", "b"):
            cdc.aws.datazone.subscribe(world.DOMAIN_ID, asset.id, SUBSCRIBER)
    world.delete_schema("cdc", "a")
    result = cdc.sync()
    world.delete_schema("cdc", "b")
    result = cdc.sync()
    assert result["heldTotal"] == 2
    # When later runs come (2 of the 4 assets' schemas gone: 50% would be at the fail-safe's limit)
    for _ in range(2):
        again = cdc.sync()
        assert (again["heldTotal"], again["failed"]) == (2, [])


def test_a_requested_schema_that_does_not_exist_is_reported(cdc: CdcWorld) -> None:
    cdc.register("dbserver1.inventory.orders")
    result = cdc.sync(load_event("payloads/sync_schema_arns_missing_schema"))
    assert [s["reason"] for s in result["skipped"]] == ["schema not found"]


def test_a_requested_arn_of_another_region_is_reported_and_the_others_synced(cdc: CdcWorld) -> None:
    cdc.register("dbserver1.inventory.customers")
    with pytest.raises(Exception, match="eu-central-1") as raised:
        cdc.sync(load_event("payloads/sync_schema_arns_other_region"))
    summary = failure_summary(raised)
    assert summary["created"] == 1
    assert [f["schemaArn"].split(":")[3] for f in summary["failed"]] == ["eu-central-1"]
