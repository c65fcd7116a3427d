"""Consumers of the local world: a project that subscribes to topic assets, its environment and subscription
target, and the IAM roles that receive the grants. The demo and the tests build them through real boto3
calls (DataZone, IAM) on the stand-ins, as a consuming team would in AWS.

    role = consumer_role("orders-consumer", path="/analytics/")
    consumer = add_consumer(aws.datazone, "prjconsumer01", [role])
    subscription = subscribe(aws.datazone, consumer, "dbserver1.inventory.orders")
    grant = grant_of(aws.datazone, subscription)   # PENDING; "Subscription Grant Requested" is on the bus
    revoke(subscription)                           # "Subscription Grant Revoke Requested"
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3

from local.world import ACCOUNT, DOMAIN_ID, REGION

REPO = Path(__file__).resolve().parent.parent
ASSET_TYPE = "KafkaTopicAssetType"
# Representative of the SageMaker Unified Studio project-role boundary (see tests/events/access/README.md).
SAGEMAKER_BOUNDARY = REPO / "tests" / "events" / "access" / "sagemaker_project_role_boundary.json"
_LAMBDA_TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ],
}


@dataclass(frozen=True)
class Consumer:
    project_id: str
    environment_id: str
    target_id: str
    role_arns: tuple[str, ...]


def sagemaker_boundary() -> dict[str, Any]:
    return dict(json.loads(SAGEMAKER_BOUNDARY.read_text(encoding="utf-8")))


def consumer_role(
    name: str,
    *,
    path: str = "/",
    boundary: Mapping[str, Any] | None = None,
    iam: Any = None,
) -> str:
    """An IAM role (in moto's IAM, this account) a consumer runs as; with `boundary`, a customer-managed
    policy `<name>-boundary` is created and set as its permissions boundary. Returns the role's ARN."""
    iam = iam or boto3.client("iam", region_name=REGION)
    extra: dict[str, Any] = {}
    if boundary is not None:
        policy = iam.create_policy(PolicyName=f"{name}-boundary", PolicyDocument=json.dumps(boundary))
        extra["PermissionsBoundary"] = policy["Policy"]["Arn"]
    role = iam.create_role(
        RoleName=name, Path=path, AssumeRolePolicyDocument=json.dumps(_LAMBDA_TRUST), **extra
    )
    return str(role["Role"]["Arn"])


def add_consumer(
    datazone_backend: Any,
    project_id: str,
    role_arns: Sequence[str],
    *,
    account: str = ACCOUNT,
    region: str = REGION,
    asset_types: Sequence[str] = (ASSET_TYPE,),
    domain_id: str = DOMAIN_ID,
) -> Consumer:
    """A consuming project (added if new), an environment of it in `account`/`region`, and a subscription
    target there whose authorized principals are the roles and which takes the stack's asset type."""
    datazone_backend.add_project(domain_id, project_id)  # a set: adding an existing project changes nothing
    datazone = boto3.client("datazone", region_name=REGION)
    environment = datazone.create_environment(
        domainIdentifier=domain_id,
        projectIdentifier=project_id,
        name=f"{project_id}-streaming",
        environmentAccountIdentifier=account,
        environmentAccountRegion=region,
    )
    target = datazone.create_subscription_target(
        domainIdentifier=domain_id,
        environmentIdentifier=environment["id"],
        name="kafka-topic-consumers",
        type="KafkaTopicSubscriptionTarget",
        subscriptionTargetConfig=[{"formName": "KafkaTopicConsumers", "content": "{}"}],
        authorizedPrincipals=list(role_arns),
        manageAccessRole=f"arn:aws:iam::{ACCOUNT}:role/service-role/AmazonDataZoneManageAccess",
        applicableAssetTypes=list(asset_types),
        provider="kafka-lineage",
    )
    return Consumer(project_id, environment["id"], target["id"], tuple(role_arns))


def subscribe(datazone_backend: Any, consumer: Consumer, topic: str, domain_id: str = DOMAIN_ID) -> str:
    """The consumer's project subscribes to the topic's listing, and the owner accepts: the subscription's
    id. DataZone then asks for a grant to the consumer's target."""
    assets = [a for a in datazone_backend.assets(domain_id) if a.name == topic]
    if len(assets) != 1:
        raise ValueError(f"expected one asset named {topic!r}, found {len(assets)}")
    return str(datazone_backend.subscribe(domain_id, assets[0].id, consumer.project_id, f"consume {topic}"))


def grant_of(datazone_backend: Any, subscription_id: str, domain_id: str = DOMAIN_ID) -> Any:
    """The subscription's one grant (a GrantView)."""
    grants = [g for g in datazone_backend.grants(domain_id) if g.subscription_id == subscription_id]
    if len(grants) != 1:
        raise ValueError(f"expected one grant of {subscription_id}, found {len(grants)}")
    return grants[0]


def revoke(subscription_id: str, domain_id: str = DOMAIN_ID) -> None:
    """The listing's owner revokes the subscription: DataZone asks for the grants' revokes."""
    boto3.client("datazone", region_name=REGION).revoke_subscription(
        domainIdentifier=domain_id, identifier=subscription_id
    )
