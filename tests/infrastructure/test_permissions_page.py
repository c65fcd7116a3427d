"""docs/permissions.md is the synthesized templates' IAM: every action of every role, its resources and why.

The page's generator (docs/gen_permissions.py) synthesizes the stacks itself; `make docs-gen` writes its
tables into the committed page. These tests compare the committed page with what the generator writes now,
and with the templates it synthesized, read here without the generator's rendering.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from kafka_lineage.model import metrics as catalog
from stacks import grant_reasons
from tests.unit.docs_generators import committed, load, stale

gen = load("gen_permissions")
common = load("gen_common")


@pytest.fixture(scope="module")
def page() -> str:
    return committed(gen.PAGE)


def test_the_committed_page_is_what_its_generator_writes(page: str):
    # Given the committed page, when its Cog block runs again on the stacks synthesized now,
    # then nothing changes
    diff = stale(gen.PAGE)
    if diff:
        pytest.fail(f"docs/{gen.PAGE} is stale: run `make docs-gen` and commit it\n{diff}")
    assert "#### `SchemaSyncRole`" in page


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _role_sections(page: str) -> dict[tuple[str, str], str]:
    """Each role's part of the page, by (stack, role name)."""
    sections: dict[tuple[str, str], str] = {}
    for stack_part in re.split(r"^### Stack ", page, flags=re.M)[1:]:
        stack = stack_part.split("`")[1]
        for role_part in re.split(r"^#### ", stack_part, flags=re.M)[1:]:
            sections[(stack, role_part.split("`")[1])] = role_part
    return sections


def _statements() -> list[tuple[str, str, dict[str, Any]]]:
    """(stack, role logical id, statement) for every statement attached to a role, from the raw templates."""
    found = []
    for stack, template in gen.templates().items():
        for policy in template["Resources"].values():
            if policy["Type"] != "AWS::IAM::Policy":
                continue
            for role in policy["Properties"]["Roles"]:
                for statement in policy["Properties"]["PolicyDocument"]["Statement"]:
                    found.append((stack, role["Ref"], statement))
    return found


def test_every_stack_and_every_role_are_on_the_page(page: str):
    # Given the synthesized governance, source-account and consumer-account stacks
    templates = gen.templates()
    assert set(templates) == {"KafkaLineage", "KafkaLineageSource", "KafkaLineageConsumer"}
    roles = {
        (stack, gen._HASH.sub("", logical_id))
        for stack, template in templates.items()
        for logical_id, resource in template["Resources"].items()
        if resource["Type"] == "AWS::IAM::Role"
    }
    # then every role has its section, and no section names a role the templates lack
    assert set(_role_sections(page)) == roles
    assert ("KafkaLineage", "SchemaSyncRole") in roles
    assert ("KafkaLineageSource", "ReaderRole") in roles
    assert ("KafkaLineageConsumer", "GrantsRole") in roles


def test_every_action_of_every_statement_is_in_its_roles_table_with_its_resources_and_reason(page: str):
    sections = _role_sections(page)
    statements = _statements()
    assert len(statements) > 40
    for stack, role, statement in statements:
        rows = [
            line for line in sections[(stack, gen._HASH.sub("", role))].splitlines() if line.startswith("| ")
        ]
        # the statement's row: its Sid (or CDK's), each of its actions, each resource as rendered, and why
        sid = statement.get("Sid", "(CDK's)")
        actions = _listed(statement["Action"])
        matching = [row for row in rows if row.startswith(f"| {sid} |") and f"`{actions[0]}`" in row]
        assert matching, (stack, role, sid, actions)
        row = matching[0]
        assert all(f"`{action}`" in row for action in actions), (role, sid)
        assert all(f"`{gen.render_value(r)}`" in row for r in _listed(statement["Resource"])), (role, sid)
        why = (
            grant_reasons.BY_SID.get(statement.get("Sid", ""))
            or grant_reasons.BY_ACTIONS[tuple(sorted(actions))]
        )
        assert common.cell(why) in row, (role, sid)


def test_the_page_shows_the_grants_the_audit_found_missing(page: str):
    # Given the grants an earlier hand-written list lacked, then the page has each, on its role
    sections = _role_sections(page)
    sync, lineage = (
        sections[("KafkaLineage", "SchemaSyncRole")],
        sections[("KafkaLineage", "LineageEmissionRole")],
    )
    for action in (
        "datazone:ListSubscriptions",
        "datazone:GetProject",
        "datazone:ListRules",
        "sts:AssumeRole",
    ):
        assert f"`{action}`" in sync
    for action in (
        "datazone:GetLineageNode",
        "kafkaconnect:ListConnectors",
        "kafka:GetBootstrapBrokers",
        "firehose:ListDeliveryStreams",
        "kafka:ListChannels",
        "kafka:DescribeChannel",
        "firehose:DescribeDeliveryStream",
    ):
        assert f"`{action}`" in lineage


def test_every_reason_is_used_by_a_synthesized_statement():
    # Given the reasons, then each belongs to a statement the stacks synthesize (no reason outlives its grant)
    statements = [statement for _, _, statement in _statements()]
    sids = {statement.get("Sid") for statement in statements}
    unnamed = {tuple(sorted(_listed(s["Action"]))) for s in statements if "Sid" not in s}
    assert set(grant_reasons.BY_SID) - sids == set()
    assert set(grant_reasons.BY_ACTIONS) - unnamed == set()


def test_a_grant_without_a_reason_fails_the_generation(monkeypatch: pytest.MonkeyPatch):
    # Given a synthesized statement whose Sid has no reason
    reasons = dict(grant_reasons.BY_SID)
    del reasons["DataZoneLineageGraph"]
    monkeypatch.setattr(grant_reasons, "BY_SID", reasons)
    # When the page is generated, then it refuses, naming the Sid
    with pytest.raises(ValueError, match="Sid DataZoneLineageGraph"):
        gen.permissions()


def test_the_synthesized_alarms_are_the_catalogs():
    # Given the governance stack's alarms, then each is one of the metrics catalog's alarms (by construct id),
    # and every catalog alarm is synthesized (the error alarm once per function)
    alarms = [
        logical_id
        for logical_id, resource in gen.templates()["KafkaLineage"]["Resources"].items()
        if resource["Type"] == "AWS::CloudWatch::Alarm"
    ]
    ids = [alarm.construct_id for alarm in catalog.ALARMS]
    assert all(any(construct_id in logical_id for construct_id in ids) for logical_id in alarms), alarms
    # (the page's stack has `access`: three functions, and subscription-grants' two alarms)
    assert sorted(sum(construct_id in logical_id for logical_id in alarms) for construct_id in ids) == [
        1,
        1,
        1,
        1,
        1,
        3,
    ]
    # and the failed-items alarm sums the catalog's metrics
    (failed_items,) = [
        resource
        for logical_id, resource in gen.templates()["KafkaLineage"]["Resources"].items()
        if catalog.FAILED_ITEMS.construct_id in logical_id
    ]
    names = {
        query["MetricStat"]["Metric"]["MetricName"]
        for query in failed_items["Properties"]["Metrics"]
        if "MetricStat" in query
    }
    assert names == {metric.name for metric in catalog.FAILED_ITEMS.metrics}
