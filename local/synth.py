"""The stack synthesized in this process, for the stand-ins' IAM mode: the roles a deployment would have.

The context is built from what the functions are configured with (their environment, as the stack would
set it from cdk.json), so the grants are those a real deployment of that configuration gets. The layer is
not bundled (CDK's `aws:cdk:bundling-stacks` context set to none): IAM needs only the template. Each
distinct deployment is synthesized once per process (about a second, after a one-off start of the jsii
runtime) and cached.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from local.standins.iam_roles import Role, roles_from_template
from local.standins.iam_trust import AssumableRole, assumable_roles_from_template

# Before aws_cdk starts the jsii runtime: its Node end-of-life banner names these variables.
os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

STACK_NAME = "KafkaLineage"
_LOCK = threading.Lock()  # one synthesis at a time: the jsii kernel is not thread-safe


@dataclass(frozen=True)
class Deployment:
    """What a `cdk deploy` of the stack is configured with: the functions' settings plus stack-only keys."""

    domain_id: str
    project_id: str
    mapping_path: str
    sources: tuple[str, ...]  # each SOURCES entry as canonical JSON (hashable)
    asset_type_name: str = "KafkaTopicAssetType"
    extra_databases: tuple[str, ...] = ()
    table_mappings: tuple[str, ...] = ()  # canonical JSON of cdk.json tableMappings entries
    asset_type_removal_policy: str = "retain"
    overrides: tuple[tuple[str, str], ...] = field(default=())  # any other context key -> JSON value

    @classmethod
    def from_environment(
        cls,
        env: Mapping[str, str],
        *,
        extra_databases: Iterable[str] = (),
        table_mappings: Iterable[Mapping[str, Any]] = (),
        asset_type_removal_policy: str = "retain",
        **overrides: Any,
    ) -> Deployment:
        """The deployment whose functions would run with this environment (docs/configuration.md)."""
        missing = [k for k in ("DOMAIN_ID", "PROJECT_ID", "SOURCES") if k not in env]
        if missing:
            raise ValueError(f"cannot tell the deployment: the environment lacks {', '.join(missing)}")
        sources = json.loads(env["SOURCES"])
        if env.get("LINEAGE_TARGETS"):  # the Glue lineage target changes the lineage role's grants
            overrides = {"lineageTargets": json.loads(env["LINEAGE_TARGETS"]), **overrides}
        return cls(
            domain_id=env["DOMAIN_ID"],
            project_id=env["PROJECT_ID"],
            mapping_path=env.get("MAPPING_PATH", "/kafka-lineage"),
            sources=tuple(json.dumps(s, sort_keys=True) for s in sources),
            asset_type_name=env.get("ASSET_TYPE_NAME") or "KafkaTopicAssetType",
            extra_databases=tuple(sorted({d.lower() for d in extra_databases})),
            table_mappings=tuple(json.dumps(dict(m), sort_keys=True) for m in table_mappings),
            asset_type_removal_policy=asset_type_removal_policy,
            overrides=tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in overrides.items())),
        )

    def context(self) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "stackName": STACK_NAME,
            "domainId": self.domain_id,
            "projectId": self.project_id,
            "mappingPath": self.mapping_path,
            "sources": [json.loads(s) for s in self.sources],
            "assetTypeName": self.asset_type_name,
            "extraDatabases": list(self.extra_databases),
            "tableMappings": [json.loads(m) for m in self.table_mappings],
            "assetTypeRemovalPolicy": self.asset_type_removal_policy,
        }
        settings.update({key: json.loads(value) for key, value in self.overrides})
        return {"kafkaLineage": settings, "aws:cdk:bundling-stacks": []}


def synthesize_template(context: Mapping[str, Any]) -> dict[str, Any]:
    """The stack's CloudFormation template for this context (cdk-nag included: findings raise)."""
    import aws_cdk as cdk

    from stacks.app import build_app

    with _LOCK, tempfile.TemporaryDirectory(prefix="cdk.out-") as outdir:
        app = cdk.App(context=dict(context), outdir=outdir, builtin_cloud_formation_validation=False)
        stack = build_app(app)
        assembly = app.synth()
        template: dict[str, Any] = assembly.get_stack_by_name(stack.stack_name).template
        return template


@cache
def deployment_roles(deployment: Deployment, region: str, account: str) -> dict[str, Role]:
    """The roles of the functions of this deployment (synthesized once per process)."""
    template = synthesize_template(deployment.context())
    return roles_from_template(template, region, account, STACK_NAME)


@cache
def source_account_roles(
    deployment: Deployment, source_context: str, region: str, account: str
) -> dict[str, AssumableRole]:
    """The roles of a source-account stack (stacks/source_stack.py) deployed into `account`, synthesized in
    the same app as the deployment, from its `kafkaLineageSource` context (canonical JSON text)."""
    return _other_account_roles(deployment, "kafkaLineageSource", source_context, region, account)


def consumer_account_roles(
    deployment: Deployment, consumer_context: str, region: str, account: str
) -> dict[str, AssumableRole]:
    """The role of a consumer-account stack (stacks/consumer_stack.py, `KafkaLineageConsumer`) deployed into
    `account`, from its `kafkaLineageConsumer` context (canonical JSON text): the role subscription-grants
    assumes there, with its synthesized trust and grants."""
    return _other_account_roles(deployment, "kafkaLineageConsumer", consumer_context, region, account)


def _other_account_roles(
    deployment: Deployment, key: str, text: str, region: str, account: str
) -> dict[str, AssumableRole]:
    import aws_cdk as cdk

    from stacks.app import build_app

    settings = json.loads(text)
    default = {"kafkaLineageSource": "KafkaLineageSource", "kafkaLineageConsumer": "KafkaLineageConsumer"}
    name = str(settings.get("stackName") or default[key])
    context = {**deployment.context(), key: settings}
    with _LOCK, tempfile.TemporaryDirectory(prefix="cdk.out-") as outdir:
        app = cdk.App(context=context, outdir=outdir, builtin_cloud_formation_validation=False)
        build_app(app)
        template: dict[str, Any] = app.synth().get_stack_by_name(name).template
    return assumable_roles_from_template(template, region, account, name)


def other_account_templates(deployment: Deployment, contexts: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """The templates of the other-account stacks `contexts` asks for (`kafkaLineageSource`,
    `kafkaLineageConsumer`: canonical JSON text each), by context key, from one synthesis of the app; each
    template is then resolved for the account it is deployed in (assumable_roles_from_template)."""
    import aws_cdk as cdk

    from stacks.app import build_app

    default = {"kafkaLineageSource": "KafkaLineageSource", "kafkaLineageConsumer": "KafkaLineageConsumer"}
    settings = {key: json.loads(text) for key, text in contexts.items()}
    context = {**deployment.context(), **settings}
    with _LOCK, tempfile.TemporaryDirectory(prefix="cdk.out-") as outdir:
        app = cdk.App(context=context, outdir=outdir, builtin_cloud_formation_validation=False)
        build_app(app)
        assembly = app.synth()
        return {
            key: dict(assembly.get_stack_by_name(str(value.get("stackName") or default[key])).template)
            for key, value in settings.items()
        }
