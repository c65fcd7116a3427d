"""schema-sync Lambda: the one handler (kafka_lineage.engine.function) over schema-sync's wiring
(schema_sync.wiring: the settings, the request, the lease, the run over its ports); docs/invocation.md.

One writer: a run holds the `schema-sync` state lease (kafka_lineage.aws.lease) from before its first write
to its end (a run with nothing to write takes none: it writes nothing at all). An invocation that cannot get
it within the engine's one wait (kafka_lineage.engine.lease) stops, hands its event to a follow-up
invocation and returns `"deferred": "busy"`, so no request is dropped. A dry run writes nothing and takes
no lease.
"""

from __future__ import annotations

from kafka_lineage.engine.function import Handler, RunFailed
from kafka_lineage.engine.function import make_handler as make_function
from schema_sync.wiring import Wiring


class SyncFailed(RunFailed):
    """Raised after every item was tried, when any failed: Lambda retries, the DLQ and alarms see it."""


def make_handler(wiring: Wiring) -> Handler:
    """The Lambda handler over `wiring` (the composition root: the deployed one below, or a test's)."""
    return make_function(wiring, SyncFailed)


handler = make_handler(Wiring())
