"""Lineage from the managed delivery paths besides MSK Connect: Amazon MSK Data Delivery channels and
Amazon Data Firehose streams with an MSK source.

`derive` is the pure derivation; its values are in `kafka_lineage.model.delivery`; the AWS adapter is
`kafka_lineage.aws.delivery`.
"""

from kafka_lineage.delivery.derive import derive

__all__ = ["derive"]
