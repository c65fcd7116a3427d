"""PackedStore against an in-memory SSM that enforces the documented limits moto lets slide."""

from __future__ import annotations

import json
import re
import string
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_lineage.aws.pacing import RateLimiter
from kafka_lineage.aws.packed_store import PackedFormatError, PackedStore
from kafka_lineage.model.failures import AwsError, Unavailable
from kafka_lineage.model.ssm_names import SSM_ARN_PREFIX_BUDGET, SSM_OWN_SUFFIX_BUDGET, validate_ssm_path
from kafka_lineage.model.state_layout import MAX_VALUE_BYTES
from tests.unit.fake_clients import FakeClient, aws_error, wired

# The longest parameter ARN prefix we plan for (config.SSM_ARN_PREFIX_BUDGET spelt out).
ARN_PREFIX = "arn:aws-iso-b:ssm:" + "x" * 25 + ":123456789012:parameter"
SSM_NAME = re.compile(r"[a-zA-Z0-9_.\-/]+")
GLUE_ALPHABET = string.ascii_letters + string.digits + "-_$#."


def _error(code: str, message: str, operation: str) -> AwsError:
    return aws_error(code, message, operation)


def ssm_name_problem(name: str) -> str | None:
    """Why real SSM would reject `name` (documented rules), or None when it is valid."""
    if not name.startswith("/") or name.endswith("/"):
        return "a hierarchical name starts with '/' and does not end with it"
    if not SSM_NAME.fullmatch(name):
        return "only letters, digits, _ . - and / are allowed"
    levels = name.split("/")[1:]
    if any(not level for level in levels):
        return "empty level"
    if len(levels) > 15:
        return "more than 15 levels"
    if any(level.lower().startswith(("aws", "ssm")) for level in levels):
        return "a level starts with aws or ssm"
    if len(ARN_PREFIX + name) > 1011:
        return "the ARN is longer than 1011 characters"
    return None


class FakeSSM(FakeClient):
    """SSM Parameter Store as far as PackedStore uses it, strict where AWS documents a limit.

    Hand-written because moto accepts invalid names, any page size and oversize values.
    """

    SERVICE = "ssm"

    def __init__(self, parameter_limit: int = 10_000) -> None:
        self.parameters: dict[str, dict[str, Any]] = {}
        self.parameter_limit = parameter_limit
        self.calls: list[tuple[str, str]] = []
        self.fail_on_write: int | None = None  # raise on the n-th write call (1-based) to simulate a crash
        self.writes = 0
        self._clock = datetime(2026, 1, 1, tzinfo=UTC)
        self.on_put: Any = None

    def _tick(self) -> datetime:
        self._clock += timedelta(seconds=1)
        return self._clock

    def _check_name(self, name: str, operation: str) -> None:
        problem = ssm_name_problem(name)
        if problem is not None:
            raise _error("ValidationException", f"invalid parameter name {name!r}: {problem}", operation)

    def _count_write(self, operation: str) -> None:
        self.writes += 1
        if self.fail_on_write is not None and self.writes == self.fail_on_write:
            raise _error("InternalServerError", "simulated failure", operation)

    def put_parameter(
        self, *, Name: str, Value: str, Type: str, Overwrite: bool = False, Tier: str = "Standard"
    ):
        self._check_name(Name, "PutParameter")
        if self.on_put is not None:
            self.on_put()
        self._count_write("PutParameter")
        if Type not in ("String", "StringList", "SecureString"):
            raise _error("ValidationException", f"bad type {Type}", "PutParameter")
        if Tier != "Standard":
            raise _error("ValidationException", "this account uses the standard tier only", "PutParameter")
        size = len(Value.encode("utf-8"))
        if not 1 <= size <= MAX_VALUE_BYTES:
            raise _error("ValidationException", f"value of {size} bytes is outside 1..4096", "PutParameter")
        existing = self.parameters.get(Name)
        if existing is not None and not Overwrite:
            raise _error("ParameterAlreadyExists", Name, "PutParameter")
        if existing is None and len(self.parameters) >= self.parameter_limit:
            raise _error("ParameterLimitExceeded", "standard tier quota reached", "PutParameter")
        version = 1 if existing is None else existing["Version"] + 1
        self.parameters[Name] = {
            "Name": Name,
            "Type": Type,
            "Value": Value,
            "Version": version,
            "LastModifiedDate": self._tick(),
        }
        self.calls.append(("put", Name))
        return {"Version": version, "Tier": "Standard"}

    def delete_parameter(self, *, Name: str) -> dict[str, Any]:
        self._check_name(Name, "DeleteParameter")
        self._count_write("DeleteParameter")
        if self.parameters.pop(Name, None) is None:
            raise _error("ParameterNotFound", Name, "DeleteParameter")
        self.calls.append(("delete", Name))
        return {}

    def get_parameters_by_path(
        self, *, Path: str, Recursive: bool = False, MaxResults: int = 10, NextToken: str | None = None
    ) -> dict[str, Any]:
        self._check_name(Path, "GetParametersByPath")
        if not 1 <= MaxResults <= 10:
            raise _error(
                "ValidationException", f"MaxResults {MaxResults} outside 1..10", "GetParametersByPath"
            )
        below = [
            name
            for name in sorted(self.parameters)
            if name.startswith(Path + "/") and (Recursive or "/" not in name[len(Path) + 1 :])
        ]
        start = int(NextToken or 0)
        page = below[start : start + MaxResults]
        response: dict[str, Any] = {"Parameters": [dict(self.parameters[name]) for name in page]}
        if start + MaxResults < len(below):
            response["NextToken"] = str(start + MaxResults)
        return response

    def seed(self, name: str, value: str, modified: datetime | None = None) -> None:
        """Put a parameter directly, as another tool or an earlier crash would have left it."""
        self.parameters[name] = {
            "Name": name,
            "Type": "String",
            "Value": value,
            "Version": 1,
            "LastModifiedDate": modified or self._tick(),
        }

    def values(self, prefix: str) -> dict[str, dict[str, Any]]:
        return {
            name: json.loads(p["Value"]) for name, p in self.parameters.items() if name.startswith(prefix)
        }


