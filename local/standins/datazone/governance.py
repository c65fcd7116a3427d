"""Domains as governance sees them: GetDomain (version, key), projects and domain units (GetProject,
GetDomainUnit), domain-unit policy grants (AddPolicyGrant, ListPolicyGrants, RemovePolicyGrant), project
members (CreateProjectMembership, ListProjectMemberships, GetUserProfile), and the grant that
CreateFormType and CreateAssetType need.

Per the DataZone API reference and botocore's model. Where AWS is silent:
- an "open" domain (the default here) has, on its root domain unit, CREATE_FORM_TYPE and CREATE_ASSET_TYPE
  grants for all users, so any project may create types, as the stack has always seen; a "governed" one
  has none until an owner of the unit adds them (the stand-in enforces the grant either way);
- a refused type creation answers AccessDeniedException "User is not permitted to perform operation: ...",
  the text DataZone gives for a refused membership in the public report (aws/modern-data-architecture-
  accelerator issue 61);
- an IAM principal has a user profile once it is a member of some project (GetUserProfile by its ARN).
"""

from __future__ import annotations

from typing import Any

from local.standins.datazone.records import Governance, Grant
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import ServiceError, conflict, not_found, validation

# A refused policy: DataZone's 403 (botocore datazone AccessDeniedException).
PERMITTED = "User is not permitted to perform operation: {}"
TYPE_POLICIES = ("CREATE_FORM_TYPE", "CREATE_ASSET_TYPE")
_DETAIL_OF = {
    "CREATE_FORM_TYPE": "createFormType",
    "CREATE_ASSET_TYPE": "createAssetType",
    "CREATE_GLOSSARY": "createGlossary",
    "CREATE_PROJECT": "createProject",
    "CREATE_DOMAIN_UNIT": "createDomainUnit",
}
_ACCOUNT = "123456789012"


def denied(operation: str) -> ServiceError:
    return ServiceError("AccessDeniedException", PERMITTED.format(operation), 403)


# ------------------------------------------------------------------------------------ Python helpers


def set_up(store: Store, domain: Domain, version: str, kms_key_arn: str | None, governed: bool) -> None:
    if version not in ("V1", "V2"):
        raise ValueError(f"domainVersion is V1 or V2, not {version!r}")
    gov = domain.governance
    gov.version, gov.kms_key_arn = version, kms_key_arn
    gov.root_unit = store.new_id()
    gov.units[gov.root_unit] = None
    if not governed:
        for policy in TYPE_POLICIES:
            gov.grants.append(
                Grant(
                    store.new_id()[:10],
                    gov.root_unit,
                    policy,
                    {"user": {"allUsersGrantFilter": {}}},
                    {_DETAIL_OF[policy]: {"includeChildDomainUnits": True}},
                    store.now(),
                    "standin-domain-default",
                )
            )


def add_unit(domain: Domain, unit: str, parent: str | None) -> None:
    gov = domain.governance
    parent = parent or gov.root_unit
    if parent not in gov.units:
        raise ValueError(f"domain unit {parent} does not exist in {domain.id}")
    gov.units[unit] = parent


def add_member(store: Store, domain: Domain, project: str, arn: str, designation: str) -> None:
    gov = domain.governance
    profile = gov.profiles.setdefault(arn, store.new_id())
    gov.members.setdefault(project, {})[profile] = designation


# ------------------------------------------------------------------------------------------ enforced


def require_type_grant(domain: Domain, project: str, policy: str, operation: str) -> None:
    """CreateFormType / CreateAssetType: the owning project's owners need `policy` on its domain unit (or on
    an ancestor unit, with includeChildDomainUnits)."""
    gov = domain.governance
    lineage = _lineage(gov, gov.project_units.get(project, gov.root_unit))
    for depth, unit in enumerate(lineage):
        for grant in gov.grants:
            if grant.unit != unit or grant.policy != policy:
                continue
            inherited = bool(grant.detail.get(_DETAIL_OF[policy], {}).get("includeChildDomainUnits"))
            if (depth == 0 or inherited) and _covers(grant.principal, project, lineage):
                return
    raise denied(operation)


def _lineage(gov: Governance, unit: str) -> list[str]:
    found: list[str] = []
    current: str | None = unit
    while current is not None and current not in found:
        found.append(current)
        current = gov.units.get(current)
    return found


def _covers(principal: dict[str, Any], project: str, lineage: list[str]) -> bool:
    if "user" in principal:
        return "allUsersGrantFilter" in principal["user"]
    grantee = principal.get("project") or {}
    if grantee.get("projectDesignation") != "OWNER":
        return False
    if grantee.get("projectIdentifier") == project:
        return True
    unit_filter = (grantee.get("projectGrantFilter") or {}).get("domainUnitFilter") or {}
    named = unit_filter.get("domainUnit")
    return named == lineage[0] or (named in lineage and bool(unit_filter.get("includeChildDomainUnits")))


# -------------------------------------------------------------------------------------------- API


