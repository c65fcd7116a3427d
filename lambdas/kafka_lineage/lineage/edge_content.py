"""What each edge's run describes, built from the resolved edge (resolve.py) and, for a sink edge, the
Glue table as read: a sink edge's `RunContent`, a first hop's `HopContent`, a location's `LocationContent`,
a consumer group's `ConsumerContent` (content.py). Every content starts with the topic's schema version,
copied from its asset record in one place (`_version`)."""

from __future__ import annotations

from typing import TypedDict

from kafka_lineage.consumers import job_namespace as consumer_job_namespace
from kafka_lineage.lineage.consumer_inputs import Consumer
from kafka_lineage.lineage.content import ConsumerContent, HopContent, LocationContent, RunContent
from kafka_lineage.lineage.resolve import FirstHop, Location, Target
from kafka_lineage.model.asset_records import AssetRecord
from kafka_lineage.model.tables import GlueTable
from kafka_lineage.model.topics import TopicKey


class _Version(TypedDict):
    """The fields every run's content starts with (content.TopicVersion), from the topic's asset record."""

    key: TopicKey
    topic_namespace: str
    schema_arn: str
    schema_version: int
    schema_version_id: str
    schema_created: str
    data_format: str


def _version(key: TopicKey, record: AssetRecord) -> _Version:
    return _Version(
        key=key,
        topic_namespace=record.namespace,
        schema_arn=record.schema_arn,
        schema_version=record.latest_version,
        schema_version_id=record.schema_version_id,
        schema_created=record.created_time,
        data_format=record.data_format,
    )


def content_for(target: Target, table: GlueTable) -> RunContent:
    record = target.record
    connector = target.connector
    return RunContent(
        **_version(target.key, record),
        table=table,
        job_namespace=connector.job_namespace if connector else target.source.job_namespace,
        origin=target.origin,
        mapping_parameter=target.mapping.parameter if target.mapping else "",
        connector_job=connector.job_name if connector else "",
        connector_arn=connector.connector_arn if connector else "",
        previous_version=record.previous_version,
    )


def hop_content(hop: FirstHop) -> HopContent:
    record, upstream = hop.record, hop.upstream
    return HopContent(
        **_version(hop.key, record),
        dataset_namespace=upstream.dataset_namespace,
        dataset_name=upstream.dataset_name,
        job_namespace=upstream.job_namespace,
        job_name=upstream.job_name,
        connector=upstream.connector,
        connector_arn=upstream.connector_arn,
        columns=upstream.columns,
    )


def location_content(location: Location) -> LocationContent:
    record, delivery = location.record, location.delivery
    namespace, name = location.dataset
    return LocationContent(
        **_version(location.key, record),
        dataset_namespace=namespace,
        dataset_name=name,
        job_namespace=delivery.job_namespace,
        job_name=delivery.job_name,
        origin=delivery.origin,
        arn=delivery.arn,
    )


def consumer_content(consumer: Consumer) -> ConsumerContent:
    reader = consumer.reader
    return ConsumerContent(
        **_version(consumer.key, consumer.record),
        group=reader.group,
        cluster_arn=reader.cluster_arn,
        job_namespace=consumer_job_namespace(reader.cluster_arn),
    )
