"""The `schemaDrift` run facet: in every event of a new version's run, valid OpenLineage, outside the
fingerprint (which has the previous version instead, and only when there is one)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime

from kafka_lineage.lineage.events import build
from kafka_lineage.lineage.facets import SCHEMA_DRIFT_FACET_URL
from kafka_lineage.lineage.world import parse_topic_fields
from local import debezium
from tests.unit.lineage.lineage_builders import table
from tests.unit.lineage.openlineage_rules import assert_valid
from tests.unit.lineage.test_lineage_events import content

CUSTOMERS = table("customers", "id", "email")
FACET = {"schemaArn": "arn", "fromVersion": 1, "toVersion": 2, "severity": "breaking", "changes": []}


def test_given_no_previous_version_then_the_fingerprint_is_what_earlier_releases_computed() -> None:
    # The field is new: a run without a previous version must not be re-emitted after an upgrade.
    plain = content(CUSTOMERS)
    assert replace(plain, previous_version=0).fingerprint() == plain.fingerprint()
    assert replace(plain, previous_version=1).fingerprint() != plain.fingerprint()


def test_given_drift_then_the_facet_does_not_change_the_fingerprint() -> None:
    described = content(CUSTOMERS, schema_version=2, previous_version=1)
    assert replace(described, drift=FACET).fingerprint() == described.fingerprint()


def test_given_drift_then_both_events_carry_the_facet_and_stay_valid_openlineage() -> None:
    # Given a v2 run whose content carries the drift facet
    parsed = parse_topic_fields("AVRO", debezium.table_envelope("customers"))
    described = content(CUSTOMERS, schema_version=2, previous_version=1, drift=FACET)
    # When the run is built
    run = build(
        described, parsed.fields, parsed.row_fields, "0190b2d4-7b4e-7c3e-8f1a-1234567890ab",
        datetime(2026, 11, 30, 12, tzinfo=UTC),
    )  # fmt: skip
    # Then START and COMPLETE carry it, with this emitter as producer and the facet's own schema URL
    for _, body in run.bodies:
        event = json.loads(body)
        assert_valid(event)
        facet = event["run"]["facets"]["schemaDrift"]
        assert facet["_schemaURL"] == SCHEMA_DRIFT_FACET_URL
        assert facet["_producer"] == event["producer"]
        assert {k: facet[k] for k in FACET} == FACET
