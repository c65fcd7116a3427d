"""Lambda: hand unfinished work to a follow-up invocation of the same function."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.clients import Clients
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


def hand_on(function_arn: str, event: dict[str, Any], *, clients: Clients | None = None) -> bool:
    """The handlers' hand-over: invoke `function_arn` again with `event`, through the Lambda client of
    `clients` (the wiring's; None: new ones); False (logged) when that failed, and the next scheduled run
    continues instead (the state holds everything finished so far)."""
    try:
        lambda_client = (Clients() if clients is None else clients).client("lambda")
        continue_asynchronously(lambda_client, function_arn, event)
    except Exception as error:
        logger.error("follow-up invocation failed", extra={"error": str(error)})
        return False
    return True
