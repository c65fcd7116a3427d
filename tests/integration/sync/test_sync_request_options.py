"""Options on EventBridge events, through the schema-sync handler on the stand-ins: a scheduled or CloudTrail
event with `dryRun` writes nothing, a schedule's `allowMassDelete` lifts the deletion fail-safe, and an
unknown key is refused before anything is read or written."""

from __future__ import annotations

import json

import pytest

from kafka_lineage.model.requests import InvalidRequest
from local import world
from tests.fixtures import load_event
from tests.integration.sync.conftest import CdcWorld
from tests.integration.sync.test_schema_sync import WRITE_OPERATIONS, by_external_id


def test_given_a_scheduled_event_with_dry_run_when_invoked_then_nothing_is_written(cdc: CdcWorld) -> None:
    # Given schemas that no run has mirrored yet
    names = cdc.inventory()
    cdc.reset_calls()
    # When the schedule's event arrives with "dryRun": true beside its envelope
    result = cdc.sync(load_event("options/scheduled_dry_run"))
    # Then every schema is planned, and nothing is written, announced or leased
    assert (result["dryRun"], result["trigger"]) == (True, "schedule")
    assert {p["action"] for p in result["planned"]} == {"create"}
    assert result["created"] == len(names)
    assert not WRITE_OPERATIONS & set(cdc.calls()), cdc.calls()
    assert cdc.assets() == []
    assert cdc.events.drain() == []


def test_given_a_cloudtrail_event_with_dry_run_when_invoked_then_nothing_is_written(cdc: CdcWorld) -> None:
    # Given the schema a RegisterSchemaVersion call names, not mirrored yet
    cdc.register("dbserver1.inventory.customers")
    cdc.reset_calls()
    # When the CloudTrail event arrives with "dryRun": true
    result = cdc.sync(load_event("options/glue_register_schema_version_dry_run"))
    # Then that schema's creation is planned, and nothing is written
    assert (result["dryRun"], result["trigger"]) == (True, "cloudtrail:RegisterSchemaVersion")
    assert [(p["action"], p["topic"]) for p in result["planned"]] == [
        ("create", "dbserver1.inventory.customers")
    ]
    assert not WRITE_OPERATIONS & set(cdc.calls()), cdc.calls()
    assert cdc.assets() == []
    # And without the option, the same event mirrors it
    assert cdc.sync(load_event("glue_register_schema_version"))["created"] == 1


def test_given_a_schedule_with_allow_mass_delete_when_invoked_then_the_fail_safe_is_lifted(
    cdc: CdcWorld,
) -> None:
    # Given three mirrored schemas of which two vanish without any event
    for name in ("a", "b", "c"):
        cdc.register(name)
    cdc.sync()
    world.delete_schema("cdc", "a")
    world.delete_schema("cdc", "b")
    # When the plain schedule runs, then the fail-safe holds both deletions back
    with pytest.raises(Exception, match="fail-safe") as held:
        cdc.sync(load_event("lineage_scheduled"))
    assert len(json.loads(str(held.value))["failed"]) == 2
    assert len(cdc.assets()) == 3
    # When the schedule carries "allowMassDelete": true, then both are deleted
    result = cdc.sync(load_event("options/scheduled_allow_mass_delete"))
    assert (result["deleted"], result["trigger"]) == (2, "schedule")
    assert set(by_external_id(cdc)) == {world.schema_arn("cdc", "c")}


@pytest.mark.parametrize(
    ("fixture", "key"),
    [
        ("options/scheduled_unknown_key", "dryrun"),
        ("options/scheduled_force", "force"),
        ("options/glue_register_schema_version_verify", "verify"),
        ("options/scheduled_dry_run_as_string", "dryRun"),
    ],
)
def test_given_a_refused_key_on_an_event_when_invoked_then_it_is_named_and_nothing_is_done(
    cdc: CdcWorld, fixture: str, key: str
) -> None:
    cdc.register("dbserver1.inventory.customers")
    cdc.reset_calls()
    with pytest.raises(InvalidRequest, match=key):
        cdc.sync(load_event(fixture))
    assert cdc.calls() == {}
