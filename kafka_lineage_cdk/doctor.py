"""`kafka-lineage doctor`: the account checked against the settings before the first deploy (docs/cli.md).

Every check reads, and only reads: the clients it gets are `read_only` (kafka_lineage_cdk/read_only.py).
The causes and fix commands are the deploy-time governance check's own (lambdas/asset_type_resource/
governance.py), so a problem reads the same here and in a failed deploy. Checks:
- regions: each source's cluster is in the stack's region;
- domain: GetDomain (status, V1/V2, its customer managed key against `domainKmsKeyArn`);
- project: GetProject, ListProjectMemberships: the CDK CloudFormation execution role is a project owner
  (it creates the form types and, with projectMembership "stack", the memberships); with "manual", the
  stack's three roles (fixed names) hold their designations;
- grants: ListPolicyGrants on the project's domain unit (CREATE_FORM_TYPE, CREATE_ASSET_TYPE); missing
  ones with `domainUnitId` set are the stack's to add, which needs the execution role to own the unit
  (GetDomainUnit);
- lake-formation: ListPermissions on the tables of each database the lineage function reads;
- cloudtrail: DescribeTrails, GetTrailStatus, GetEventSelectors: a logging trail records Glue's write
  management events in the region, unless `createCloudTrail` is set;
- consumer-roles (with `access`): the roles of this account that `access.consumerRoles` admits, and which
  of them a permissions boundary keeps from any grant (doctor_access.py);
- unadmitted (with `access`): the roles of this account that still hold this stack's policies though
  `access.consumerRoles` does not admit them, with the commands that remove the access (unadmitted.py);
- glue-lineage (with `lineageTargets` holding "glue"): the roles that post to Glue's lineage graphs may
  call glue:PostLineageEvent (doctor_glue.py).
- network (with `access`): multi-VPC private connectivity on for IAM where a role of another account may be
  granted a cluster's topics (doctor_network.py).
The credentials are taken to be the target account's (GetCallerIdentity names it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any

from asset_type_resource.governance import (
    GovernanceRequest,
    Member,
    grant_problems,
    key_problems,
    membership_problems,
    region_problems,
)
from kafka_lineage.aws.calls import instrument
from kafka_lineage.aws.pacing import Pacing
from kafka_lineage.model.events import GLUE_EVENT_NAMES, GLUE_EVENT_SOURCE
from kafka_lineage.model.failures import AccessDenied, AwsError, NotFound

from .doctor_access import consumer_roles, unadmitted_roles
from .doctor_glue import glue_lineage
from .doctor_network import network
from .findings import FAIL, OK, WARN, Finding, Target
from .read_only import read_only

__all__ = ["FAIL", "OK", "WARN", "Finding", "Target", "exit_code", "read_only_clients", "run_checks"]

DEFAULT_QUALIFIER = "hnb659fds"  # CDK's default bootstrap qualifier
QUALIFIER_CONTEXT = "@aws-cdk/core:bootstrapQualifier"
# The stack's roles and the designation each needs (stacks/lineage_stack.py add_governance_check); their
# fixed names under projectMembership "manual" (stacks/config.py role_name).
STACK_MEMBERS = (
    ("schema-sync", "SchemaSync", "PROJECT_CONTRIBUTOR"),
    ("lineage-emission", "LineageEmission", "PROJECT_CONTRIBUTOR"),
    ("asset-type-resource", "AssetTypeHandler", "PROJECT_OWNER"),
)
# Lake Formation permissions that let the lineage function read a table's metadata (GetTables).
_DESCRIBES = {"DESCRIBE", "ALL"}


Clients = Callable[[str], Any]


# The services whose calls are paced at their quotas (aws.pacing.Pacing): DataZone, whose subscription
# listings the checks page through. A client is paced once, where it is made (kafka_lineage.aws.calls).
PACED = ("datazone",)


def read_only_clients(make: Clients) -> Clients:
    """`make`'s clients (boto3 or stubbed), each read-only, with typed errors and, for `PACED` services,
    paced (kafka_lineage.aws.calls), made once per service."""
    made: dict[str, Any] = {}

    def client(service: str) -> Any:
        if service not in made:
            pacing = Pacing(service) if service in PACED else None
            made[service] = instrument(read_only(make(service)), pacing)
        return made[service]

    return client


def kafka_lineage_context(document: Mapping[str, Any]) -> tuple[Any, str | None]:
    """The `kafkaLineage` object and the bootstrap qualifier: from a cdk.json (`context.kafkaLineage`) or
    from a file that is the object itself (docs/two-accounts/governance.json)."""
    context = document.get("context")
    if isinstance(context, Mapping) and "kafkaLineage" in context:
        return context["kafkaLineage"], context.get(QUALIFIER_CONTEXT)
    return document, None


def execution_role_arn(partition: str, account: str, region: str, qualifier: str | None) -> str:
    """The CDK bootstrap's CloudFormation execution role (the DefaultStackSynthesizer's name for it)."""
    return (
        f"arn:{partition}:iam::{account}:role/cdk-{qualifier or DEFAULT_QUALIFIER}-cfn-exec-role-"
        f"{account}-{region}"
    )


def governance_request(config: Any, target: Target, members: tuple[Member, ...]) -> GovernanceRequest:
    deployment = config.deployment
    return GovernanceRequest(
        domain_id=config.settings.domain_id,
        project_id=config.settings.project_id,
        domain_unit_id=deployment.domain_unit_id,
        grants_by_stack=deployment.domain_unit_id is not None,
        kms_key_arn=deployment.domain_kms_key_arn,
        membership_mode=deployment.project_membership,
        members=members,
        cluster_regions=tuple(source.region for source in config.settings.sources),
        region=target.region,
    )


def run_checks(config: Any, target: Target, clients: Clients) -> list[Finding]:
    """Every check, in the order a deploy meets them; a check that cannot start says why."""
    request = governance_request(config, target, ())
    findings = _each("regions", region_problems(request), f"every cluster is in {target.region}")
    datazone = clients("datazone")
    domain = _domain(datazone, request, findings)
    project = _project(datazone, request, findings) if domain is not None else None
    if project is not None:
        findings += _members(datazone, config, target)
        findings += _grants(datazone, request, target, project.get("domainUnitId"))
    findings += lake_formation(clients("lakeformation"), config, target)
    findings += cloudtrail(clients("cloudtrail"), config, target)
    if config.deployment.access is not None:
        findings += consumer_roles(clients("iam"), config, target)
        findings += unadmitted_roles(clients("iam"), clients("datazone"), config, target)
        findings += network(clients, config, target)
    if config.settings.glue_lineage:
        findings += glue_lineage(clients("iam"), config, target)
    return findings


def _each(check: str, problems: Iterable[str], fine: str) -> list[Finding]:
    """One FAIL per problem, or the check's one ok line."""
    return [Finding(check, FAIL, problem) for problem in problems] or [Finding(check, OK, fine)]


