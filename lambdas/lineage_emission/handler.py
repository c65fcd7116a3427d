"""lineage-emission Lambda: parse the event and the environment, run one emission, return its result."""

from __future__ import annotations

import json
import os
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.config import Settings
from kafka_lineage.lineage.run import LineageWorld, emit_lineage
from kafka_lineage.observability import logger, metrics, tracer
from lineage_emission.request import parse_emit_event


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

    outcome = emit_lineage(
        scope,
        settings,
        LineageWorld.connect(settings, account=_account(context)),
        # Fresh tokens per invocation; Lambda's own retries of it reuse the request id, hence the tokens.
        force_nonce=context.aws_request_id if scope.force else "",
        remaining_seconds=remaining_seconds,
    )
    result = outcome.to_dict()
    logger.info(
        "lineage-emission finished", extra={"result": {k: v for k, v in result.items() if k != "planned"}}
    )
    if result["failed"]:
        raise LineageEmissionFailed(json.dumps(result, separators=(",", ":")))
    return result