class CountingLimiter(RateLimiter):
    def __init__(self) -> None:
        super().__init__(per_second=1000)
        self.acquired = 0

    def acquire(self) -> int:
        self.acquired += 1
        return super().acquire()


PREFIX = "/kafka-lineage/assets"


def key_in_group(group: str, group_bits: int = 8, start: int = 0) -> str:
    """The first key `k{i}` (i >= start) whose hash falls in `group`."""
    i = start
    while PackedStore.group_of(f"k{i}", group_bits) != group:
        i += 1
    return f"k{i}"


def keys_in_group(group: str, count: int, group_bits: int = 8) -> list[str]:
    keys: list[str] = []
    i = 0
    while len(keys) < count:
        key = key_in_group(group, group_bits, i)
        keys.append(key)
        i = int(key[1:]) + 1
    return keys


def fresh(ssm: FakeSSM, prefix: str = PREFIX, **kwargs: Any) -> PackedStore:
    store = PackedStore(ssm, prefix, **kwargs)
    store.load()
    return store


def test_round_trip_of_weird_glue_names():
    # Given keys with every character Glue allows and SSM does not, plus a heartbeat topic
    ssm = FakeSSM()
    entries: dict[str, dict[str, Any]] = {
        "cdc/dbserver1.inventory.customers": {"assetId": "a1", "revision": "1"},
        "reg$1/#weird$name#": {"assetId": "a2", "revision": "2", "nested": {"x": [1, 2.5, None, True]}},
        "cdc/__debezium-heartbeat.dbserver1": {"assetId": "a3"},
        f"{'r' * 255}/{'s' * 255}": {"assetId": "a4"},
        "arn:aws:glue:eu-west-1:111122223333:schema/aws/ssm": {"assetId": "a5", "name": "ünïcødé ✓"},
    }
    store = fresh(ssm)

    # When they are saved and a new store loads them
    writes = store.save(entries)
    loaded = fresh(ssm).load()

    # Then every entry comes back exactly, and every name SSM holds is valid
    assert loaded == entries
    assert writes == len(ssm.calls) == store.parameter_count()
    assert all(ssm_name_problem(name) is None for name in ssm.parameters)
    assert all(re.fullmatch(r"/kafka-lineage/assets/[0-9a-f]{2}-\d+", name) for name in ssm.parameters)


