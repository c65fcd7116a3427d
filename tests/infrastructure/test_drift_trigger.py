"""Schema drift in the stack: lineage-emission's "Schema Drift Detected" events go to schema-sync, and each
function may touch the drift summaries only as its part requires (lineage writes, schema-sync reads)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from kafka_lineage.model.events import DRIFT_DETAIL_TYPE, DRIFT_SOURCE
from stacks.lineage_stack import LINEAGE_HANDLER, SCHEMA_SYNC_HANDLER
from stacks.triggers import asset_changed_pattern, drift_detected_pattern
from tests.infrastructure.stack_synth import Synthesized, load_event, shipped_context
from tests.infrastructure.test_event_patterns import Bus, bus  # noqa: F401  (the moto bus fixture)
from tests.infrastructure.test_stack_shipped import _arn, _function, _resources, _statements

DRIFT_EVENT = "schema_drift_detected.json"


@pytest.fixture(scope="module")
def synth(synth_factory: Callable[[dict[str, Any]], Synthesized]) -> Synthesized:
    return synth_factory(shipped_context())


def test_the_pattern_names_what_the_lineage_function_puts() -> None:
    assert drift_detected_pattern() == {"source": [DRIFT_SOURCE], "detail-type": [DRIFT_DETAIL_TYPE]}


def test_drift_events_reach_schema_sync_and_nothing_else_does(bus: Bus) -> None:  # noqa: F811
    drift = load_event(DRIFT_EVENT)
    bus.rule(drift_detected_pattern())
    assert bus.matches(drift)
    assert not bus.matches({**drift, "source": "kafka-lineage.schema-sync"})
    assert not bus.matches({**drift, "detail-type": "Topic Asset Changed"})
    assert not bus.matches(load_event("glue_register_schema_version.json"))
    # A breaking, warning or info drift alike: the pattern does not filter on the detail
    for severity in ("warning", "info"):
        quieter = copy.deepcopy(drift)
        quieter["detail"]["severity"] = severity
        assert bus.matches(quieter)


def test_the_two_rules_never_feed_each_others_events_back(bus: Bus) -> None:  # noqa: F811
    # lineage's rule does not take drift events, schema-sync's drift rule does not take asset changes: each
    # turn of the drift -> revision -> asset changed chain is one function's own decision (see
    # kafka_lineage.sync.requests._from_drift for why it ends after one turn)
    bus.rule(asset_changed_pattern())
    assert not bus.matches(load_event(DRIFT_EVENT))
    bus.rule(drift_detected_pattern())
    changed = load_event("topic_asset_changed.json")
    assert not bus.matches(changed)


def test_the_stack_routes_drift_events_to_schema_sync(synth: Synthesized) -> None:
    sync_id, _ = _function(synth, SCHEMA_SYNC_HANDLER)
    (asset_type_id,) = synth.resources("Custom::DataZoneAssetType")
    rules = [
        (logical_id, rule)
        for logical_id, rule in synth.resources("AWS::Events::Rule").items()
        if rule["Properties"].get("EventPattern", {}).get("source") == [DRIFT_SOURCE]
    ]
    (logical_id, rule) = rules[0] if len(rules) == 1 else pytest.fail(f"expected one drift rule: {rules}")
    assert rule["Properties"]["EventPattern"] == drift_detected_pattern()
    (target,) = rule["Properties"]["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": [sync_id, "Arn"]}
    assert "Input" not in target  # the event itself names the topic
    assert target["RetryPolicy"]["MaximumRetryAttempts"] == 4
    assert "DeadLetterConfig" in target
    assert asset_type_id in rule.get("DependsOn", []), logical_id
    # EventBridge may invoke the function for this rule
    permissions = [
        p["Properties"]
        for p in synth.resources("AWS::Lambda::Permission").values()
        if p["Properties"].get("SourceArn") == {"Fn::GetAtt": [logical_id, "Arn"]}
    ]
    assert [p["FunctionName"] for p in permissions] == [{"Fn::GetAtt": [sync_id, "Arn"]}]


def test_lineage_writes_the_drift_summaries_and_schema_sync_only_reads_them(synth: Synthesized) -> None:
    lineage_id, _ = _function(synth, LINEAGE_HANDLER)
    sync_id, _ = _function(synth, SCHEMA_SYNC_HANDLER)
    lineage = _statements(synth, lineage_id)
    sync = _statements(synth, sync_id)
    # lineage writes below drift/ and reads the whole tree, the drift path itself included
    writes = lineage["MappingsWrite"]
    assert set(writes["Action"]) == {"ssm:PutParameter", "ssm:DeleteParameter"}
    assert _arn("ssm", "parameter/kafka-lineage/drift/*") in _resources(writes)
    assert lineage["MappingsRead"]["Action"] == "ssm:GetParametersByPath"
    assert _resources(lineage["MappingsRead"]) == [
        _arn("ssm", "parameter/kafka-lineage"),
        _arn("ssm", "parameter/kafka-lineage/*"),
    ]
    # schema-sync reads the drift path (GetParametersByPath on the path itself) through the tree-wide read
    assert sync["MappingsRead"]["Action"] == "ssm:GetParametersByPath"
    assert _arn("ssm", "parameter/kafka-lineage/*") in _resources(sync["MappingsRead"])
    # and may write nowhere below drift/
    for statement in sync.values():
        assert not any("/drift" in resource for resource in _resources(statement)), statement
