"""Environments and subscription targets: CreateEnvironment, GetEnvironment, CreateSubscriptionTarget,
GetSubscriptionTarget, ListSubscriptionTargets.

An environment belongs to a project and names the account and Region its resources live in; a
subscription target of an environment names who receives the grants of the project's subscriptions
(`authorizedPrincipals`, 1 to 20 by the model), for which asset types (`applicableAssetTypes`), and the role
DataZone may use (`manageAccessRole`). A grant exists only for a target whose `applicableAssetTypes` names
the asset's type (grants.py).

Kept minimal, and what it leaves out:
- Environment profiles, blueprints and deployments are not modelled: an environment is ACTIVE as soon as it
  is created (DataZone deploys asynchronously: CREATING, then ACTIVE). Its `provider` is "Amazon DataZone".
- SageMaker Unified Studio (V2) domains create a project's environments from its project profile; the API
  refuses `environmentBlueprintIdentifier` there (the model: "This parameter is only valid for V1 domains.
  If provided for a V2 domain, the service returns a ValidationException"), which the stand-in enforces.
  Otherwise a V2 project's environment is created the same way here (the reading: one API, two origins).
"""

from __future__ import annotations

from typing import Any

from local.standins.datazone.records import Environment, SubscriptionTarget
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import not_found, validation

PROVIDER = "Amazon DataZone"


def environment_of(domain: Domain, identifier: str) -> Environment:
    environment = domain.environments.get(identifier)
    if environment is None:
        raise not_found(f"Environment {identifier} not found in domain {domain.id}")
    return environment


def target_of(domain: Domain, identifier: str, environment_id: str | None = None) -> SubscriptionTarget:
    target = domain.subscription_targets.get(identifier)
    if target is None or (environment_id is not None and target.environment_id != environment_id):
        raise not_found(f"Subscription target {identifier} not found")
    return target


def _environment_output(store: Store, domain: Domain, environment: Environment) -> Response:
    return compact(
        {
            "projectId": environment.project_id,
            "id": environment.id,
            "domainId": domain.id,
            "createdBy": store.principal,
            "createdAt": environment.created_at,
            "updatedAt": environment.created_at,
            "name": environment.name,
            "description": environment.description,
            "environmentProfileId": environment.profile_id or "",
            "awsAccountId": environment.account,
            "awsAccountRegion": environment.region,
            "provider": environment.provider,
            "status": environment.status,
            "environmentBlueprintId": environment.blueprint_id,
            "environmentConfigurationId": environment.configuration_id,
        }
    )


def new_environment(store: Store, domain: Domain, project_id: str, name: str, **given: Any) -> Environment:
    """An ACTIVE environment of the project (the Python helpers and CreateEnvironment share it)."""
    store.project(domain, project_id, not_found)
    environment = Environment(
        id=given.get("environment_id") or store.new_id(),
        project_id=project_id,
        name=name,
        description=given.get("description"),
        account=given.get("account") or store.account,
        region=given.get("region") or store.region,
        provider=PROVIDER,
        status="ACTIVE",
        created_at=store.now(),
        profile_id=given.get("profile_id"),
        blueprint_id=given.get("blueprint_id"),
        configuration_id=given.get("configuration_id"),
    )
    if environment.id in domain.environments:
        raise ValueError(f"environment {environment.id} already exists")
    domain.environments[environment.id] = environment
    return environment


def create_environment(store: Store, domain: Domain, params: Params) -> Response:
    if domain.governance.version == "V2" and params.get("environmentBlueprintIdentifier"):
        raise validation(
            "environmentBlueprintIdentifier is only valid for V1 domains; "
            f"domain {domain.id} is a SageMaker Unified Studio (V2) domain"
        )
    environment = new_environment(
        store,
        domain,
        params["projectIdentifier"],
        params["name"],
        description=params.get("description"),
        account=params.get("environmentAccountIdentifier"),
        region=params.get("environmentAccountRegion"),
        profile_id=params.get("environmentProfileIdentifier"),
        blueprint_id=params.get("environmentBlueprintIdentifier"),
        configuration_id=params.get("environmentConfigurationId"),
    )
    return _environment_output(store, domain, environment)


def get_environment(store: Store, domain: Domain, params: Params) -> Response:
    return _environment_output(store, domain, environment_of(domain, params["identifier"]))


def _target_output(store: Store, domain: Domain, target: SubscriptionTarget) -> Response:
    return compact(
        {
            "id": target.id,
            "authorizedPrincipals": list(target.authorized_principals),
            "domainId": domain.id,
            "projectId": target.project_id,
            "environmentId": target.environment_id,
            "name": target.name,
            "type": target.type,
            "createdBy": store.principal,
            "updatedBy": store.principal,
            "createdAt": target.created_at,
            "updatedAt": target.updated_at,
            "manageAccessRole": target.manage_access_role,
            "applicableAssetTypes": list(target.applicable_asset_types),
            "subscriptionTargetConfig": [dict(form) for form in target.config],
            "provider": target.provider,
            "subscriptionGrantCreationMode": target.creation_mode,
        }
    )


def create_subscription_target(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        environment = environment_of(domain, params["environmentIdentifier"])
        now = store.now()
        target = SubscriptionTarget(
            id=store.new_id(),
            environment_id=environment.id,
            project_id=environment.project_id,
            name=params["name"],
            type=params["type"],
            config=[dict(form) for form in params["subscriptionTargetConfig"]],
            authorized_principals=list(params["authorizedPrincipals"]),
            manage_access_role=params["manageAccessRole"],
            applicable_asset_types=list(params["applicableAssetTypes"]),
            provider=params.get("provider") or PROVIDER,
            creation_mode=params.get("subscriptionGrantCreationMode"),
            created_at=now,
            updated_at=now,
        )
        domain.subscription_targets[target.id] = target
        return _target_output(store, domain, target)

    return store.idempotent(domain, "CreateSubscriptionTarget", params, produce)


def get_subscription_target(store: Store, domain: Domain, params: Params) -> Response:
    environment = environment_of(domain, params["environmentIdentifier"])
    return _target_output(store, domain, target_of(domain, params["identifier"], environment.id))


def list_subscription_targets(store: Store, domain: Domain, params: Params) -> Response:
    environment = environment_of(domain, params["environmentIdentifier"])
    found = [t for t in domain.subscription_targets.values() if t.environment_id == environment.id]
    key = "updated_at" if params.get("sortBy") == "UPDATED_AT" else "created_at"
    found.sort(key=lambda t: getattr(t, key), reverse=params.get("sortOrder") == "DESCENDING")
    page, token = paginate(found, params)
    return compact({"items": [_target_output(store, domain, t) for t in page], "nextToken": token})


def targets_for(domain: Domain, project_id: str, type_names: set[str]) -> list[SubscriptionTarget]:
    """The project's subscription targets that take assets of one of these types and get grants on
    approval."""
    return [
        target
        for target in domain.subscription_targets.values()
        if target.project_id == project_id
        and type_names & set(target.applicable_asset_types)
        and target.creation_mode != "MANUAL"
        and domain.environments[target.environment_id].status == "ACTIVE"
    ]