def _refused(check: str, service: str, error: AwsError) -> Finding:
    """A read that failed: the check cannot tell, which is no pass."""
    if isinstance(error, AccessDenied):
        return Finding(
            check,
            FAIL,
            f"{service}:{error.operation} was refused ({error}): run doctor as a principal that may read it "
            "(the deployer's, or a read-only administrator's)",
        )
    return Finding(check, FAIL, f"{service}:{error.operation} failed ({error}): the check cannot tell")


def _domain(datazone: Any, request: GovernanceRequest, findings: list[Finding]) -> dict[str, Any] | None:
    try:
        domain = dict(datazone.get_domain(identifier=request.domain_id))
    except NotFound as error:
        findings.append(
            Finding(
                "domain", FAIL, f"GetDomain found no domain {request.domain_id}: check domainId ({error})"
            )
        )
        return None
    except AwsError as error:
        findings.append(_refused("domain", "datazone", error))
        return None
    problems = key_problems(request, domain.get("kmsKeyIdentifier"))
    if domain.get("status") not in (None, "AVAILABLE"):
        problems.insert(0, f"domain {request.domain_id} is {domain.get('status')}, not AVAILABLE")
    key = domain.get("kmsKeyIdentifier") or "an AWS owned key"
    version = domain.get("domainVersion") or "V1"
    findings += _each(
        "domain", problems, f"{request.domain_id} is AVAILABLE, {version}, encrypted with {key}"
    )
    return domain


