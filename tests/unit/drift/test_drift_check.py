"""The lineage run's drift step over fakes: which pairs are checked, announced once, failures kept apart."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from kafka_lineage.drift import DriftSummary
from kafka_lineage.lineage.drift_check import (
    MAX_FACET_CHANGES,
    DriftCheck,
    DriftRound,
    announce,
    drift_facet,
    pending,
)
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.registry import VersionDefinition
from kafka_lineage.model.tables import GlueTable
from kafka_lineage.model.topics import TopicKey
from kafka_lineage.sync.plan import previous_version
from tests.unit.drift.drift_builders import avro, table
from tests.unit.lineage import lineage_builders

KEY = TopicKey("cdc", "shop.customers")
ARN = "arn:aws:glue:eu-west-1:123456789012:schema/cdc/shop.customers"
ID = {"name": "id", "type": "int"}
EMAIL = {"name": "email", "type": "string"}
PHONE = {"name": "phone", "type": ["null", "string"], "default": None}


def envelope(*fields: dict[str, Any]) -> str:
    row = {"type": "record", "name": "Value", "fields": list(fields)}
    return avro(
        {"name": "before", "type": ["null", row], "default": None},
        {"name": "after", "type": ["null", "Value"], "default": None},
    )


def record(previous: int, latest: int) -> AssetRecord:
    return lineage_builders.record(KEY.topic, KEY.registry_name, latest, previous_version=previous)


class Versions:
    def __init__(self, *definitions: str) -> None:
        self.by_number = {
            number: VersionDefinition(d, "AVRO", "", f"v{number}") for number, d in enumerate(definitions, 1)
        }
        self.reads: list[int] = []

    def read(self, schema_arn: str, version_number: int) -> VersionDefinition:
        assert schema_arn == ARN
        self.reads.append(version_number)
        return self.by_number[version_number]


class Announcer:
    def __init__(self, refuse: bool = False) -> None:
        self.details: list[dict[str, Any]] = []
        self.refuse = refuse
        self.lock = threading.Lock()

    def announce(self, detail: Any) -> None:
        if self.refuse:
            raise RuntimeError("PutEvents refused the drift event: InternalFailure")
        with self.lock:
            self.details.append(dict(detail))


CUSTOMERS = table("customers", "id", "email")


class Checked:
    """The run's two halves of drift: the check (reads only), then the announcement (the apply step)."""

    def __init__(self, check: DriftCheck, announcer: Announcer | None) -> None:
        self.check, self.announcer = check, announcer

    def run(self, *args: Any, **kw: Any) -> DriftRound:
        found = self.check.run(*args, **kw)
        return found if self.announcer is None else announce(found, self.announcer)


def check(
    versions: Versions, announcer: Announcer | None, known: dict[str, DriftSummary] | None = None, **kw: Any
) -> Checked:
    clock = lambda: datetime(2026, 11, 30, 12, tzinfo=UTC)  # noqa: E731
    return Checked(DriftCheck(versions, None, known or {}, clock=clock, **kw), announcer)


def tables(_: TopicKey) -> list[GlueTable]:
    return [CUSTOMERS]


def test_given_a_dropped_fed_field_when_checked_then_it_is_announced_and_summarised() -> None:
    # Given v1 (id, email) and v2 (id) of a topic feeding customers(id, email)
    versions, announcer = Versions(envelope(ID, EMAIL), envelope(ID)), Announcer()
    # When the pair is checked
    found = check(versions, announcer).run([KEY], {KEY: record(1, 2)}, tables)
    # Then one breaking announcement names the column, and its summary is ready to save
    (finding,) = found.findings
    (detail,) = announcer.details
    assert detail["severity"] == "breaking"
    assert detail["impacted"][0]["columns"] == ["email"]
    assert finding.summary.severity == "breaking"
    assert found.summaries()[KEY.key] == finding.summary.to_entry()
    assert finding.summary.to_version == 2
    assert sorted(versions.reads) == [1, 2]


def test_given_a_pair_announced_before_when_checked_again_then_it_is_neither_announced_nor_saved() -> None:
    # Given the pair's summary already saved with the same fingerprint
    versions, announcer = Versions(envelope(ID, EMAIL), envelope(ID)), Announcer()
    first = check(versions, announcer).run([KEY], {KEY: record(1, 2)}, tables).findings[0]
    # When a re-emitted run checks it again
    again = check(versions, announcer, {KEY.key: first.summary}).run([KEY], {KEY: record(1, 2)}, tables)
    # Then nothing new is announced or saved, and the facet is still there for the run
    assert len(announcer.details) == 1
    assert again.summaries() == {}
    assert again.facets()[KEY]["severity"] == "breaking"


def test_given_a_change_that_feeds_no_column_when_checked_then_it_is_saved_not_announced() -> None:
    versions, announcer = Versions(envelope(ID, EMAIL), envelope(ID, EMAIL, PHONE)), Announcer()
    found = check(versions, announcer).run([KEY], {KEY: record(1, 2)}, tables)
    assert announcer.details == []
    assert found.findings[0].summary.severity == "info"
    assert KEY.key in found.summaries()


