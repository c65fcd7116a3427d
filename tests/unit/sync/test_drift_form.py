"""The drift form on a topic's asset: content, hash and fingerprint with and without a drift summary.

The summary (kafka_lineage.drift.summary, written by lineage-emission) is shown only for the asset's latest
schema version; a summary of another version is stale and the form says "none" for the current version.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from kafka_lineage.config import Source
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.catalog import AssetType, FormSpec
from kafka_lineage.model.registry import SchemaDetails, SchemaVersion
from kafka_lineage.schemas.model import Column, ParsedSchema
from kafka_lineage.sync import plan
from kafka_lineage.sync.desired import Catalogued, Desired, desired_asset, source_fingerprint
from kafka_lineage.sync.drift import DRIFT_FORM_TYPE, drift_form, drift_key, marker

REGISTRY = "cdc.prod-$1"
TOPIC = "dbserver1.inventory.customers#v2_legacy"
ARN = f"arn:aws:glue:eu-west-1:111122223333:schema/{REGISTRY}/{TOPIC}"
NAMESPACE = "kafka://b-1.cdc.abc123.kafka.eu-west-1.amazonaws.com:9098"
SOURCE = Source(registry_name=REGISTRY, cluster_arn="arn:aws:kafka:eu-west-1:111122223333:cluster/cdc/0f1e")
V1 = SchemaVersion(1, "b7c8e1a0-0000-4000-8000-000000000001", "AVAILABLE", "2026-03-01T10:00:00Z")
V2 = SchemaVersion(2, "b7c8e1a0-0000-4000-8000-000000000002", "AVAILABLE", "2026-03-02T10:00:00Z")
DETAILS = SchemaDetails(
    schema_arn=ARN,
    registry_name=REGISTRY,
    registry_arn=f"arn:aws:glue:eu-west-1:111122223333:registry/{REGISTRY}",
    schema_name=TOPIC,
    data_format="AVRO",
    compatibility="NONE",
    description="",
    status="AVAILABLE",
    created_time="2026-03-01T10:00:00Z",
    updated_time="2026-03-02T10:00:00Z",
    versions=(V1, V2),
    latest=V2,
)
PARSED = ParsedSchema(columns=(Column("after.id", "int", False),))
SUMMARY = DriftSummary(
    from_version=1,
    to_version=2,
    severity="breaking",
    impacted_tables=("lakehouse/customers", "marts/customer_emails"),
    impacted_table_count=2,
    changed_fields=2,
    fingerprint="9f2c",
    detected_at="2026-03-02T10:05:00Z",
)


def asset_type(with_drift_form: bool = True, revision: str = "2") -> AssetType:
    forms = {
        "KafkaSchemaFormType": FormSpec("KafkaSchemaFormType", "1", True),
        "MskSourceReferenceFormType": FormSpec("MskSourceReferenceFormType", "1", True),
        "AssetCommonDetailsForm": FormSpec("amazon.datazone.AssetCommonDetailsFormType", "6", True),
    }
    if with_drift_form:
        forms["KafkaSchemaDriftFormType"] = FormSpec(DRIFT_FORM_TYPE, "1", False)
    return AssetType("KafkaTopicAssetType", revision, forms)


def desired(summary: DriftSummary | None, kind: AssetType | None = None) -> Desired:
    return desired_asset(SOURCE, DETAILS, PARSED, "{}", Catalogued(NAMESPACE, kind or asset_type()), summary)


def forms(result: Desired) -> dict[str, Any]:
    return {form.form_name: json.loads(form.content) for form in result.content.forms}


def test_a_current_summary_is_written_into_the_drift_form() -> None:
    # Given a drift summary for the latest version (v1 -> v2)
    # When the asset content is built
    result = desired(SUMMARY)
    # Then the drift form carries it, with a line for people browsing the catalog
    assert forms(result)["KafkaSchemaDriftFormType"] == {
        "drift_status": "breaking",
        "schema_version": "2",
        "summary": "v1 -> v2: breaking, 2 tables impacted (lakehouse/customers, marts/customer_emails)",
        "from_version": 1,
        "to_version": 2,
        "impacted_tables": ["lakehouse/customers", "marts/customer_emails"],
        "impacted_table_count": 2,
        "changed_field_count": 2,
        "detected_at": "2026-03-02T10:05:00Z",
        "drift_fingerprint": "9f2c",
    }
    assert result.drift == forms(result)["KafkaSchemaDriftFormType"]
    # And the other forms are all still there
    assert set(forms(result)) == {
        "KafkaSchemaFormType",
        "MskSourceReferenceFormType",
        "AssetCommonDetailsForm",
        "KafkaSchemaDriftFormType",
    }


def test_without_a_summary_the_form_says_no_drift_is_recorded_for_the_current_version() -> None:
    assert forms(desired(None))["KafkaSchemaDriftFormType"] == {
        "drift_status": "none",
        "schema_version": "2",
        "summary": "no drift recorded for v2",
    }


def test_a_summary_of_another_version_is_stale_and_ignored() -> None:
    # Given the summary of an earlier drift (v0 -> v1) while the latest version is 2
    stale = replace(SUMMARY, from_version=0, to_version=1)
    # Then content, hash and fingerprint are those of "no summary"
    assert desired(stale) == desired(None)


def test_the_summary_is_part_of_the_content_hash_and_of_the_source_fingerprint() -> None:
    without, with_summary = desired(None), desired(SUMMARY)
    moved = desired(replace(SUMMARY, fingerprint="a0b1", severity="warning"))
    # A new summary changes the hash (one revision) and the fingerprint (a targeted or verify run that finds
    # the registry unchanged still rebuilds the content)
    assert len({without.content_hash, with_summary.content_hash, moved.content_hash}) == 3
    assert len({without.source_fingerprint, with_summary.source_fingerprint, moved.source_fingerprint}) == 3
    # An unchanged one changes nothing
    assert desired(replace(SUMMARY)) == with_summary


def test_without_a_summary_the_fingerprint_is_the_one_schemas_had_before_drift_forms() -> None:
    # Schemas without drift do not re-read their definition because drift forms were introduced
    assert desired(None).source_fingerprint == source_fingerprint(DETAILS, NAMESPACE, "2")
    assert marker(None) == ""


def test_an_asset_type_without_the_drift_form_gets_none_and_ignores_summaries() -> None:
    # Given the asset type still at a revision without the drift form (a deploy that has not converged)
    old = asset_type(with_drift_form=False, revision="1")
    # Then no drift form is written and a summary changes nothing
    assert "KafkaSchemaDriftFormType" not in forms(desired(SUMMARY, old))
    assert desired(SUMMARY, old) == desired(None, old)
    assert desired(None, old).drift is None


def test_the_asset_type_revision_is_in_the_hash_so_a_migrated_type_revises_each_asset_once() -> None:
    assert desired(None, asset_type(revision="1")).content_hash != desired(None).content_hash


def test_the_summary_line_names_at_most_three_tables() -> None:
    many = replace(
        SUMMARY,
        impacted_tables=tuple(f"db/t{i}" for i in range(20)),
        impacted_table_count=31,
        severity="warning",
    )
    form = drift_form(many, 2)
    assert form["summary"] == "v1 -> v2: warning, 31 tables impacted (db/t0, db/t1, db/t2, +28 more)"
    assert len(form["impacted_tables"]) == 20
    assert (
        drift_form(replace(SUMMARY, impacted_tables=(), impacted_table_count=0, severity="info"), 2)[
            "summary"
        ]
        == "v1 -> v2: info, 0 tables impacted"
    )


def test_the_key_is_the_one_lineage_writes_summaries_under() -> None:
    assert drift_key(REGISTRY, TOPIC) == f"{REGISTRY}/{TOPIC}"


def test_a_dry_run_lists_the_drift_form_it_would_write() -> None:
    # Given a mapped schema whose content changed only by a new drift summary
    record = AssetRecord(
        registry_name=REGISTRY,
        schema_name=TOPIC,
        schema_arn=ARN,
        asset_id="a1",
        latest_version=2,
        data_format="AVRO",
        namespace=NAMESPACE,
        updated_time=DETAILS.updated_time,
        created_time=DETAILS.created_time,
        content_hash=desired(None).content_hash,
        source_fingerprint=desired(None).source_fingerprint,
    )
    candidate = plan.Candidate(REGISTRY, TOPIC, ARN, "requested", record)
    # When it is decided
    action = plan.decide(candidate, DETAILS, desired(SUMMARY), NAMESPACE)
    # Then it is a revision, and its description (a dry run's `planned`) shows the drift form
    assert isinstance(action, plan.Revise)
    assert action.describe()["drift"] == drift_form(SUMMARY, 2)
    assert plan.needs_definition(candidate, desired(SUMMARY).source_fingerprint)
    assert not plan.needs_definition(candidate, desired(None).source_fingerprint)
