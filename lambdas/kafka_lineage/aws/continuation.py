"""Lambda: hand unfinished work to a follow-up invocation of the same function."""

from __future__ import annotations

import json
from typing import Any


def continue_asynchronously(lambda_client: Any, function_arn: str, event: dict[str, Any]) -> None:
    """Invoke the function again with `event` (asynchronously: this invocation can end now).

    The caller passes the event its follow-up should run: schema-sync's adds `resumeAfter` (the last item it
    finished), and the follow-up also skips everything the mapping records as done, so it continues where
    this one stopped instead of starting over. A request deferred because another invocation held the
    state's lease is handed on the same way, so it is never dropped.
    """
    lambda_client.invoke(
        FunctionName=function_arn, InvocationType="Event", Payload=json.dumps(event).encode()
    )
