"""subscription-grants Lambda (contract §8): the one handler (kafka_lineage.engine.function) over
subscription-grants' wiring (subscription_grants.wiring: the settings, the request, the run over its ports).

DataZone subscription grants on Kafka topic assets become IAM access for the subscriber's roles, and a
revoke takes it away (kafka_lineage.grants.run). A malformed event is reported and dropped (raising would
make Lambda retry an event that never parses); a transient failure raises after everything else was done,
so Lambda's retries, the DLQ and alarms see it. The leases are per role, taken by the run.
"""

from __future__ import annotations

from kafka_lineage.engine.function import Handler, RunFailed
from kafka_lineage.engine.function import make_handler as make_function
from subscription_grants.wiring import Wiring


class GrantsFailed(RunFailed):
    """Raised after every item was tried, when a transient failure left work undone."""


def make_handler(wiring: Wiring) -> Handler:
    """The Lambda handler over `wiring` (the composition root: the deployed one below, or a test's)."""
    return make_function(wiring, GrantsFailed)


handler = make_handler(Wiring())
