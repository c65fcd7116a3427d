"""The service's name in logs and metrics and the metrics' namespace: the functions write them, the stack's
alarms read them (stacks/monitoring.py), which synthesizes without the functions' dependencies."""

SERVICE = "kafka-lineage"
METRICS_NAMESPACE = "KafkaLineage"
