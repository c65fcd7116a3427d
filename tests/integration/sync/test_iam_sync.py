"""schema-sync under its deployed role: missing grants fail items in the result; the checkpoint follow-up
is an Invoke the role must be allowed, run under the same role, and the sync converges."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from local import world
from tests.fixtures import REPO, CountdownContext, VirtualClock
from tests.integration.conftest import REVOKE_GRANTS_VARIABLE
from tests.integration.sync.conftest import CdcWorld


def test_a_role_without_a_glue_grant_fails_each_schema_with_access_denied(cdc: CdcWorld) -> None:
    # Given two schemas, and a role that may list the registry but not read a schema
    cdc.register("first")
    cdc.register("second")
    cdc.aws.iam.revoke("schema-sync", "glue:GetSchema")

    # When the sync runs, then it finishes and raises with each schema in `failed`, for AccessDenied
    with pytest.raises(Exception, match="failed") as raised:
        cdc.sync()

    summary = json.loads(str(raised.value))
    assert summary["created"] == 0
    arns = sorted(f["schemaArn"] for f in summary["failed"])
    assert arns == [world.schema_arn("cdc", "first"), world.schema_arn("cdc", "second")]
    for failure in summary["failed"]:
        assert "AccessDeniedException" in failure["error"]
        assert "glue:GetSchema" in failure["error"]
    assert cdc.assets() == []


def test_a_role_without_a_datazone_grant_fails_each_schema_and_writes_no_mapping(cdc: CdcWorld) -> None:
    cdc.register("only")
    cdc.aws.iam.revoke("schema-sync", "datazone:CreateAsset")

    with pytest.raises(Exception, match="failed") as raised:
        cdc.sync()

    (failure,) = json.loads(str(raised.value))["failed"]
    assert "datazone:CreateAsset" in failure["error"]
    # Once the grant is back the same event converges
    cdc.aws.iam.revoked.clear()
    assert cdc.sync()["created"] == 1


def test_the_checkpoint_follow_up_is_invoked_under_the_role_and_the_sync_converges(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given more schemas than one invocation finishes before its deadline (Glue paced at 6 calls/s, three
    # reads a schema, 12 s left with a 2 s margin, on a clock only the pacing moves: load changes nothing)
    clock = VirtualClock.install(monkeypatch)
    for i in range(60):
        cdc.register(f"t{i}")
    cdc.configure(world.source_config(), tuning={"glue_rps": 6, "deadline_margin_seconds": 2})
    event = {"schemaArns": [world.schema_arn("cdc", f"t{i}") for i in range(60)]}

    # When the first invocation stops at its checkpoint
    first = cdc.sync(event, context=CountdownContext(12, clock=clock.monotonic))

    # Then it asked Lambda to invoke itself, allowed by its role, with the same event, where to resume,
    # the lease generation it held and the pace its calls had reached (its handover)
    assert first["incomplete"] is True
    assert first["created"] > 0
    assert first["continued"] is True
    (queued,) = cdc.aws.iam.pending
    assert queued.role.name == "schema-sync"
    assert queued.caller == "schema-sync"
    assert {k: v for k, v in queued.event.items() if k not in ("resumeAfter", "handover")} == event
    assert "resumeAfter" in queued.event
    assert queued.event["handover"]["lease"] == 1
    assert queued.event["handover"]["rates"]["glue:GetSchema"] <= 6
    # And the follow-up, run as Lambda would (same function, same role), finishes the rest
    follow_ups = cdc.aws.iam.run_pending()
    assert all(isinstance(outcome, dict) for outcome in follow_ups), follow_ups
    assert first["created"] + sum(outcome["created"] for outcome in follow_ups) == 60
    assert len(cdc.assets()) == 60
    assert cdc.aws.iam.denials == []
    assert cdc.sync(event)["unchanged"] == 60


def test_without_the_invoke_grant_the_follow_up_is_refused_and_the_result_says_so(
    cdc: CdcWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = VirtualClock.install(monkeypatch)
    for i in range(60):
        cdc.register(f"t{i}")
    cdc.configure(world.source_config(), tuning={"glue_rps": 6, "deadline_margin_seconds": 2})
    cdc.aws.iam.revoke("schema-sync", "lambda:InvokeFunction")

    first = cdc.sync(context=CountdownContext(12, clock=clock.monotonic))

    assert first["incomplete"] is True
    assert first["continued"] is False
    assert cdc.aws.iam.pending == []
    assert [d.action for d in cdc.aws.iam.denials] == ["lambda:InvokeFunction"]


NAMED_TEST = (
    "tests/integration/sync/test_schema_sync.py::"
    "test_first_sync_creates_one_published_asset_per_schema_with_columns_and_source_identifier"
)


def test_a_deliberately_removed_grant_makes_a_named_test_fail_with_access_denied() -> None:
    # Given the stack's schema-sync role without datazone:CreateAsset, for a whole test run
    env = {**os.environ, REVOKE_GRANTS_VARIABLE: "schema-sync=datazone:CreateAsset"}

    # When a test that mirrors schemas runs
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-p", "no:xdist", NAMED_TEST],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    # Then it fails, and for AccessDenied on that action
    assert run.returncode == 1, run.stdout[-3000:]
    assert "AccessDeniedException" in run.stdout
    assert "datazone:CreateAsset" in run.stdout
    assert "1 failed" in run.stdout