def _project(datazone: Any, request: GovernanceRequest, findings: list[Finding]) -> dict[str, Any] | None:
    try:
        return dict(datazone.get_project(domainIdentifier=request.domain_id, identifier=request.project_id))
    except NotFound as error:
        message = (
            f"GetProject found no project {request.project_id} in {request.domain_id}: check projectId "
            f"({error})"
        )
        findings.append(Finding("project", FAIL, message))
    except AwsError as error:
        findings.append(_refused("project", "datazone", error))
    return None


def _members(datazone: Any, config: Any, target: Target) -> list[Finding]:
    """The execution role as project owner; with "manual", the stack's roles by their fixed names."""
    members = [Member("CDK CloudFormation execution", target.execution_role_arn, "PROJECT_OWNER")]
    if config.deployment.project_membership == "manual":
        members += [
            Member(
                name,
                f"arn:{target.partition}:iam::{target.account}:role/{config.role_name(role)}",
                designation,
            )
            for name, role, designation in STACK_MEMBERS
        ]
    request = governance_request(config, target, tuple(members))
    names = ", ".join(f"{m.name} ({m.designation})" for m in members)
    try:
        problems = membership_problems(datazone, request)
    except AwsError as error:  # GetUserProfile refused (the listing's errors are a problem of their own)
        return [_refused("project", "datazone", error)]
    return _each("project", problems, f"{request.project_id}: {names}")


def _grants(datazone: Any, request: GovernanceRequest, target: Target, unit: Any) -> list[Finding]:
    if unit is None:
        return [
            Finding("grants", OK, f"project {request.project_id} reports no domain unit: nothing to grant")
        ]
    if request.domain_unit_id is not None and unit != request.domain_unit_id:
        return [
            Finding(
                "grants",
                FAIL,
                f"project {request.project_id} belongs to domain unit {unit}, not to domainUnitId "
                f"{request.domain_unit_id}: set domainUnitId to {unit} in cdk.json",
            )
        ]
    # Before the first deploy, a grant the stack makes (domainUnitId set) is missing yet: asked as if not.
    missing = grant_problems(datazone, replace(request, grants_by_stack=False), str(unit))
    if not missing:
        return [Finding("grants", OK, f"domain unit {unit} grants CREATE_FORM_TYPE and CREATE_ASSET_TYPE")]
    if request.domain_unit_id is None:
        return _each("grants", missing, "")
    return [_unit_owner(datazone, request, target, str(unit))]


def _unit_owner(datazone: Any, request: GovernanceRequest, target: Target, unit: str) -> Finding:
    """The stack adds the grants (AWS::DataZone::PolicyGrant): DataZone lets an owner of the domain unit.
    Read pessimistically: only the unit's own owners count (DataZone does not document whether owning a
    parent unit is enough)."""
    role = target.execution_role_arn
    try:
        profile = datazone.get_user_profile(
            domainIdentifier=request.domain_id, userIdentifier=role, type="IAM"
        )
        owners = datazone.get_domain_unit(domainIdentifier=request.domain_id, identifier=unit).get(
            "owners", []
        )
    except NotFound:
        profile, owners = {}, []
    except AwsError as error:
        return _refused("grants", "datazone", error)
    if any((owner.get("user") or {}).get("userId") == profile.get("id") for owner in owners if profile):
        return Finding("grants", OK, f"the stack adds the grants on domain unit {unit}, which {role} owns")
    owner = json.dumps({"user": {"userIdentifier": role}}, separators=(",", ":"))
    return Finding(
        "grants",
        FAIL,
        f"domainUnitId is set, so the stack adds the CREATE_FORM_TYPE and CREATE_ASSET_TYPE grants on domain "
        f"unit {unit}, which needs the CDK CloudFormation execution role {role} to own it; an owner of the "
        f"domain unit adds it with: aws datazone add-entity-owner --domain-identifier {request.domain_id} "
        f"--entity-type DOMAIN_UNIT --entity-identifier {unit} --owner '{owner}'",
    )


