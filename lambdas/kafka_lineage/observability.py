"""The one Logger, Metrics and Tracer every module uses (Powertools)."""

from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics, Tracer

from kafka_lineage.model.metrics import Metric
from kafka_lineage.model.service import METRICS_NAMESPACE, SERVICE

logger = Logger(service=SERVICE)
metrics = Metrics(namespace=METRICS_NAMESPACE, service=SERVICE)
tracer = Tracer(service=SERVICE)

Handler = Callable[[dict[str, Any], Any], dict[str, Any]]


def observed(invoke: Handler) -> Handler:
    """A function's Lambda entry point: its logs carry the invocation's context (and start clean), its
    metrics are flushed at the end, its trace is captured. Every handler is made this one way."""

    @logger.inject_lambda_context(clear_state=True)
    @metrics.log_metrics
    @tracer.capture_lambda_handler
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        return invoke(event, context)

    return handler


def emit(metric: Metric, value: float) -> None:
    """Publish a metric of the catalog (kafka_lineage.model.metrics), under its name and unit."""
    metrics.add_metric(name=metric.name, unit=metric.unit, value=value)
