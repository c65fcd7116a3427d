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


_RETENTION = {
    1: logs.RetentionDays.ONE_DAY,
    3: logs.RetentionDays.THREE_DAYS,
    5: logs.RetentionDays.FIVE_DAYS,
    7: logs.RetentionDays.ONE_WEEK,
    14: logs.RetentionDays.TWO_WEEKS,
    30: logs.RetentionDays.ONE_MONTH,
    60: logs.RetentionDays.TWO_MONTHS,
    90: logs.RetentionDays.THREE_MONTHS,
    120: logs.RetentionDays.FOUR_MONTHS,
    150: logs.RetentionDays.FIVE_MONTHS,
    180: logs.RetentionDays.SIX_MONTHS,
    365: logs.RetentionDays.ONE_YEAR,
    400: logs.RetentionDays.THIRTEEN_MONTHS,
    545: logs.RetentionDays.EIGHTEEN_MONTHS,
    731: logs.RetentionDays.TWO_YEARS,
    1096: logs.RetentionDays.THREE_YEARS,
    1827: logs.RetentionDays.FIVE_YEARS,
    2192: logs.RetentionDays.SIX_YEARS,
}


def log_retention(days: int) -> logs.RetentionDays:
    """CloudWatch Logs' retention of `days` (`logRetentionDays`, validated at synth against the same list)."""
    return _RETENTION[days]
