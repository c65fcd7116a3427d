"""docs/permissions.md: every IAM action of every role, its resources and why, from the synthesized templates.

The page's Cog block writes it (`make docs-gen`). It synthesizes, once per process, the governance stack with
every feature on (tests/infrastructure/stack_synth.py's `full_context`, plus a source in another account and a
domain key), a source account's stack (docs/two-accounts/source.json) and a consumer account's stack
(docs/two-accounts/consumer.json), with asset bundling skipped (the templates' IAM does not depend on it),
then renders each role's statements; the reason for each comes from stacks/grant_reasons.py. A statement
without a reason fails `make docs-gen` (tests/infrastructure/test_permissions_page.py, which also fails when
the committed page is stale). `python docs/gen_permissions.py` prints the page's tables.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_common import ROOT, ensure_paths, table

ensure_paths()

from stacks import grant_reasons  # noqa: E402

PAGE = "permissions.md"
# The configuration the page is synthesized with, besides full_context: a source read through another
# account's role, and a domain with a customer managed key.
CROSS_ACCOUNT_SOURCE = {
    "registryName": "payments",
    "clusterArn": "arn:aws:kafka:eu-west-1:444455556666:cluster/payments/0f1e2d3c-4b5a-6978-8877-66554433-1",
    "roleArn": "arn:aws:iam::444455556666:role/kafka-lineage-source-reader",
    "externalId": "kafka-lineage-7f3c9a51",
}
DOMAIN_KEY = "arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab"
SOURCE_CONTEXT = ROOT / "docs" / "two-accounts" / "source.json"
CONSUMER_CONTEXT = ROOT / "docs" / "two-accounts" / "consumer.json"
_HASH = re.compile(r"[0-9A-F]{8}$")
_PSEUDO = {"AWS::Partition": "aws", "AWS::Region": "<region>", "AWS::AccountId": "<account>"}


@dataclass(frozen=True)
class Grant:
    """One statement of a role's policies."""

    sid: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    condition: str
    why: str


@dataclass(frozen=True)
class Role:
    stack: str
    logical_id: str
    description: str
    trust: str
    grants: tuple[Grant, ...]

    @property
    def name(self) -> str:
        return _HASH.sub("", self.logical_id)


def context() -> dict[str, Any]:
    """The synthesis context: every feature on (the Glue lineage target too), a cross-account source, a
    domain key, a source stack and a consumer stack."""
    from stacks.config import CONTEXT_KEY
    from stacks.consumer_config import CONSUMER_CONTEXT_KEY
    from stacks.source_config import SOURCE_CONTEXT_KEY
    from tests.infrastructure.stack_synth import full_context

    synthesis = full_context()
    settings = synthesis[CONTEXT_KEY]
    settings["sources"].append(dict(CROSS_ACCOUNT_SOURCE))
    settings["domainKmsKeyArn"] = DOMAIN_KEY
    settings["lineageTargets"] = ["datazone", "glue"]
    settings["dataProducts"] = [{"name": "Inventory", "include": ["^dbserver1\\.inventory\\."]}]
    source = json.loads(SOURCE_CONTEXT.read_text())
    # every feature on
    source.update(grantAccess=True, clusters=[CROSS_ACCOUNT_SOURCE["clusterArn"]], glueLineage=True)
    synthesis[SOURCE_CONTEXT_KEY] = json.dumps(source)
    synthesis[CONSUMER_CONTEXT_KEY] = str(CONSUMER_CONTEXT)
    synthesis["aws:cdk:bundling-stacks"] = []  # no asset is built: the templates' IAM is the same
    return synthesis


@cache
def templates() -> dict[str, dict[str, Any]]:
    """Each synthesized stack's template, by stack name (synthesized once per process)."""
    import aws_cdk as cdk

    from stacks.app import build_app

    with tempfile.TemporaryDirectory() as outdir:
        app = cdk.App(context=context(), outdir=outdir, builtin_cloud_formation_validation=False)
        build_app(app)
        assembly = app.synth()
        return {stack.stack_name: dict(stack.template) for stack in assembly.stacks}


