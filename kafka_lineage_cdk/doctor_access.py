"""`kafka-lineage doctor`'s consumer-roles check: before the first subscription, which of this account's
roles that `access.consumerRoles` admits could never receive a grant.

The subscription-grants function refuses a grant when the role's permissions boundary (or one of its other
policies) keeps it from the access (kafka_lineage.access.guards.boundary_refusal); SageMaker Unified
Studio and DataZone project roles carry such boundaries. This check asks the same question ahead of time,
with the function's own reader (kafka_lineage.aws.iam_roles) and its own judgement, for a representative
grant: a topic of each source's cluster, in a group the `consumerGroups` templates name. So a failure reads
the same here as in a grant's failure cause.

Reads: ListRoles (PathPrefix: the pattern's path up to its first wildcard), then, for each admitted role,
the function's reads of a role (GetRole, the inline and attached policies, the boundary). Patterns naming
another account are that account's to check (with its KafkaLineageConsumer stack, doctor run there).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from kafka_lineage.access.desired import role_access
from kafka_lineage.access.guards import boundary_refusal
from kafka_lineage.access.model import Grant, GrantStatus, Naming
from kafka_lineage.access.settings import AccessSettings, role_pattern_matches
from kafka_lineage.aws.iam_roles import IamRoles
from kafka_lineage.aws.subscription_grants import SubscriptionGrants
from kafka_lineage.grants.convert import role_state
from kafka_lineage.model.failures import AwsError, NotFound

from . import unadmitted
from .findings import FAIL, OK, WARN, Finding, Target

CHECK = "consumer-roles"
# A representative grant: the boundary is asked about a topic and a group of this shape on each cluster.
SAMPLE_TOPIC, SAMPLE_ID = "doctor.sample-topic", "doctorsample01"
# More roles than this under one pattern: the first ones are checked, and the rest named as unchecked.
MAX_ROLES = 100


def consumer_roles(iam: Any, config: Any, target: Target) -> list[Finding]:
    access: AccessSettings | None = config.deployment.access
    if access is None:
        return [Finding(CHECK, OK, "access is not set: no subscription-grants function, nothing to check")]
    if not access.consumer_roles:
        return [
            Finding(
                CHECK,
                WARN,
                "access.consumerRoles is empty: it admits no role, so every subscription grant fails "
                "with a cause naming access.consumerRoles",
            )
        ]
    findings: list[Finding] = []
    for pattern in access.consumer_roles:
        account = _account(pattern)
        if account not in (target.account, "*"):
            message = f"{pattern}: roles of account {account}, checked there (doctor in that account)"
            findings.append(Finding(CHECK, OK, message))
            continue
        try:
            findings += _check_pattern(iam, pattern, config, target)
        except AwsError as error:
            message = f"{pattern}: the roles could not be listed ({error.code}: {error.message})"
            findings.append(Finding(CHECK, WARN, message))
    return findings


def _check_pattern(iam: Any, pattern: str, config: Any, target: Target) -> list[Finding]:
    access: AccessSettings = config.deployment.access
    clusters = sorted({source.cluster_arn for source in config.settings.sources})
    admitted = [arn for arn in _roles(iam, path_prefix(pattern)) if role_pattern_matches(pattern, arn)]
    if not admitted:
        message = f"{pattern}: no role of account {target.account} matches it yet (grants to them would)"
        return [Finding(CHECK, WARN, message)]
    naming = Naming.for_stack(config.settings.domain_id, config.settings.asset_type_name)
    reader = IamRoles(lambda _account: iam, naming.path, naming.prefix)
    refused: list[Finding] = []
    for arn in admitted[:MAX_ROLES]:
        cause = _refusal(reader, arn, (access, naming), clusters, target)
        if cause is not None:
            refused.append(Finding(CHECK, FAIL, f"grants to {arn} would fail: {cause}"))
    checked = min(len(admitted), MAX_ROLES)
    unchecked = f"; {len(admitted) - checked} more not checked" if len(admitted) > checked else ""
    fine = len(admitted[:MAX_ROLES]) - len(refused)
    summary = f"{pattern}: {fine} of {checked} admitted role(s) may receive grants{unchecked}"
    return [*refused, Finding(CHECK, OK if not refused else WARN, summary)]


def _refusal(
    reader: IamRoles,
    arn: str,
    settings: tuple[AccessSettings, Naming],
    clusters: Sequence[str],
    target: Target,
) -> str | None:
    access, naming = settings
    try:
        record = reader.read(arn)
    except AwsError as error:
        return f"role {arn} could not be read ({error.code}: {error.message})"
    if record is None:
        return None  # gone since the listing
    grants = [
        Grant(
            grant_id=SAMPLE_ID,
            listing_id=SAMPLE_ID,
            asset_id=SAMPLE_ID,
            cluster_arn=cluster,
            topic=SAMPLE_TOPIC,
            project_id=SAMPLE_ID,
            environment_id=SAMPLE_ID,
            account=target.account,
            region=target.region,
            principals=(arn,),
            status=GrantStatus.GRANTED,
        )
        for cluster in clusters
    ]
    return boundary_refusal(role_state(record), role_access(arn, grants, access), naming)


def _account(pattern: str) -> str:
    parts = pattern.split(":")
    return parts[4] if len(parts) > 5 else "*"


def path_prefix(pattern: str) -> str:
    """The IAM path every role the pattern admits lies under: its path up to the first wildcard
    (`arn:aws:iam::*:role/analytics/team-*` -> `/analytics/`); `/` when the wildcard comes sooner."""
    resource = pattern.split(":", 5)[5] if pattern.count(":") >= 5 else ""
    if not resource.startswith("role/"):
        return "/"
    fixed = resource[len("role") :].split("*", 1)[0]
    return fixed[: fixed.rfind("/") + 1] or "/"


def _roles(iam: Any, prefix: str) -> Iterator[str]:
    for page in iam.get_paginator("list_roles").paginate(PathPrefix=prefix):
        for role in page.get("Roles", []):
            yield str(role["Arn"])


# ------------------------------------------------------------------------------ roles no longer admitted
UNADMITTED = "unadmitted"


def unadmitted_roles(iam: Any, datazone: Any, config: Any, target: Target) -> list[Finding]:
    """The roles of this account that hold this stack's policies though `access.consumerRoles` does not
    admit them (any more): one FAIL each, with the commands that remove the access (unadmitted.py). The
    candidates for our inline policy are the principals of the domain's subscription targets."""
    access: AccessSettings | None = config.deployment.access
    if access is None:
        return []
    naming = Naming.for_stack(config.settings.domain_id, config.settings.asset_type_name)
    findings: list[Finding] = []
    try:
        candidates = _target_principals(datazone, config.settings.domain_id)
    except AwsError as error:
        candidates = set()
        message = (
            f"the domain's subscription grants could not be read ({error}): only the roles holding this "
            "stack's managed policies were checked, not those holding its inline policy"
        )
        findings.append(Finding(UNADMITTED, WARN, message))
    try:
        found = unadmitted.find(iam, access, naming, target.account, candidates)
    except AwsError as error:
        message = f"this stack's policies could not be listed ({error}): the check cannot tell"
        return [*findings, Finding(UNADMITTED, FAIL, message)]
    for role in found:
        findings.append(Finding(UNADMITTED, FAIL, _unadmitted_message(role)))
    if not found:
        fine = "no role that access.consumerRoles leaves out holds this stack's policies"
        findings.append(Finding(UNADMITTED, OK, fine))
    return findings


