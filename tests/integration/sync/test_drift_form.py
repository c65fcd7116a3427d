"""The drift form on the stand-ins, schema-sync under its deployed role (IAM mode).

lineage-emission's side is played by the tests: they write drift summaries into SSM through the packed
store, as lineage does, and put its "Schema Drift Detected" event (tests/events/schema_drift_detected.json)
to schema-sync.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import boto3
import pytest

from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.drift.summary import DriftSummary
from kafka_lineage.model.state_layout import DRIFT, state_path
from kafka_lineage.sync.drift import DriftSummaries, drift_key
from local import world
from tests.fixtures import load_event
from tests.integration.sync.conftest import CdcWorld

DRIFT_FORM = "KafkaSchemaDriftFormType"
V2 = json.dumps(
    {
        "type": "record",
        "name": "Value",
        "fields": [{"name": "id", "type": "int"}],  # `name` dropped
    }
)


def summary(to_version: int = 2, fingerprint: str = "f1", severity: str = "breaking") -> DriftSummary:
    return DriftSummary(
        from_version=to_version - 1,
        to_version=to_version,
        severity=severity,  # type: ignore[arg-type]
        impacted_tables=("lakehouse/orders",),
        impacted_table_count=1,
        changed_fields=1,
        fingerprint=fingerprint,
        detected_at="2026-11-30T15:00:00Z",
    )


def record_drift(entries: dict[str, DriftSummary | dict[str, Any]]) -> None:
    """Save summaries as lineage-emission does: packed entries under {MAPPING_PATH}/drift."""
    store = PackedStore(boto3.client("ssm", region_name=world.REGION), state_path(world.MAPPING_PATH, DRIFT))
    store.load()
    store.save(
        {
            key: value.to_entry() if isinstance(value, DriftSummary) else value
            for key, value in entries.items()
        }
    )


def drift_event(topic: str, registry: str = "cdc") -> dict[str, Any]:
    event = copy.deepcopy(load_event("schema_drift_detected"))
    event["detail"].update(
        registryName=registry, topic=topic, schemaArn=world.schema_arn(registry, topic), toVersion=2
    )
    return event


def asset_of(cdc: CdcWorld, topic: str) -> Any:
    (asset,) = [a for a in cdc.assets() if a.external_identifier == world.schema_arn("cdc", topic)]
    return asset


@pytest.fixture
def drifted(cdc: CdcWorld) -> CdcWorld:
    """`orders` at v2 (a field dropped), synced: its asset shows no drift yet."""
    cdc.register("orders")
    cdc.register("customers")
    cdc.sync()
    cdc.register("orders", V2)
    assert cdc.sync()["updated"] == 1
    cdc.events.drain()
    return cdc


def test_a_drift_event_revises_the_asset_once_with_the_summary_and_a_repeat_changes_nothing(
    drifted: CdcWorld,
) -> None:
    cdc = drifted
    before = asset_of(cdc, "orders")
    assert before.forms[DRIFT_FORM] == {
        "drift_status": "none",
        "schema_version": "2",
        "summary": "no drift recorded for v2",
    }
    # Given lineage recorded the drift v1 -> v2
    record_drift({drift_key("cdc", "orders"): summary()})

    # When its "Schema Drift Detected" event reaches schema-sync
    result = cdc.sync(drift_event("orders"))

    # Then that one asset is revised once, with the summary in its drift form and every other form kept
    assert (result["trigger"], result["updated"], result["created"]) == ("drift", 1, 0), result
    after = asset_of(cdc, "orders")
    assert int(after.revision) == int(before.revision) + 1
    assert after.forms[DRIFT_FORM]["drift_status"] == "breaking"
    assert after.forms[DRIFT_FORM]["impacted_tables"] == ["lakehouse/orders"]
    assert after.forms[DRIFT_FORM]["drift_fingerprint"] == "f1"
    assert set(after.forms) == set(before.forms)
    assert {k: v for k, v in after.forms.items() if k != DRIFT_FORM} == {
        k: v for k, v in before.forms.items() if k != DRIFT_FORM
    }
    assert after.listed_revision == after.revision  # re-published
    assert len(cdc.assets()) == 2
    # And "Topic Asset Changed" says so, once: lineage then finds the same drift fingerprint (no new drift)
    assert [(e["topic"], e["change"], e["schemaVersion"]) for e in cdc.events.drain()] == [
        ("orders", "revised", 2)
    ]

    # When the same event comes again (EventBridge delivers at least once; or lineage re-announced)
    cdc.reset_calls()
    again = cdc.sync(drift_event("orders"))

    # Then nothing is written and nothing announced: the event chain ends here
    assert (again["updated"], again["unchanged"]) == (0, 1), again
    assert "datazone:CreateAssetRevision" not in cdc.calls()
    assert "ssm:PutParameter" not in cdc.calls()
    assert cdc.events.drain() == []
    assert asset_of(cdc, "orders").revision == after.revision


def test_a_stale_summary_is_ignored(drifted: CdcWorld) -> None:
    cdc = drifted
    # Given a summary recorded for an older version than the asset's latest (v2)
    record_drift({drift_key("cdc", "orders"): summary(to_version=1)})
    before = asset_of(cdc, "orders")
    # When a targeted sync runs
    result = cdc.sync({"schemaArns": [world.schema_arn("cdc", "orders")]})
    # Then nothing changes: the form keeps saying no drift is recorded for v2
    assert result["updated"] == 0
    assert asset_of(cdc, "orders").revision == before.revision
    assert asset_of(cdc, "orders").forms[DRIFT_FORM]["drift_status"] == "none"


def test_a_verify_run_shows_a_summary_whose_event_was_lost_and_a_moved_summary_revises_again(
    drifted: CdcWorld,
) -> None:
    cdc = drifted
    record_drift({drift_key("cdc", "orders"): summary()})
    # The hourly run does not look (its listings are unchanged: it stays as cheap as before)
    assert cdc.sync()["updated"] == 0
    # The daily verify run does
    assert cdc.sync({"verify": True})["updated"] == 1
    assert asset_of(cdc, "orders").forms[DRIFT_FORM]["drift_fingerprint"] == "f1"
    assert cdc.sync({"verify": True})["updated"] == 0
    # A newer drift of the same version (say a table newly mapped) replaces it: one more revision
    record_drift({drift_key("cdc", "orders"): summary(fingerprint="f2", severity="warning")})
    assert cdc.sync(drift_event("orders"))["updated"] == 1
    assert asset_of(cdc, "orders").forms[DRIFT_FORM]["drift_status"] == "warning"


def test_a_new_version_without_drift_replaces_the_summary_by_none(drifted: CdcWorld) -> None:
    cdc = drifted
    record_drift({drift_key("cdc", "orders"): summary()})
    cdc.sync(drift_event("orders"))
    # When v3 lands and lineage has recorded nothing for it (yet)
    cdc.register("orders", world_v3())
    assert cdc.sync()["updated"] == 1
    # Then the v2 summary is stale: the form says no drift is recorded for v3
    assert asset_of(cdc, "orders").forms[DRIFT_FORM] == {
        "drift_status": "none",
        "schema_version": "3",
        "summary": "no drift recorded for v3",
    }


def world_v3() -> str:
    return json.dumps(
        {
            "type": "record",
            "name": "Value",
            "fields": [
                {"name": "id", "type": "int"},
                {"name": "note", "type": ["null", "string"], "default": None},
            ],
        }
    )


def test_a_dry_run_shows_the_drift_form_it_would_write_and_writes_nothing(drifted: CdcWorld) -> None:
    cdc = drifted
    record_drift({drift_key("cdc", "orders"): summary()})
    cdc.reset_calls()
    result = cdc.sync({"schemaArns": [world.schema_arn("cdc", "orders")], "dryRun": True})
    (planned,) = result["planned"]
    assert (planned["action"], planned["topic"]) == ("revise", "orders")
    assert planned["drift"]["drift_status"] == "breaking"
    assert planned["drift"]["summary"] == "v1 -> v2: breaking, 1 table impacted (lakehouse/orders)"
    assert not {"datazone:CreateAssetRevision", "ssm:PutParameter"} & set(cdc.calls())


def test_an_unreadable_summary_is_reported_and_the_topic_shows_none(drifted: CdcWorld) -> None:
    cdc = drifted
    record_drift({drift_key("cdc", "orders"): {"s": "catastrophic", "t": 2}})
    result = cdc.sync({"verify": True})
    assert result["failed"] == []
    assert {"driftKey": "cdc/orders", "warning": "drift summary unreadable; not shown"} in result["warnings"]
    assert asset_of(cdc, "orders").forms[DRIFT_FORM]["drift_status"] == "none"


def test_summaries_are_read_once_per_run_with_work_and_never_by_a_no_change_run(
    drifted: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    cdc = drifted
    loads: list[int] = []
    original = DriftSummaries.load

    def counted(self: DriftSummaries) -> dict[str, DriftSummary]:
        loads.append(1)
        return original(self)

    monkeypatch.setattr(DriftSummaries, "load", counted)
    cdc.reset_calls()
    cdc.sync()
    baseline = cdc.calls()["ssm:GetParametersByPath"]
    # Given many summaries (several packed parameters, more than one GetParametersByPath page)
    record_drift({drift_key("other", f"t{i:03}-" + "x" * 150): summary() for i in range(400)})
    store = PackedStore(boto3.client("ssm", region_name=world.REGION), state_path(world.MAPPING_PATH, DRIFT))
    store.load()
    assert store.parameter_count() > 10
    # When nothing changed: no load, and the same SSM calls as before the summaries existed
    cdc.reset_calls()
    assert cdc.sync()["unchanged"] == 2
    assert loads == []
    assert cdc.calls()["ssm:GetParametersByPath"] == baseline
    assert set(cdc.calls()) <= {
        "glue:ListSchemas",
        "ssm:GetParametersByPath",
        "datazone:GetAssetType",
        "kafka:ListTopics",
    }
    # When a run has a schema to build: one load, whatever the number of schemas
    cdc.sync({"verify": True})
    assert loads == [1]


def test_a_drift_event_that_outruns_its_summary_waits_for_it(
    drifted: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    cdc = drifted
    # Given lineage announces the drift first and saves its summary just after schema-sync's first read
    loads: list[int] = []
    original = DriftSummaries.load

    def saved_meanwhile(self: DriftSummaries) -> dict[str, DriftSummary]:
        found = original(self)
        if not loads:
            record_drift({drift_key("cdc", "orders"): summary()})
        loads.append(1)
        return found

    monkeypatch.setattr(DriftSummaries, "load", saved_meanwhile)
    # When the event reaches schema-sync
    result = cdc.sync(drift_event("orders"))
    # Then it read again until the summary was there, and the asset shows it
    assert len(loads) == 2
    assert result["updated"] == 1
    assert result["warnings"] == []
    assert asset_of(cdc, "orders").forms[DRIFT_FORM]["drift_status"] == "breaking"


def test_a_drift_event_whose_summary_never_comes_says_so_and_changes_nothing(
    drifted: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    cdc = drifted
    monkeypatch.setattr("kafka_lineage.sync.drift.DRIFT_WAIT_SECONDS", 1.0)
    result = cdc.sync(drift_event("orders"))
    assert result["updated"] == 0
    assert result["failed"] == []
    (warning,) = result["warnings"]
    assert warning["driftKey"] == "cdc/orders"
    assert "v2 is not saved yet" in warning["warning"]