# ------------------------------------------------------------------------------------------- Lake Formation


def _table_wildcard(target: Target, path: str) -> dict[str, Any]:
    """The tables of a database path: `<database>`, or `<catalog>/<database>` of a federated catalog
    (whose Lake Formation catalog id is `<account>:<catalog>`)."""
    catalog, slash, database = path.rpartition("/")
    catalog_id = f"{target.account}:{catalog}" if slash else target.account
    return {"Table": {"CatalogId": catalog_id, "DatabaseName": database, "TableWildcard": {}}}


def _permissions(lakeformation: Any, principal: str, resource: Mapping[str, Any]) -> set[str]:
    """What `principal` holds on `resource`: with both given, ListPermissions answers the effective
    permissions (its API reference). botocore has no paginator for it: NextToken by hand."""
    found: set[str] = set()
    token: dict[str, str] = {}
    while True:
        page = lakeformation.list_permissions(
            Principal={"DataLakePrincipalIdentifier": principal}, Resource=resource, **token
        )
        for entry in page.get("PrincipalResourcePermissions", []):
            found.update(entry.get("Permissions", []))
        if not page.get("NextToken"):
            return found
        token = {"NextToken": page["NextToken"]}


def lake_formation(lakeformation: Any, config: Any, target: Target) -> list[Finding]:
    """Each database the lineage function reads in this account: IAM alone governs its tables (the
    IAM_ALLOWED_PRINCIPALS group holds ALL on them, Lake Formation's compatibility default), or the lineage
    function's role holds DESCRIBE on them (docs/delivery-paths.md, Lake Formation). ListPermissions shows
    only what the caller may see: a caller who is no data lake administrator may miss a grant, read as
    missing (the pessimistic reading)."""
    manual = config.deployment.project_membership == "manual"
    role = (
        f"arn:{target.partition}:iam::{target.account}:role/{config.role_name('LineageEmission')}"
        if manual
        else None
    )
    findings = []
    for path in config.own_databases:
        resource = _table_wildcard(target, path)
        try:
            if "ALL" in _permissions(lakeformation, "IAM_ALLOWED_PRINCIPALS", resource):
                findings.append(Finding("lake-formation", OK, f"{path}: IAM alone governs its tables"))
                continue
            if role is not None and _permissions(lakeformation, role, resource) & _DESCRIBES:
                findings.append(Finding("lake-formation", OK, f"{path}: {role} holds DESCRIBE on its tables"))
                continue
        except AwsError as error:
            findings.append(_refused("lake-formation", "lakeformation", error))
            continue
        grant = (
            f"aws lakeformation grant-permissions --principal DataLakePrincipalIdentifier="
            f"{role or '<LineageEmission role ARN>'} --permissions DESCRIBE --resource "
            f"'{json.dumps(resource, separators=(',', ':'))}'"
        )
        cause = (
            f"Lake Formation governs the tables of {path} (IAM_ALLOWED_PRINCIPALS holds no ALL on them, as "
            "far as this caller may list), so the lineage function's role needs DESCRIBE on them, or its "
            "topics fail with AccessDenied"
        )
        if role is not None:
            findings.append(
                Finding("lake-formation", FAIL, f"{cause}; a data lake administrator grants it with: {grant}")
            )
        else:
            # The role's name is CloudFormation's until the stack exists: nothing to grant yet.
            findings.append(
                Finding(
                    "lake-formation",
                    WARN,
                    f"{cause}; after the deploy, a data lake administrator grants it with: {grant}",
                )
            )
    return findings or [
        Finding("lake-formation", OK, "the lineage function reads no database in this account")
    ]


