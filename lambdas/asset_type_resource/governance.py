"""The deploy-time check of a governed domain (custom resource Custom::DataZoneGovernanceCheck).

Runs before CloudFormation creates any form type, and reads what the types and the functions rely on:
- the domain (GetDomain): its status, its version (V1 DataZone, V2 SageMaker Unified Studio) and its
  customer managed key, against the `domainKmsKeyArn` setting;
- the project (GetProject): its domain unit, against the `domainUnitId` setting;
- the domain unit's policy grants (ListPolicyGrants, and GetDomainUnit up the tree for grants that include
  child units): CREATE_FORM_TYPE and CREATE_ASSET_TYPE for the project's owners;
- the project's members (GetUserProfile of each role, ListProjectMemberships).
Every missing piece becomes one message that names it and says how to add it; the check fails the deploy
with all of them at once, instead of a rollback at the first FormType with DataZone's raw error.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from kafka_lineage.aws.calls import instrument
from kafka_lineage.model.failures import AccessDenied, AwsError, NotFound

if TYPE_CHECKING:
    from mypy_boto3_datazone import DataZoneClient

# The grants type creation needs, and the PolicyGrantDetail member of each (botocore datazone).
TYPE_GRANTS = {"CREATE_FORM_TYPE": "createFormType", "CREATE_ASSET_TYPE": "createAssetType"}
_WHAT = {"CREATE_FORM_TYPE": "the form types", "CREATE_ASSET_TYPE": "the asset type"}
# Designations that satisfy a wanted one (an owner may do what a contributor may).
_SATISFIES = {
    "PROJECT_OWNER": {"PROJECT_OWNER"},
    "PROJECT_CONTRIBUTOR": {"PROJECT_OWNER", "PROJECT_CONTRIBUTOR"},
}
_MAX_UNIT_DEPTH = 20  # DataZone documents no depth limit for domain units; a cycle guard


class GovernanceError(Exception):
    """The domain lacks what the stack needs; the message names each missing piece and its fix."""


@dataclass(frozen=True)
class Member:
    name: str  # which of the stack's roles: schema-sync, lineage-emission, asset-type-resource
    role_arn: str
    designation: str


@dataclass(frozen=True)
class GovernanceRequest:
    domain_id: str
    project_id: str
    domain_unit_id: str | None  # the `domainUnitId` setting
    grants_by_stack: bool  # the stack created the two grants (domainUnitId set)
    kms_key_arn: str | None  # the `domainKmsKeyArn` setting
    membership_mode: str  # "stack" or "manual" (projectMembership)
    members: tuple[Member, ...]
    # Each source's cluster region (by its index in `sources`), checked against the region the check runs
    # in: an environment-agnostic stack learns its region only at deploy time.
    cluster_regions: tuple[str, ...] = ()
    region: str | None = None

    @classmethod
    def from_properties(cls, props: Mapping[str, Any], region: str | None = None) -> GovernanceRequest:
        members = tuple(
            Member(str(m["name"]), str(m["roleArn"]), str(m["designation"]))
            for m in json.loads(props.get("Members") or "[]")
        )
        return cls(
            domain_id=str(props["DomainId"]),
            project_id=str(props["ProjectId"]),
            domain_unit_id=str(props.get("DomainUnitId") or "") or None,
            grants_by_stack=str(props.get("GrantsByStack", "false")).lower() == "true",
            kms_key_arn=str(props.get("KmsKeyArn") or "") or None,
            membership_mode=str(props.get("MembershipMode") or "stack"),
            members=members,
            cluster_regions=tuple(str(r) for r in json.loads(props.get("ClusterRegions") or "[]")),
            region=region,
        )


@dataclass(frozen=True)
class GovernanceReport:
    domain_version: str
    domain_unit_id: str | None
    problems: tuple[str, ...]  # each fails the deploy
    notes: tuple[str, ...]  # logged and returned, the deploy goes on


def check_governance(datazone_client: DataZoneClient, request: GovernanceRequest) -> GovernanceReport:
    """Read the domain, project, grants and members; report each missing piece."""
    datazone_client = instrument(datazone_client)
    problems = region_problems(request)
    notes: list[str] = []
    domain = _read(problems, "GetDomain", datazone_client.get_domain, identifier=request.domain_id)
    if domain is None:
        return GovernanceReport("unknown", None, tuple(problems), ())
    version = str(domain.get("domainVersion") or "V1")
    if domain.get("status") not in (None, "AVAILABLE"):
        problems.append(f"domain {request.domain_id} is {domain.get('status')}, not AVAILABLE")
    problems += key_problems(request, domain.get("kmsKeyIdentifier"))
    project = _read(
        problems,
        "GetProject",
        datazone_client.get_project,
        domainIdentifier=request.domain_id,
        identifier=request.project_id,
    )
    if project is None:
        return GovernanceReport(version, None, tuple(problems), ())
    unit = project.get("domainUnitId")
    if request.domain_unit_id is not None and unit is not None and unit != request.domain_unit_id:
        problems.append(
            f"project {request.project_id} belongs to domain unit {unit}, not to domainUnitId "
            f"{request.domain_unit_id}: set domainUnitId to {unit} in cdk.json"
        )
    elif unit is not None:
        problems += grant_problems(datazone_client, request, str(unit))
    else:
        notes.append(f"project {request.project_id} reports no domain unit: policy grants not checked")
    missing = membership_problems(datazone_client, request)
    if request.membership_mode == "manual":
        problems += missing
    else:
        # The stack's own AWS::DataZone::ProjectMembership resources exist by now; a listing that does not
        # show one yet is no reason to fail (its delay is undocumented): said, not refused.
        notes += missing
    return GovernanceReport(version, str(unit) if unit else None, tuple(problems), tuple(notes))


def raise_for(report: GovernanceReport) -> None:
    if report.problems:
        lines = "\n".join(f"- {problem}" for problem in report.problems)
        raise GovernanceError(
            f"the DataZone domain lacks what this stack needs ({len(report.problems)}):\n{lines}\n"
            "See docs/governed-domains.md."
        )


# ------------------------------------------------------------------------------------------- checks
# Each check is public: `kafka-lineage doctor` (kafka_lineage_cdk/doctor.py) runs them before the first
# deploy, with the same messages.


def region_problems(request: GovernanceRequest) -> list[str]:
    """Each source whose cluster is in another region than the stack's."""
    return [
        f"kafkaLineage.sources[{index}].clusterArn is in {cluster_region}, but the stack deploys to "
        f"{request.region}: deploy a stack in {cluster_region} for that cluster"
        for index, cluster_region in enumerate(request.cluster_regions)
        if request.region and cluster_region != request.region
    ]


