"""Manual payloads with mistakes (tests/events/payloads/): strings where booleans belong are refused naming
the key, and schema ARNs no run can read are reported, not silently dropped or read elsewhere."""

from __future__ import annotations

import pytest

from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.model.requests import InvalidRequest
from kafka_lineage.sync.requests import SchemaRef, parse_sync_event
from tests.fixtures import load_event

REGION = "eu-west-1"


@pytest.mark.parametrize(
    ("fixture", "key"),
    [
        ("payloads/sync_dry_run_as_string", "dryRun"),
        ("payloads/sync_verify_as_string_false", "verify"),
        ("payloads/sync_allow_mass_delete_as_number", "allowMassDelete"),
    ],
)
def test_given_a_non_boolean_flag_then_schema_sync_refuses_naming_the_key(fixture: str, key: str) -> None:
    with pytest.raises(InvalidRequest, match=rf"{key}: Input should be a valid boolean"):
        parse_sync_event(load_event(fixture), region=REGION)


def test_given_real_booleans_then_the_flags_are_set() -> None:
    request = parse_sync_event({"dryRun": True, "verify": False}, region=REGION)
    assert (request.dry_run, request.verify) == (True, False)


@pytest.mark.parametrize(
    ("fixture", "key"),
    [("payloads/lineage_dry_run_as_string", "dryRun"), ("payloads/lineage_force_as_string", "force")],
)
def test_given_a_non_boolean_flag_then_lineage_refuses_naming_the_key(fixture: str, key: str) -> None:
    with pytest.raises(InvalidRequest, match=rf"{key}: Input should be a valid boolean"):
        parse_emit_event(load_event(fixture))


def test_given_an_arn_of_another_region_then_it_is_rejected_and_the_others_are_synced() -> None:
    # Given one ARN in the functions' region and one in another
    event = load_event("payloads/sync_schema_arns_other_region")
    # When parsed
    request = parse_sync_event(event, region=REGION)
    # Then only the first is a target, and the other is reported (not read as the same name here)
    assert request.schemas == (SchemaRef("cdc", "dbserver1.inventory.customers"),)
    [(arn, why)] = request.rejected
    assert ":eu-central-1:" in arn
    assert "region eu-central-1" in why
    assert REGION in why


def test_given_only_arns_of_another_region_then_the_request_is_refused() -> None:
    # Not a full sync: nobody asked for one.
    with pytest.raises(InvalidRequest, match="us-east-1"):
        parse_sync_event(load_event("payloads/sync_schema_arns_only_other_region"), region=REGION)


def test_without_a_known_region_nothing_is_rejected() -> None:
    request = parse_sync_event(load_event("payloads/sync_schema_arns_other_region"))
    assert len(request.schemas) == 2
    assert request.rejected == ()