def _unadmitted_message(role: unadmitted.Unadmitted) -> str:
    shown = role.to_json()
    if role.unread is not None:
        return (
            f"{role.role} is named by a subscription grant, is not admitted by access.consumerRoles, and "
            f"could not be read ({role.unread}): check it with: {'; '.join(shown['clean'])}"
        )
    return (
        f"{role.role} still holds this stack's access ({', '.join(shown['policies'])}) though "
        "access.consumerRoles does not admit it, so it can still read those topics; remove it with: "
        f"{' && '.join(shown['clean'])} (and revoke its subscriptions in DataZone, so the catalog agrees)"
    )


def _target_principals(datazone: Any, domain_id: str) -> set[str]:
    """Every principal of the subscription targets the domain's grants name (ListSubscriptionGrants, then
    GetSubscriptionTarget once per target; at DataZone's rates)."""
    catalog = SubscriptionGrants(datazone, domain_id)  # paced where the client is made (read_only_clients)
    targets = {(r.environment_id, r.target_id) for r in catalog.grants() if r.environment_id is not None}
    principals: set[str] = set()
    for environment_id, target_id in sorted(targets):
        try:
            principals.update(catalog.target(str(environment_id), target_id).principals)
        except NotFound:
            continue  # the target is gone: its roles are found by their managed policies only
    return principals
