"""Each Lambda function's role and identity-based policies, read from a synthesized CloudFormation template.

Pure: a template (a dict) in, roles out. CloudFormation intrinsics in the policies are resolved for one
region and account, with each function deployed under a fixed name (the short name of its handler, e.g.
`schema-sync`), so a function's own ARN in a grant resolves to the ARN the stand-ins invoke it by.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from local.standins.iam_policy import PolicyError, Statement, parse_policy

# Handler -> the function's (and its role's) short name in the stand-ins.
FUNCTION_NAMES = {
    "schema_sync.handler.handler": "schema-sync",
    "lineage_emission.handler.handler": "lineage-emission",
    "asset_type_resource.handler.handler": "asset-type-resource",
    # deployed only with `access` (stacks/grants.py): local.world gives its deployment one
    "subscription_grants.handler.handler": "subscription-grants",
}


@dataclass(frozen=True)
class Role:
    name: str  # short name: schema-sync, lineage-emission, asset-type-resource, subscription-grants
    role_name: str  # the IAM role's name, as CloudFormation would generate it
    arn: str
    function_name: str
    function_arn: str
    handler: str
    statements: tuple[Statement, ...]
    documents: tuple[dict[str, Any], ...]  # the resolved policy documents the statements came from
    # The role's permissions boundary, when the template gives it one (AWS::IAM::ManagedPolicy of the
    # template): requests must be allowed by it as well as by the statements.
    boundary: tuple[Statement, ...] | None = None

    @property
    def account(self) -> str:
        """The role's account (a source account's role, assumed across accounts, is not the stand-ins')."""
        return self.arn.split(":")[4]

    def session_arn(self, account: str) -> str:
        """The caller a function runs as: its role, assumed with the function name as session."""
        return f"arn:aws:sts::{account}:assumed-role/{self.role_name}/{self.function_name}"


class _Resolver:
    def __init__(self, template: Mapping[str, Any], region: str, account: str, stack_name: str) -> None:
        self.resources: Mapping[str, Any] = template.get("Resources", {})
        self.region, self.account, self.stack_name = region, account, stack_name
        self.function_names: dict[str, str] = {}
        for logical_id, resource in self.resources.items():
            if resource.get("Type") == "AWS::Lambda::Function":
                handler = resource.get("Properties", {}).get("Handler", "")
                self.function_names[logical_id] = FUNCTION_NAMES.get(
                    handler, _physical(stack_name, logical_id)
                )

    def physical_name(self, logical_id: str) -> str:
        if logical_id in self.function_names:
            return self.function_names[logical_id]
        return _physical(self.stack_name, logical_id)

    def arn_of(self, logical_id: str) -> str:
        kind = self.resources.get(logical_id, {}).get("Type", "")
        name = self.physical_name(logical_id)
        r, a = self.region, self.account
        if kind == "AWS::Lambda::Function":
            return f"arn:aws:lambda:{r}:{a}:function:{name}"
        if kind == "AWS::IAM::Role":
            return f"arn:aws:iam::{a}:role/{name}"
        if kind == "AWS::Logs::LogGroup":
            return f"arn:aws:logs:{r}:{a}:log-group:{name}:*"
        if kind == "AWS::SQS::Queue":
            return f"arn:aws:sqs:{r}:{a}:{name}"
        if kind == "AWS::SNS::Topic":
            return f"arn:aws:sns:{r}:{a}:{name}"
        # Nothing here calls such resources; an ARN that matches no real request keeps grants honest.
        return f"arn:aws:cloudformation:{r}:{a}:unresolved/{logical_id}"

    def resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.resolve(item) for item in value]
        if not isinstance(value, Mapping):
            return value
        if len(value) != 1:
            return {key: self.resolve(item) for key, item in value.items()}
        ((key, argument),) = value.items()
        if key == "Ref":
            pseudo = {
                "AWS::Partition": "aws",
                "AWS::Region": self.region,
                "AWS::AccountId": self.account,
                "AWS::URLSuffix": "amazonaws.com",
                "AWS::StackName": self.stack_name,
            }
            return pseudo.get(argument) or self.physical_name(argument)
        if key == "Fn::GetAtt":
            logical_id, attribute = argument if isinstance(argument, list) else argument.split(".", 1)
            if attribute != "Arn":
                raise PolicyError(f"cannot resolve Fn::GetAtt {logical_id}.{attribute} in a policy")
            return self.arn_of(logical_id)
        if key == "Fn::Join":
            separator, parts = argument
            return separator.join(str(self.resolve(part)) for part in self.resolve(parts))
        if key == "Fn::Select":
            index, items = argument
            return self.resolve(items)[int(self.resolve(index))]
        if key == "Fn::Split":
            separator, text = argument
            return str(self.resolve(text)).split(separator)
        if key.startswith("Fn::"):
            raise PolicyError(f"cannot resolve {key} in a policy")
        return {key: self.resolve(argument)}


