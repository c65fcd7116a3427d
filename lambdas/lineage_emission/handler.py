"""lineage-emission Lambda: parse the event and the environment, hold the state lease, run one emission,
hand unfinished work to a follow-up invocation, return the result."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.clients import client
from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.aws.lease import LEASE_MARGIN_SECONDS, StateLease
from kafka_lineage.config import Settings
from kafka_lineage.lineage.requests import parse_emit_event
from kafka_lineage.lineage.result import EmitResult
from kafka_lineage.lineage.run import emit_lineage
from kafka_lineage.model.failures import LeaseBusy
from kafka_lineage.model.metrics import LINEAGE_BUSY
from kafka_lineage.observability import emit, logger, metrics, tracer
from lineage_emission.wiring import connect

LEASE_HOLDER = "lineage-emission"


class LineageEmissionFailed(RuntimeError):
    """Raised after every topic was tried, when any failed: Lambda retries, the DLQ and alarms see it."""


def _account(context: LambdaContext) -> str:
    # arn:aws:lambda:<region>:<account>:function:<name>
    parts = str(getattr(context, "invoked_function_arn", "") or "").split(":")
    return parts[4] if len(parts) > 4 else ""


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    settings = Settings.from_environment(os.environ)
    scope = parse_emit_event(event)
    logger.info("lineage-emission starting", extra={"trigger": scope.trigger, "mode": scope.mode})

    def remaining_seconds() -> float:
        return float(context.get_remaining_time_in_millis()) / 1000

    nonce = (scope.force_nonce or context.aws_request_id) if scope.force else ""
    if nonce and scope.force_nonce != nonce:
        scope = replace(scope, force_nonce=nonce)
    follow_up = {**event, "forceNonce": nonce} if nonce else event
    lease: StateLease | None = None
    if not scope.dry_run:  # a dry run writes nothing: it needs no lease
        lease = StateLease(
            client("ssm"),
            settings.mapping_path,
            LEASE_HOLDER,
            ttl_seconds=remaining_seconds() + LEASE_MARGIN_SECONDS,
            owner=context.aws_request_id,
        )

    try:
        outcome = emit_lineage(
            scope,
            settings,
            connect(
                settings,
                account=_account(context),
                function_name=str(getattr(context, "function_name", "") or LEASE_HOLDER),
            ),
            # Fresh tokens per forced request; Lambda's retries reuse the request id, and a follow-up
            # carries the first invocation's nonce, hence the tokens (and what is done already).
            force_nonce=nonce,
            remaining_seconds=remaining_seconds,
            lease=lease,
        )
    except LeaseBusy as busy:
        # Another invocation writes the state now: never drop this request, hand it on.
        logger.warning("lineage state busy: handing the event to a follow-up", extra={"reason": str(busy)})
        emit(LINEAGE_BUSY, 1)
        busy_result = {**EmitResult(dry_run=False).to_dict(), "deferred": "busy"}
        busy_result["continued"] = hand_on(context.invoked_function_arn, follow_up)
        return busy_result
    finally:
        if lease is not None:
            lease.release()
    result = outcome.to_dict()
    if outcome.incomplete and outcome.progressed and not outcome.lease_lost:
        # Checkpointed: the state holds every finished topic, so the follow-up redoes none of them.
        result["continued"] = hand_on(context.invoked_function_arn, follow_up)
    logger.info(
        "lineage-emission finished", extra={"result": {k: v for k, v in result.items() if k != "planned"}}
    )
    if result["failed"]:
        raise LineageEmissionFailed(json.dumps(result, separators=(",", ":")))
    return result
