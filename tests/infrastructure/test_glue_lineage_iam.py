"""The Glue lineage target's IAM: glue:PostLineageEvent on "*" (its only resource) for the lineage role only
when `lineageTargets` holds "glue", for a source account's reader role only with its stack's `glueLineage`,
and glue:GetLineageNode (every node of the account) for no role at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template

from stacks.app import build_app
from stacks.source_config import SOURCE_CONTEXT_KEY
from tests.infrastructure.sar import check_template
from tests.infrastructure.stack_synth import ROOT, full_context

EXAMPLES = ROOT / "docs" / "two-accounts"


def _synth(
    tmp_path: Path, targets: list[str] | None, glue_lineage: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    context = full_context()
    if targets is not None:
        context["kafkaLineage"]["lineageTargets"] = targets
    source = json.loads((EXAMPLES / "source.json").read_text())
    source["glueLineage"] = glue_lineage
    path = tmp_path / "source.json"
    path.write_text(json.dumps(source))
    context[SOURCE_CONTEXT_KEY] = str(path)
    context["aws:cdk:bundling-stacks"] = []
    app = cdk.App(context=context, outdir=str(tmp_path / "out"), builtin_cloud_formation_validation=False)
    governance = build_app(app)
    app.synth()  # cdk-nag findings raise here
    source_stack = app.node.find_child("KafkaLineageSource")
    assert isinstance(source_stack, cdk.Stack)
    return dict(Template.from_stack(governance).to_json()), dict(Template.from_stack(source_stack).to_json())


def _grants(template: dict[str, Any]) -> dict[str, list[tuple[list[str], Any]]]:
    """Role logical id -> (actions, resources) of each statement of its policies."""
    found: dict[str, list[tuple[list[str], Any]]] = {}
    for resource in template["Resources"].values():
        if resource["Type"] != "AWS::IAM::Policy":
            continue
        for role in resource["Properties"]["Roles"]:
            for statement in resource["Properties"]["PolicyDocument"]["Statement"]:
                actions = (
                    statement["Action"] if isinstance(statement["Action"], list) else [statement["Action"]]
                )
                found.setdefault(role["Ref"], []).append((actions, statement["Resource"]))
    return found


def _holders(template: dict[str, Any], action: str) -> dict[str, list[Any]]:
    return {
        role: [resources for actions, resources in grants if action in actions]
        for role, grants in _grants(template).items()
        if any(action in actions for actions, _ in grants)
    }


@pytest.mark.parametrize("targets", [None, ["datazone"]])
def test_without_the_glue_target_no_role_may_post_to_glues_graph(tmp_path: Path, targets: list[str] | None):
    governance, source = _synth(tmp_path, targets, glue_lineage=False)
    assert _holders(governance, "glue:PostLineageEvent") == {}
    assert _holders(source, "glue:PostLineageEvent") == {}


def test_with_the_glue_target_only_the_lineage_role_may_post_on_star_and_no_role_may_read_the_graph(
    tmp_path: Path,
):
    governance, source = _synth(tmp_path, ["datazone", "glue"], glue_lineage=True)
    holders = _holders(governance, "glue:PostLineageEvent")
    assert len(holders) == 1
    ((role, resources),) = holders.items()
    assert role.startswith("LineageEmissionRole") or "Lineage" in role
    assert resources == ["*"]
    # And its own state path, besides lineage/ and drift/
    writes = [r for actions, r in _grants(governance)[role] if "ssm:PutParameter" in actions]
    assert any("glue-lineage/*" in json.dumps(r) for r in writes)
    # And the source account's reader role, opted in by its stack
    assert list(_holders(source, "glue:PostLineageEvent").values()) == [["*"]]
    # And nobody may read the graph (it shows every node of the account)
    assert _holders(governance, "glue:GetLineageNode") == {}
    assert _holders(source, "glue:GetLineageNode") == {}
    # And every grant is usable as the IAM Service Authorization Reference says
    assert check_template(governance) == []
    assert check_template(source) == []


def test_with_the_glue_graph_alone_the_lineage_role_gets_no_datazone_lineage_writes(tmp_path: Path) -> None:
    # Given lineageTargets ["glue"]
    governance, _ = _synth(tmp_path, ["glue"], glue_lineage=True)
    # Then the lineage role may post to Glue's graph, on "*"
    ((role, resources),) = _holders(governance, "glue:PostLineageEvent").items()
    assert resources == ["*"]
    # And no role may post, delete, list or get DataZone lineage events
    for action in (
        "datazone:PostLineageEvent",
        "datazone:DeleteLineageEvent",
        "datazone:ListLineageEvents",
        "datazone:GetLineageEvent",
    ):
        assert _holders(governance, action) == {}, action
    # But the drift walk still reads DataZone's graph downstream of an impacted table
    assert role in _holders(governance, "datazone:GetLineageNode")
    # And the role writes its Glue state and the drift summaries, not DataZone's emission state
    writes = json.dumps([r for actions, r in _grants(governance)[role] if "ssm:PutParameter" in actions])
    assert "glue-lineage/*" in writes
    assert "drift/*" in writes
    assert "/lineage/*" not in writes
    # And every grant is usable as the IAM Service Authorization Reference says (cdk-nag passed at synth)
    assert check_template(governance) == []
