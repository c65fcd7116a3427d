"""`kafka-lineage doctor`'s glue-lineage check: with `lineageTargets` holding "glue", can each role that
posts to a Glue lineage graph call glue:PostLineageEvent?

- The lineage function's role in this account: the stack grants it glue:PostLineageEvent on "*" (it has no
  resource-level permission, Glue's guide). When the role is known before the deploy (projectMembership
  "manual" fixes its name) and exists, its inline policies are read (GetRole, ListRolePolicies,
  GetRolePolicy) and a role deployed without the grant is a FAIL (deploy again).
- Each source read through a role in another account receives the edges whose tables are there: its source
  stack needs `glueLineage: true`, which only doctor in that account can see (a warn, to do).
Reads only; a read refused says so.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from kafka_lineage.model.failures import AwsError, NotFound

from .findings import FAIL, OK, WARN, Finding, Target

CHECK = "glue-lineage"
ACTION = "glue:PostLineageEvent"


def glue_lineage(iam: Any, config: Any, target: Target) -> list[Finding]:
    settings = config.settings
    if not settings.glue_lineage:
        return [Finding(CHECK, OK, 'lineageTargets has no "glue": nothing posts to Glue\'s lineage graph')]
    findings = [_function_role(iam, config, target)]
    for source in settings.sources:
        if source.role_arn:
            findings.append(
                Finding(
                    CHECK,
                    WARN,
                    f"source {source.key}: its tables' edges go into account {source.role_account}'s Glue "
                    f"lineage graph through {source.role_arn}: deploy its source stack with "
                    f'"glueLineage": true (doctor there cannot see this account\'s settings)',
                )
            )
    return findings


def _function_role(iam: Any, config: Any, target: Target) -> Finding:
    name = config.role_name("LineageEmission")
    if name is None:
        return Finding(
            CHECK, OK, f"the stack grants the lineage function's role {ACTION} on * (GlueLineagePost)"
        )
    try:
        iam.get_role(RoleName=name)
    except NotFound:
        return Finding(CHECK, OK, f"{name} is not deployed yet: the deploy grants it {ACTION} on *")
    except AwsError as error:
        return Finding(CHECK, FAIL, f"iam:GetRole on {name} was refused ({error}): the check cannot tell")
    try:
        if _allows(iam, name):
            return Finding(CHECK, OK, f"{name} may call {ACTION}")
    except AwsError as error:
        return Finding(
            CHECK, FAIL, f"reading {name}'s inline policies failed ({error}): the check cannot tell"
        )
    return Finding(
        CHECK,
        FAIL,
        f"{name} has no inline grant of {ACTION}: deploy the stack again with lineageTargets "
        '["datazone", "glue"], or every Glue post fails with AccessDeniedException',
    )


def _allows(iam: Any, role: str) -> bool:
    """Whether an inline policy of `role` allows the action on "*" (the only resource it takes)."""
    for page in iam.get_paginator("list_role_policies").paginate(RoleName=role):
        for policy in page.get("PolicyNames", []):
            document = iam.get_role_policy(RoleName=role, PolicyName=policy)["PolicyDocument"]
            if isinstance(document, str):
                document = json.loads(unquote(document))
            statements = document.get("Statement", [])
            for statement in statements if isinstance(statements, list) else [statements]:
                actions = statement.get("Action", [])
                actions = [actions] if isinstance(actions, str) else actions
                resources = statement.get("Resource", [])
                resources = [resources] if isinstance(resources, str) else resources
                if statement.get("Effect") == "Allow" and ACTION in actions and "*" in resources:
                    return True
    return False