def _read(problems: list[str], operation: str, call: Any, **params: Any) -> dict[str, Any] | None:
    try:
        return dict(call(**params))
    except NotFound as error:
        problems.append(f"{operation} found nothing for {params}: check domainId and projectId ({error})")
    except AccessDenied as error:
        problems.append(
            f"the custom resource's role may not call {operation} ({error}): it needs "
            f"datazone:{operation} in IAM (the stack grants it) and, for a project, membership"
        )
    return None


def key_problems(request: GovernanceRequest, domain_key: Any) -> list[str]:
    setting = request.kms_key_arn
    if domain_key and not setting:
        return [
            f"domain {request.domain_id} is encrypted with the customer managed key {domain_key}: set "
            f"domainKmsKeyArn to {domain_key} so that the functions may use it (kms:Decrypt, "
            "kms:GenerateDataKey), and let the key policy allow the account's IAM policies"
        ]
    if setting and domain_key and setting != domain_key:
        return [
            f"domainKmsKeyArn is {setting}, but domain {request.domain_id} uses {domain_key}: set it to that"
        ]
    if setting and not domain_key:
        return [
            f"domainKmsKeyArn is {setting}, but domain {request.domain_id} has no customer managed key: "
            "remove domainKmsKeyArn"
        ]
    return []


def grant_problems(datazone_client: DataZoneClient, request: GovernanceRequest, unit: str) -> list[str]:
    problems = []
    for policy, detail in TYPE_GRANTS.items():
        try:
            found = _has_grant(datazone_client, request, unit, policy, detail)
        except AwsError as error:
            problems.append(f"the {policy} grants of domain unit {unit} cannot be read ({error})")
            continue
        if found:
            continue
        made = (
            "the stack created it with AWS::DataZone::PolicyGrant, yet the domain unit does not list it; "
            if request.grants_by_stack
            else ""
        )
        problems.append(
            f"project {request.project_id} lacks the {policy} policy grant on domain unit {unit} of domain "
            f"{request.domain_id}, which creating {_WHAT[policy]} needs; {made}an owner of the domain unit "
            f"adds it with: aws datazone add-policy-grant --domain-identifier {request.domain_id} "
            f"--entity-type DOMAIN_UNIT --entity-identifier {unit} --policy-type {policy} "
            f"--principal '{_project_principal(request.project_id)}' "
            f'--detail \'{{"{detail}":{{"includeChildDomainUnits":false}}}}\''
            + ("" if request.grants_by_stack else f" -- or set domainUnitId to {unit} and the stack adds it")
        )
    return problems


