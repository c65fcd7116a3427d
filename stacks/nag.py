"""ARNs as cdk-nag renders them in a finding's `appliesTo` (the exact strings an acknowledgment names)."""

from __future__ import annotations

import aws_cdk as cdk
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