def test_value_format_is_versioned_compact_json():
    # Given one entry
    ssm = FakeSSM()
    store = fresh(ssm)

    # When it is saved
    store.save({"reg/schema": {"b": 2, "a": 1}})

    # Then the parameter holds {"v":1,"e":{key: entry}} compact and key-sorted, in the key's hash group
    [(name, parameter)] = ssm.parameters.items()
    assert name == f"{PREFIX}/{PackedStore.group_of('reg/schema')}-0"
    assert parameter["Value"] == '{"v":1,"e":{"reg/schema":{"a":1,"b":2}}}'
    assert parameter["Type"] == "String"


def test_updating_one_entry_rewrites_exactly_one_parameter():
    # Given many entries spread over many parameters
    ssm = FakeSSM()
    entries = {f"reg/topic-{i}": {"assetId": f"asset-{i}", "revision": "1"} for i in range(300)}
    fresh(ssm).save(entries)
    store = fresh(ssm)
    before = {name: p["Value"] for name, p in ssm.parameters.items()}
    holder = store.parameter_names_for("reg/topic-7")
    ssm.calls.clear()

    # When one entry changes
    writes = store.save({"reg/topic-7": {"assetId": "asset-7", "revision": "2"}})

    # Then only its parameter is written, in place
    assert writes == 1
    assert ssm.calls == [("put", holder[0])]
    changed = {name for name, p in ssm.parameters.items() if before.get(name) != p["Value"]}
    assert changed == set(holder)
    assert fresh(ssm).load()["reg/topic-7"]["revision"] == "2"


def test_unchanged_entries_write_nothing():
    # Given saved entries
    ssm = FakeSSM()
    entries = {f"reg/t{i}": {"assetId": str(i)} for i in range(50)}
    fresh(ssm).save(entries)
    store = fresh(ssm)
    ssm.calls.clear()

    # When the same entries (key order shuffled inside) are saved again, and an unknown key is deleted
    writes = store.save(
        {**{k: dict(reversed(list(v.items()))) for k, v in entries.items()}, "reg/none": None}
    )

    # Then SSM sees no write at all
    assert writes == 0
    assert ssm.calls == []


def test_a_group_grows_into_new_chunks_and_each_stays_under_4096_bytes():
    # Given one hash group (group_bits=1: two groups) and entries that fill several chunks
    ssm = FakeSSM()
    store = fresh(ssm, group_bits=1)
    keys = keys_in_group("0", 60, group_bits=1)
    entries = {key: {"payload": "x" * 200} for key in keys}

    # When they are saved
    store.save(entries)

    # Then the group spans chunks 0..n with no gap, each value within SSM's limit, and nothing is lost
    names = sorted(ssm.parameters, key=lambda n: int(n.rsplit("-", 1)[1]))
    assert len(names) >= 3
    assert names == [f"{PREFIX}/0-{i}" for i in range(len(names))]
    assert all(len(p["Value"].encode()) <= MAX_VALUE_BYTES for p in ssm.parameters.values())
    assert fresh(ssm, group_bits=1).load() == entries


def test_new_entry_goes_to_lowest_chunk_with_room():
    # Given a group with chunks 0 and 1, where one deletion frees room in chunk 0
    ssm = FakeSSM()
    store = fresh(ssm, group_bits=1)
    keys = keys_in_group("0", 30, group_bits=1)
    store.save({key: {"payload": "y" * 200} for key in keys})
    in_chunk_0 = [k for k in keys if store.parameter_names_for(k) == [f"{PREFIX}/0-0"]]
    store = fresh(ssm, group_bits=1)
    store.save({in_chunk_0[0]: None})
    ssm.calls.clear()

    # When a new entry of that group arrives
    newcomer = keys_in_group("0", 31, group_bits=1)[-1]
    writes = store.save({newcomer: {"payload": "z" * 150}})

    # Then it fills chunk 0, one write
    assert writes == 1
    assert store.parameter_names_for(newcomer) == [f"{PREFIX}/0-0"]
    assert ssm.calls == [("put", f"{PREFIX}/0-0")]


