"""The one Logger, Metrics and Tracer every module uses (Powertools)."""

from aws_lambda_powertools import Logger, Metrics, Tracer

SERVICE = "kafka-lineage"
METRICS_NAMESPACE = "KafkaLineage"

logger = Logger(service=SERVICE)
metrics = Metrics(namespace=METRICS_NAMESPACE, service=SERVICE)
tracer = Tracer(service=SERVICE)
