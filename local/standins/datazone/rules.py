"""Domain rules: CreateRule, GetRule, ListRules, and their enforcement when an asset is published.

A rule of type METADATA_FORM_ENFORCEMENT or GLOSSARY_TERM_ENFORCEMENT, with action CREATE_LISTING_CHANGE_SET,
requires forms (type and revision) or glossary terms of every asset its scope covers before the asset is
published ("Metadata enforcement rules for publishing", SageMaker Unified Studio user guide; CreateRule in
the API reference). A rule targets a domain unit and scopes projects and asset types (ALL or SPECIFIC).

What AWS leaves open, each a reading (local/standins/readings.py):
- the refusal's error: the API reference lists no rule-specific error for CreateListingChangeSet and the
  guides quote no message; the stand-in answers ValidationException (the asset's content does not satisfy
  a requirement) whose message names the rule (`rule_refusal_names_rule`, True) or does not (False);
- whether a glossary rule needs every one of its terms on the asset or any one (`glossary_rule_requires`).
"""

from __future__ import annotations

from typing import Any

from local.standins.datazone.records import Asset, AssetRevision, Rule
from local.standins.datazone.state import Domain, Store, paginate
from local.standins.datazone.types import find_form_type
from local.standins.datazone.wire import Params, Response, compact
from local.standins.errors import not_found, validation

PUBLISH_ACTION = "CREATE_LISTING_CHANGE_SET"
FORMS_RULE = "METADATA_FORM_ENFORCEMENT"
TERMS_RULE = "GLOSSARY_TERM_ENFORCEMENT"


def unit_chain(domain: Domain, project_id: str) -> list[str]:
    """The project's domain unit and its parents up to the root (governance.py keeps them); empty when the
    domain models no units."""
    gov = getattr(domain, "governance", None)
    if gov is None:
        return []
    unit: str | None = gov.project_units.get(project_id, gov.root_unit)
    chain: list[str] = []
    while unit is not None and unit not in chain:
        chain.append(unit)
        unit = gov.units.get(unit)
    return chain


def _check_detail(store: Store, domain: Domain, action: str, detail: dict[str, Any]) -> str:
    kinds = [key for key, value in detail.items() if value is not None]
    if len(kinds) != 1:
        raise validation(
            "detail must set exactly one of metadataFormEnforcementDetail, glossaryTermEnforcementDetail"
        )
    if kinds[0] == "metadataFormEnforcementDetail":
        forms = detail[kinds[0]].get("requiredMetadataForms") or []
        if not forms:
            raise validation(
                "metadataFormEnforcementDetail.requiredMetadataForms must name at least one form"
            )
        for form in forms:
            if find_form_type(store, domain, form["typeIdentifier"], form["typeRevision"]) is None:
                raise validation(
                    f"Form type {form['typeIdentifier']} revision {form['typeRevision']} does not exist"
                )
        return FORMS_RULE
    if action != PUBLISH_ACTION:
        raise validation(f"A glossary term rule applies to {PUBLISH_ACTION} only, not {action}")
    terms = detail[kinds[0]].get("requiredGlossaryTermIds") or []
    if not terms:
        raise validation("glossaryTermEnforcementDetail.requiredGlossaryTermIds must name at least one term")
    for term in terms:
        if term not in domain.glossary_terms:
            raise not_found(f"Glossary term {term} not found")
    return TERMS_RULE


def _check_scope(scope: dict[str, Any]) -> None:
    for part, listed in (("assetType", "specificAssetTypes"), ("project", "specificProjects")):
        selection = scope.get(part)
        if selection and selection["selectionMode"] == "SPECIFIC" and not selection.get(listed):
            raise validation(f"scope.{part}: selectionMode SPECIFIC needs {listed}")
        if selection and selection["selectionMode"] == "ALL" and selection.get(listed):
            raise validation(f"scope.{part}: selectionMode ALL takes no {listed}")


def create_rule(store: Store, domain: Domain, params: Params) -> Response:
    def produce() -> Response:
        if "domainUnitTarget" not in (params.get("target") or {}):
            raise validation("target must be a domainUnitTarget")
        _check_scope(params["scope"])
        rule_type = _check_detail(store, domain, params["action"], params["detail"])
        now = store.now()
        rule = Rule(
            id=store.new_id(),
            name=params["name"],
            rule_type=rule_type,
            target=params["target"],
            action=params["action"],
            scope=params["scope"],
            detail=params["detail"],
            description=params.get("description"),
            created_at=now,
        )
        domain.rules[rule.id] = rule
        return compact(_rule_view(rule, store.principal))

    return store.idempotent(domain, "CreateRule", params, produce)


