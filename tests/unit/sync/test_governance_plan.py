"""Governed domains, the pure side: extra forms and glossary terms in the desired content, the content of a
held asset, and the plan's publish-pending and held-deletion rules (with the fail-safe)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from kafka_lineage import failsafe
from kafka_lineage.model.asset_forms import AssetForm
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetContent, FormInput
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import (
    NO_GOVERNANCE,
    AssetTypeMismatch,
    Catalogued,
    Desired,
    Governance,
    desired_asset,
    held_content,
)
from tests.unit.sync.test_desired_managed_forms import (
    ARN,
    DETAILS,
    NAMESPACE,
    PARSED,
    REGISTRY,
    SOURCE,
    TOPIC,
    asset_type,
)
from tests.unit.sync.test_plan import SOURCE as PLAN_SOURCE
from tests.unit.sync.test_plan import arn, details, listed, record

OWNERSHIP = AssetForm.model_validate(
    {
        "formName": "Ownership",
        "typeIdentifier": "DataOwnershipForm",
        "typeRevision": "2",
        "content": {"owner": "{registryName}-team", "dataset": "{topic}", "source": "{schemaArn}"},
    }
)
GOVERNED = Governance(asset_forms=(OWNERSHIP,), glossary_terms=("term_customer",))


def build(governance: Governance = NO_GOVERNANCE) -> Desired:
    return desired_asset(SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, asset_type(None), governance))


class TestDesiredContent:
    def test_extra_forms_are_filled_for_the_topic_and_carry_their_type(self) -> None:
        content = build(GOVERNED).content
        [extra] = [form for form in content.forms if form.form_name == "Ownership"]
        assert (extra.type_identifier, extra.type_revision) == ("DataOwnershipForm", "2")
        assert json.loads(extra.content) == {"owner": f"{REGISTRY}-team", "dataset": TOPIC, "source": ARN}
        assert content.glossary_terms == ("term_customer",)

    def test_without_governance_the_hash_and_fingerprint_are_those_of_before(self) -> None:
        # Assets made before the settings existed are not revised by an upgrade.
        plain, governed = build(), build(GOVERNED)
        assert plain.content.glossary_terms == ()
        assert plain.content_hash != governed.content_hash
        assert plain.source_fingerprint != governed.source_fingerprint
        assert build(Governance()).content_hash == plain.content_hash

    def test_a_changed_setting_moves_the_hash(self) -> None:
        other = Governance(asset_forms=(OWNERSHIP,), glossary_terms=("term_other",))
        assert build(other).content_hash != build(GOVERNED).content_hash

    def test_a_form_name_the_asset_type_takes_is_refused(self) -> None:
        clash = AssetForm.model_validate(
            {"formName": "KafkaSchemaFormType", "typeIdentifier": "X", "content": {}}
        )
        with pytest.raises(AssetTypeMismatch, match="KafkaSchemaFormType"):
            build(Governance(asset_forms=(clash,)))

    def test_more_forms_than_an_asset_carries_are_refused(self) -> None:
        many = tuple(
            AssetForm.model_validate({"formName": f"Extra{n}", "typeIdentifier": "X", "content": {}})
            for n in range(8)
        )
        with pytest.raises(AssetTypeMismatch, match="10 forms"):
            build(Governance(asset_forms=many))


def test_held_content_marks_the_schema_deleted_and_keeps_the_rest() -> None:
    # Given the content DataZone holds (the asset type's forms as GetAsset reports them, and an extra form)
    current = AssetContent(
        TOPIC,
        "Kafka topic …",
        (
            FormInput(
                "KafkaSchemaFormType",
                json.dumps({"kafka_topic": TOPIC, "schema_status": "AVAILABLE"}),
                "KafkaSchemaFormType",
                "1",
            ),
            FormInput("AssetCommonDetailsForm", "{}", "amazon.datazone.AssetCommonDetailsFormType", "6"),
            FormInput("Ownership", "{}", "DataOwnershipForm", "2"),
        ),
        ("term_customer",),
    )
    # When the deletion is held for 2 subscriptions
    held = held_content(current, asset_type(None), REGISTRY, 2)
    # Then
    forms = {form.form_name: form for form in held.forms}
    assert json.loads(forms["KafkaSchemaFormType"].content)["schema_status"] == "DELETED"
    assert forms["KafkaSchemaFormType"].type_identifier is None  # at the asset type's pinned revision
    assert forms["Ownership"].type_identifier == "DataOwnershipForm"
    assert "2 approved subscription(s)" in held.description
    assert held.description.endswith("Kafka topic …")
    assert held.glossary_terms == ("term_customer",)


class TestPlan:
    def test_an_unpublished_record_is_looked_at_again_and_published_without_a_create(self) -> None:
        records = {arn("a"): record("a", unpublished=True)}
        triage = plan.triage_listing(PLAN_SOURCE, [listed("a")], records, verify=False)
        [candidate] = triage.candidates
        assert "not published" in candidate.reason
        action = plan.decide(candidate, details("a"), None, "kafka://b-1.cdc.example:9098")
        assert isinstance(action, plan.Publish)
        assert action.new_record.unpublished is False
        assert action.new_record.asset_id == records[arn("a")].asset_id

    def test_a_held_deletion_is_retried_past_the_fail_safe_and_leaves_the_totals(self) -> None:
        # Given 4 assets of which 3 are held for subscriptions, their schemas gone
        held = {arn(n): record(n, held=2) for n in ("a", "b", "c")}
        records = {**held, arn("d"): record("d")}
        triage = plan.triage_listing(PLAN_SOURCE, [listed("d")], records, verify=False)
        assert {d.schema_arn for d in triage.deletions} == set(held)
        assert all(d.confirmed and d.was_held for d in triage.deletions)
        # When screened: not held back (they passed when first decided)
        totals = plan.registry_totals(records.values(), [])
        assert totals == {"cdc": 1}
        verdict = failsafe.screen(
            triage.deletions,
            totals=totals,
            limit=0.5,
            allow=False,
            group=lambda d: d.registry_name,
            confirmed=lambda d: d.confirmed,
        )
        assert len(verdict.kept) == 3
        assert verdict.held == ()
        assert "held for 2 subscription(s)" in triage.deletions[0].reason

    def test_a_new_inferred_deletion_is_screened_against_the_live_assets_only(self) -> None:
        # 1 live asset left besides 3 held: its inferred deletion is 100% of the live ones
        records = {**{arn(n): record(n, held=1) for n in ("a", "b", "c")}, arn("d"): record("d")}
        triage = plan.triage_listing(PLAN_SOURCE, [], records, verify=False)
        verdict = failsafe.screen(
            triage.deletions,
            totals=plan.registry_totals(records.values(), []),
            limit=0.5,
            allow=False,
            group=lambda d: d.registry_name,
            confirmed=lambda d: d.confirmed,
        )
        assert [d.schema_arn for d in verdict.held_items] == [arn("d")]


def test_record_entries_keep_the_governance_fields() -> None:
    base = record("a", unpublished=True, held=3)
    again = AssetRecord.from_entry(base.schema_arn, base.to_entry())
    assert (again.unpublished, again.held) == (True, 3)
    plain = replace(base, unpublished=False, held=0)
    assert "np" not in plain.to_entry()
    assert "hd" not in plain.to_entry()
