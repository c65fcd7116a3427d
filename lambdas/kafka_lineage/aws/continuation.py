"""Lambda: hand unfinished work to a follow-up invocation of the same function."""

from __future__ import annotations

import json
from typing import Any


def continue_asynchronously(lambda_client: Any, function_arn: str, event: dict[str, Any]) -> None:
    """Invoke the function again with the same event (asynchronously: this invocation can end now).

    The follow-up skips everything the mapping already records as done, so it continues where this one
    stopped instead of starting over.
    """
    lambda_client.invoke(
        FunctionName=function_arn, InvocationType="Event", Payload=json.dumps(event).encode()
    )
