"""Read-counted lifecycles on moto's state manager: a resource AWS creates asynchronously reads CREATING,
then ACTIVE; one it deletes asynchronously is listed DELETING, then is gone.

How long is undocumented, so it is a reading (readings.py). Each resource's status is a moto `ManagedState` of
one model name, whose transition the stand-in registers with moto's state manager as moto's own backends do:
"manual", `times` = the reading. A resource then answers CREATING to `times` reads and ACTIVE from the next
(0: ACTIVE from the first); a deleted one is listed DELETING `times` times, then is gone (GONE, no status AWS
answers: the stand-in drops it; 0: gone at once). The default is registered again on every request, so
`aws.readings.<reading> = N` takes effect on the next request, for resources already created too;
`moto.moto_api.state_manager.set_transition(model, ...)` overrides it, as it overrides moto's own models.
"""

from __future__ import annotations

from moto.moto_api import state_manager
from moto.moto_api._internal.managed_state_model import ManagedState

CREATING, ACTIVE, DELETING, GONE = "CREATING", "ACTIVE", "DELETING", "GONE"
_MOVES_ON = {CREATING: ACTIVE, DELETING: GONE}
DELIVERY_STREAM = "firehose::delivery-stream"  # reading delivery_stream_creating_reads
CHANNEL = "kafka::channel"  # reading channel_creating_reads
CHANNEL_DELETION = "kafka::channel-deletion"  # reading deleted_channels_linger (listings only)
CONNECTOR_DELETION = "kafkaconnect::connector-deletion"  # reading deleted_connectors_linger (listings only)


def register(model: str, reads: int) -> None:
    """The stand-in's default for `model`: the status moves on after `reads` reads (a reading)."""
    state_manager.register_default_transition(model, {"progression": "manual", "times": reads})


class Lifecycle(ManagedState):
    """A resource's status: CREATING moves on to ACTIVE, DELETING to GONE, after the model's `times` reads;
    any other status, and one set by hand (`moves=False`: a test hook), stays until a write changes it."""

    def __init__(self, model: str, status: str = CREATING, moves: bool = True) -> None:
        after = _MOVES_ON.get(status) if moves else None
        super().__init__(model, [(status, after or status)])

    def read(self) -> str:
        """One read of the resource (a Describe, a listed entry): the status it answers, then the count
        moves on. Take the answer's status from here once: a later `status` may already be the next."""
        status = self.status
        self.advance()
        return str(status)

    def now(self) -> str:
        """The status without a read (a write's check)."""
        return str(self.status)