def test_deleting_every_entry_of_a_chunk_deletes_the_parameter():
    # Given two entries in one chunk and one in another group
    ssm = FakeSSM()
    a, b = keys_in_group("00", 2)
    other = key_in_group("01")
    store = fresh(ssm)
    store.save({a: {"n": 1}, b: {"n": 2}, other: {"n": 3}})
    assert store.parameter_count() == 2

    # When both entries of chunk 00-0 are deleted (one missing already in SSM: deletion must be idempotent)
    del ssm.parameters[f"{PREFIX}/00-0"]
    writes = store.save({a: None, b: None})

    # Then the chunk is gone (ParameterNotFound counted as success) and the other entry stays
    assert writes == 1
    assert store.parameter_count() == 1
    assert fresh(ssm).load() == {other: {"n": 3}}


def test_an_entry_that_outgrows_its_chunk_moves_destination_first():
    # Given a full chunk 0 (group_bits=1) and an entry in it that is about to grow
    ssm = FakeSSM()
    store = fresh(ssm, group_bits=1)
    keys = keys_in_group("0", 40, group_bits=1)
    store.save({key: {"payload": "p" * 150} for key in keys})
    store = fresh(ssm, group_bits=1)
    grower = next(k for k in keys if store.parameter_names_for(k) == [f"{PREFIX}/0-0"])
    ssm.calls.clear()

    # When it grows beyond the room left in chunk 0
    writes = store.save({grower: {"payload": "g" * 2000}})

    # Then it is written to its new chunk before being removed from the old one
    assert writes == 2
    destination = store.parameter_names_for(grower)[0]
    assert destination != f"{PREFIX}/0-0"
    assert ssm.calls == [("put", destination), ("put", f"{PREFIX}/0-0")]
    assert fresh(ssm, group_bits=1).load()[grower] == {"payload": "g" * 2000}


def test_a_crash_mid_move_leaves_a_duplicate_that_load_resolves_and_save_repairs():
    # Given a move whose second write (removal from the source) fails
    ssm = FakeSSM()
    store = fresh(ssm, group_bits=1)
    keys = keys_in_group("0", 40, group_bits=1)
    old = {key: {"payload": "p" * 150} for key in keys}
    store.save(old)
    store = fresh(ssm, group_bits=1)
    grower = next(k for k in keys if store.parameter_names_for(k) == [f"{PREFIX}/0-0"])
    ssm.writes, ssm.fail_on_write = 0, 2
    with pytest.raises(Unavailable):
        store.save({grower: {"payload": "g" * 2000}})
    ssm.fail_on_write = None

    # When the store is used again without reloading, it refuses; after a reload the newest copy wins
    with pytest.raises(RuntimeError, match="load"):
        store.save({})
    holders = [name for name, value in ssm.values(PREFIX).items() if grower in value["e"]]
    assert len(holders) == 2
    reloaded = fresh(ssm, group_bits=1)
    loaded = reloaded.load()
    assert loaded == {**old, grower: {"payload": "g" * 2000}}

    # Then the next save removes the stale copy with one write
    assert reloaded.save({}) == 1
    assert [name for name, value in ssm.values(PREFIX).items() if grower in value["e"]] == [
        reloaded.parameter_names_for(grower)[0]
    ]


def test_duplicates_with_equal_timestamps_keep_the_lower_chunk():
    # Given the same key in chunks 0 and 2 of its group, last modified at the same instant
    ssm = FakeSSM()
    key = "reg/dup"
    group = PackedStore.group_of(key)
    at = datetime(2026, 2, 2, tzinfo=UTC)
    ssm.seed(f"{PREFIX}/{group}-2", json.dumps({"v": 1, "e": {key: {"copy": "high"}}}), at)
    ssm.seed(f"{PREFIX}/{group}-0", json.dumps({"v": 1, "e": {key: {"copy": "low"}, "x/y": {"z": 1}}}), at)
    store = PackedStore(ssm, PREFIX)

    # When loaded
    loaded = store.load()

    # Then the lower chunk's copy wins; the next save deletes the emptied higher chunk
    assert loaded == {key: {"copy": "low"}, "x/y": {"z": 1}}
    assert store.save({}) == 1
    assert sorted(ssm.parameters) == [f"{PREFIX}/{group}-0"]