def get_domain(store: Store, domain: Domain, params: Params) -> Response:
    gov = domain.governance
    return compact(
        {
            "id": domain.id,
            "rootDomainUnitId": gov.root_unit,
            "name": domain.id,
            "domainExecutionRole": f"arn:aws:iam::{_ACCOUNT}:role/service-role/AmazonDataZoneDomainExecution",
            "status": "AVAILABLE",
            "kmsKeyIdentifier": gov.kms_key_arn,
            "domainVersion": gov.version,
            "serviceRole": (
                f"arn:aws:iam::{_ACCOUNT}:role/service-role/AmazonSageMakerDomainService"
                if gov.version == "V2"
                else None
            ),
            "createdAt": store.now(),
        }
    )


def get_project(store: Store, domain: Domain, params: Params) -> Response:
    project = store.project(domain, params["identifier"], not_found)
    return {
        "domainId": domain.id,
        "id": project,
        "name": project,
        "createdBy": store.principal,
        "projectStatus": "ACTIVE",
        "domainUnitId": domain.governance.project_units.get(project, domain.governance.root_unit),
    }


def get_domain_unit(store: Store, domain: Domain, params: Params) -> Response:
    unit = params["identifier"]
    gov = domain.governance
    if unit not in gov.units:
        raise not_found(f"Domain unit {unit} not found")
    return compact(
        {
            "id": unit,
            "domainId": domain.id,
            "name": unit,
            "parentDomainUnitId": gov.units[unit],
            "owners": [],
        }
    )


def _target_unit(domain: Domain, params: Params) -> str:
    if params["entityType"] != "DOMAIN_UNIT":
        raise validation(f"The stand-in keeps policy grants on domain units only, not {params['entityType']}")
    unit = params["entityIdentifier"]
    if unit not in domain.governance.units:
        raise not_found(f"Domain unit {unit} not found")
    return str(unit)


def add_policy_grant(store: Store, domain: Domain, params: Params) -> Response:
    unit = _target_unit(domain, params)
    policy, principal, detail = params["policyType"], params["principal"], params["detail"]
    member = _DETAIL_OF.get(policy)
    if member is not None and set(detail) != {member}:
        raise validation(f"A {policy} grant takes the detail {member}, not {sorted(detail)}")
    if len(principal) != 1:
        raise validation("principal is a union: give exactly one of user, group, project, domainUnit")
    for grant in domain.governance.grants:
        if (grant.unit, grant.policy, grant.principal) == (unit, policy, principal):
            if grant.detail != detail:
                raise conflict(f"A {policy} grant for this principal already exists on {unit}")
            return {"grantId": grant.grant_id}
    grant = Grant(store.new_id()[:10], unit, policy, principal, detail, store.now(), store.principal)
    domain.governance.grants.append(grant)
    return {"grantId": grant.grant_id}


def list_policy_grants(store: Store, domain: Domain, params: Params) -> Response:
    unit = _target_unit(domain, params)
    grants = [g for g in domain.governance.grants if g.unit == unit and g.policy == params["policyType"]]
    page, token = paginate(grants, params)
    return compact(
        {
            "grantList": [
                {
                    "principal": g.principal,
                    "detail": g.detail,
                    "createdAt": g.created_at,
                    "createdBy": g.created_by,
                    "grantId": g.grant_id,
                }
                for g in page
            ],
            "nextToken": token,
        }
    )


def remove_policy_grant(store: Store, domain: Domain, params: Params) -> Response:
    unit = _target_unit(domain, params)
    gov = domain.governance
    gov.grants = [
        g
        for g in gov.grants
        if not (
            g.unit == unit
            and g.policy == params["policyType"]
            and g.principal == params["principal"]
            and params.get("grantIdentifier") in (None, g.grant_id)
        )
    ]
    return {}


def create_project_membership(store: Store, domain: Domain, params: Params) -> Response:
    project = store.project(domain, params["projectIdentifier"], not_found)
    member = params["member"]
    user = member.get("userIdentifier")
    if not user:
        raise validation("The stand-in keeps user (IAM principal) members only")
    add_member(store, domain, project, user, params["designation"])
    return {}


def list_project_memberships(store: Store, domain: Domain, params: Params) -> Response:
    project = store.project(domain, params["projectIdentifier"], not_found)
    members = sorted(domain.governance.members.get(project, {}).items())
    page, token = paginate(members, params)
    return compact(
        {
            "members": [
                {"memberDetails": {"user": {"userId": profile}}, "designation": designation}
                for profile, designation in page
            ],
            "nextToken": token,
        }
    )


def get_user_profile(store: Store, domain: Domain, params: Params) -> Response:
    identifier = params["userIdentifier"]
    profile = domain.governance.profiles.get(identifier)
    if profile is None:
        raise not_found(f"User profile {identifier} not found")
    return {
        "domainId": domain.id,
        "id": profile,
        "type": "IAM",
        "status": "ACTIVATED",
        "details": {"iam": {"arn": identifier}},
    }
