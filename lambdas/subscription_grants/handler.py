"""subscription-grants Lambda (contract §8): DataZone subscription grants on Kafka topic assets become IAM
access for the subscriber's roles, and a revoke takes it away.

Thin: read the settings and the event, build the adapters (`wiring.Wiring`, the one composition root; tests
pass another to `make_handler`, or another `build` to `run`), run (`kafka_lineage.grants.run`), hand
unfinished work on, return the result.
A malformed event is reported and dropped (raising would make Lambda retry an event that never parses); a
transient failure raises after everything else was done, so Lambda's retries, the DLQ and alarms see it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.engine.deadline import Deadline
from kafka_lineage.grants.ports import GrantPorts
from kafka_lineage.grants.requests import parse_request
from kafka_lineage.grants.run import GrantRun
from kafka_lineage.grants.settings import GrantSettings
from kafka_lineage.observability import logger, observed
from subscription_grants.wiring import Wiring
from subscription_grants.wiring import build as build_ports

Build = Callable[[GrantSettings, LambdaContext, Mapping[str, str]], GrantPorts]
HandOn = Callable[[str, dict[str, Any]], bool]


class GrantsFailed(RuntimeError):
    """Raised after every item was tried, when a transient failure left work undone."""


def run(
    event: Any,
    context: LambdaContext,
    *,
    build: Build = build_ports,
    environ: Mapping[str, str] | None = None,
    continue_with: HandOn = hand_on,
) -> dict[str, Any]:
    environ = os.environ if environ is None else environ
    settings = GrantSettings.from_environment(environ)
    request = parse_request(event)
    logger.info(
        "subscription-grants starting", extra={"trigger": request.trigger, "events": len(request.events)}
    )

    def remaining_seconds() -> float:
        return float(context.get_remaining_time_in_millis()) / 1000

    deadline = Deadline(remaining_seconds, settings.deadline_margin_seconds)
    outcome = GrantRun(settings, build(settings, context, environ), deadline).run(request)
    outcome.publish_metrics()
    result = outcome.to_dict()
    follow_up: dict[str, Any] | None = None
    if outcome.incomplete and outcome.resume_after is not None:
        # Only a run that finished some group hands on: one that could start none would hand on forever.
        follow_up = {"dryRun": request.dry_run, "resumeAfter": outcome.resume_after}
    elif outcome.deferred is not None and request.events and isinstance(event, dict):
        follow_up = event  # a role's lease was busy: the same event again, so no request is dropped
    if follow_up is not None:
        result["continued"] = continue_with(context.invoked_function_arn, follow_up)
    logger.info("subscription-grants finished", extra={"result": result})
    if outcome.raises:
        raise GrantsFailed(json.dumps(result, separators=(",", ":"), default=str))
    return result


def make_handler(wiring: Wiring) -> Callable[[dict[str, Any], Any], dict[str, Any]]:
    # (the context is Lambda's, or any object with its attributes: tests and the local runs pass their own)
    """The Lambda handler over `wiring` (the composition root: the deployed one below, or a test's)."""

    return observed(
        lambda event, context: run(event, context, build=wiring.ports, continue_with=wiring.hand_on)
    )


handler = make_handler(Wiring())