def get_rule(store: Store, domain: Domain, params: Params) -> Response:
    rule = domain.rules.get(params["identifier"])
    if rule is None or (params.get("revision") and params["revision"] != rule.revision):
        raise not_found(f"Rule {params['identifier']} not found")
    # GetRuleOutput adds the revision and who last updated it to what CreateRuleOutput answers
    view = _rule_view(rule, store.principal)
    view.update(revision=rule.revision, updatedAt=rule.created_at, lastUpdatedBy=store.principal)
    return compact(view)


def _rule_view(rule: Rule, principal: str) -> dict[str, Any]:
    """The members CreateRuleOutput and GetRuleOutput share (botocore's datazone model)."""
    return {
        "identifier": rule.id,
        "name": rule.name,
        "ruleType": rule.rule_type,
        "target": rule.target,
        "action": rule.action,
        "scope": rule.scope,
        "detail": rule.detail,
        "targetType": "DOMAIN_UNIT",
        "description": rule.description,
        "createdAt": rule.created_at,
        "createdBy": principal,
    }


def delete_rule(store: Store, domain: Domain, params: Params) -> Response:
    if domain.rules.pop(params["identifier"], None) is None:
        raise not_found(f"Rule {params['identifier']} not found")
    return {}


def list_rules(store: Store, domain: Domain, params: Params) -> Response:
    if params["targetType"] != "DOMAIN_UNIT":
        raise validation("targetType must be DOMAIN_UNIT")
    found = []
    units = [params["targetIdentifier"]]
    gov = getattr(domain, "governance", None)
    while (
        params.get("includeCascaded") and gov is not None and gov.units.get(units[-1]) not in (None, *units)
    ):
        units.append(gov.units[units[-1]])  # the parents, whose cascading rules reach this unit
    for rule in domain.rules.values():
        if rule.domain_unit != units[0] and not (rule.domain_unit in units[1:] and rule.targets(units)):
            continue
        if params.get("ruleType") and rule.rule_type != params["ruleType"]:
            continue
        if params.get("action") and rule.action != params["action"]:
            continue
        projects = params.get("projectIds") or []
        if projects and not any(rule.takes_project(project) for project in projects):
            continue
        types = params.get("assetTypes") or []
        if types and not any(rule.takes_asset_type(name) for name in types):
            continue
        found.append(rule)
    page, token = paginate(found, params)
    items = [
        compact(
            {
                "identifier": rule.id,
                "revision": rule.revision,
                "ruleType": rule.rule_type,
                "name": rule.name,
                "targetType": "DOMAIN_UNIT",
                "target": rule.target,
                "action": rule.action,
                "scope": rule.scope,
                "updatedAt": rule.created_at,
                "lastUpdatedBy": store.principal,
            }
        )
        for rule in page
    ]
    return compact({"items": items, "nextToken": token})


def _unmet(store: Store, rule: Rule, revision: AssetRevision) -> str | None:
    """What the asset revision lacks of the rule's requirements, or None when it meets them."""
    held = tuple((form.type_name, form.type_revision) for form in revision.forms)
    return unmet_by(store, rule, tuple(revision.glossary_terms or ()), held)


def unmet_by(
    store: Store, rule: Rule, terms: tuple[str, ...], forms: tuple[tuple[str, str], ...]
) -> str | None:
    """What an entity with these glossary terms and (type, revision) forms lacks of the rule's
    requirements (an asset's revision, or a data product's), or None when it meets them."""
    if rule.rule_type == FORMS_RULE:
        missing = [
            f"{form['typeIdentifier']} revision {form['typeRevision']}"
            for form in rule.detail["metadataFormEnforcementDetail"]["requiredMetadataForms"]
            if (form["typeIdentifier"], form["typeRevision"]) not in forms
        ]
        return f"required metadata form(s) missing: {', '.join(missing)}" if missing else None
    required = rule.detail["glossaryTermEnforcementDetail"]["requiredGlossaryTermIds"]
    attached = set(terms)
    if store.reading("glossary_rule_requires") == "any":
        met = any(term in attached for term in required)
    else:
        met = all(term in attached for term in required)
    if met:
        return None
    missing = [term for term in required if term not in attached]
    return f"required glossary term(s) missing: {', '.join(missing)}"


def enforce_publish(store: Store, domain: Domain, asset: Asset, revision: AssetRevision) -> None:
    """Refuse a publish of `revision` that a rule covering the asset is not satisfied by."""
    units = unit_chain(domain, asset.owning_project_id)
    for rule in domain.rules.values():
        if rule.action != PUBLISH_ACTION or not rule.covers(asset.owning_project_id, asset.type_name, units):
            continue
        unmet = _unmet(store, rule, revision)
        if unmet is None:
            continue
        if store.reading("rule_refusal_names_rule"):
            raise validation(
                f"Asset {asset.id} revision {revision.revision} cannot be published: it does not satisfy "
                f"rule '{rule.name}' ({rule.id}) of domain unit {rule.domain_unit}: {unmet}"
            )
        raise validation("The asset does not meet the publishing requirements of its domain unit")
