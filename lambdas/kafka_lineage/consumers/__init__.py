"""Who reads a topic: the consumer groups MSK's consumer-lag metrics name, as lineage edges.

`derive` is the pure derivation; its values are in `kafka_lineage.model.consumers`; the AWS adapter is
`kafka_lineage.aws.consumer_groups`.
"""

from kafka_lineage.consumers.derive import connector_groups, derive, job_namespace

__all__ = ["connector_groups", "derive", "job_namespace"]