def test_an_oversize_entry_is_rejected_by_name_before_anything_is_written():
    # Given a valid change and one entry that cannot fit a parameter on its own
    ssm = FakeSSM()
    store = fresh(ssm)

    # When both are saved, Then a ValueError names the big key and nothing reached SSM
    with pytest.raises(ValueError, match=r"reg/huge.*4096"):
        store.save({"reg/ok": {"a": 1}, "reg/huge": {"blob": "x" * 4090}})
    assert ssm.parameters == {}


def test_an_entry_that_exactly_fills_a_parameter_is_accepted():
    # Given an entry sized so that the value is exactly 4096 bytes
    ssm = FakeSSM()
    store = fresh(ssm)
    overhead = len('{"v":1,"e":{"k":{"b":""}}}')
    entry = {"b": "é" * ((MAX_VALUE_BYTES - overhead) // 2)}
    if (MAX_VALUE_BYTES - overhead) % 2:
        entry["b"] += "x"

    # When saved, Then it lands at exactly the limit
    store.save({"k": entry})
    [parameter] = ssm.parameters.values()
    assert len(parameter["Value"].encode("utf-8")) == MAX_VALUE_BYTES
    with pytest.raises(ValueError, match="'k2'"):
        store.save({"k2": {"b": entry["b"] + "x"}})


@pytest.mark.parametrize(("extra", "chunks"), [(0, 1), (1, 2)])
def test_packing_is_byte_exact_at_the_limit(extra, chunks):
    # Given a chunk holding one entry, and a second entry of the same group sized to fill the rest exactly
    # (counting the comma between entries), or one byte more
    ssm = FakeSSM()
    store = fresh(ssm)
    a, b = keys_in_group("00", 2)
    store.save({a: {"b": "x" * 1000}})
    room = MAX_VALUE_BYTES - len(ssm.parameters[f"{PREFIX}/00-0"]["Value"])
    filler = room - len(",") - len(json.dumps(b)) - len(':{"b":""}') + extra

    # When it is saved
    store.save({b: {"b": "y" * filler}})

    # Then it shares the chunk at exactly 4096 bytes, or (one byte more) opens the next chunk
    assert store.parameter_count() == chunks
    if chunks == 1:
        assert len(ssm.parameters[f"{PREFIX}/00-0"]["Value"]) == MAX_VALUE_BYTES
    assert fresh(ssm).load() == {a: {"b": "x" * 1000}, b: {"b": "y" * filler}}


@pytest.mark.parametrize("entry", [{"when": datetime(2026, 1, 1)}, {"nan": float("nan")}])
def test_a_non_json_entry_is_rejected(entry):
    store = fresh(FakeSSM())
    with pytest.raises(ValueError, match="reg/bad"):
        store.save({"reg/bad": entry})


def test_an_unknown_format_version_is_never_overwritten():
    # Given a chunk written by a newer release
    ssm = FakeSSM()
    key = "reg/s"
    name = f"{PREFIX}/{PackedStore.group_of(key)}-0"
    ssm.seed(name, json.dumps({"v": 2, "entries": {key: {}}}))
    store = PackedStore(ssm, PREFIX)

    # When loaded, Then a clear error names the parameter and version, and save() stays locked
    with pytest.raises(PackedFormatError, match=rf"{re.escape(name)}.*version 2"):
        store.load()
    with pytest.raises(RuntimeError, match="load"):
        store.save({key: {"a": 1}})
    assert json.loads(ssm.parameters[name]["Value"])["v"] == 2


def test_a_corrupt_chunk_of_ours_is_an_error():
    ssm = FakeSSM()
    ssm.seed(f"{PREFIX}/ab-0", '{"v":1,"e":{"k":"not an object"}}')
    with pytest.raises(PackedFormatError, match="ab-0"):
        PackedStore(ssm, PREFIX).load()


def test_parameters_that_are_not_ours_are_left_alone(monkeypatch):
    # Given foreign parameters under the prefix: other names, a deeper level, and a chunk-shaped name
    # holding something that is not our JSON
    ssm = FakeSSM()
    foreign = {
        f"{PREFIX}/README": "hello",
        f"{PREFIX}/sub/00-0": '{"v":1,"e":{}}',
        f"{PREFIX}/00-0": "not json",
        f"{PREFIX}/00-1": '["json", "but not ours"]',
        f"{PREFIX}/00-01": '{"v":1,"e":{}}',
    }
    for name, value in foreign.items():
        ssm.seed(name, value)
    warnings: list[str] = []
    from kafka_lineage.observability import logger

    monkeypatch.setattr(logger, "warning", lambda msg, *a, **k: warnings.append(msg))
    store = PackedStore(ssm, PREFIX)

    # When loading and saving an entry of group 00
    assert store.load() == {}
    key = key_in_group("00")
    store.save({key: {"a": 1}})

    # Then each foreign parameter was reported, none was touched, and the entry skipped the blocked chunks
    assert len(warnings) == len(foreign)
    assert {name: ssm.parameters[name]["Value"] for name in foreign} == foreign
    assert store.parameter_names_for(key) == [f"{PREFIX}/00-2"]
    assert store.parameter_count() == 1


def test_writes_go_through_the_limiter_and_are_counted():
    # Given a limiter that counts, on a real client (pacing is its hook) that the fake SSM answers
    ssm = FakeSSM()
    limiter = CountingLimiter()
    store = PackedStore(wired(ssm, "ssm"), PREFIX, write_limiter=limiter)
    store.load()

    # When entries in three groups are created, then one deleted
    keys = [key_in_group("10"), key_in_group("20"), key_in_group("30")]
    first = store.save({key: {"v": 1} for key in keys})
    second = store.save({keys[0]: None})

    # Then each write (put or delete) acquired the limiter once and was counted; the reads were not paced
    assert (first, second) == (3, 1)
    assert limiter.acquired == 4 == ssm.writes


def test_a_deleted_chunk_is_not_recreated_within_30_seconds():
    # Given a chunk that a save just deleted
    ssm = FakeSSM()
    store = fresh(ssm)
    a, b = keys_in_group("42", 2)
    store.save({a: {"n": 1}})
    store.save({a: None})
    assert ssm.calls[-1] == ("delete", f"{PREFIX}/42-0")

    # When another entry of that group arrives at once
    store.save({b: {"n": 2}})

    # Then it goes to the next index instead of re-creating the name AWS asks to leave alone for 30 s
    assert store.parameter_names_for(b) == [f"{PREFIX}/42-1"]
    assert fresh(ssm).load() == {b: {"n": 2}}


def test_load_and_save_must_not_overlap():
    # Given a store whose SSM client calls back into it during a write
    ssm = FakeSSM()
    store = fresh(ssm)
    errors: list[Exception] = []

    def reenter() -> None:
        try:
            store.load()
        except RuntimeError as error:
            errors.append(error)

    ssm.on_put = reenter

    # When a save is running, Then load() refuses instead of racing
    store.save({"reg/a": {"a": 1}})
    assert len(errors) == 1
    assert "must not overlap" in str(errors[0])


def test_save_before_load_is_refused():
    with pytest.raises(RuntimeError, match="load"):
        PackedStore(FakeSSM(), PREFIX).save({"a": {}})


@pytest.mark.parametrize("path", ["kafka-lineage/assets", "/"])
def test_the_store_path_must_be_a_path_below_the_root(path):
    with pytest.raises(ValueError, match="SSM path"):
        PackedStore(FakeSSM(), path)


def test_keys_must_be_non_empty_strings():
    store = fresh(FakeSSM())
    with pytest.raises(ValueError, match="non-empty"):
        store.save({"": {"a": 1}})


def test_a_group_bits_change_keeps_old_chunks_readable_and_sticky():
    # Given entries written with 8 group bits
    ssm = FakeSSM()
    entries = {f"reg/t{i}": {"i": i} for i in range(40)}
    fresh(ssm, group_bits=8).save(entries)
    names = set(ssm.parameters)

    # When a store with 4 group bits loads and updates one
    store = fresh(ssm, group_bits=4)
    assert store.load() == entries
    holder = store.parameter_names_for("reg/t3")
    store.save({"reg/t3": {"i": -3}})

    # Then the entry was updated where it lives
    assert set(ssm.parameters) == names
    assert json.loads(ssm.parameters[holder[0]]["Value"])["e"]["reg/t3"] == {"i": -3}


# -- properties over the whole Glue alphabet -----------------------------------------------------------

glue_names = st.text(alphabet=GLUE_ALPHABET, min_size=1, max_size=255)


def longest_mapping_path() -> str:
    """The longest MAPPING_PATH config accepts (the ARN budget), as deep as allowed."""
    length = 1011 - SSM_ARN_PREFIX_BUDGET - SSM_OWN_SUFFIX_BUDGET
    levels = 12
    level = (length - levels) // levels
    path = "".join("/" + "p" * level for _ in range(levels))
    path += "q" * (length - len(path))
    return validate_ssm_path(path)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    names=st.lists(st.tuples(glue_names, glue_names), min_size=1, max_size=40, unique=True),
    arns=st.booleans(),
    group_bits=st.sampled_from([1, 3, 8]),
    lineage=st.booleans(),
)
def test_property_any_glue_names_round_trip_injectively_within_ssm_limits(names, arns, group_bits, lineage):
    # Given keys built from arbitrary legal registry/schema names, under the longest legal MAPPING_PATH
    prefix = longest_mapping_path() + ("/lineage" if lineage else "/assets")
    keys = [
        f"arn:aws:glue:eu-west-1:111122223333:schema/{registry}/{schema}" if arns else f"{registry}/{schema}"
        for registry, schema in names
    ]
    entries = {key: {"assetId": f"id{i}", "rev": i} for i, key in enumerate(keys)}
    ssm = FakeSSM()
    store = fresh(ssm, prefix, group_bits=group_bits)

    # When saved, then half updated and a quarter deleted, and reloaded by a fresh store
    store.save(entries)
    changes: dict[str, dict[str, Any] | None] = {
        key: {"assetId": key[-3:], "grown": "x" * 300} for key in keys[::2]
    }
    changes.update(dict.fromkeys(keys[1::4]))
    store.save(changes)
    expected = {key: value for key, value in {**entries, **changes}.items() if value is not None}
    loaded = fresh(ssm, prefix, group_bits=group_bits).load()

    # Then every key maps back to exactly its own entry, and SSM's rules held for every name and value
    assert loaded == expected
    for name, parameter in ssm.parameters.items():
        assert ssm_name_problem(name) is None, name
        assert len(parameter["Value"].encode("utf-8")) <= MAX_VALUE_BYTES
    held = [key for value in ssm.values(prefix).values() for key in value["e"]]
    assert sorted(held) == sorted(expected)


# -- scale ----------------------------------------------------------------------------------------------


def realistic_parameter_count(entries: int = 10_000, group_bits: int = 8) -> int:
    """Parameters used by `entries` realistic mapping entries (schema ARN key, ~100-byte entry).

    The README quotes this number; run `python -c "from tests.unit.test_packed_store import
    realistic_parameter_count as f; print(f())"` with PYTHONPATH=lambdas:. to reproduce it.
    """
    ssm = FakeSSM()
    store = fresh(ssm, "/kafka-lineage/assets", group_bits=group_bits)
    batch = {
        f"arn:aws:glue:eu-west-1:111122223333:schema/cdc/dbserver1.inventory.table_{i:05d}": {
            "assetId": f"{i:014x}",
            "revision": str(i % 7 + 1),
            "schemaVersion": i % 40 + 1,
            "fingerprint": f"{i * 2654435761 % 2**64:016x}",
        }
        for i in range(entries)
    }
    store.save(batch)
    assert fresh(ssm, "/kafka-lineage/assets", group_bits=group_bits).load() == batch
    return len(ssm.parameters)


def test_ten_thousand_realistic_entries_use_a_small_share_of_the_parameter_quota():
    # Given 10,000 mapping entries, When packed, Then they take a few hundred parameters, not 10,000
    count = realistic_parameter_count()
    assert 256 <= count <= 1_000