def _project_principal(project_id: str) -> str:
    return json.dumps(
        {"project": {"projectDesignation": "OWNER", "projectIdentifier": project_id}}, separators=(",", ":")
    )


def _has_grant(
    datazone_client: DataZoneClient, request: GovernanceRequest, unit: str, policy: str, detail: str
) -> bool:
    """A grant of `policy` that covers the project's owners: on its unit, or on an ancestor unit with
    includeChildDomainUnits."""
    lineage = list(_unit_and_ancestors(datazone_client, request.domain_id, unit))
    for depth, current in enumerate(lineage):
        for grant in _grants(datazone_client, request.domain_id, current, policy):
            inherited = bool((grant.get("detail") or {}).get(detail, {}).get("includeChildDomainUnits"))
            if (depth == 0 or inherited) and _covers(
                grant.get("principal") or {}, request.project_id, lineage
            ):
                return True
    return False


def _covers(principal: Mapping[str, Any], project_id: str, lineage: list[str]) -> bool:
    project = principal.get("project")
    if isinstance(project, Mapping):
        if project.get("projectDesignation") not in (None, "OWNER"):
            return False
        if project.get("projectIdentifier") == project_id:
            return True
        unit_filter = (project.get("projectGrantFilter") or {}).get("domainUnitFilter") or {}
        named = unit_filter.get("domainUnit")
        if named == lineage[0]:
            return True
        return bool(named in lineage and unit_filter.get("includeChildDomainUnits"))
    user = principal.get("user")
    return isinstance(user, Mapping) and "allUsersGrantFilter" in user


def _unit_and_ancestors(datazone_client: DataZoneClient, domain_id: str, unit: str) -> Iterator[str]:
    current: str | None = unit
    for _ in range(_MAX_UNIT_DEPTH):
        if current is None:
            return
        yield current
        found = datazone_client.get_domain_unit(domainIdentifier=domain_id, identifier=current)
        current = found.get("parentDomainUnitId")


def _grants(
    datazone_client: DataZoneClient, domain_id: str, unit: str, policy: str
) -> Iterator[dict[str, Any]]:
    pages = datazone_client.get_paginator("list_policy_grants").paginate(
        domainIdentifier=domain_id,
        entityType="DOMAIN_UNIT",
        entityIdentifier=unit,
        policyType=policy,  # type: ignore[arg-type]
    )
    for page in pages:
        yield from (dict(grant) for grant in page.get("grantList", []))


def membership_problems(datazone_client: DataZoneClient, request: GovernanceRequest) -> list[str]:
    try:
        designations = _member_designations(datazone_client, request)
    except AwsError as error:
        return [f"the members of project {request.project_id} cannot be read ({error})"]
    problems = []
    for member in request.members:
        try:
            profile = datazone_client.get_user_profile(
                domainIdentifier=request.domain_id, userIdentifier=member.role_arn, type="IAM"
            )
            has = designations.get(str(profile.get("id")), set())
        except NotFound:
            has = set()
        if has & _SATISFIES.get(member.designation, {member.designation}):
            continue
        problems.append(
            f"the {member.name} role {member.role_arn} is not a {member.designation} of project "
            f"{request.project_id}; a project owner adds it with: aws datazone create-project-membership "
            f"--domain-identifier {request.domain_id} --project-identifier {request.project_id} "
            f'--member \'{{"userIdentifier":"{member.role_arn}"}}\' --designation {member.designation}'
        )
    return problems


def _member_designations(datazone_client: DataZoneClient, request: GovernanceRequest) -> dict[str, set[str]]:
    """User profile id -> the designations it holds in the project."""
    found: dict[str, set[str]] = {}
    pages = datazone_client.get_paginator("list_project_memberships").paginate(
        domainIdentifier=request.domain_id, projectIdentifier=request.project_id
    )
    for page in pages:
        for member in page.get("members", []):
            user_id = (member.get("memberDetails") or {}).get("user", {}).get("userId")
            if user_id:
                found.setdefault(str(user_id), set()).add(str(member.get("designation")))
    return found
