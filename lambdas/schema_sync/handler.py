"""schema-sync Lambda: parse the event and environment, run one sync, return its result (docs/invocation.md).

One writer: a run holds the `schema-sync` state lease (kafka_lineage.aws.lease) from before its first write
to its end (a run with nothing to write takes none: it writes nothing at all). An invocation that cannot get
it within LEASE_WAIT_SECONDS stops, hands its event to a follow-up invocation and returns
`"deferred": "busy"`, so no request is dropped. A dry run writes nothing and takes no lease.
"""

from __future__ import annotations

import json
import os
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.clients import client
from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.aws.lease import LEASE_MARGIN_SECONDS, StateLease
from kafka_lineage.config import Settings
from kafka_lineage.observability import logger, metrics, tracer
from kafka_lineage.sync.requests import parse_sync_event, with_resume
from kafka_lineage.sync.run import SchemaSync
from schema_sync.wiring import HOLDER, build_adapters

# How long an invocation waits for another one's lease before handing its event on (a run that holds it
# may take the whole Lambda timeout; waiting that long would only double the bill).
LEASE_WAIT_SECONDS = 20.0


class SyncFailed(RuntimeError):
    """Raised after every item was tried, when any failed: Lambda retries, the DLQ and alarms see it."""


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
@tracer.capture_lambda_handler
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    settings = Settings.from_environment(os.environ)
    # An event or ARN from a source account names that source (Settings.source_key).
    # Lambda sets AWS_REGION: the registries are read there, so a schemaArns entry of another region is
    # reported instead of being read as the same names here.
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    request = parse_sync_event(event, settings.source_key, region)
    logger.info("schema-sync starting", extra={"trigger": request.trigger, "scope": request.scope})

    def remaining_seconds() -> float:
        return float(context.get_remaining_time_in_millis()) / 1000

    lease: StateLease | None = None
    if not request.dry_run:
        lease = StateLease(
            client("ssm"),
            settings.mapping_path,
            HOLDER,
            ttl_seconds=remaining_seconds() + LEASE_MARGIN_SECONDS,
            owner=context.aws_request_id,
        )
    try:
        adapters = build_adapters(settings, lease, str(getattr(context, "function_name", "") or HOLDER))
        adapters.lease_wait_seconds = LEASE_WAIT_SECONDS
        outcome = SchemaSync(settings, adapters, remaining_seconds).run(request)
    finally:
        if lease is not None:
            lease.release()
    result = outcome.to_dict()
    if outcome.busy or (outcome.incomplete and outcome.progressed):
        # Checkpointed: the asset records hold every finished chunk, and the follow-up resumes after the last
        # one (a verify run would otherwise read again what it verified), so it redoes none of them. A run
        # that found the state lease busy hands its event on too: no request is dropped.
        follow_up = event
        if outcome.resume_after is not None:
            follow_up = with_resume(event, outcome.resume_after.group, outcome.resume_after.key)
        result["continued"] = hand_on(context.invoked_function_arn, follow_up)
    logger.info("schema-sync finished", extra={"result": {k: v for k, v in result.items() if k != "planned"}})
    if result["failed"]:
        raise SyncFailed(json.dumps(result, separators=(",", ":")))
    return result