def _physical(stack_name: str, logical_id: str) -> str:
    """A CloudFormation-style generated name: stack-logicalId-SUFFIX, at most 64 characters."""
    suffix = hashlib.sha256(f"{stack_name}/{logical_id}".encode()).hexdigest()[:12].upper()
    return f"{stack_name}-{logical_id}"[: 64 - 13] + f"-{suffix}"


def roles_from_template(
    template: Mapping[str, Any], region: str, account: str, stack_name: str = "KafkaLineage"
) -> dict[str, Role]:
    """Short name -> Role, for every function of the template with one of our handlers."""
    resolver = _Resolver(template, region, account, stack_name)
    resources = resolver.resources
    documents: dict[str, list[dict[str, Any]]] = {}
    for logical_id, resource in resources.items():
        properties = resource.get("Properties", {})
        if resource.get("Type") == "AWS::IAM::Policy":
            for role_ref in properties.get("Roles", []):
                role_id = role_ref.get("Ref") if isinstance(role_ref, Mapping) else None
                if role_id:
                    documents.setdefault(role_id, []).append(resolver.resolve(properties["PolicyDocument"]))
        elif resource.get("Type") == "AWS::IAM::Role":
            for inline in properties.get("Policies", []):
                documents.setdefault(logical_id, []).append(resolver.resolve(inline["PolicyDocument"]))
    roles: dict[str, Role] = {}
    for logical_id, resource in resources.items():
        properties = resource.get("Properties", {})
        if resource.get("Type") != "AWS::Lambda::Function":
            continue
        handler = properties.get("Handler", "")
        if handler not in FUNCTION_NAMES:
            continue
        role_ref = properties.get("Role", {}).get("Fn::GetAtt", [None])[0]
        role_resource = resources.get(role_ref, {})
        if role_resource.get("Properties", {}).get("ManagedPolicyArns"):
            raise PolicyError(f"{role_ref}: managed policies are not modelled; the stack uses inline grants")
        docs = documents.get(role_ref, [])
        statements = tuple(s for doc in docs for s in parse_policy(doc))
        boundary = _boundary(resources, resolver, role_resource.get("Properties", {}))
        name = FUNCTION_NAMES[handler]
        roles[name] = Role(
            name=name,
            role_name=resolver.physical_name(role_ref),
            arn=resolver.arn_of(role_ref),
            function_name=resolver.physical_name(logical_id),
            function_arn=resolver.arn_of(logical_id),
            handler=handler,
            statements=statements,
            documents=tuple(docs),
            boundary=boundary,
        )
    return roles


def _boundary(
    resources: Mapping[str, Any], resolver: _Resolver, properties: Mapping[str, Any]
) -> tuple[Statement, ...] | None:
    """The statements of a role's PermissionsBoundary: a managed policy of the same template (an ARN from
    elsewhere cannot be read from the template: refused loudly rather than evaluated as no boundary)."""
    given = properties.get("PermissionsBoundary")
    if given is None:
        return None
    logical_id = given.get("Ref") if isinstance(given, Mapping) else None
    policy = resources.get(logical_id or "", {})
    if policy.get("Type") != "AWS::IAM::ManagedPolicy":
        raise PolicyError(
            f"permissions boundary {given!r} is not a managed policy of the template; "
            "IAM mode cannot read it (give it to Iam.set_boundary instead)"
        )
    return parse_policy(resolver.resolve(policy["Properties"]["PolicyDocument"]))
