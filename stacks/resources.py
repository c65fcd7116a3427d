"""What the stack's functions and its asset-type handler share, created once by the stack."""

from __future__ import annotations

from dataclasses import dataclass

from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_sqs as sqs


@dataclass(frozen=True)
class SharedResources:
    """What every function of the stack shares: the dependency layer, the on-failure queue, the log
    retention, the project it is a member of (when the stack creates memberships) and the domain's key."""

    layer: lambda_.ILayerVersion
    failure_queue: sqs.IQueue
    log_retention: logs.RetentionDays
    domain_id: str
    project_id: str
    create_membership: bool
    kms_key_arn: str | None = None
