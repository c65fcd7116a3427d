"""Amazon MSK: the OpenLineage namespace of a cluster's topics, from its bootstrap brokers."""

from __future__ import annotations

from typing import Any

from kafka_lineage.model.failures import NoBootstrapBrokers

# OpenLineage's Kafka naming: kafka://{first bootstrap host:port}. Debezium, Spark and Flink take the first
# server of the bootstrap string they were given; MSK clients are usually given the IAM string, so prefer it.
BROKER_PREFERENCE = (
    "BootstrapBrokerStringSaslIam",
    "BootstrapBrokerStringPublicSaslIam",
    "BootstrapBrokerStringSaslScram",
    "BootstrapBrokerStringPublicSaslScram",
    "BootstrapBrokerStringTls",
    "BootstrapBrokerStringPublicTls",
    "BootstrapBrokerString",
)


def namespace_from_brokers(answer: dict[str, Any]) -> str:
    """Pick the preferred bootstrap string of a GetBootstrapBrokers answer and name its first broker."""
    for member in BROKER_PREFERENCE:
        brokers = answer.get(member)
        if brokers:
            first = brokers.split(",")[0].strip()
            if first:
                return f"kafka://{first}"
    raise NoBootstrapBrokers("GetBootstrapBrokers returned no broker string")


def cluster_namespace(kafka: Any, cluster_arn: str) -> str:
    return namespace_from_brokers(kafka.get_bootstrap_brokers(ClusterArn=cluster_arn))
