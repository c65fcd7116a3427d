"""subscription-grants' composition root: the concrete adapters behind the ports of `kafka_lineage.grants`
(the one place), and `Wiring`, what the handler is made of (`subscription_grants.handler.make_handler`):
tests give their own instead of patching modules."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.accounts import AccountClients
from kafka_lineage.aws.clients import client
from kafka_lineage.aws.cluster_policies import ClusterPolicies, cluster_account
from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.aws.iam_roles import IamRoles
from kafka_lineage.aws.lease import LEASE_MARGIN_SECONDS
from kafka_lineage.aws.pacing import Pacing
from kafka_lineage.aws.role_leases import RoleLeases
from kafka_lineage.aws.subscription_grants import SubscriptionGrants
from kafka_lineage.grants.ports import GrantPorts
from kafka_lineage.grants.settings import GrantSettings

HOLDER = "subscription-grants"
_NO_CONSUMER_ROLE = "access.consumerAccountRole is not set, so no role in that account can be assumed"


def function_account(context: LambdaContext) -> str:
    """The function's own account, from its ARN (arn:aws:lambda:<region>:<account>:function:<name>)."""
    parts = str(getattr(context, "invoked_function_arn", "") or "").split(":")
    return parts[4] if len(parts) > 4 else ""


def source_roles(environ: Mapping[str, str]) -> dict[str, tuple[str, str | None]]:
    """The `SOURCES` entries' roles by their cluster's account (the cluster policy is written there)."""
    try:
        sources = json.loads(environ.get("SOURCES") or "[]")
    except json.JSONDecodeError:
        return {}
    found: dict[str, tuple[str, str | None]] = {}
    for source in sources if isinstance(sources, list) else ():
        if isinstance(source, dict) and source.get("roleArn") and source.get("clusterArn"):
            try:
                found.setdefault(
                    cluster_account(str(source["clusterArn"])),
                    (str(source["roleArn"]), source.get("externalId")),
                )
            except ValueError:
                continue
    return found


def build(settings: GrantSettings, context: LambdaContext, environ: Mapping[str, str]) -> GrantPorts:
    access = settings.access
    own = function_account(context)
    name = str(getattr(context, "function_name", "") or HOLDER)

    def consumer_role(account: str) -> tuple[str, str | None] | None:
        role = access.account_role(account)
        return None if role is None else (role, access.external_id)

    sources = source_roles(environ)

    def cluster_role(account: str) -> tuple[str, str | None] | None:
        return sources.get(account) or consumer_role(account)

    iam = AccountClients(own, consumer_role, name, _NO_CONSUMER_ROLE)
    kafka = AccountClients(
        own, cluster_role, name, "no SOURCES entry nor access.consumerAccountRole names a role there"
    )

    def remaining() -> float:
        return float(context.get_remaining_time_in_millis()) / 1000 + LEASE_MARGIN_SECONDS

    def kafka_for(cluster_arn: str) -> Any:
        return kafka.client(cluster_account(cluster_arn), "kafka")

    return GrantPorts(
        catalog=SubscriptionGrants(client("datazone"), settings.domain_id, Pacing("datazone")),
        roles=IamRoles(lambda account: iam.client(account, "iam"), settings.naming.path),
        clusters=ClusterPolicies(kafka_for),
        leases=RoleLeases(
            client("ssm"),
            settings.mapping_path,
            context.aws_request_id,
            remaining,
        ),
    )


@dataclass(frozen=True)
class Wiring:
    """What one invocation is made of: its ports (`build`), and how an event is handed to a follow-up."""

    ports: Callable[[GrantSettings, LambdaContext, Mapping[str, str]], GrantPorts] = build
    hand_on: Callable[[str, dict[str, Any]], bool] = hand_on
