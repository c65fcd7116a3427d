"""lineage-emission Lambda: parse the event and the environment, hold the state lease, run one emission,
hand unfinished work to a follow-up invocation, return the result."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.continuation import Continuation
from kafka_lineage.config import Settings
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.lineage.run import emit_lineage
from kafka_lineage.observability import logger, observed
from lineage_emission.wiring import LEASE_HOLDER, Wiring

# The context is Lambda's, or any object with its attributes (tests and the local runs pass their own).
Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


class LineageEmissionFailed(RuntimeError):
    """Raised after every topic was tried, when any failed: Lambda retries, the DLQ and alarms see it."""


def _account(context: LambdaContext) -> str:
    # arn:aws:lambda:<region>:<account>:function:<name>
    parts = str(getattr(context, "invoked_function_arn", "") or "").split(":")
    return parts[4] if len(parts) > 4 else ""


def make_handler(wiring: Wiring) -> Handler:
    """The Lambda handler over `wiring` (the composition root: the deployed one below, or a test's)."""

    return observed(lambda event, context: _invoke(wiring, event, context))


def _invoke(wiring: Wiring, event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    settings = Settings.from_environment(os.environ)
    scope = parse_emit_event(event)
    logger.info("lineage-emission starting", extra={"trigger": scope.trigger, "mode": scope.mode})

    def remaining_seconds() -> float:
        return float(context.get_remaining_time_in_millis()) / 1000

    nonce = (scope.force_nonce or context.aws_request_id) if scope.force else ""
    if nonce and scope.force_nonce != nonce:
        scope = replace(scope, force_nonce=nonce)
    follow_up = {**event, "forceNonce": nonce} if nonce else event
    deadline = Deadline(remaining_seconds, settings.tuning.deadline_margin_seconds)
    lease = None if scope.dry_run else wiring.lease(settings, context)  # a dry run writes nothing
    continuation = Continuation(event, lease)  # what the invocation that handed this one on knew
    try:
        function_name = str(getattr(context, "function_name", "") or LEASE_HOLDER)
        world = replace(
            wiring.world(settings, _account(context), function_name),
            lease_wait_seconds=wiring.lease_wait_seconds,
        )
        # Fresh tokens per forced request; Lambda's retries reuse the request id, and a follow-up carries
        # the first invocation's nonce, hence the tokens (and what is done already).
        outcome = emit_lineage(scope, settings, world, force_nonce=nonce, deadline=deadline, lease=lease)
    finally:
        if lease is not None:
            lease.release()
        continuation.close()
    result = outcome.to_dict()
    follow_up = continuation.follow_up(follow_up, outcome.done_through or scope.through)
    if outcome.deferred is not None:
        # Another invocation writes the state now: never drop this request, hand it on.
        logger.warning(
            "lineage state busy: handing the event to a follow-up", extra={"reason": outcome.deferred.detail}
        )
        result["continued"] = wiring.hand_on(context.invoked_function_arn, follow_up)
        return result
    if outcome.incomplete and outcome.progressed and not outcome.lease_lost:
        # Checkpointed: the state holds every finished topic, so the follow-up redoes none of them.
        result["continued"] = wiring.hand_on(context.invoked_function_arn, follow_up)
    logger.info(
        "lineage-emission finished", extra={"result": {k: v for k, v in result.items() if k != "planned"}}
    )
    if result["failed"]:
        raise LineageEmissionFailed(json.dumps(result, separators=(",", ":")))
    return result


handler = make_handler(Wiring())
