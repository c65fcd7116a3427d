"""One writer per IAM role: the subscription-grants function holds the SSM lease of every role it writes
(`aws.lease.StateLease`, holder `subscription-grants-<hash of the role ARN>` under
`{MAPPING_PATH}/config/lease/`), taken in the roles' sorted order so two runs never wait on each other in a
circle, and released in reverse, whatever happened (the `RoleLeases` port; grants/run.py says why a lease).

`hold` answers whether anyone wrote one of the roles since a moment (`mark()`, taken before a run listed
the grants): the lease generation before ours says when its holder released it (or expired). A listing
taken after every previous holder's release already sees what they wrote, so the run need not list again
under the lease: that is what keeps a reconciling run at one listing, not one per role group.
Reading chosen: the functions' clocks (Lambda's, NTP-synced) agree within `CLOCK_SKEW_SECONDS`; a release
within that margin of the mark counts as after it (the run lists again: the pessimistic side).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_lineage.aws.lease import LeaseClock, StateLease, role_holder

if TYPE_CHECKING:
    from mypy_boto3_ssm import SSMClient


CLOCK_SKEW_SECONDS = 5.0


@dataclass(frozen=True)
class Held:
    """The leases of a group of roles, while held."""

    previous_writes: tuple[float, ...]  # when each role's previous holder last wrote (epoch seconds)

    def written_since(self, mark: float) -> bool:
        return any(moment > mark - CLOCK_SKEW_SECONDS for moment in self.previous_writes)


class RoleLeases:
    def __init__(
        self,
        ssm: SSMClient,
        mapping_path: str,
        owner: str,
        ttl_seconds: Callable[[], float],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._ssm = ssm
        self._clock = clock
        self._mapping_path = mapping_path
        self._owner = owner
        self._ttl = ttl_seconds
        self.taken = 0  # leases acquired by this invocation

    def mark(self) -> float:
        """Now, on the leases' clock: taken before a listing, for `Held.written_since`."""
        return self._clock()

    @contextmanager
    def hold(self, role_arns: Sequence[str], wait_seconds: float) -> Iterator[Held]:
        with ExitStack() as stack:
            writes: list[float] = []
            for role in sorted(set(role_arns)):
                lease = StateLease(
                    self._ssm,
                    self._mapping_path,
                    role_holder(role),
                    self._ttl(),
                    self._owner,
                    clock=LeaseClock(self._clock),
                )
                lease.acquire(wait_seconds)
                stack.callback(lease.release)
                writes.append(lease.previous_write)
                self.taken += 1
            yield Held(tuple(writes))
