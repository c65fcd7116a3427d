"""Amazon MSK: the OpenLineage namespace of a cluster's topics, from its bootstrap brokers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.model.failures import NoBootstrapBrokers

if TYPE_CHECKING:
    from mypy_boto3_kafka import KafkaClient

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


def namespace_from_brokers(answer: Mapping[str, Any]) -> str:
    """Pick the preferred bootstrap string of a GetBootstrapBrokers answer and name its first broker."""
    for member in BROKER_PREFERENCE:
        brokers = answer.get(member)
        if brokers:
            first = brokers.split(",")[0].strip()
            if first:
                return f"kafka://{first}"
    raise NoBootstrapBrokers("GetBootstrapBrokers returned no broker string")


def cluster_namespace(kafka: KafkaClient, cluster_arn: str) -> str:
    return namespace_from_brokers(instrument(kafka).get_bootstrap_brokers(ClusterArn=cluster_arn))
