"""`python -m local sync|lineage` (local/cli.py) on the stand-ins, through click's CliRunner: what a newcomer
runs to see a function work without an account, with the exit codes the command line documents."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kafka_lineage_cdk.outcome import BAD_INPUT, OK, PARTIAL
from local import world
from local.cli import main


def _run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_local_sync_mirrors_the_demo_registry_and_prints_its_result_as_json():
    # Given the demo's world / When schema-sync runs there
    done = _run("sync", "--json")
    # Then every schema of the registry became an asset, nothing failed, and stdout is only the result
    assert done.exit_code == OK, done.output
    result = json.loads(done.stdout)
    assert result["created"] == len(world.inventory())
    assert result["failed"] == []


def test_a_missing_grant_fails_the_items_that_need_it_and_exits_partial():
    # Given schema-sync's role without datazone:CreateAsset
    done = _run("sync", "--revoke", "schema-sync=datazone:CreateAsset")
    # Then each schema's creation failed, the run finished, and the table lists the failures
    assert done.exit_code == PARTIAL, done.output
    assert "failed" in done.stdout
    assert "AccessDenied" in done.stdout


def test_a_payload_the_function_refuses_is_bad_input():
    # Given an event no schema-sync shape accepts / Then the function's refusal is exit code 2
    done = _run("sync", "--json", "--event", '{"schemaArns": "not-a-list"}')
    assert done.exit_code == BAD_INPUT, done.output
    assert json.loads(done.stdout)["error"] == "InvalidRequest"


def test_local_lineage_emits_the_rule_mapped_topics_and_logs_to_a_file(tmp_path: Path):
    # Given the demo's world with its lakehouse tables, the functions' logs sent to a file
    log = tmp_path / "functions.log"
    done = _run("lineage", "--json", "--log-file", str(log))
    # Then each inventory topic's edge to its table was emitted, and the logs are JSON lines in the file
    assert done.exit_code == OK, done.output
    result = json.loads(done.stdout)
    tables = {emission["table"] for emission in result["emissions"]}
    assert "lakehouse/customers" in tables
    assert result["counts"]["failed"] == 0
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.startswith("{")]
    assert any(line["message"] == "lineage-emission finished" for line in lines)
    assert all(line["service"] == "kafka-lineage" for line in lines)