# ------------------------------------------------------------------------------------------- CloudTrail
# What the stack's rule listens for (stacks/triggers.py): Glue's write management events of these names.
_NEEDED = tuple(
    {"eventCategory": "Management", "readOnly": "false", "eventSource": GLUE_EVENT_SOURCE, "eventName": name}
    for name in GLUE_EVENT_NAMES
)


def _field_admits(selector: Mapping[str, Any], value: str) -> bool:
    """One advanced field selector: the conditions of its operators all hold (the CloudTrail API
    reference's AdvancedFieldSelector)."""
    checks = {
        "Equals": lambda values: value in values,
        "StartsWith": lambda values: any(value.startswith(v) for v in values),
        "EndsWith": lambda values: any(value.endswith(v) for v in values),
        "NotEquals": lambda values: value not in values,
        "NotStartsWith": lambda values: not any(value.startswith(v) for v in values),
        "NotEndsWith": lambda values: not any(value.endswith(v) for v in values),
    }
    return all(test(selector[operator]) for operator, test in checks.items() if selector.get(operator))


def _advanced_records(selector: Mapping[str, Any], event: Mapping[str, str]) -> bool:
    """An advanced event selector records `event` when every field selector admits it. A field this check
    does not know (resources, userIdentity, ...) is read as excluding it: the pessimistic reading."""
    return all(
        field.get("Field") in event and _field_admits(field, event[field["Field"]])
        for field in selector.get("FieldSelectors", [])
    )


def _basic_records(selector: Mapping[str, Any]) -> bool:
    return (
        selector.get("IncludeManagementEvents", True)  # true by default (the API reference)
        and selector.get("ReadWriteType", "All") in ("All", "WriteOnly")
        and GLUE_EVENT_SOURCE not in selector.get("ExcludeManagementEventSources", [])
    )


def records_glue_writes(selectors: Mapping[str, Any]) -> bool:
    """GetEventSelectors' answer: every event the stack's rule needs is recorded by some selector."""
    advanced = selectors.get("AdvancedEventSelectors") or []
    if advanced:
        return all(any(_advanced_records(s, event) for s in advanced) for event in _NEEDED)
    return any(_basic_records(s) for s in selectors.get("EventSelectors") or [])


def cloudtrail(client: Any, config: Any, target: Target) -> list[Finding]:
    if config.deployment.create_cloud_trail:
        return [Finding("cloudtrail", OK, "createCloudTrail is set: the stack creates its trail")]
    try:
        trails = client.describe_trails(includeShadowTrails=True).get("trailList", [])
        seen = []
        for trail in trails:
            if not (trail.get("IsMultiRegionTrail") or trail.get("HomeRegion") == target.region):
                continue
            arn = trail["TrailARN"]
            logging = client.get_trail_status(Name=arn).get("IsLogging")
            records = records_glue_writes(client.get_event_selectors(TrailName=arn))
            if logging and records:
                return [Finding("cloudtrail", OK, f"trail {arn} records Glue's write management events")]
            seen.append(f"{arn} ({'its selectors leave them out' if logging else 'not logging'})")
    except AwsError as error:
        return [_refused("cloudtrail", "cloudtrail", error)]
    fix = (
        "set createCloudTrail to true in cdk.json (the stack then creates a trail of write management events)"
    )
    cause = (
        f"no logging trail records Glue's write management events in {target.region}"
        + (f" (read: {', '.join(seen)})" if seen else "")
        + ", so schema changes reach the stack only at the hourly sync"
    )
    return [Finding("cloudtrail", FAIL, f"{cause}: {fix}")]


# ------------------------------------------------------------------------------------------- the command


def exit_code(findings: Iterable[Finding]) -> int:
    """0: nothing failed (warnings are things to do after the deploy); 1: some check failed."""
    return 1 if any(f.status == FAIL for f in findings) else 0