def test_given_a_refused_announcement_when_checked_then_the_topic_fails_and_nothing_is_saved() -> None:
    versions, announcer = Versions(envelope(ID, EMAIL), envelope(ID)), Announcer(refuse=True)
    found = check(versions, announcer).run([KEY], {KEY: record(1, 2)}, tables)
    assert found.findings == []
    ((key, error),) = found.failures
    assert key == KEY
    assert "InternalFailure" in error


def test_given_a_dry_run_when_checked_then_the_drift_is_shown_and_not_announced() -> None:
    # Given a drifted pair, and a dry run: it checks, and never reaches the announcement (the apply step)
    versions, announcer = Versions(envelope(ID, EMAIL), envelope(ID)), Announcer()
    # When only the check runs
    found = check(versions, None).run([KEY], {KEY: record(1, 2)}, tables)
    # Then nothing went out, and the finding says what would
    assert announcer.details == []
    assert found.findings[0].report()["announced"] is True  # would be


def test_given_the_deadline_when_checking_then_the_rest_waits_for_the_next_run() -> None:
    versions, announcer = Versions(envelope(ID, EMAIL), envelope(ID)), Announcer()
    found = check(versions, announcer).run([KEY], {KEY: record(1, 2)}, tables, stop=lambda: True)
    assert (found.findings, found.failures, found.deferred) == ([], [], 1)
    assert versions.reads == []


@pytest.mark.parametrize(
    ("previous", "latest", "saved", "expected"),
    [
        (0, 1, None, False),  # a first version: nothing to compare
        (1, 2, None, True),
        (1, 2, (1, 2), False),  # checked already
        (1, 3, (1, 2), True),  # a newer version since
        (2, 2, None, False),
    ],
)
def test_pending_pairs(previous: int, latest: int, saved: tuple[int, int] | None, expected: bool) -> None:
    known = {}
    if saved is not None:
        known[KEY.key] = DriftSummary(*saved, "info", (), 0, 0, "fp", "2026-11-30T10:00:00Z")
    assert pending([KEY], {KEY: record(previous, latest)}, known) == ([KEY] if expected else [])


def test_the_facet_keeps_the_worst_changes_and_counts_the_rest() -> None:
    # Given a version that adds far more fields than the facet lists
    many = [
        {"name": f"c{i}", "type": ["null", "string"], "default": None} for i in range(MAX_FACET_CHANGES + 5)
    ]
    versions = Versions(envelope(ID, EMAIL), envelope(ID, *many))
    (finding,) = check(versions, Announcer()).run([KEY], {KEY: record(1, 2)}, tables).findings
    facet = drift_facet(finding)
    assert len(facet["changes"]) == MAX_FACET_CHANGES
    # (each field is added in the envelope's `before` and `after`; `email` is removed from both)
    assert facet["truncated"] == 2 * (MAX_FACET_CHANGES + 5) + 2 - MAX_FACET_CHANGES
    assert facet["changes"][0] == {
        "field": "after.email", "change": "removed", "before": "string", "after": None, "severity": "breaking"
    }  # fmt: skip


@pytest.mark.parametrize(
    ("old", "latest", "created", "expected"),
    [
        (None, 1, "t0", 0),  # a new schema
        ((1, 0, "t0"), 2, "t0", 1),  # the version moved on
        ((2, 1, "t0"), 2, "t0", 1),  # same version (a content-only revision): kept
        ((3, 2, "t0"), 1, "t1", 0),  # deleted and created again: its versions start over
    ],
)
def test_schema_sync_records_the_version_before_the_latest(
    old: tuple[int, int, str] | None, latest: int, created: str, expected: int
) -> None:
    before = None
    if old is not None:
        before = replace(record(old[1], old[0]), created_time=old[2])
    assert previous_version(before, latest, created) == expected


def test_the_facet_keeps_the_documented_json_schema() -> None:
    # Given the facet's JSON Schema as shipped (its own part; the RunFacet base is OpenLineage's)
    document = json.loads((Path(__file__).parents[3] / "docs/facets/SchemaDriftRunFacet.json").read_text())
    own = document["$defs"]["SchemaDriftRunFacet"]["allOf"][1]
    many = [{"name": f"c{i}", "type": ["null", "string"], "default": None} for i in range(MAX_FACET_CHANGES)]
    versions = Versions(envelope(ID, EMAIL), envelope(ID, *many))
    (finding,) = check(versions, Announcer()).run([KEY], {KEY: record(1, 2)}, tables).findings
    # When the facet is built / Then it validates, truncated count included
    facet = drift_facet(finding)
    assert "truncated" in facet
    jsonschema.validate(facet, own)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**facet, "severity": "fatal"}, own)
