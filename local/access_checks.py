"""What IAM lets a consumer role do on a topic, asked of the stand-ins' IAM evaluator (over moto's state):
the demo's access table and the access tests' assertions.

    reads(role, "dbserver1.inventory.orders", group="prjconsumer01-app")
"""

from __future__ import annotations

from kafka_lineage.access.arns import ClusterArn, RoleArn
from local.standins.iam_effective import decide
from local.world import CLUSTER_ARN


def may(role_arn: str, action: str, *resources: str) -> bool:
    """True when IAM (the stand-ins' evaluator over moto's state) lets the role do `action` on `resources`."""
    role = RoleArn.parse(role_arn)
    return decide(role.account, role.name, action, *resources).allowed


def reads(role_arn: str, topic: str, group: str, cluster: str = CLUSTER_ARN) -> bool:
    """True when the role may consume the topic as a member of `group`: every action MSK asks of a reader
    (Connect on the cluster, DescribeTopic and ReadData on the topic, DescribeGroup and AlterGroup on the
    group: the MSK Developer Guide's IAM access control for consumers)."""
    arn = ClusterArn.parse(cluster)
    return all(
        (
            may(role_arn, "kafka-cluster:Connect", arn.arn),
            may(role_arn, "kafka-cluster:DescribeTopic", arn.topic(topic)),
            may(role_arn, "kafka-cluster:ReadData", arn.topic(topic)),
            may(role_arn, "kafka-cluster:DescribeGroup", arn.group(group)),
            may(role_arn, "kafka-cluster:AlterGroup", arn.group(group)),
        )
    )
