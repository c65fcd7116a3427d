"""What `kafka-lineage doctor` reports: one finding per check and problem, and where the stack goes."""

from __future__ import annotations

from dataclasses import dataclass

OK, WARN, FAIL = "ok", "warn", "FAIL"


@dataclass(frozen=True)
class Finding:
    check: str
    status: str  # ok, warn (to do, the deploy is not stopped), FAIL (the deploy or the functions would fail)
    message: str


@dataclass(frozen=True)
class Target:
    """Where the stack goes: the caller's account, the region, and the CloudFormation execution role."""

    account: str
    partition: str
    region: str
    execution_role_arn: str
