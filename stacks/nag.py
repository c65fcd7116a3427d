"""cdk-nag: ARNs as it renders them in a finding's `appliesTo` (the exact strings an acknowledgment names),
and one acknowledgment on one resource for one exact finding."""

from __future__ import annotations

import aws_cdk as cdk
from aws_cdk import aws_iam as iam
from constructs import IConstruct


def _rendered(value: str, pseudo: str) -> str:
    # An environment-agnostic stack leaves the pseudo parameter a token (nag writes `<AWS::Region>`); a
    # stack with an explicit env (account, region) has the literal value in its ARNs.
    return f"<AWS::{pseudo}>" if cdk.Token.is_unresolved(value) else value


def nag_arn(scope: IConstruct, service: str, resource: str) -> str:
    """An ARN in `scope`'s stack's partition, region and account, as cdk-nag renders it."""
    stack = cdk.Stack.of(scope)
    partition = _rendered(stack.partition, "Partition")
    region = _rendered(stack.region, "Region")
    account = _rendered(stack.account, "AccountId")
    return f"arn:{partition}:{service}:{region}:{account}:{resource}"


def cfn_resource(construct: IConstruct) -> cdk.CfnResource:
    resource = construct.node.default_child
    assert isinstance(resource, cdk.CfnResource)
    return resource


def default_policy(role: iam.Role) -> cdk.CfnResource:
    return cfn_resource(role.node.find_child("DefaultPolicy"))


def topic_wildcard(cluster_arn: str) -> str:
    """Every topic of an MSK cluster: arn:…:cluster/<name>/<uuid> -> arn:…:topic/<name>/<uuid>/*."""
    prefix, _, rest = cluster_arn.partition(":cluster/")
    return f"{prefix}:topic/{rest}/*"


def acknowledge(resource: cdk.CfnResource, finding: str, reason: str) -> None:
    """Acknowledge one cdk-nag finding on one resource (never on a stack or a subtree)."""
    cdk.Validations.of(resource).acknowledge(cdk.Acknowledgment(id=finding, reason=reason))
