"""The one Logger, Metrics and Tracer every module uses (Powertools)."""

from aws_lambda_powertools import Logger, Metrics, Tracer

from kafka_lineage.model.metrics import Metric
from kafka_lineage.model.service import METRICS_NAMESPACE, SERVICE

logger = Logger(service=SERVICE)
metrics = Metrics(namespace=METRICS_NAMESPACE, service=SERVICE)
tracer = Tracer(service=SERVICE)


def emit(metric: Metric, value: float) -> None:
    """Publish a metric of the catalog (kafka_lineage.model.metrics), under its name and unit."""
    metrics.add_metric(name=metric.name, unit=metric.unit, value=value)
