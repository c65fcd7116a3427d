"""schema-sync Lambda: parse the event and environment, run one sync, return its result (docs/invocation.md).

One writer: a run holds the `schema-sync` state lease (kafka_lineage.aws.lease) from before its first write
to its end (a run with nothing to write takes none: it writes nothing at all). An invocation that cannot get
it within the engine's one wait (kafka_lineage.engine.lease) stops, hands its event to a follow-up
invocation and returns `"deferred": "busy"`, so no request is dropped. A dry run writes nothing and takes
no lease.
"""

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
from kafka_lineage.observability import logger, observed
from kafka_lineage.sync.requests import parse_sync_event, with_resume
from kafka_lineage.sync.run import SchemaSync
from schema_sync.wiring import HOLDER, Wiring

# The context is Lambda's, or any object with its attributes (tests and the local runs pass their own).
Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


class SyncFailed(RuntimeError):
    """Raised after every item was tried, when any failed: Lambda retries, the DLQ and alarms see it."""


def make_handler(wiring: Wiring) -> Handler:
    """The Lambda handler over `wiring` (the composition root: the deployed one below, or a test's)."""

    return observed(lambda event, context: _invoke(wiring, event, context))


def _invoke(wiring: Wiring, event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    settings = Settings.from_environment(os.environ)
    # An event or ARN from a source account names that source (Settings.source_key).
    # Lambda sets AWS_REGION: the registries are read there, so a schemaArns entry of another region is
    # reported instead of being read as the same names here.
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    request = parse_sync_event(event, settings.source_key, region)
    logger.info("schema-sync starting", extra={"trigger": request.trigger, "scope": request.scope})

    def remaining_seconds() -> float:
        return float(context.get_remaining_time_in_millis()) / 1000

    deadline = Deadline(remaining_seconds, settings.tuning.deadline_margin_seconds)
    lease = None if request.dry_run else wiring.lease(settings, context)
    continuation = Continuation(event, lease)  # what the invocation that handed this one on knew
    try:
        adapters = wiring.adapters(settings, lease, str(getattr(context, "function_name", "") or HOLDER))
        adapters = replace(adapters, lease_wait_seconds=wiring.lease_wait_seconds)
        outcome = SchemaSync(settings, adapters, deadline).run(request)
    finally:
        if lease is not None:
            lease.release()
        continuation.close()
    result = outcome.to_dict()
    if outcome.deferred is not None or (outcome.incomplete and outcome.progressed):
        # Checkpointed: the asset records hold every finished chunk, and the follow-up resumes after the last
        # one (a verify run would otherwise read again what it verified), so it redoes none of them. A run
        # deferred for a busy lease hands its event on too: no request is dropped.
        follow_up = event
        if outcome.resume_after is not None:
            follow_up = with_resume(event, outcome.resume_after.group, outcome.resume_after.key)
        follow_up = continuation.follow_up(follow_up)
        result["continued"] = wiring.hand_on(context.invoked_function_arn, follow_up)
    logger.info("schema-sync finished", extra={"result": {k: v for k, v in result.items() if k != "planned"}})
    if result["failed"]:
        raise SyncFailed(json.dumps(result, separators=(",", ":")))
    return result


handler = make_handler(Wiring())
