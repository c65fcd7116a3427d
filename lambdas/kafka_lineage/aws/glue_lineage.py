"""The Glue Data Catalog's lineage graphs through boto3 (from 1.44.18): PostLineageEvent into the graph of
each account the edges go to, and GetLineageNode for a person's read-back (never the functions': no role of
the stack is granted it).

PostLineageEvent takes the OpenLineage event as a JSON string of at most 300,000 bytes and answers nothing:
accepted means validated and stored, and the graph follows asynchronously ("Publishing data lineage
programmatically"). It has no clientToken; a retried post is the same run because its body is (the runId
and eventTime are derived, kafka_lineage.lineage.glue.target). Each account's posts are paced by their own
limiter (model/quotas.py: no quota is published, so it starts low), ThrottlingException retried by the call
layer; ResourceNumberLimitExceededException arrives as `QuotaExceeded`, naming what it is.

The mypy-boto3 stubs for Glue predate 1.44.18, so the lineage calls are made on an untyped client.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import Pacing

POST = "PostLineageEvent"


class GlueLineageGraphs:
    """PostLineageEvent per account: `glue_of(graph)` is the Glue client of that account (a source key, ""
    the functions' own); each account's posts have their own pacing."""

    def __init__(
        self, glue_of: Callable[[str], Any], pacing_of: Callable[[str], Pacing] | None = None
    ) -> None:
        """`pacing_of(graph)`: the wiring's pacing of each account's posts (the same one for every run, as
        the account's client is paced once); by default, one made here per graph."""
        self._glue_of = glue_of
        self._pacing_of = pacing_of
        self._pacing: dict[str, Pacing] = {}
        self._lock = threading.Lock()  # the posts come from the run's workers

    def pacing(self, graph: str) -> Pacing:
        with self._lock:
            if graph not in self._pacing:
                self._pacing[graph] = self._pacing_of(graph) if self._pacing_of else Pacing("glue")
            return self._pacing[graph]

    def post(self, graph: str, body: bytes) -> None:
        glue = instrument(self._glue_of(graph), self.pacing(graph), operations=(POST,))
        glue.post_lineage_event(Event=body.decode("utf-8"))


def lineage_node(glue: Any, identifier: str) -> dict[str, Any]:
    """GetLineageNode: the node of `identifier` (a node id, or a SourceIdentifier such as a table ARN) with
    the ids of the nodes directly upstream and downstream of it (at most 250 each)."""
    answer: dict[str, Any] = instrument(glue).get_lineage_node(Identifier=identifier)
    answer.pop("ResponseMetadata", None)
    return answer
