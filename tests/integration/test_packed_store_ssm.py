"""PackedStore over real boto3 SSM: against moto, and against the strict HTTP stand-ins (`local_aws`)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from typing import Any

import pytest
from moto import mock_aws

from kafka_lineage.aws.clients import Clients
from kafka_lineage.aws.packed_store import PackedStore
from kafka_lineage.model.ssm_names import SSM_ARN_PREFIX_BUDGET, SSM_OWN_SUFFIX_BUDGET, validate_ssm_path
from kafka_lineage.observability import logger
from local.standins import LocalAws

PREFIX = "/kafka-lineage/assets"
ARN = "arn:aws:glue:eu-west-1:123456789012:schema/{registry}/{schema}"


def schema_entries(count: int) -> dict[str, dict[str, Any]]:
    """Entries keyed by schema ARN, with names only Glue accepts ($, #, heartbeat topics, 255 chars)."""
    names = [
        ("cdc", "dbserver1.inventory.customers"),
        ("cdc", "__debezium-heartbeat.dbserver1"),
        ("reg$1", "#weird$name#"),
        ("r" * 255, "s" * 255),
        ("aws", "ssm"),
    ]
    names += [("cdc", f"dbserver1.inventory.table_{i:04d}") for i in range(count - len(names))]
    return {
        ARN.format(registry=registry, schema=schema): {"assetId": f"{i:014x}", "revision": "1", "version": 1}
        for i, (registry, schema) in enumerate(names)
    }


def longest_mapping_path() -> str:
    """The longest MAPPING_PATH config accepts, twelve levels deep."""
    length = 1011 - SSM_ARN_PREFIX_BUDGET - SSM_OWN_SUFFIX_BUDGET
    level = (length - 12) // 12
    path = "".join("/" + "p" * level for _ in range(12))
    return validate_ssm_path(path + "q" * (length - len(path)))


@pytest.fixture
def moto_ssm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """A wiring's SSM client (the functions' retry policy) talking to moto."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", "eu-west-1")
    for variable in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        monkeypatch.delenv(variable, raising=False)
    with mock_aws():
        yield Clients().client("ssm")


def test_moto_round_trip_sticky_updates_and_deletes(moto_ssm: Any) -> None:
    # Given 300 entries saved, more than one GetParametersByPath page
    entries = schema_entries(300)
    store = PackedStore(moto_ssm, PREFIX)
    store.load()
    created = store.save(entries)
    names = {p["Name"] for p in _all_parameters(moto_ssm, PREFIX)}
    assert created == store.parameter_count() == len(names) > 10

    # When a fresh store loads them, updates one and deletes another
    store = PackedStore(moto_ssm, PREFIX)
    assert store.load() == entries
    keys = sorted(entries)
    updated, deleted = keys[3], keys[4]
    holders = {*store.parameter_names_for(updated), *store.parameter_names_for(deleted)}
    versions = {p["Name"]: p["Version"] for p in _all_parameters(moto_ssm, PREFIX)}
    writes = store.save({updated: {**entries[updated], "revision": "2"}, deleted: None})

    # Then only the parameters holding them were written, and a third store sees the result
    assert writes == len(holders)
    after = {p["Name"]: p["Version"] for p in _all_parameters(moto_ssm, PREFIX)}
    changed = {name for name in versions if after.get(name) != versions[name]}
    assert changed == holders
    expected = {k: v for k, v in entries.items() if k != deleted}
    expected[updated] = {**entries[updated], "revision": "2"}
    assert PackedStore(moto_ssm, PREFIX).load() == expected


def test_moto_standard_tier_string_values_within_4096_bytes(moto_ssm: Any) -> None:
    # Given entries that fill several chunks of a group
    store = PackedStore(moto_ssm, PREFIX, group_bits=1)
    store.load()
    entries = {f"cdc/topic-{i}": {"payload": "x" * 500} for i in range(40)}

    # When saved
    store.save(entries)

    # Then every parameter is a standard-tier String of at most 4096 bytes
    parameters = _all_parameters(moto_ssm, PREFIX)
    assert len(parameters) >= 5
    for parameter in parameters:
        described = moto_ssm.get_parameter(Name=parameter["Name"])["Parameter"]
        assert described["Type"] == "String"
        assert len(parameter["Value"].encode("utf-8")) <= 4096
    tiers = moto_ssm.describe_parameters(
        ParameterFilters=[{"Key": "Name", "Option": "BeginsWith", "Values": [PREFIX]}], MaxResults=50
    )["Parameters"]
    assert {p["Tier"] for p in tiers} == {"Standard"}


def test_moto_foreign_parameters_are_left_alone(moto_ssm: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an operator's note and a chunk-shaped parameter with foreign content under the prefix
    moto_ssm.put_parameter(Name=f"{PREFIX}/notes", Value="hand written", Type="String")
    moto_ssm.put_parameter(Name=f"{PREFIX}/00-0", Value="a,b", Type="StringList")
    warnings: list[str] = []
    monkeypatch.setattr(logger, "warning", lambda msg, *a, **k: warnings.append(msg))
    store = PackedStore(moto_ssm, PREFIX)

    # When loaded and an entry of group 00 is saved
    assert store.load() == {}
    key = next(f"k{i}" for i in range(10_000) if PackedStore.group_of(f"k{i}") == "00")
    store.save({key: {"a": 1}})

    # Then both were reported and kept, and the entry went to the next free chunk
    assert len(warnings) == 2
    assert moto_ssm.get_parameter(Name=f"{PREFIX}/notes")["Parameter"]["Value"] == "hand written"
    assert moto_ssm.get_parameter(Name=f"{PREFIX}/00-0")["Parameter"]["Value"] == "a,b"
    assert json.loads(moto_ssm.get_parameter(Name=f"{PREFIX}/00-1")["Parameter"]["Value"]) == {
        "v": 1,
        "e": {key: {"a": 1}},
    }


def test_standins_enforce_ssm_rules_for_the_longest_path_and_any_glue_name(local_aws: LocalAws) -> None:
    # Given the strict stand-ins (SSM naming, depth, ARN length, value size checked server-side)
    # and the longest MAPPING_PATH config accepts
    ssm = Clients().client("ssm")
    prefix = longest_mapping_path() + "/lineage"
    entries = schema_entries(60)
    store = PackedStore(ssm, prefix)
    store.load()

    # When entries keyed by names SSM could never carry are saved, then reloaded
    writes = store.save(entries)
    loaded = PackedStore(ssm, prefix).load()

    # Then every write was accepted, and reading back took ceil(parameters / 10) pages
    assert loaded == entries
    counts = local_aws.call_counts("ssm", ok=True)
    assert counts["ssm:PutParameter"] == writes == store.parameter_count()
    assert counts["ssm:GetParametersByPath"] == 1 + math.ceil(writes / 10)
    assert local_aws.call_counts("ssm", ok=False) == {}


def test_standins_lost_responses_are_retried_safely(local_aws: LocalAws, fast_retries: None) -> None:
    # Given saved entries, and SSM applying a put and a delete but losing their responses
    ssm = Clients().client("ssm")
    store = PackedStore(ssm, PREFIX)
    store.load()
    a, b = ARN.format(registry="reg$1", schema="#weird$name#"), ARN.format(registry="cdc", schema="__hb")
    assert PackedStore.group_of(a) != PackedStore.group_of(b)
    store.save({a: {"n": 1}, b: {"n": 2}})
    local_aws.faults.add(service="ssm", operation="PutParameter", kind="lost_response", times=1)
    local_aws.faults.add(service="ssm", operation="DeleteParameter", kind="lost_response", times=1)

    # When one entry is updated and the other deleted
    writes = store.save({a: {"n": 10}, b: None})

    # Then botocore re-sent both (the repeated delete met ParameterNotFound) and the state holds
    assert writes == 2
    assert local_aws.call_counts("ssm")["ssm:DeleteParameter"] == 2
    assert PackedStore(ssm, PREFIX).load() == {a: {"n": 10}}


def _all_parameters(ssm: Any, path: str) -> list[dict[str, Any]]:
    pages = ssm.get_paginator("get_parameters_by_path").paginate(Path=path, Recursive=True)
    return [parameter for page in pages for parameter in page["Parameters"]]
