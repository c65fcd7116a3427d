"""lineage-emission Lambda: the one handler (kafka_lineage.engine.function) over lineage-emission's wiring
(lineage_emission.wiring: the settings, the request, the state lease, the run over its world).

A run with work holds the lineage state's lease; one that finds it busy returns `"deferred": "busy"` and
hands its event on, and one the deadline stopped after saving some topics hands the same event on: the state
records what is done, so the follow-up redoes none of it. A dry run takes no lease and writes nothing.
"""

from __future__ import annotations

from kafka_lineage.engine.function import Handler, RunFailed
from kafka_lineage.engine.function import make_handler as make_function
from lineage_emission.wiring import Wiring


class LineageEmissionFailed(RunFailed):
    """Raised after every topic was tried, when any failed: Lambda retries, the DLQ and alarms see it."""


def make_handler(wiring: Wiring) -> Handler:
    """The Lambda handler over `wiring` (the composition root: the deployed one below, or a test's)."""
    return make_function(wiring, LineageEmissionFailed)


handler = make_handler(Wiring())
