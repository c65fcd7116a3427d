"""One writer per IAM role: the subscription-grants function holds the SSM lease of every role it writes
(`aws.lease.StateLease`, holder `subscription-grants-<hash of the role ARN>` under
`{MAPPING_PATH}/config/lease/`), taken in the roles' sorted order so two runs never wait on each other in a
circle, and released in reverse, whatever happened (the `RoleLeases` port; grants/run.py says why a lease).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING

from kafka_lineage.aws.lease import StateLease, role_holder

if TYPE_CHECKING:
    from mypy_boto3_ssm import SSMClient


class RoleLeases:
    def __init__(
        self,
        ssm: SSMClient,
        state_root: str,
        owner: str,
        ttl_seconds: Callable[[], float],
        wait_seconds: float,
    ) -> None:
        self._ssm = ssm
        self._root = state_root
        self._owner = owner
        self._ttl = ttl_seconds
        self._wait = wait_seconds
        self.taken = 0  # leases acquired by this invocation

    @contextmanager
    def hold(self, role_arns: Sequence[str]) -> Iterator[None]:
        with ExitStack() as stack:
            for role in sorted(set(role_arns)):
                lease = StateLease(self._ssm, self._root, role_holder(role), self._ttl(), self._owner)
                lease.acquire(self._wait)
                stack.callback(lease.release)
                self.taken += 1
            yield
