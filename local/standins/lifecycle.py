"""Read-counted lifecycles on moto's state manager: a resource AWS creates asynchronously reads CREATING,
then ACTIVE.

How long is undocumented, so it is a reading (readings.py). Each resource's status is a moto
`ManagedState` of one model name, whose transition the stand-in registers with moto's state manager as
moto's own backends do: "manual", `times` = the reading. A resource then answers CREATING to `times` reads
and ACTIVE from the next (0: ACTIVE from the first). The default is registered again on every request, so
`aws.readings.<reading> = N` takes effect on the next request, for resources already created too;
`moto.moto_api.state_manager.set_transition(model, ...)` overrides it, as it overrides moto's own models.
"""

from __future__ import annotations

from moto.moto_api import state_manager
from moto.moto_api._internal.managed_state_model import ManagedState

CREATING, ACTIVE = "CREATING", "ACTIVE"
DELIVERY_STREAM = "firehose::delivery-stream"  # reading delivery_stream_creating_reads
CHANNEL = "kafka::channel"  # reading channel_creating_reads


def register(model: str, reads: int) -> None:
    """The stand-in's default for `model`: CREATING for `reads` reads (a reading)."""
    state_manager.register_default_transition(model, {"progression": "manual", "times": reads})


class Lifecycle(ManagedState):
    """A resource's status: CREATING moves on to ACTIVE after the model's `times` reads; any other status,
    and one set by hand (`moves=False`: a test hook), stays as it is until a write changes it."""

    def __init__(self, model: str, status: str = CREATING, moves: bool = True) -> None:
        moving = moves and status == CREATING
        super().__init__(model, [(CREATING, ACTIVE)] if moving else [(status, status)])

    def read(self) -> str:
        """One read of the resource (a Describe, a listed entry): the status it answers, then the count
        moves on. Take the answer's status from here once: a later `status` may already be the next."""
        status = self.status
        self.advance()
        return str(status)

    def now(self) -> str:
        """The status without a read (a write's check)."""
        return str(self.status)
