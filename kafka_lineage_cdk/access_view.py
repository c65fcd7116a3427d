"""`kafka-lineage access`: who may read which topic, read from DataZone and IAM, never written.

Why read AWS rather than ask the function (a dry run): a platform team asks "what does IAM let this role do,
and does it match what the catalog granted?". The function's dry run answers a different question (what it
would change) and runs with the function's own rights. This reads the two sources of truth side by side,
with the caller's credentials, through clients that refuse every operation that is not a read
(`read_only`, as `doctor`), and with the function's own reading code (the DataZone and IAM adapters, the
grant resolver, the access logic's evaluator), so it sees grants exactly as the function does:

- the function's settings (domain, asset type, `ACCESS`) from its configuration (GetFunctionConfiguration);
- every grant of the domain on an asset of the stack's type (ListSubscriptionGrants, GetListing,
  GetSubscriptionTarget, GetEnvironment; paced at DataZone's 3 TPS for these calls, the function's quota too);
- each named role's policies in the caller's account (GetRole, ListRolePolicies, GetRolePolicy,
  ListAttachedRolePolicies, GetPolicy, ListPolicyVersions, GetPolicyVersion). A role in another account is
  listed with its grants and "not read" (run the command with that account's credentials to check it).

What it reports, per consumer role: each topic a standing (GRANTED) grant gives it and whether IAM lets the
role read it (Connect, DescribeTopic, ReadData, the template's groups, and glue:GetSchemaVersion, as the
function's evaluator reads the role's policies and boundary); topics our policies still give with no grant
standing (left over: the reconciling run removes them); and the grants that failed, with their cause, and
those still pending.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kafka_lineage.access.arns import ClusterArn, RoleArn
from kafka_lineage.access.evaluate import allowing, denying, statements
from kafka_lineage.access.model import Grant, GrantStatus
from kafka_lineage.access.settings import role_pattern_matches
from kafka_lineage.aws.iam_roles import IamRoles
from kafka_lineage.aws.subscription_grants import SubscriptionGrants
from kafka_lineage.grants.settings import GrantSettings
from kafka_lineage.grants.world import Resolver
from kafka_lineage.model.failures import AwsError
from kafka_lineage.model.iam import RoleRecord

from . import unadmitted

Clients = Callable[[str], Any]
READS = "reads"
FAILED = (GrantStatus.GRANT_FAILED, GrantStatus.REVOKE_FAILED)
PENDING = (
    GrantStatus.GRANT_PENDING,
    GrantStatus.GRANT_IN_PROGRESS,
    GrantStatus.REVOKE_PENDING,
    GrantStatus.REVOKE_IN_PROGRESS,
)
_READ_DATA = "kafka-cluster:ReadData"


class NoGrantsFunction(LookupError):
    """The stack has no subscription-grants function, or its settings cannot be read (bad input)."""


def function_settings(lambda_client: Any, function_name: str) -> GrantSettings:
    """The function's settings, from its environment as deployed (GetFunctionConfiguration)."""
    config = lambda_client.get_function_configuration(FunctionName=function_name)
    variables = (config.get("Environment") or {}).get("Variables") or {}
    try:
        return GrantSettings.from_environment(variables)
    except ValueError as error:
        raise NoGrantsFunction(f"the settings of {function_name} cannot be read: {error}") from error


@dataclass
class AccessView:
    """What the catalog granted, and what IAM gives, per role."""

    access: list[dict[str, Any]] = field(default_factory=list)  # one per (role, granted topic)
    leftover: list[dict[str, Any]] = field(default_factory=list)  # our policies give it, no grant does
    failed: list[dict[str, Any]] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)
    unusable: list[dict[str, Any]] = field(default_factory=list)
    # roles holding our policies that `consumerRoles` no longer admits, with the commands that clean them
    unadmitted: list[dict[str, Any]] = field(default_factory=list)
    unadmitted_error: str | None = None  # why they could not be looked for (a refused listing)

    @property
    def attention(self) -> bool:
        """True when a grant failed or IAM disagrees with the catalog."""
        return bool(
            self.failed
            or self.unusable
            or self.leftover
            or self.unadmitted
            or self.unadmitted_error is not None
            or any(row["iam"] not in (READS, "not read") for row in self.access)
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "access": self.access,
            "leftover": self.leftover,
            "failed": self.failed,
            "pending": self.pending,
            "unusable": self.unusable,
            "unadmitted": self.unadmitted,
            "unadmittedError": self.unadmitted_error,
            "needsAttention": self.attention,
        }


def _documents(record: RoleRecord) -> list[Mapping[str, Any] | None]:
    """Every identity policy of the role: its inline policies and its attached managed policies."""
    return [*record.inline.values(), *(p.document for p in record.managed if p.attached)]


def _ours(record: RoleRecord, settings: GrantSettings) -> list[Mapping[str, Any] | None]:
    """The role's policies the function wrote (recognised by name and path only, as the function does)."""
    naming, name = settings.naming, RoleArn.parse(record.role_arn).name
    found: list[Mapping[str, Any] | None] = [
        doc for policy_name, doc in record.inline.items() if policy_name == naming.inline_name
    ]
    found += [
        p.document
        for p in record.managed
        if p.attached and naming.managed_index(name, p.name, p.path) is not None
    ]
    return found


