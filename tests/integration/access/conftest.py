"""Access through the catalog, end to end on the stand-ins: schema-sync publishes the inventory's topics as
assets; a consuming project's environment has a subscription target naming its IAM roles; the project
subscribes and the owner accepts; DataZone puts "Subscription Grant Requested" on the default bus, and the
real subscription-grants handler (its `wiring.build`, against the stand-ins' endpoint) fulfils it.
`may(role, action, resource)` (from local.access_checks) asks the stand-ins' IAM evaluator what the role may
now do."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pytest

from kafka_lineage.access.arns import ClusterArn
from local import access_checks, access_world, world
from local.access_world import Consumer
from local.deployed import DeployedFunctions
from local.standins import LocalAws
from tests.fixtures import FakeContext, VirtualClock

CONSUMER_PROJECT = "prjconsumer01"
OTHER_PROJECT = "prjconsumer02"
ORDERS = "dbserver1.inventory.orders"
CUSTOMERS = "dbserver1.inventory.customers"
CLUSTER = ClusterArn.parse(world.CLUSTER_ARN)
OTHER_CLUSTER = ClusterArn.parse(world.CLUSTER_ARN.replace("cluster/cdc/", "cluster/billing/"))
# Consumer roles the tests' ACCESS admits: under /analytics/, in any account.
CONSUMER_ROLES = ("arn:aws:iam::*:role/analytics/*",)
GROUPS = ("{projectId}-*",)
FUNCTION = "subscription-grants"
# The calls that change something: DataZone's grant status and IAM's writes.
WRITES = frozenset(
    {
        "datazone:UpdateSubscriptionGrantStatus",
        "iam:PutRolePolicy",
        "iam:DeleteRolePolicy",
        "iam:CreatePolicy",
        "iam:CreatePolicyVersion",
        "iam:DeletePolicyVersion",
        "iam:AttachRolePolicy",
        "iam:DetachRolePolicy",
        "iam:DeletePolicy",
        "kafka:PutClusterPolicy",
        "kafka:DeleteClusterPolicy",
    }
)


def grants_context(account: str = world.ACCOUNT) -> FakeContext:
    return FakeContext(
        function_name=FUNCTION,
        aws_request_id="7a2b3c4d-0000-4000-8000-000000000001",
        invoked_function_arn=f"arn:aws:lambda:{world.REGION}:{account}:function:{FUNCTION}",
    )


@dataclass
class AccessWorld:
    aws: LocalAws
    monkeypatch: pytest.MonkeyPatch
    requested: world.BusCatcher
    revoking: world.BusCatcher
    deployed: DeployedFunctions

    # ------------------------------------------------------------------------------------------ settings
    def configure(self, **access: Any) -> None:
        settings = {"consumerRoles": list(CONSUMER_ROLES), "consumerGroups": list(GROUPS), **access}
        self.monkeypatch.setenv("ACCESS", json.dumps(settings))

    # ------------------------------------------------------------------------------------------ consumers
    def role(self, name: str, *, boundary: Mapping[str, Any] | None = None, path: str = "/analytics/") -> str:
        return access_world.consumer_role(name, path=path, boundary=boundary)

    def consumer(
        self, roles: Sequence[str], project: str = CONSUMER_PROJECT, account: str = world.ACCOUNT
    ) -> Consumer:
        return access_world.add_consumer(self.aws.datazone, project, roles, account=account)

    def subscribe(self, consumer: Consumer, topic: str = ORDERS) -> tuple[str, str]:
        """(subscription id, grant id) once the owner accepted the subscription."""
        subscription = access_world.subscribe(self.aws.datazone, consumer, topic)
        return subscription, access_world.grant_of(self.aws.datazone, subscription).id

    def status(self, subscription: str) -> str:
        """The grant's one asset's status."""
        [(_, status)] = access_world.grant_of(self.aws.datazone, subscription).assets
        return status

    def failure(self, grant_id: str) -> str:
        import boto3

        read = boto3.client("datazone").get_subscription_grant(
            domainIdentifier=world.DOMAIN_ID, identifier=grant_id
        )
        return str(read["assets"][0].get("failureCause", {}).get("message", ""))

    # ------------------------------------------------------------------------------------------ the function
    def run(self, event: Mapping[str, Any], context: FakeContext | None = None) -> dict[str, Any]:
        """The deployed function, under its role."""
        result: dict[str, Any] = self.deployed.invoke(FUNCTION, dict(event), context or grants_context())
        assert "continued" not in result, "a test's run handed work on to a follow-up invocation"
        return result

    def deliver(self) -> list[dict[str, Any]]:
        """Every grant and revoke event on the bus since the last delivery, each handed to the function."""
        return [self.run(event) for event in self.requested.drain() + self.revoking.drain()]

    # ------------------------------------------------------------------------------------------ what it did
    def calls(self) -> Counter[str]:
        return self.aws.call_counts()

    def writes(self) -> Counter[str]:
        return Counter({key: n for key, n in self.calls().items() if key in WRITES})

    def reset_calls(self) -> None:
        self.aws.calls.clear()


def reads(
    role_arn: str, topic: str, cluster: ClusterArn = CLUSTER, group: str = f"{CONSUMER_PROJECT}-app"
) -> bool:
    """True when the role may consume the topic as a member of `group`: every action MSK asks of a reader."""
    return access_checks.reads(role_arn, topic, group, cluster.arn)


@pytest.fixture
def access(
    local_aws: LocalAws, deployed: DeployedFunctions, monkeypatch: pytest.MonkeyPatch, fast_retries: None
) -> AccessWorld:
    """The inventory's topics published by a first schema-sync run, catchers on the bus, ACCESS set."""
    world.bootstrap_catalog(local_aws.datazone, deployed.handler("asset-type-resource"))
    local_aws.kafka.set_brokers(world.CLUSTER_ARN, sasl_iam=world.BROKERS_IAM)
    world.create_registry("cdc")
    for spec in world.inventory():
        world.register("cdc", spec)
    tuning = {"datazone_rps": 500, "glue_rps": 500, "ssm_write_rps": 500}
    for key, value in world.environment([world.source_config()], tuning).items():
        monkeypatch.setenv(key, value)
    deployed.invoke("schema-sync", {}, FakeContext())
    # DataZone's subscription calls are paced at 3 TPS: on a virtual clock the pacing costs no real time.
    VirtualClock.install(monkeypatch)
    created = AccessWorld(
        local_aws,
        monkeypatch,
        world.BusCatcher("aws.datazone", "Subscription Grant Requested"),
        world.BusCatcher("aws.datazone", "Subscription Grant Revoke Requested"),
        deployed,
    )
    created.configure()
    return created