def render_value(value: Any) -> str:
    """A template value as a reader reads it: pseudo parameters named, `Fn::Join` joined, references shown as
    `<LogicalId>` (without CDK's hash) and `<LogicalId ARN>`."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        (function, argument), *_ = value.items()
        if function == "Ref":
            return _PSEUDO.get(argument, f"<{_HASH.sub('', argument)}>")
        if function == "Fn::GetAtt":
            return f"<{_HASH.sub('', argument[0])} {argument[1]}>"
        if function == "Fn::Join":
            return str(argument[0]).join(render_value(part) for part in argument[1])
    return json.dumps(value, sort_keys=True)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def reason(statement: dict[str, Any]) -> str:
    """Why the statement exists: by its Sid, or (a statement CDK writes) by its actions."""
    sid = statement.get("Sid")
    actions = tuple(sorted(_listed(statement["Action"])))
    why = grant_reasons.BY_SID.get(sid) if sid else grant_reasons.BY_ACTIONS.get(actions)
    if not why:
        where = f"Sid {sid}" if sid else f"actions {', '.join(actions)}"
        raise ValueError(f"no reason for the grant of {where}: add one to stacks/grant_reasons.py")
    return why


def _grant(statement: dict[str, Any]) -> Grant:
    condition = statement.get("Condition")
    return Grant(
        sid=statement.get("Sid", ""),
        actions=tuple(_listed(statement["Action"])),
        resources=tuple(render_value(resource) for resource in _listed(statement["Resource"])),
        condition=json.dumps(condition, sort_keys=True) if condition else "",
        why=reason(statement),
    )


def _trust(role: dict[str, Any]) -> str:
    """Who may assume the role: each trust statement's principals, and its condition."""
    found: list[str] = []
    for statement in role["Properties"]["AssumeRolePolicyDocument"]["Statement"]:
        principals = [
            f"{kind} `{render_value(principal)}`"
            for kind, listed in statement.get("Principal", {}).items()
            for principal in _listed(listed)
        ]
        condition = statement.get("Condition")
        when = f" when `{json.dumps(condition, sort_keys=True)}`" if condition else ""
        found.append(", ".join(principals) + when)
    return "; ".join(found)


def roles() -> list[Role]:
    """Every role of the synthesized stacks with every statement of the policies attached to it."""
    found: list[Role] = []
    for stack, template in templates().items():
        resources: dict[str, Any] = template["Resources"]
        for logical_id, role in resources.items():
            if role["Type"] != "AWS::IAM::Role":
                continue
            statements = [
                statement
                for policy in resources.values()
                if policy["Type"] == "AWS::IAM::Policy"
                and {"Ref": logical_id} in policy["Properties"]["Roles"]
                for statement in policy["Properties"]["PolicyDocument"]["Statement"]
            ]
            statements += [
                statement
                for inline in role["Properties"].get("Policies", [])
                for statement in inline["PolicyDocument"]["Statement"]
            ]
            if role["Properties"].get("ManagedPolicyArns"):
                raise ValueError(f"{logical_id} has managed policies, which the permissions page cannot show")
            found.append(
                Role(
                    stack=stack,
                    logical_id=logical_id,
                    description=role["Properties"].get("Description", ""),
                    trust=_trust(role),
                    grants=tuple(_grant(statement) for statement in statements),
                )
            )
    return found


def _code(items: tuple[str, ...]) -> str:
    return ", ".join(f"`{item}`" for item in items)


def permissions() -> str:
    sections: list[str] = []
    for stack in templates():
        sections.append(f"### Stack `{stack}`")
        for role in (role for role in roles() if role.stack == stack):
            rows = [
                [
                    grant.sid or "(CDK's)",
                    _code(grant.actions),
                    _code(grant.resources),
                    f"`{grant.condition}`" if grant.condition else "",
                    grant.why,
                ]
                for grant in role.grants
            ]
            sections.append(
                f"#### `{role.name}`\n\n"
                + (f"{role.description}. " if role.description else "")
                + f"Assumed by {role.trust}.\n\n"
                + table(["Sid", "actions", "resources", "condition", "why"], rows)
            )
    return "\n\n".join(sections)


if __name__ == "__main__":
    print(permissions())
