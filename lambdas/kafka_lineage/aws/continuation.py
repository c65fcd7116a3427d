"""Lambda: hand unfinished work to a follow-up invocation of the same function, and what the invocation knows
with it (model/handover.py: the lease generation it held, where lineage resumes, the pace it reached)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.clients import client
from kafka_lineage.aws.lease import StateLease
from kafka_lineage.aws.pacing import carry_over, reached
from kafka_lineage.model.handover import handover_of, with_handover
from kafka_lineage.observability import logger

if TYPE_CHECKING:
    from mypy_boto3_lambda import LambdaClient


def continue_asynchronously(lambda_client: LambdaClient, function_arn: str, event: dict[str, Any]) -> None:
    """Invoke the function again with `event` (asynchronously: this invocation can end now).

    The caller passes the event its follow-up should run: schema-sync's adds `resumeAfter` (the last item it
    finished), and the follow-up also skips everything the mapping records as done, so it continues where
    this one stopped instead of starting over. A request deferred because another invocation held the
    state's lease is handed on the same way, so it is never dropped.
    """
    instrument(lambda_client).invoke(
        FunctionName=function_arn, InvocationType="Event", Payload=json.dumps(event).encode()
    )


def hand_on(function_arn: str, event: dict[str, Any]) -> bool:
    """Both handlers' hand-over: invoke `function_arn` again with `event`; False (logged) when that failed,
    and the next scheduled run continues instead (the state holds everything finished so far)."""
    try:
        continue_asynchronously(client("lambda"), function_arn, event)
    except Exception as error:
        logger.error("follow-up invocation failed", extra={"error": str(error)})
        return False
    return True


class Continuation:
    """One invocation's side of the handover. Made as it starts, from its event: its lease learns which
    generation the invocation that handed it on held, and its limiters start at the pace that one reached.
    `close` (once it has run) notes the pace reached; `follow_up` is the event to hand on."""

    def __init__(self, event: dict[str, Any], lease: StateLease | None) -> None:
        handed = handover_of(event)
        self.lease = lease
        if lease is not None:
            lease.handed = handed.lease
        carry_over(handed.rates)
        self.rates: dict[str, float] = {}

    def close(self) -> None:
        self.rates = reached()
        carry_over({})  # nothing leaks into what this process runs next

    def follow_up(self, event: dict[str, Any], through: str | None = None) -> dict[str, Any]:
        held = self.lease.last_generation if self.lease is not None else None
        return with_handover(event, held, through, self.rates)
