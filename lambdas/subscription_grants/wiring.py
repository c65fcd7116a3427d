"""subscription-grants' composition root: the concrete adapters behind the ports of `kafka_lineage.grants`
(the one place), and `Wiring`, what the handler is made of (`subscription_grants.handler.make_handler`):
tests give their own instead of patching modules. Each `Wiring` has its own clients (`aws.clients.Clients`):
`build` takes them, and paces each client once, by the pacers the clients keep for the wiring.

Which role each call runs under (the stacks grant exactly these; docs/access.md, "Consumers in other
accounts"):
- IAM on a consumer role: the function's own role in its own account; in another account, that account's
  `access.consumerAccountRole` (the KafkaLineageConsumer stack's role), with `access.externalId`.
- MSK on a cluster (DescribeClusterV2 and its policy): the function's own role for a cluster of its own
  account; for a cluster in another account, the `roleArn` of the `SOURCES` entry of that cluster (else of
  another entry in its account), with that entry's `externalId`: the source stack's role, which may write
  the policies of the clusters its `grantAccess` lists. No other role is tried: a consumer-account role
  has no MSK action, so a cluster no source reaches fails its grant with a cause naming `SOURCES`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from kafka_lineage.aws.accounts import AccountClients
from kafka_lineage.aws.clients import Clients
from kafka_lineage.aws.cluster_policies import ClusterPolicies, cluster_account
from kafka_lineage.aws.continuation import hand_on
from kafka_lineage.aws.iam_roles import IamRoles
from kafka_lineage.aws.lease import LEASE_MARGIN_SECONDS
from kafka_lineage.aws.pacing import Pacing
from kafka_lineage.aws.role_leases import RoleLeases
from kafka_lineage.aws.subscription_grants import SubscriptionGrants
from kafka_lineage.engine.function import deployed_environment, function_account, function_name
from kafka_lineage.engine.handover import NoHandover
from kafka_lineage.grants.ports import GrantPorts
from kafka_lineage.grants.requests import GrantRequest, parse_request
from kafka_lineage.grants.result import GrantsResult
from kafka_lineage.grants.run import GrantRun
from kafka_lineage.grants.settings import GrantSettings

HOLDER = "subscription-grants"
_NO_CONSUMER_ROLE = "access.consumerAccountRole is not set, so no role in that account can be assumed"
_NO_SOURCE_ROLE = (
    "no SOURCES entry with roleArn reaches a cluster there (the source stack's role, with grantAccess), so "
    "its cluster policy cannot be written"
)


def _source_entries(environ: Mapping[str, str]) -> list[tuple[str, str, tuple[str, str | None]]]:
    """(cluster ARN, its account, (role ARN, external id)) of each `SOURCES` entry with a role."""
    try:
        sources = json.loads(environ.get("SOURCES") or "[]")
    except json.JSONDecodeError:
        return []
    found = []
    for source in sources if isinstance(sources, list) else ():
        if isinstance(source, dict) and source.get("roleArn") and source.get("clusterArn"):
            try:
                account = cluster_account(str(source["clusterArn"]))
            except ValueError:
                continue
            role = (str(source["roleArn"]), source.get("externalId"))
            found.append((str(source["clusterArn"]), account, role))
    return found


def source_roles(environ: Mapping[str, str]) -> dict[str, tuple[str, str | None]]:
    """The `SOURCES` entries' roles by their cluster's account (the first entry there)."""
    found: dict[str, tuple[str, str | None]] = {}
    for _, account, role in _source_entries(environ):
        found.setdefault(account, role)
    return found


def cluster_roles(environ: Mapping[str, str]) -> dict[str, tuple[str, str | None]]:
    """The `SOURCES` entries' roles by cluster ARN: MSK is reached in the cluster's account through the role
    of that cluster's source (else, `source_roles`, another source's of that account)."""
    found: dict[str, tuple[str, str | None]] = {}
    for cluster, _, role in _source_entries(environ):
        found.setdefault(cluster, role)
    return found


def build(
    settings: GrantSettings,
    context: LambdaContext,
    environ: Mapping[str, str],
    *,
    clients: Clients | None = None,
) -> GrantPorts:
    """The ports of one run, over `clients` (the wiring's; None: new ones, a test's one-off)."""
    clients = Clients() if clients is None else clients
    access = settings.access
    own = function_account(context)
    name = function_name(context, HOLDER)

    def consumer_role(account: str) -> tuple[str, str | None] | None:
        role = access.account_role(account)
        return None if role is None else (role, access.external_id)

    by_cluster, by_account = cluster_roles(environ), source_roles(environ)
    iam = AccountClients(own, consumer_role, name, _NO_CONSUMER_ROLE, clients)
    # One set of MSK clients per source role (a role's session is its account's), one for a cluster no
    # source reaches (its calls fail, naming SOURCES).
    kafka: dict[tuple[str, str | None] | None, AccountClients] = {}
    lock = threading.Lock()

    def remaining() -> float:
        return float(context.get_remaining_time_in_millis()) / 1000 + LEASE_MARGIN_SECONDS

    def kafka_for(cluster_arn: str) -> Any:
        account = cluster_account(cluster_arn)
        role = by_cluster.get(cluster_arn) or by_account.get(account)
        with lock:
            found = kafka.get(role)
            if found is None:
                found = kafka[role] = AccountClients(
                    own, lambda _account: role, name, _NO_SOURCE_ROLE, clients
                )
        return found.client(account, "kafka")

    datazone = clients.pacer("datazone", lambda: Pacing("datazone"))
    return GrantPorts(
        catalog=SubscriptionGrants(clients.client("datazone"), settings.domain_id, datazone),
        roles=IamRoles(
            lambda account: iam.client(account, "iam"), settings.naming.path, settings.naming.prefix
        ),
        clusters=ClusterPolicies(kafka_for),
        leases=RoleLeases(
            clients.client("ssm"),
            settings.mapping_path,
            context.aws_request_id,
            remaining,
        ),
    )


@dataclass(frozen=True)
class Wiring:
    """What one invocation is made of (engine/function.py's `FunctionWiring`): the settings (from
    `environ`), its ports (`build`), and how an event is handed to a follow-up. Its leases are per role
    (the run takes them), so the invocation holds none. `clients` are this wiring's own (one per instance),
    which the default builders build over."""

    ports: Callable[[GrantSettings, LambdaContext, Mapping[str, str]], GrantPorts] = build
    hand_on: Callable[[str, dict[str, Any]], bool] = hand_on
    environ: Callable[[], Mapping[str, str]] = deployed_environment
    name: str = HOLDER
    clients: Clients = field(default_factory=Clients)

    def __post_init__(self) -> None:
        for built, default in (("ports", build), ("hand_on", hand_on)):
            if getattr(self, built) is default:
                object.__setattr__(self, built, partial(default, clients=self.clients))

    def settings(self) -> GrantSettings:
        return GrantSettings.from_environment(self.environ())

    def request(self, event: Any, context: LambdaContext, settings: GrantSettings) -> GrantRequest:
        return parse_request(event)  # a malformed event is the run's to report

    def margin_seconds(self, settings: GrantSettings) -> float:
        return settings.deadline_margin_seconds

    def lease(self, settings: GrantSettings, context: LambdaContext) -> None:
        return None

    def run(
        self, settings: GrantSettings, request: GrantRequest, context: LambdaContext, lease: None
    ) -> GrantRun:
        ports = self.ports(settings, context, self.environ())
        return GrantRun(settings, ports.dry_run() if request.dry_run else ports)

    def continuation(self, event: Any, lease: None) -> NoHandover:
        return NoHandover()  # its leases are per role, and it keeps no state of its own

    def follow_up(self, event: Any, request: GrantRequest, result: GrantsResult) -> dict[str, Any] | None:
        """A reconciling run resumes after the last group it settled; an event whose role's lease was busy
        is handed on as it is, so no request is dropped."""
        if result.incomplete and result.resume_after is not None:
            return {"dryRun": request.dry_run, "resumeAfter": result.resume_after}
        if result.deferred is not None and request.events and isinstance(event, dict):
            return event
        return None