def missing(record: RoleRecord, grant: Grant, role: str, settings: GrantSettings) -> str | None:
    """The first thing IAM would refuse the role to consume the grant's topic, or None (it may)."""
    cluster = ClusterArn.parse(grant.cluster_arn)
    asks = [
        ("kafka-cluster:Connect", cluster.arn),
        ("kafka-cluster:DescribeTopic", cluster.topic(grant.topic)),
        (_READ_DATA, cluster.topic(grant.topic)),
        ("glue:GetSchemaVersion", "*"),
    ]
    for pattern in settings.access.group_patterns(
        project_id=grant.project_id, environment_id=grant.environment_id, role_name=RoleArn.parse(role).name
    ):
        asks += [
            ("kafka-cluster:DescribeGroup", cluster.group(pattern)),
            ("kafka-cluster:AlterGroup", cluster.group(pattern)),
        ]
    identity = _documents(record)
    for action, resource in asks:
        if allowing(identity, action, resource) is None:
            return f"no policy allows {action} on {resource}"
        if denying([*identity, record.boundary], action, resource) is not None:
            return f"a policy or the boundary denies {action} on {resource}"
        if record.boundary_arn is not None and allowing([record.boundary], action, resource) is None:
            return f"the permissions boundary {record.boundary_arn} does not allow {action}"
    return None


def _topics_given(documents: Iterable[Mapping[str, Any] | None]) -> set[str]:
    """The topic ARNs our policies allow ReadData on."""
    given: set[str] = set()
    for document in documents:
        for statement in statements(document):
            actions = statement.get("Action")
            actions = actions if isinstance(actions, list) else [actions]
            if statement.get("Effect") == "Allow" and _READ_DATA in actions:
                resources = statement.get("Resource")
                listed = resources if isinstance(resources, list) else [resources]
                given.update(str(r) for r in listed if isinstance(r, str) and ":topic/" in r)
    return given


def _item(grant: Grant, **more: Any) -> dict[str, Any]:
    return {
        "grantId": grant.grant_id,
        "topic": grant.topic,
        "clusterArn": grant.cluster_arn,
        "projectId": grant.project_id,
        **more,
    }


def read_view(
    clients: Clients, settings: GrantSettings, account: str, roles: Iterable[str] = ()
) -> AccessView:
    """The view, from read-only clients (`clients(service)`) in the caller's `account`. `roles`: ARN
    patterns (`*` any run) to show only those roles."""
    wanted = tuple(roles)
    # Paced where the client is made (doctor.read_only_clients: DataZone at its quotas).
    catalog = SubscriptionGrants(clients("datazone"), settings.domain_id)
    resolver = Resolver(catalog, settings.asset_type_name)
    iam = IamRoles(lambda _account: clients("iam"), settings.naming.path, settings.naming.prefix)
    view = AccessView()
    standing: dict[str, list[Grant]] = {}
    for record in catalog.grants():
        resolved = resolver.resolve(record)
        if not resolved.ours:
            continue
        failures = {a.asset_id: a.failure for a in record.assets}
        for grant in resolved.grants:
            shown = [
                r for r in grant.principals if not wanted or any(role_pattern_matches(p, r) for p in wanted)
            ]
            if not shown:
                continue
            for role in shown:
                standing.setdefault(role, [])  # read even with no grant standing: access left over shows
            if grant.status == GrantStatus.GRANTED:
                for role in shown:
                    standing.setdefault(role, []).append(grant)
            elif grant.status in FAILED:
                view.failed.append(
                    _item(grant, roles=shown, status=grant.status.value, cause=failures.get(grant.asset_id))
                )
            elif grant.status in PENDING:
                view.pending.append(_item(grant, roles=shown, status=grant.status.value))
        for item in resolved.unusable:
            view.unusable.append({"grantId": item.grant_id, "status": item.status.value, "cause": item.cause})
    records: dict[str, RoleRecord | None] = {}
    for role in sorted(standing):
        _check_role(view, (iam, records), role, standing[role], settings, account)
    _unadmitted(view, clients("iam"), settings, account, (wanted, standing, records))
    return view


def _unadmitted(
    view: AccessView,
    iam: Any,
    settings: GrantSettings,
    account: str,
    seen: tuple[tuple[str, ...], Mapping[str, Any], Mapping[str, RoleRecord | None]],
) -> None:
    """The roles holding our policies that `consumerRoles` no longer admits: those the grants name, and
    those our managed policies are attached to (unadmitted.py)."""
    wanted, named, records = seen
    try:
        found = unadmitted.find(iam, settings.access, settings.naming, account, named, records)
    except AwsError as error:  # the rest of the view stands; this part cannot tell, which is no pass
        view.unadmitted_error = f"{error} (the roles no longer admitted could not be looked for)"
        return
    for role in found:
        if not wanted or any(role_pattern_matches(p, role.role) for p in wanted):
            view.unadmitted.append(role.to_json())


def _check_role(
    view: AccessView,
    reading: tuple[IamRoles, dict[str, RoleRecord | None]],
    role: str,
    grants: list[Grant],
    settings: GrantSettings,
    account: str,
) -> None:
    iam, records = reading
    if RoleArn.parse(role).account != account:
        view.access += [_item(g, role=role, iam="not read") for g in grants]
        return
    try:
        record = records[role] = iam.read(role)
    except AwsError as error:
        view.access += [_item(g, role=role, iam=f"cannot read the role: {error.code}") for g in grants]
        return
    if record is None:
        view.access += [_item(g, role=role, iam="the role does not exist") for g in grants]
        return
    for grant in sorted(grants, key=lambda g: (g.cluster_arn, g.topic)):
        view.access.append(_item(grant, role=role, iam=missing(record, grant, role, settings) or READS))
    granted = {ClusterArn.parse(g.cluster_arn).topic(g.topic) for g in grants}
    for topic_arn in sorted(_topics_given(_ours(record, settings)) - granted):
        view.leftover.append({"role": role, "topicArn": topic_arn})
